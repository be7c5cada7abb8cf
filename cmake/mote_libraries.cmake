# The libraries that run on the device, mote_kernels and mote_runtime, defined once: the host
# build (src/kernels, src/runtime) and every firmware build (targets/cortex-m/mote_firmware.cmake)
# call these functions, each with its own compiler and flags (the toolchain file on Cortex-M).

set(MOTE_LIBRARIES_ROOT "${CMAKE_CURRENT_LIST_DIR}/..")
cmake_path(NORMAL_PATH MOTE_LIBRARIES_ROOT)

# mote_runtime_target(<target>): code that runs on the device: C++17, no exceptions, no RTTI.
function(mote_runtime_target target)
  set_target_properties(${target} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_compile_options(${target} PRIVATE -fno-exceptions -fno-rtti)
endfunction()

# mote_kernels: int8 kernels and scratch-size functions. Sources are globbed so that each
# operator is just a .h/.cc/_test.cc trio: include/mote/kernels/<op>.h,
# src/kernels/portable/<op>.cc, src/kernels/portable/<op>_test.cc, and optionally
# src/kernels/portable/<op>_vectors.cc (reference-vector runner, see src/kernels/testing/).
# src/kernels/scratch.cc picks the variant (and its scratch) per extension; peers/ holds
# CMSIS-NN's sizes for comparison.
function(mote_add_kernels_library)
  set(root ${MOTE_LIBRARIES_ROOT})
  file(GLOB sources CONFIGURE_DEPENDS ${root}/src/kernels/portable/*.cc
       ${root}/src/kernels/peers/*.cc)
  list(APPEND sources ${root}/src/kernels/scratch.cc)
  list(FILTER sources EXCLUDE REGEX "_(test|vectors)\\.cc$")
  add_library(mote_kernels STATIC ${sources})
  target_include_directories(mote_kernels PUBLIC ${root}/include)
  mote_runtime_target(mote_kernels)
  # The kernels' inner loops are written for the compiler's loop vectoriser, which gcc runs fully
  # only at -O3 (at -O2 they stay scalar: 2.4-5x the instructions on the MLPerf Tiny layers, see
  # bench/callgrind_kernels.sh; MVE on the M55). MinSizeRel and Debug keep their own flags.
  target_compile_options(mote_kernels PRIVATE $<$<CONFIG:Release,RelWithDebInfo>:-O3>)
endfunction()

# mote_runtime: loads and verifies a program in place, binds an arena, runs kernels. Needs a
# target mote_schema that gives the generated schema header and flatbuffers' headers. Each
# operator's load-time check and invoke is one file in src/runtime/ops/; ops/op_table.cc, the
# table, holds every operator here (a firmware image may compile its own, see
# mote_firmware.cmake).
function(mote_add_runtime_library)
  set(dir ${MOTE_LIBRARIES_ROOT}/src/runtime)
  file(GLOB op_sources CONFIGURE_DEPENDS ${dir}/ops/*.cc)
  list(FILTER op_sources EXCLUDE REGEX "_test\\.cc$")
  add_library(mote_runtime STATIC
    ${dir}/program.cc ${dir}/executor.cc ${dir}/operators.cc ${op_sources})
  target_include_directories(mote_runtime
    PUBLIC ${MOTE_LIBRARIES_ROOT}/include
    PRIVATE ${MOTE_LIBRARIES_ROOT}/src)
  target_link_libraries(mote_runtime PUBLIC mote_kernels mote_schema)
  mote_runtime_target(mote_runtime)
  # gcc 12 misreads FlatBuffers' zero-length Vector<T> objects as out-of-bounds accesses.
  target_compile_options(mote_runtime PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-array-bounds>)
  if(MOTE_DEBUG_CHECKS)
    target_compile_definitions(mote_runtime PRIVATE MOTE_DEBUG_CHECKS=1)
  endif()
endfunction()
