# ctest script (label install): `cmake --install` into a fresh prefix, then separate projects that
# find Mote there: app/ builds a Cortex-M firmware from a builder model, which QEMU runs, and
# host_app/ a host program from the same model; the outputs of both must equal the installed
# `mote run`'s. The installed `mote validate`, `analyze --measure` and `demo` run the installed
# runner images on QEMU. The firmware is configured with the user's own -Wshadow in CMAKE_C_FLAGS and
# CMAKE_CXX_FLAGS, which must neither drop the toolchain's CPU flags nor meet a -Werror of ours.
# Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, CPU, BOARD, WRITE_BUILDER_MODEL.
include(${CMAKE_CURRENT_LIST_DIR}/../run_command.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(file bin/mote bin/mote_program_ops lib/cmake/Mote/MoteConfig.cmake
             share/mote/include/mote/runtime/mote.h share/mote/targets/cortex-m/mote_firmware.cmake
             share/mote/schema/include/mote/schema/mote_generated.h
             share/mote/schema/include/flatbuffers/flatbuffers.h
             share/mote/schema/include/flatbuffers/LICENSE)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "cmake --install did not install ${file}")
  endif()
endforeach()
# The runner images of the firmware build, where the installed mote looks for them.
foreach(image validate_runner run_kws_dscnn_like)
  if(NOT EXISTS ${prefix}/lib/mote/firmware/firmware-${CPU}/${image}.elf)
    message(FATAL_ERROR "cmake --install did not install the runner image ${image}.elf for ${CPU}")
  endif()
endforeach()
file(GLOB_RECURSE tests ${prefix}/*_test.cc)
if(tests)
  message(FATAL_ERROR "cmake --install installed tests: ${tests}")
endif()

# The model, its input, and the host's output from the installed tool.
run(${WRITE_BUILDER_MODEL} conv2d_x3 ${WORK_DIR}/conv2d_x3.tflite ${WORK_DIR}/input.bin)
run(${prefix}/bin/mote compile ${WORK_DIR}/conv2d_x3.tflite --target ${CPU} -o ${WORK_DIR}/host.mote)
run(${prefix}/bin/mote run ${WORK_DIR}/host.mote --input ${WORK_DIR}/input.bin
    --output ${WORK_DIR}/expected.bin)

# The installed tool runs the installed runner images under QEMU, from any working folder.
set(elsewhere ${WORK_DIR}/elsewhere)
file(MAKE_DIRECTORY ${elsewhere})
# conv2d_x3's 5 operators but its first QUANTIZE: the float input is held quantized.
execute_process(COMMAND ${prefix}/bin/mote validate ${WORK_DIR}/conv2d_x3.tflite --target ${CPU}
                WORKING_DIRECTORY ${elsewhere} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "on ${CPU} \\(${BOARD}\\): every output of all 4 operators")
  message(FATAL_ERROR "the installed mote validate (${rc}): ${out}${err}")
endif()
execute_process(COMMAND ${prefix}/bin/mote analyze ${WORK_DIR}/conv2d_x3.tflite --target ${CPU} --measure
                WORKING_DIRECTORY ${elsewhere} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "instructions: each operator's, measured under QEMU")
  message(FATAL_ERROR "the installed mote analyze --measure (${rc}): ${out}${err}")
endif()
execute_process(COMMAND ${prefix}/bin/mote demo --output-dir ${WORK_DIR}/demo
                WORKING_DIRECTORY ${elsewhere} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "firmware     ok on QEMU ${BOARD} \\(run_kws_dscnn_like.elf\\)")
  message(FATAL_ERROR "the installed mote demo did not run the ${CPU} firmware (${rc}): ${out}${err}")
endif()
# Without the images, the error says where it looked, and that this build makes them for the CPU
# (not to rebuild with the option that was set).
execute_process(COMMAND ${prefix}/bin/mote validate ${WORK_DIR}/conv2d_x3.tflite --target ${CPU}
                        --firmware-dir ${elsewhere}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "no runner image for ${CPU} at ${elsewhere}/firmware-${CPU}/validate_runner.elf; this Mote's build makes them"
   OR err MATCHES "-DMOTE_FIRMWARE_CPUS")
  message(FATAL_ERROR "the installed mote validate without images (${rc}): ${err}")
endif()

# The user's project knows only the prefix (and its own sources).
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/app -B ${WORK_DIR}/app -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DMOTE_CPU=${CPU}
    -DCMAKE_TOOLCHAIN_FILE=${prefix}/share/mote/targets/cortex-m/toolchain-arm-none-eabi.cmake
    "-DCMAKE_C_FLAGS=-Wshadow" "-DCMAKE_CXX_FLAGS=-Wshadow"
    -DAPP_SOURCE=${SOURCE_DIR}/targets/cortex-m/tests/c_app.c -DMODEL=${WORK_DIR}/conv2d_x3.tflite
    -DINPUT=${WORK_DIR}/input.bin -DEXPECTED=${WORK_DIR}/expected.bin)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/app -j2)
# Mote's warnings never fail a user's build: no -Werror of ours among the user's flags.
file(READ ${WORK_DIR}/app/build.ninja app_rules)
if(app_rules MATCHES "-Werror")
  message(FATAL_ERROR "the user's firmware build compiles Mote with -Werror")
endif()
run(${prefix}/share/mote/targets/cortex-m/run-qemu.sh --timeout 60
    --expect-output "^c_app: outputs match the host's$" ${BOARD} ${WORK_DIR}/app/app.elf)
message(STATUS "${run_output}")
# A host project from the same prefix: the host's compiler, the portable kernels.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/host_app -B ${WORK_DIR}/host_app -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DMODEL=${WORK_DIR}/conv2d_x3.tflite
    -DINPUT=${WORK_DIR}/input.bin -DEXPECTED=${WORK_DIR}/expected.bin)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/host_app -j2)
run(${WORK_DIR}/host_app/host_app)
if(NOT run_output MATCHES "host_app: outputs match mote run's")
  message(FATAL_ERROR "host_app: ${run_output}")
endif()
# The kit is self-contained: the users' builds read FlatBuffers' headers from the prefix.
file(STRINGS ${WORK_DIR}/app/CMakeCache.txt fb_dir REGEX "^MOTE_FLATBUFFERS_INCLUDE_DIR:")
file(STRINGS ${WORK_DIR}/host_app/CMakeCache.txt fb_root REGEX "^MOTE_FLATBUFFERS_ROOT:")
foreach(line "${fb_dir}" "${fb_root}")
  string(REGEX REPLACE "^[^=]*=" "" dir "${line}")
  cmake_path(IS_PREFIX prefix "${dir}" NORMALIZE in_prefix)
  if(NOT in_prefix)
    message(FATAL_ERROR "a user's build reads FlatBuffers' headers outside the kit: ${line}")
  endif()
endforeach()
# Nothing of the users' builds points into Mote's source tree.
foreach(app app host_app)
  file(READ ${WORK_DIR}/${app}/CMakeCache.txt cache)
  string(FIND "${cache}" "${SOURCE_DIR}/src" source_ref)
  if(NOT source_ref EQUAL -1)
    message(FATAL_ERROR "the user project ${app} refers to Mote's source tree")
  endif()
endforeach()
message(STATUS "installed Mote: a ${CPU} firmware and a host program built from find_package(Mote) match the host's mote run")
