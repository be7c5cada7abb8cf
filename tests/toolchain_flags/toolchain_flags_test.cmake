# ctest script: configures and builds tests/toolchain_flags/ with Mote's arm-none-eabi toolchain
# file for the cortex-m4 and a user's own -DCMAKE_C_FLAGS / -DCMAKE_CXX_FLAGS, then reconfigures;
# the sources compile only if the toolchain's CPU flags survived both.
# Variables: SOURCE_DIR (Mote's), WORK_DIR.
include(${CMAKE_CURRENT_LIST_DIR}/../run_command.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/toolchain_flags -B ${WORK_DIR}
    -DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/targets/cortex-m/toolchain-arm-none-eabi.cmake
    -DMOTE_CPU=cortex-m4 "-DCMAKE_C_FLAGS=-Wshadow -O1" "-DCMAKE_CXX_FLAGS=-Wshadow -O1")
run(${CMAKE_COMMAND} --build ${WORK_DIR})
# Reconfiguring must not add the CPU flags a second time.
run(${CMAKE_COMMAND} ${WORK_DIR})
file(STRINGS ${WORK_DIR}/CMakeCache.txt line REGEX "^CMAKE_CXX_FLAGS:")
string(REGEX MATCHALL "-mcpu=" mcpu "${line}")
list(LENGTH mcpu count)
if(NOT count EQUAL 1 OR NOT line MATCHES "-Wshadow -O1$")
  message(FATAL_ERROR "CMAKE_CXX_FLAGS after reconfiguring: ${line}")
endif()
message(STATUS "a user's CMAKE_C_FLAGS / CMAKE_CXX_FLAGS keep the toolchain's cortex-m4 flags")
