# Cortex-M firmware with Mote, for a project configured with toolchain-arm-none-eabi.cmake
# (which sets MOTE_CPU). `include(<mote>/targets/cortex-m/mote_firmware.cmake)` gives:
#
#   mote_startup     OBJECT library: vector table, Reset_Handler, fault handlers (platform/startup.cc)
#   mote_platform    semihosting, console, board queries, instruction counter (platform/)
#   mote_kernels     the kernels, built for MOTE_CPU     } as the host build defines them
#   mote_runtime     the runtime, built for MOTE_CPU     } (cmake/mote_libraries.cmake); no
#                    mote_runtime when MOTE_FIRMWARE_WITH_RUNTIME is OFF
#
#   mote_add_firmware(<target> SOURCES <src>... [LIBS <lib>...] [STACK_SIZE <bytes>])
#       an executable <target>.elf for the board of MOTE_CPU, with startup, linker script and a
#       map file <target>.map beside it.
#   mote_add_firmware_test(<name> FIRMWARE <target> [ARGS <arg>...] [EXPECT_EXIT <status>]
#                          [EXPECT_OUTPUT <ere>...] [ICOUNT] [TIMEOUT <seconds>]
#                          [LABELS <label>...])
#       a ctest test `firmware.<cpu>.<name>` (label qemu) that runs the image with run-qemu.sh:
#       it passes when the exit status is EXPECT_EXIT (default 0) and every EXPECT_OUTPUT
#       extended regular expression matches a line of the output.
#   (mote_model.cmake, which host projects include through find_package(Mote):)
#   mote_compile_model(OUTPUT <file.mote> MODEL <file.tflite> [CPU <cpu>] [ALGORITHM <a>]
#                      [OPTIMIZE time|balanced|ram] [C_NAME <symbol>]
#                      [OPTIONS <mote compile options>...])
#       a build rule: `${MOTE_HOST_TOOL} compile` (the host `mote`), rerun when the model or the
#       tool changes. OPTIMIZE is `--optimize` (default balanced: a smaller arena where it costs
#       at most 5 % more instructions; ram: the smallest; time: the fastest). C_NAME also writes
#       the C pair beside OUTPUT (`--emit mote,c --name`).
#       OPTIONS go to `mote compile` as they are (--stream, --no-in-place, ...); one it does not
#       take, or one the function sets (--target, -o, --emit, --name), fails at configure time.
#   mote_add_model(<target> MODEL <file.tflite> [CPU <cpu>] [ALGORITHM <a>]
#                  [OPTIMIZE time|balanced|ram] [NAME <symbol>] [VERIFY full|crc]
#                  [OPTIONS <mote compile options>...])
#       compiles the model at build time (mote_compile_model) and links the program into
#       <target> as a 16-byte aligned const array, from C or C++: `#include "<symbol>.h"`
#       (`mote compile --emit c`) declares <symbol>[] and defines <SYMBOL>_BYTES,
#       <SYMBOL>_ARENA_BYTES, <SYMBOL>_ARENA_ALIGN, <SYMBOL>_INPUT<i>_BYTES, ... and
#       <symbol>_size (default symbol: <model file stem>_program).
#       <target>'s runtime builds in the program's operators alone (mote_select_operators).
#       VERIFY (default: the MOTE_VERIFY variable, full) is how <target>'s Program::load checks
#       a program: full runs every check of the format on the device; crc accepts the programs
#       <target> was built with alone, known by their size and CRC-32 (mote_program_ops checked
#       each with the full check on the host), and links none of the checks: less code and a
#       faster load, for programs in flash that only a new image changes. The CRC covers what
#       the full check reads, all but the constants; with `--checksum` (OPTIONS) every byte.
#   mote_add_runner(<target> (PROGRAM <file.mote> | MODEL <file.tflite> [ALGORITHM <a>])
#                   INPUT <file> [EXPECTED <file>] [REFERENCE <file>] [ADAPTER <dir>]
#                   [STACK_SIZE <bytes>] [VERIFY full|crc] [LIBS <lib>...]
#                   [OPERATORS_FROM <file.mote>...])
#       the firmware runner (runner/runner_main.cc) for one program and input; EXPECTED and
#       REFERENCE make it compare the outputs with those bytes. ADAPTER is the folder of
#       runner_adapter.h (default runner/runtime: Mote's runtime). The runtime builds in the
#       operators of PROGRAM (or MODEL), or of the OPERATORS_FROM programs instead. VERIFY as for
#       mote_add_model.
#   mote_select_operators(<target> <file.mote>)
#       builds into <target> the operators and forms of the programs given this way (one call
#       each) and no others, and its own Program::load (VERIFY); mote_add_model and
#       mote_add_runner call it. Needs MOTE_PROGRAM_OPS_TOOL; without
#       it an image links every operator.
#   mote_embed_binary(<target> INPUT <file> NAME <symbol>)            (embed.cmake)

