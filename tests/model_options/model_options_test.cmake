# ctest script: mote_add_model(... OPTIMIZE ... OPTIONS ...) passes its preset and options to
# `mote compile` (the program in the generated header is time's, not the default balanced one's),
# and an option `mote compile` does not take, a preset it does not know, or a MOTE_VERIFY mode that
# does not exist, fails at configure time, naming it.
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
foreach(preset time default)
  set(extra "")
  if(preset STREQUAL "time")
    set(extra --optimize time)
  endif()
  run(${MOTE} compile ${model} --target cortex-m4 --emit c -o ${WORK_DIR}/${preset}.c ${extra})
  arena_bytes(${WORK_DIR}/${preset}.h ${preset}_arena)
endforeach()
if(NOT default_arena LESS time_arena)
  message(FATAL_ERROR "the default preset gives no smaller arena than time (${default_arena} vs "
                      "${time_arena}): the test means nothing")
endif()

run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/model_options -B ${WORK_DIR}/app -G Ninja
    -DMOTE_SOURCE_DIR=${SOURCE_DIR} -DMOTE_HOST_TOOL=${MOTE} -DMODEL=${model}
    -DMODEL_OPTIMIZE=time "-DMODEL_OPTIONS=--time-limit-ms|200")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/app)
arena_bytes(${WORK_DIR}/app/mote_programs/app/kws_program.h app_arena)
if(NOT app_arena EQUAL time_arena)
  message(FATAL_ERROR "mote_add_model(... OPTIMIZE time): arena ${app_arena}, time's program has "
                      "${time_arena} (default ${default_arena})")
endif()

foreach(bad "OPTIONS --strem" "OPTIONS --target|cortex-m55" "OPTIMIZE fast" "VERIFY none")
  string(REGEX MATCH "^[A-Z]+" keyword "${bad}")
  string(REGEX REPLACE "^[A-Z]+ " "" value "${bad}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/model_options
                          -B ${WORK_DIR}/bad -G Ninja -DMOTE_SOURCE_DIR=${SOURCE_DIR}
                          -DMOTE_HOST_TOOL=${MOTE} -DMODEL=${model} "-DMODEL_${keyword}=${value}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[|].*" "" name "${value}")
  if(rc EQUAL 0 OR NOT err MATCHES "${keyword} ${name}:")
    message(FATAL_ERROR "${keyword} ${value} was not refused at configure time (${rc}):\n${err}")
  endif()
  file(REMOVE_RECURSE ${WORK_DIR}/bad)
endforeach()
message(STATUS "mote_add_model OPTIMIZE time: arena ${app_arena} (default ${default_arena}); "
               "bad options, presets and verify modes refused")
