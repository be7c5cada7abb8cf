# ctest script: compiles the runtime's sources with arm-none-eabi-g++ for one Cortex-M CPU
# (C++17, no exceptions, no RTTI, warnings as errors, with -Wshadow as users may build with it) and fails if the objects reference the heap
# or exceptions. Variables: CXX, NM, CPU, SOURCE_DIR, SCHEMA_DIR, FLATBUFFERS_DIR, WORK_DIR; or
# LIBRARY and NM: the runtime library a firmware build already compiled for the CPU (with the same
# flags and warnings as errors, cmake/mote_libraries.cmake), whose objects are checked instead of
# compiling the sources again.
set(objects)
if(DEFINED LIBRARY)
  if(NOT EXISTS ${LIBRARY})
    message(FATAL_ERROR "no runtime library ${LIBRARY}: build the firmware first")
  endif()
  set(objects ${LIBRARY})
else()
  file(MAKE_DIRECTORY ${WORK_DIR}/include)
  # Only FlatBuffers' headers, not the host's whole /usr/include.
  if(NOT EXISTS ${WORK_DIR}/include/flatbuffers)
    file(CREATE_LINK ${FLATBUFFERS_DIR}/flatbuffers ${WORK_DIR}/include/flatbuffers SYMBOLIC)
  endif()
  file(GLOB sources ${SOURCE_DIR}/src/runtime/*.cc ${SOURCE_DIR}/src/runtime/ops/*.cc)
  list(FILTER sources EXCLUDE REGEX "_test\\.cc$")
  foreach(source ${sources})
    get_filename_component(name ${source} NAME_WE)
    set(object ${WORK_DIR}/${name}-${CPU}.o)
    execute_process(
      COMMAND ${CXX} -std=c++17 -fno-exceptions -fno-rtti -Os -mcpu=${CPU} -mthumb
              -Wall -Wextra -Wshadow -Werror -Wno-unused-parameter -Wno-array-bounds
              -I${SOURCE_DIR}/include -I${SOURCE_DIR}/src -I${SCHEMA_DIR} -isystem ${WORK_DIR}/include
              -c ${source} -o ${object}
      RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${name}.cc does not compile for ${CPU}")
    endif()
    list(APPEND objects ${object})
  endforeach()
endif()
execute_process(COMMAND ${NM} -u ${objects} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed")
endif()
string(REGEX MATCHALL "[ \t]U ([A-Za-z0-9_]+)" refs "${undefined}")
foreach(ref ${refs})
  string(REGEX REPLACE "^[ \t]U " "" symbol "${ref}")
  if(symbol MATCHES "^(malloc|free|calloc|realloc|_Znw.*|_Zna.*|_Zdl.*|_Zda.*|__cxa_.*|__gxx_personality.*|_Unwind_.*|_ZTI.*|printf|puts)$")
    message(FATAL_ERROR "the runtime for ${CPU} references ${symbol}")
  endif()
endforeach()
message(STATUS "the runtime for ${CPU} has no heap or exception references")