cmake_minimum_required(VERSION 3.25)

if(NOT MOTE_CPU)
  message(FATAL_ERROR "mote_firmware.cmake: configure with toolchain-arm-none-eabi.cmake (MOTE_CPU)")
endif()

set(MOTE_CORTEX_M_DIR "${CMAKE_CURRENT_LIST_DIR}")
get_filename_component(mote_default_source_dir "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(MOTE_SOURCE_DIR "${mote_default_source_dir}" CACHE PATH "Mote's source tree")
option(MOTE_FIRMWARE_WITH_RUNTIME "Build the runtime (mote_runtime) for the target" ON)
set(MOTE_SCHEMA_INCLUDE_DIR "" CACHE PATH
    "Folder holding mote/schema/mote_generated.h, the reader API (the host build's <build>/schema/reader); empty: run flatc here")

include(${MOTE_CORTEX_M_DIR}/cmake/boards.cmake)
# MOTE_HOST_TOOL, MOTE_PROGRAM_OPS_TOOL, embed.cmake, mote_compile_model, mote_select_operators,
# mote_add_model: for any project, a firmware's or a host's (find_package(Mote)).
include(${MOTE_CORTEX_M_DIR}/mote_model.cmake)
mote_cortex_m_cpu(${MOTE_CPU} mote_cpu)
set(MOTE_BOARD ${mote_cpu_BOARD})
set(MOTE_EXTENSION ${mote_cpu_EXTENSION})
set(MOTE_RUN_QEMU ${MOTE_CORTEX_M_DIR}/run-qemu.sh)

# Embeddable C++17 everywhere on the target (the toolchain file already turns off exceptions/RTTI).
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
add_compile_options(-Wall -Wextra -Wno-unused-parameter)
# $<LINK_LIBRARY:WHOLE_ARCHIVE,lib> (link every object of a library), which CMake defines only for
# hosted platforms.
set(CMAKE_LINK_LIBRARY_USING_WHOLE_ARCHIVE
    "LINKER:--push-state,--whole-archive" "<LINK_ITEM>" "LINKER:--pop-state")
set(CMAKE_LINK_LIBRARY_USING_WHOLE_ARCHIVE_SUPPORTED TRUE)

# --- platform -----------------------------------------------------------------------------------
set(mote_platform_definitions
  MOTE_BOARD="${MOTE_BOARD}" MOTE_CPU_NAME="${MOTE_CPU}" MOTE_SYSTICK_HZ=${mote_cpu_SYSTICK_HZ}u)
add_library(mote_startup OBJECT ${MOTE_CORTEX_M_DIR}/platform/startup.cc)
target_include_directories(mote_startup PRIVATE ${MOTE_CORTEX_M_DIR})
target_compile_definitions(mote_startup PRIVATE ${mote_platform_definitions})

add_library(mote_platform STATIC
  ${MOTE_CORTEX_M_DIR}/platform/board.cc
  ${MOTE_CORTEX_M_DIR}/platform/console.cc
  ${MOTE_CORTEX_M_DIR}/platform/cycles.cc
  ${MOTE_CORTEX_M_DIR}/platform/semihosting.cc)
target_include_directories(mote_platform PUBLIC ${MOTE_CORTEX_M_DIR} ${MOTE_SOURCE_DIR}/include)
target_compile_definitions(mote_platform PRIVATE ${mote_platform_definitions})

# --- kernels and runtime: the host build's definitions (cmake/mote_libraries.cmake) ------------
include(${MOTE_SOURCE_DIR}/cmake/mote_libraries.cmake)
# The kernels of this CPU's extension folder (src/kernels/dsp/, mve/) where it exists, over portable/.
mote_add_kernels_library(VARIANTS ${MOTE_EXTENSION})
# Each kernel source's presence is also a definition, MOTE_KERNEL_SOURCE_<NAME>, so that target
# tests can cover whatever kernels exist.
get_target_property(mote_kernel_sources mote_kernels MOTE_KERNEL_SOURCES)
set(mote_kernel_definitions "")
foreach(source ${mote_kernel_sources})
  get_filename_component(stem ${source} NAME_WE)
  string(TOUPPER ${stem} stem)
  string(MAKE_C_IDENTIFIER ${stem} stem)
  list(APPEND mote_kernel_definitions MOTE_KERNEL_SOURCE_${stem}=1)
endforeach()
target_compile_definitions(mote_kernels INTERFACE ${mote_kernel_definitions})

if(MOTE_FIRMWARE_WITH_RUNTIME)
  # mote_schema as the host build defines it (schema/CMakeLists.txt): the schema header (from the
  # host build, or generated here with flatc), and flatbuffers' headers alone (not the host's
  # whole /usr/include, whose libc headers would shadow newlib's).
  # An installed kit carries them beside the schema header (cmake/mote_install.cmake).
  set(flatbuffers_default "/usr/include/flatbuffers")
  if(MOTE_SCHEMA_INCLUDE_DIR AND EXISTS "${MOTE_SCHEMA_INCLUDE_DIR}/flatbuffers/flatbuffers.h")
    set(flatbuffers_default "${MOTE_SCHEMA_INCLUDE_DIR}/flatbuffers")
  endif()
  set(MOTE_FLATBUFFERS_INCLUDE_DIR "${flatbuffers_default}" CACHE PATH "flatbuffers' headers")
  set(flatbuffers_root ${CMAKE_BINARY_DIR}/flatbuffers-include)
  file(MAKE_DIRECTORY ${flatbuffers_root})
  if(NOT EXISTS ${flatbuffers_root}/flatbuffers)
    file(CREATE_LINK ${MOTE_FLATBUFFERS_INCLUDE_DIR} ${flatbuffers_root}/flatbuffers SYMBOLIC)
  endif()
  add_library(mote_schema INTERFACE)
  set(schema_include_dir ${MOTE_SCHEMA_INCLUDE_DIR})
  if(NOT schema_include_dir)
    # A project of its own (not built from Mote's host build): generate the header the way
    # schema/CMakeLists.txt does for the runtime (the reader API alone, no object API).
    find_program(MOTE_FLATC flatc REQUIRED)
    set(schema_include_dir ${CMAKE_BINARY_DIR}/schema)
    set(schema_header ${schema_include_dir}/mote/schema/mote_generated.h)
    add_custom_command(
      OUTPUT ${schema_header}
      COMMAND ${MOTE_FLATC} --cpp --gen-mutable --scoped-enums --cpp-std c++17
              -o ${schema_include_dir}/mote/schema ${MOTE_SOURCE_DIR}/schema/mote.fbs
      DEPENDS ${MOTE_SOURCE_DIR}/schema/mote.fbs
      COMMENT "flatc: schema/mote.fbs"
      VERBATIM)
    add_custom_target(mote_schema_generate DEPENDS ${schema_header})
    add_dependencies(mote_schema mote_schema_generate)
  endif()
  target_include_directories(mote_schema INTERFACE ${schema_include_dir} ${flatbuffers_root})
  # gcc 12 misreads FlatBuffers' zero-length Vector<T> objects as out-of-bounds accesses, in
  # every file that reads a program (the runner too).
  target_compile_options(mote_schema INTERFACE -Wno-array-bounds)
  mote_add_runtime_library()
endif()

# --- firmware -----------------------------------------------------------------------------------
function(mote_add_firmware target)
  cmake_parse_arguments(F "" "STACK_SIZE" "SOURCES;LIBS" ${ARGN})
  if(NOT F_SOURCES)
    message(FATAL_ERROR "mote_add_firmware(${target} SOURCES ...): no sources")
  endif()
  set(ld_dir ${MOTE_CORTEX_M_DIR}/ld)
  add_executable(${target} ${F_SOURCES} $<TARGET_OBJECTS:mote_startup>)
  target_link_libraries(${target} PRIVATE ${F_LIBS} mote_platform)
  target_link_options(${target} PRIVATE
    -nostartfiles -T${ld_dir}/${MOTE_BOARD}.ld -L${ld_dir}
    -Wl,-Map=${CMAKE_CURRENT_BINARY_DIR}/${target}.map)
  if(F_STACK_SIZE)
    target_link_options(${target} PRIVATE -Wl,--defsym=__stack_size__=${F_STACK_SIZE})
  endif()
  set_target_properties(${target} PROPERTIES
    LINK_DEPENDS "${ld_dir}/${MOTE_BOARD}.ld;${ld_dir}/common.ld")
endfunction()

function(mote_add_firmware_test name)
  cmake_parse_arguments(T "ICOUNT" "FIRMWARE;EXPECT_EXIT;TIMEOUT" "ARGS;EXPECT_OUTPUT;LABELS" ${ARGN})
  if(NOT T_FIRMWARE)
    message(FATAL_ERROR "mote_add_firmware_test(${name} FIRMWARE <target> ...)")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  set(options --timeout ${T_TIMEOUT})
  if(T_ICOUNT)
    list(APPEND options --icount)
  endif()
  if(DEFINED T_EXPECT_EXIT)
    list(APPEND options --expect-exit ${T_EXPECT_EXIT})
  endif()
  foreach(re ${T_EXPECT_OUTPUT})
    list(APPEND options --expect-output ${re})
  endforeach()
  set(test firmware.${MOTE_CPU}.${name})
  add_test(NAME ${test}
           COMMAND ${MOTE_RUN_QEMU} ${options} ${MOTE_BOARD} $<TARGET_FILE:${T_FIRMWARE}> ${T_ARGS})
  math(EXPR ctest_timeout "${T_TIMEOUT} + 15")
  set_tests_properties(${test} PROPERTIES LABELS "qemu;${T_LABELS}" TIMEOUT ${ctest_timeout})
endfunction()


function(mote_add_runner target)
  cmake_parse_arguments(R "" "PROGRAM;MODEL;ALGORITHM;INPUT;EXPECTED;REFERENCE;ADAPTER;STACK_SIZE;VERIFY"
                        "LIBS;OPERATORS_FROM" ${ARGN})
  if(NOT R_INPUT OR (NOT R_PROGRAM AND NOT R_MODEL))
    message(FATAL_ERROR "mote_add_runner(${target} PROGRAM <file.mote> | MODEL <file.tflite> INPUT <file> ...)")
  endif()
  set(runs_mote_runtime OFF)
  if(NOT R_ADAPTER)
    set(runs_mote_runtime ON)
    if(NOT TARGET mote_runtime)
      message(FATAL_ERROR "mote_add_runner(${target}): the runtime adapter needs MOTE_FIRMWARE_WITH_RUNTIME=ON")
    endif()
    set(R_ADAPTER ${MOTE_CORTEX_M_DIR}/runner/runtime)
    list(APPEND R_LIBS mote_runtime)
  endif()
  file(GLOB adapter_sources CONFIGURE_DEPENDS ${R_ADAPTER}/*.cc)
  set(stack "")
  if(R_STACK_SIZE)
    set(stack STACK_SIZE ${R_STACK_SIZE})
  endif()
  mote_add_firmware(${target} SOURCES ${MOTE_CORTEX_M_DIR}/runner/runner_main.cc ${adapter_sources}
                    LIBS ${R_LIBS} ${stack})
  target_include_directories(${target} PRIVATE ${R_ADAPTER})
  if(R_VERIFY)
    mote_check_verify_mode("mote_add_runner(${target})" "${R_VERIFY}")
    set_property(TARGET ${target} PROPERTY MOTE_VERIFY ${R_VERIFY})
  endif()
  if(R_MODEL)
    set(algorithm "")
    if(R_ALGORITHM)
      set(algorithm ALGORITHM ${R_ALGORITHM})
    endif()
    mote_add_model(${target} MODEL ${R_MODEL} NAME mote_program ${algorithm})
    get_filename_component(name "${R_MODEL}" NAME_WE)
  else()
    mote_embed_binary(${target} INPUT ${R_PROGRAM} NAME mote_program)
    if(runs_mote_runtime AND NOT R_OPERATORS_FROM)
      mote_select_operators(${target} ${R_PROGRAM})
    endif()
    get_filename_component(name "${R_PROGRAM}" NAME_WE)
  endif()
  foreach(program ${R_OPERATORS_FROM})
    mote_select_operators(${target} ${program})
  endforeach()
  mote_embed_binary(${target} INPUT ${R_INPUT} NAME mote_input)
  if(R_EXPECTED)
    mote_embed_binary(${target} INPUT ${R_EXPECTED} NAME mote_expected)
    target_compile_definitions(${target} PRIVATE MOTE_RUNNER_HAS_EXPECTED=1)
  endif()
  if(R_REFERENCE)
    mote_embed_binary(${target} INPUT ${R_REFERENCE} NAME mote_reference)
    target_compile_definitions(${target} PRIVATE MOTE_RUNNER_HAS_REFERENCE=1)
  endif()
  target_compile_definitions(${target} PRIVATE MOTE_RUNNER_NAME="${name}")
endfunction()
