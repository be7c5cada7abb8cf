# The libraries that run on the device, mote_kernels and mote_runtime, defined once: the host
# build (src/kernels, src/runtime) and every firmware build (targets/cortex-m/mote_firmware.cmake)
# call these functions, each with its own compiler and flags (the toolchain file on Cortex-M).

set(MOTE_LIBRARIES_ROOT "${CMAKE_CURRENT_LIST_DIR}/..")
cmake_path(NORMAL_PATH MOTE_LIBRARIES_ROOT)

# mote_runtime_target(<target>): code that runs on the device: C++17, no exceptions, no RTTI.
function(mote_runtime_target target)
  set_target_properties(${target} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  # clang 14's -fsanitize=function (part of UBSan in sanitized and fuzz builds) needs type info,
  # which code without RTTI must not reference (runtime_heap_test checks the archives).
  target_compile_options(${target} PRIVATE -fno-exceptions -fno-rtti
                         $<$<CXX_COMPILER_ID:Clang>:-fno-sanitize=function>)
endfunction()

# The variant folders of src/kernels/ that an extension's firmware build adds to portable/, named
# like the extension (kernels::to_string(Extension)); a folder that does not exist yet adds
# nothing. Their *_scratch.cc (the size functions) go into every build, so that the host compiler
# plans for any extension; their kernels only into the builds that select the folder.
set(MOTE_KERNEL_EXTENSION_VARIANTS dsp mve)

# mote_add_kernels_library([NAME <target>] [VARIANTS <folder>...]): int8 kernels and
# scratch-size functions, as <target> (default mote_kernels), built with src/kernels/portable/ and
# the given variant folders (host: none; firmware: its extension's). Sources are globbed so that
# each operator is just a .h/.cc/_test.cc trio: include/mote/kernels/<op>.h,
# src/kernels/portable/<op>.cc, src/kernels/portable/<op>_test.cc, and optionally
# src/kernels/portable/<op>_vectors.cc (reference-vector runner, see src/kernels/testing/).
# src/kernels/<op>.cc picks an operator's variant (and its scratch), src/kernels/scratch.cc the
# rest; peers/ holds CMSIS-NN's sizes for comparison. See src/kernels/README.md.
function(mote_add_kernels_library)
  cmake_parse_arguments(K "" "NAME" "VARIANTS" ${ARGN})
  set(name mote_kernels)
  if(K_NAME)
    set(name ${K_NAME})
  endif()
  set(root ${MOTE_LIBRARIES_ROOT})
  # What every kernels library of a build has, whatever its variants: the portable kernels, the
  # peers' sizes and every variant's size functions. They do not depend on the variants chosen,
  # so a build with several kernels libraries (the host's: portable, dsp, the test variant)
  # compiles them once, as mote_kernels_common.
  file(GLOB common CONFIGURE_DEPENDS ${root}/src/kernels/portable/*.cc ${root}/src/kernels/peers/*.cc)
  foreach(variant ${MOTE_KERNEL_EXTENSION_VARIANTS})
    file(GLOB variant_sizes CONFIGURE_DEPENDS ${root}/src/kernels/${variant}/*_scratch.cc)
    list(APPEND common ${variant_sizes})
  endforeach()
  list(FILTER common EXCLUDE REGEX "_(test|vectors)\\.cc$")
  if(NOT TARGET mote_kernels_common)
    add_library(mote_kernels_common OBJECT ${common})
    mote_kernels_target(mote_kernels_common)
  endif()
  # The files that choose a variant (src/kernels/*.cc, through variant_table.h) and the variants'
  # kernels: compiled for each library.
  file(GLOB sources CONFIGURE_DEPENDS ${root}/src/kernels/*.cc)
  set(definitions "")
  foreach(variant ${K_VARIANTS})
    if(NOT IS_DIRECTORY ${root}/src/kernels/${variant})
      continue()  # no kernels for this extension yet
    endif()
    file(GLOB variant_sources CONFIGURE_DEPENDS ${root}/src/kernels/${variant}/*.cc)
    list(APPEND sources ${variant_sources})
    string(TOUPPER ${variant} upper)
    list(APPEND definitions MOTE_KERNELS_WITH_${upper}=1)
  endforeach()
  list(FILTER sources EXCLUDE REGEX "_(test|vectors)\\.cc$")
  list(REMOVE_ITEM sources ${common})  # the extensions' size functions, already in common
  add_library(${name} STATIC ${sources} $<TARGET_OBJECTS:mote_kernels_common>)
  mote_kernels_target(${name})
  target_compile_definitions(${name} PRIVATE ${definitions})
  # Every source file of the library, its shared ones too (firmware tests list them).
  set_target_properties(${name} PROPERTIES MOTE_KERNEL_SOURCES "${sources};${common}")
endfunction()

# mote_kernels_target(<target>): the include folders and flags of the kernels' sources.
function(mote_kernels_target target)
  set(root ${MOTE_LIBRARIES_ROOT})
  target_include_directories(${target} PUBLIC ${root}/include PRIVATE ${root}/src/kernels)
  mote_runtime_target(${target})
  # The kernels' inner loops are written for the compiler's loop vectoriser, which gcc runs fully
  # only at -O3 (at -O2 they stay scalar: 2.4-5x the instructions on the MLPerf Tiny layers, see
  # bench/callgrind_kernels.sh; MVE on the M55). MinSizeRel and Debug keep their own flags.
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo>:-O3>)
  # SOFTMAX (and LOG_SOFTMAX) runs once per inference on a classifier's few scores: on the
  # device, built for size (a quarter of the code, a few hundred more instructions per inference).
  if(CMAKE_CROSSCOMPILING)
    set_property(SOURCE ${root}/src/kernels/portable/softmax.cc
                 ${root}/src/kernels/portable/log_softmax.cc TARGET_DIRECTORY ${target}
                 APPEND PROPERTY COMPILE_OPTIONS $<$<CONFIG:Release,RelWithDebInfo>:-Os>)
  endif()
endfunction()

# mote_add_runtime_library([NAME <target>] [KERNELS <kernels target>]): loads and verifies a
# program in place, binds an arena, runs kernels; as <target> (default mote_runtime) on the
# kernels library given (default mote_kernels). Needs a target mote_schema (or, on the host,
# mote_schema_reader) that gives the generated schema header and flatbuffers' headers. Each operator's load-time check and invoke is
# one file in src/runtime/ops/; ops/op_table.cc, the table, holds every operator here (a firmware
# image may compile its own, see mote_firmware.cmake).
function(mote_add_runtime_library)
  cmake_parse_arguments(R "" "NAME;KERNELS" "" ${ARGN})
  set(name mote_runtime)
  if(R_NAME)
    set(name ${R_NAME})
  endif()
  set(kernels mote_kernels)
  if(R_KERNELS)
    set(kernels ${R_KERNELS})
  endif()
  # The schema's reader API: mote_schema_reader where the build also has the host's object API
  # (mote_schema there; the two headers must not meet in one file, so the reader stays private),
  # else mote_schema, which a firmware build's runner reads programs with too.
  if(TARGET mote_schema_reader)
    set(schema PRIVATE mote_schema_reader)
  else()
    set(schema PUBLIC mote_schema)
  endif()
  # The runtime's sources do not depend on the kernels library it runs: a build with several
  # runtimes (the host's: portable, dsp, the test variant) compiles them once.
  if(NOT TARGET mote_runtime_objects)
    set(dir ${MOTE_LIBRARIES_ROOT}/src/runtime)
    file(GLOB op_sources CONFIGURE_DEPENDS ${dir}/ops/*.cc)
    list(FILTER op_sources EXCLUDE REGEX "_test\\.cc$")
    add_library(mote_runtime_objects OBJECT
      ${dir}/program.cc ${dir}/program_load.cc ${dir}/plan_check.cc ${dir}/executor.cc ${dir}/operators.cc ${dir}/stages.cc ${dir}/mote_c.cc ${op_sources})
    target_include_directories(mote_runtime_objects
      PUBLIC ${MOTE_LIBRARIES_ROOT}/include
      PRIVATE ${MOTE_LIBRARIES_ROOT}/src)
    target_link_libraries(mote_runtime_objects PRIVATE ${kernels} ${schema})
    mote_runtime_target(mote_runtime_objects)
    # The loader's scans of per-channel constants, for the vectoriser as the kernels are.
    set_property(SOURCE ${dir}/ops/constant_scans.cc TARGET_DIRECTORY mote_runtime_objects
                 APPEND PROPERTY COMPILE_OPTIONS $<$<CONFIG:Release,RelWithDebInfo>:-O3>)
    # gcc 12 misreads FlatBuffers' zero-length Vector<T> objects as out-of-bounds accesses.
    target_compile_options(mote_runtime_objects PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-array-bounds>)
    # Warnings are errors only in Mote's own firmware builds (MOTE_WARNINGS_AS_ERRORS, set by
    # targets/cortex-m/cross/): the runtime_cross_compile checks rest on them. A user's firmware
    # build, with its own compiler version and warning flags, must never fail on our warnings.
    if(CMAKE_CROSSCOMPILING AND MOTE_WARNINGS_AS_ERRORS)
      target_compile_options(mote_runtime_objects PRIVATE -Werror)
    endif()
    if(MOTE_DEBUG_CHECKS)
      target_compile_definitions(mote_runtime_objects PRIVATE MOTE_DEBUG_CHECKS=1)
    endif()
    # A cross build names its CPU (MOTE_CPU, from the toolchain file), so that a program compiled
    # for another CPU is refused with both names and the --target that fixes it.
    if(CMAKE_CROSSCOMPILING AND MOTE_CPU)
      target_compile_definitions(mote_runtime_objects PRIVATE MOTE_RUNTIME_CPU="${MOTE_CPU}")
    endif()
  endif()
  add_library(${name} STATIC $<TARGET_OBJECTS:mote_runtime_objects>)
  target_include_directories(${name} PUBLIC ${MOTE_LIBRARIES_ROOT}/include)
  target_link_libraries(${name} PUBLIC ${kernels} ${schema})
  mote_runtime_target(${name})
endfunction()
