# Compiling models at build time and embedding the programs, for any project: a firmware's
# (mote_firmware.cmake includes this file) or a host's (find_package(Mote) includes it when the
# project is not cross-compiled). mote_firmware.cmake's header describes the functions:
# mote_compile_model, mote_select_operators, mote_add_model (and, from embed.cmake,
# mote_embed_binary). Without MOTE_CPU (a host project), mote_add_model needs CPU <cpu>.
include_guard(GLOBAL)
if(NOT MOTE_SOURCE_DIR)
  get_filename_component(MOTE_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/embed.cmake)

set(MOTE_HOST_TOOL "" CACHE FILEPATH "The host `mote` program, for mote_add_model()")
set(MOTE_PROGRAM_OPS_TOOL "" CACHE FILEPATH
    "The host mote_program_ops (beside `mote` in Mote's build); empty: the one beside MOTE_HOST_TOOL")
set(MOTE_VERIFY "full" CACHE STRING
    "How an image's runtime checks the programs it loads: full (every check of the format on the device) or crc (the programs the image was built with alone, known by their CRC-32; the host checked them at build time)")
set_property(CACHE MOTE_VERIFY PROPERTY STRINGS full crc)

# Fails at configure time unless `mode` is a MOTE_VERIFY mode; `where` names the call.
function(mote_check_verify_mode where mode)
  if(NOT mode MATCHES "^(full|crc)$")
    message(FATAL_ERROR "${where}: VERIFY ${mode}: give full (the default: every check on the "
                        "device) or crc (the image loads the programs it was built with alone)")
  endif()
endfunction()
mote_check_verify_mode("MOTE_VERIFY" "${MOTE_VERIFY}")

if(NOT MOTE_PROGRAM_OPS_TOOL AND MOTE_HOST_TOOL)
  get_filename_component(mote_host_tool_dir "${MOTE_HOST_TOOL}" DIRECTORY)
  if(EXISTS "${mote_host_tool_dir}/mote_program_ops")
    set(MOTE_PROGRAM_OPS_TOOL "${mote_host_tool_dir}/mote_program_ops")
  endif()
endif()

