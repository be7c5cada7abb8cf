# ctest script: mote_add_model(... OPTIONS ...) passes its options to `mote compile` (the program
# in the generated header is the streamed one with --stream), and an option `mote compile` does
# not take fails at configure time, naming it.
# -DMOTE=<mote> -DSOURCE_DIR=<checkout> -DWORK_DIR=<scratch folder>
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()
function(arena_bytes header result)
  file(STRINGS ${header} line REGEX "_ARENA_BYTES ")
  string(REGEX MATCH "[0-9]+" bytes "${line}")
  set(${result} ${bytes} PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
run(${MOTE} demo --no-firmware --output-dir ${WORK_DIR})
set(model ${WORK_DIR}/demo-kws.tflite)
foreach(kind plain stream)
  set(extra "")
  if(kind STREQUAL "stream")
    set(extra --stream)
  endif()
  run(${MOTE} compile ${model} --target cortex-m4 --emit c -o ${WORK_DIR}/${kind}.c ${extra})
  arena_bytes(${WORK_DIR}/${kind}.h ${kind}_arena)
endforeach()
if(NOT stream_arena LESS plain_arena)
  message(FATAL_ERROR "--stream gives no smaller arena (${stream_arena} vs ${plain_arena}): the test means nothing")
endif()

run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/model_options -B ${WORK_DIR}/app -G Ninja
    -DMOTE_SOURCE_DIR=${SOURCE_DIR} -DMOTE_HOST_TOOL=${MOTE} -DMODEL=${model}
    "-DMODEL_OPTIONS=--stream|--time-limit-ms|200")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/app)
arena_bytes(${WORK_DIR}/app/mote_programs/app/kws_program.h app_arena)
if(NOT app_arena EQUAL stream_arena)
  message(FATAL_ERROR "mote_add_model(... OPTIONS --stream): arena ${app_arena}, the streamed "
                      "program has ${stream_arena} (plain ${plain_arena})")
endif()

foreach(bad "--strem" "--target|cortex-m55")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/model_options
                          -B ${WORK_DIR}/bad -G Ninja -DMOTE_SOURCE_DIR=${SOURCE_DIR}
                          -DMOTE_HOST_TOOL=${MOTE} -DMODEL=${model} "-DMODEL_OPTIONS=${bad}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[|].*" "" name "${bad}")
  if(rc EQUAL 0 OR NOT err MATCHES "OPTIONS ${name}:")
    message(FATAL_ERROR "OPTIONS ${bad} was not refused at configure time (${rc}):\n${err}")
  endif()
  file(REMOVE_RECURSE ${WORK_DIR}/bad)
endforeach()
message(STATUS "mote_add_model OPTIONS: streamed arena ${app_arena} (plain ${plain_arena}); bad options refused")
