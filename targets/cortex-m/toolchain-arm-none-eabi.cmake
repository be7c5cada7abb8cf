# CMake toolchain file for bare-metal Cortex-M with Debian's gcc-arm-none-eabi and newlib-nano.
#   cmake -S <project> -B <build> -DCMAKE_TOOLCHAIN_FILE=<mote>/targets/cortex-m/toolchain-arm-none-eabi.cmake \
#         -DMOTE_CPU=cortex-m55
# MOTE_CPU picks the compiler flags (see cmake/boards.cmake); the board's linker script and startup
# come from mote_add_firmware() in mote_firmware.cmake, so this file also suits other projects.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(MOTE_CPU "cortex-m55" CACHE STRING "Cortex-M CPU to build for")
# try_compile() projects re-read this file; hand them the CPU too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES MOTE_CPU)
# Static-library try_compile: nothing can link without a startup file and a linker script.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

find_program(MOTE_ARM_GCC arm-none-eabi-gcc REQUIRED)
find_program(MOTE_ARM_GXX arm-none-eabi-g++ REQUIRED)
set(CMAKE_C_COMPILER ${MOTE_ARM_GCC})
set(CMAKE_CXX_COMPILER ${MOTE_ARM_GXX})
set(CMAKE_ASM_COMPILER ${MOTE_ARM_GCC})
set(CMAKE_EXECUTABLE_SUFFIX_C .elf)
set(CMAKE_EXECUTABLE_SUFFIX_CXX .elf)
set(CMAKE_EXECUTABLE_SUFFIX_ASM .elf)

include(${CMAKE_CURRENT_LIST_DIR}/cmake/boards.cmake)
mote_cortex_m_cpu(${MOTE_CPU} mote_toolchain)
list(JOIN mote_toolchain_FLAGS " " mote_cpu_flags)

# Sections per function and object so the linker drops what is unused; no exceptions, RTTI or
# thread-safe statics (they would pull in unwinding tables, typeinfo and locks).
set(CMAKE_C_FLAGS_INIT "${mote_cpu_flags} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT
    "${mote_cpu_flags} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
set(CMAKE_ASM_FLAGS_INIT "${mote_cpu_flags}")
# -O2 rather than CMake's -O3: what firmware usually ships, and instruction counts depend on it.
# Cache entries, because CMake appends its own defaults (-O3 for Release) to the *_INIT values
# and gcc obeys the last -O. mote_firmware.cmake builds the kernels at -O3, as the host does.
foreach(lang C CXX ASM)
  set(CMAKE_${lang}_FLAGS_RELEASE "-O2 -DNDEBUG" CACHE STRING "Release flags (Mote firmware)")
  set(CMAKE_${lang}_FLAGS_RELWITHDEBINFO "-O2 -g -DNDEBUG" CACHE STRING
      "RelWithDebInfo flags (Mote firmware)")
  set(CMAKE_${lang}_FLAGS_MINSIZEREL "-Os -DNDEBUG" CACHE STRING "MinSizeRel flags (Mote firmware)")
endforeach()
# newlib-nano for the few libc functions the compiler calls (memcpy, memset); no stdio, no heap.
set(CMAKE_EXE_LINKER_FLAGS_INIT "${mote_cpu_flags} --specs=nano.specs -Wl,--gc-sections")
# A user's -DCMAKE_<LANG>_FLAGS=... replaces the *_INIT values above; they must survive it
# (without the CPU flags the code is built for no particular core and the kernels chosen for the
# CPU do not compile; without -fno-use-cxa-atexit the link needs __dso_handle), so they are put
# in front of the user's flags once.
foreach(var CMAKE_C_FLAGS CMAKE_CXX_FLAGS CMAKE_ASM_FLAGS CMAKE_EXE_LINKER_FLAGS)
  if(DEFINED CACHE{${var}})
    string(FIND " $CACHE{${var}} " " ${${var}_INIT} " at)
    if(at EQUAL -1)
      get_property(help CACHE ${var} PROPERTY HELPSTRING)
      set(${var} "${${var}_INIT} $CACHE{${var}}" CACHE STRING "${help}" FORCE)
    endif()
  endif()
endforeach()

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