# Fails at configure time when `options` (for `mote compile`) names an option `mote compile` does
# not take, or one the function sets itself; the list comes from the tool's own --help, so it
# is never out of date. `where` names the call in the message.
function(mote_check_compile_options where)
  set(options ${ARGN})
  if(NOT options OR NOT EXISTS "${MOTE_HOST_TOOL}")
    return()
  endif()
  execute_process(COMMAND ${MOTE_HOST_TOOL} compile --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${where}: ${MOTE_HOST_TOOL} compile --help failed (${rc})")
  endif()
  string(REGEX MATCHALL "--[a-z][a-z0-9-]*" known "${help}")
  foreach(option ${options})
    if(NOT option MATCHES "^-")
      continue()  # a value
    endif()
    string(REGEX REPLACE "=.*" "" name "${option}")
    if(name MATCHES "^(--target|-o|--output|--emit|--name)$")
      message(FATAL_ERROR "${where}: OPTIONS ${name}: set by the function itself (CPU, NAME); "
                          "leave it out of OPTIONS")
    endif()
    if(NOT name IN_LIST known)
      message(FATAL_ERROR "${where}: OPTIONS ${name}: not an option of `mote compile` "
                          "(mote compile --help lists them)")
    endif()
  endforeach()
endfunction()

function(mote_compile_model)
  cmake_parse_arguments(M "" "OUTPUT;MODEL;CPU;ALGORITHM;OPTIMIZE;C_NAME" "OPTIONS" ${ARGN})
  if(NOT M_OUTPUT OR NOT M_MODEL)
    message(FATAL_ERROR "mote_compile_model(OUTPUT <file.mote> MODEL <file.tflite|file.onnx> ...)")
  endif()
  if(M_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mote_compile_model(${M_OUTPUT}): unknown arguments ${M_UNPARSED_ARGUMENTS} "
                        "(it takes OUTPUT, MODEL, CPU, ALGORITHM, OPTIMIZE, C_NAME and OPTIONS)")
  endif()
  if(NOT MOTE_HOST_TOOL)
    message(FATAL_ERROR "mote_compile_model: set MOTE_HOST_TOOL to the host `mote` program")
  endif()
  mote_check_compile_options("mote_compile_model(${M_OUTPUT})" ${M_OPTIONS})
  if(NOT M_CPU)
    set(M_CPU ${MOTE_CPU})
  endif()
  if(NOT M_CPU)
    message(FATAL_ERROR "mote_compile_model(${M_OUTPUT}): no CPU; give CPU <cpu> (a host project "
                        "has no MOTE_CPU)")
  endif()
  get_filename_component(model "${M_MODEL}" ABSOLUTE)
  get_filename_component(output "${M_OUTPUT}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  get_filename_component(output_dir "${output}" DIRECTORY)
  set(options --target ${M_CPU})
  if(M_ALGORITHM)
    list(APPEND options --algorithm ${M_ALGORITHM})
  endif()
  if(M_OPTIMIZE)
    if(NOT M_OPTIMIZE MATCHES "^(time|balanced|ram)$")
      message(FATAL_ERROR "mote_compile_model(${M_OUTPUT}): OPTIMIZE ${M_OPTIMIZE}: give time, "
                          "balanced (the default) or ram (mote compile --help, --optimize)")
    endif()
    list(APPEND options --optimize ${M_OPTIMIZE})
  endif()
  list(APPEND options ${M_OPTIONS})
  set(outputs ${output})
  if(M_C_NAME)
    list(APPEND options --emit mote,c --name ${M_C_NAME})
    get_filename_component(stem "${output}" NAME_WLE)
    list(APPEND outputs ${output_dir}/${stem}.c ${output_dir}/${stem}.h)
  endif()
  get_filename_component(model_name "${model}" NAME)
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${output_dir}
    COMMAND ${MOTE_HOST_TOOL} compile ${model} ${options} -o ${output}
    DEPENDS ${model} ${MOTE_HOST_TOOL}
    COMMENT "mote compile ${model_name} --target ${M_CPU}"
    VERBATIM)
endfunction()

# mote_select_operators(<target> <file.mote>): builds into <target> the operators of its programs
# and no others (mote_add_model and mote_add_runner call it for each program). At build time
# MOTE_PROGRAM_OPS_TOOL writes the kinds of all the target's programs into a header, with which
# the target compiles its own operator table (src/runtime/ops/op_table.cc). The target's objects
# come before libmote_runtime.a on the link line, so the archive's table (every operator) is never
# extracted, and with it no check, invoke or kernel of another operator.
function(mote_select_operators target program)
  if(NOT TARGET mote_runtime)
    return()
  endif()
  if(NOT MOTE_PROGRAM_OPS_TOOL)
    message(STATUS "${target}: links every operator (no MOTE_PROGRAM_OPS_TOOL)")
    return()
  endif()
  get_filename_component(program "${program}" ABSOLUTE)
  get_target_property(programs ${target} MOTE_OP_PROGRAMS)
  set_property(TARGET ${target} APPEND PROPERTY MOTE_OP_PROGRAMS ${program})
  if(programs)
    return()  # the header's rule reads the property at generation time
  endif()
  set(header ${CMAKE_CURRENT_BINARY_DIR}/mote_ops/${target}/mote_op_selection.h)
  set(all_programs "$<TARGET_PROPERTY:${target},MOTE_OP_PROGRAMS>")
  add_custom_command(
    OUTPUT ${header}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/mote_ops/${target}
    COMMAND ${MOTE_PROGRAM_OPS_TOOL} ${header} ${all_programs}
    DEPENDS ${all_programs} ${MOTE_PROGRAM_OPS_TOOL}
    COMMENT "mote_program_ops: the operators of ${target}"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  # The image's own load too: with MOTE_VERIFY crc (the target's property, else the variable) it
  # accepts the selected programs alone and links no check.
  get_target_property(verify ${target} MOTE_VERIFY)
  if(NOT verify)
    set_property(TARGET ${target} PROPERTY MOTE_VERIFY ${MOTE_VERIFY})
  endif()
  # The extension kernels' tables of specialised code, likewise (each empty on other CPUs).
  set(instance_tables ${MOTE_SOURCE_DIR}/src/kernels/mve/instance_tables.cc
      ${MOTE_SOURCE_DIR}/src/kernels/dsp/instance_tables.cc)
  target_sources(${target} PRIVATE ${MOTE_SOURCE_DIR}/src/runtime/ops/op_table.cc
                 ${MOTE_SOURCE_DIR}/src/runtime/program_load.cc ${instance_tables} ${header})
  set_property(SOURCE ${instance_tables} TARGET_DIRECTORY ${target} APPEND PROPERTY
               INCLUDE_DIRECTORIES ${MOTE_SOURCE_DIR}/src/kernels)
  target_include_directories(${target} PRIVATE ${MOTE_SOURCE_DIR}/src)
  target_compile_definitions(${target} PRIVATE MOTE_OP_SELECTION_HEADER="${header}"
    $<$<STREQUAL:$<TARGET_PROPERTY:${target},MOTE_VERIFY>,crc>:MOTE_VERIFY_CRC=1>)
  target_link_libraries(${target} PRIVATE mote_runtime)
endfunction()

function(mote_add_model target)
  cmake_parse_arguments(M "" "MODEL;CPU;ALGORITHM;OPTIMIZE;NAME;VERIFY" "OPTIONS" ${ARGN})
  if(NOT M_MODEL)
    message(FATAL_ERROR "mote_add_model(${target} MODEL <file.tflite|file.onnx> ...): no MODEL")
  endif()
  if(M_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mote_add_model(${target}): unknown arguments ${M_UNPARSED_ARGUMENTS} "
                        "(it takes MODEL, CPU, ALGORITHM, OPTIMIZE, NAME, VERIFY and OPTIONS <mote "
                        "compile options>)")
  endif()
  if(M_VERIFY)
    mote_check_verify_mode("mote_add_model(${target})" "${M_VERIFY}")
    set_property(TARGET ${target} PROPERTY MOTE_VERIFY ${M_VERIFY})
  endif()
  if(NOT M_NAME)
    get_filename_component(stem "${M_MODEL}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${stem}_program" M_NAME)
  endif()
  set(program ${CMAKE_CURRENT_BINARY_DIR}/mote_programs/${target}/${M_NAME}.mote)
  set(extra "")
  foreach(option CPU ALGORITHM OPTIMIZE)
    if(M_${option})
      list(APPEND extra ${option} ${M_${option}})
    endif()
  endforeach()
  mote_compile_model(OUTPUT ${program} MODEL ${M_MODEL} ${extra} C_NAME ${M_NAME}
                     OPTIONS ${M_OPTIONS})
  set(source ${CMAKE_CURRENT_BINARY_DIR}/mote_programs/${target}/${M_NAME}.c)
  # The pair is C and C++ alike: a project without C compiles the array as C++.
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST languages)
    set_source_files_properties(${source} PROPERTIES LANGUAGE CXX)
  endif()
  target_sources(${target} PRIVATE ${source}
                 ${CMAKE_CURRENT_BINARY_DIR}/mote_programs/${target}/${M_NAME}.h)
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/mote_programs/${target})
  mote_select_operators(${target} ${program})
endfunction()
