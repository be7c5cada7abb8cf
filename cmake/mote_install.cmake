# `cmake --install <build> --prefix P`: the `mote` tool and a kit from which another project builds
# the runtime for its own toolchain and CPU, found with find_package(Mote) (cmake/MoteConfig.cmake):
#   P/bin/mote, P/bin/mote_program_ops        the host tools (mote_add_model runs them)
#   P/share/mote/include/                     the public headers (mote/runtime/mote.h, ...)
#   P/share/mote/src/kernels/, src/program/,  the device sources, built by the user's project
#     src/runtime/
#   P/share/mote/cmake/mote_libraries.cmake   how they are built (the host build uses it too)
#   P/share/mote/schema/                      mote.fbs and its generated header (reader API), with
#                                             FlatBuffers' headers (include/flatbuffers/) and their
#                                             licence, so the kit needs no libflatbuffers-dev
#   P/share/mote/targets/cortex-m/            mote_firmware.cmake, boards, start-up, console
#   P/lib/cmake/Mote/                         MoteConfig.cmake, MoteConfigVersion.cmake
#   P/lib/mote/firmware/firmware-<cpu>/       the runner images of the firmware build, where the
#                                             installed `mote validate`, `analyze --measure` and
#                                             `demo` find them (targets/cortex-m/host/qemu_runner)
include(CMakePackageConfigHelpers)
set(mote_kit share/mote)

install(TARGETS mote RUNTIME DESTINATION bin)
if(TARGET mote_program_ops)
  install(TARGETS mote_program_ops RUNTIME DESTINATION bin)
endif()
install(DIRECTORY include/ DESTINATION ${mote_kit}/include)
# Device sources only: no tests, no reference vectors, no test variants.
foreach(dir src/kernels src/program src/runtime)
  install(DIRECTORY ${dir}/ DESTINATION ${mote_kit}/${dir}
          FILES_MATCHING PATTERN "*.h" PATTERN "*.cc"
          PATTERN "*_test.cc" EXCLUDE PATTERN "*_vectors.cc" EXCLUDE PATTERN "testing" EXCLUDE)
endforeach()
install(FILES cmake/mote_libraries.cmake DESTINATION ${mote_kit}/cmake)
install(FILES schema/mote.fbs DESTINATION ${mote_kit}/schema)
install(FILES ${CMAKE_BINARY_DIR}/schema/reader/mote/schema/mote_generated.h
        DESTINATION ${mote_kit}/schema/include/mote/schema)
# The generated reader includes FlatBuffers' headers (header-only, Apache-2.0): the kit carries
# those the build used, so a user's machine needs no FlatBuffers of its own.
get_target_property(mote_fb_dirs flatbuffers::flatbuffers INTERFACE_INCLUDE_DIRECTORIES)
find_path(MOTE_FLATBUFFERS_HEADERS flatbuffers/flatbuffers.h HINTS ${mote_fb_dirs} NO_CACHE REQUIRED)
install(DIRECTORY ${MOTE_FLATBUFFERS_HEADERS}/flatbuffers/ DESTINATION ${mote_kit}/schema/include/flatbuffers
        FILES_MATCHING PATTERN "*.h")
foreach(licence /usr/share/doc/libflatbuffers-dev/copyright ${MOTE_FLATBUFFERS_HEADERS}/../LICENSE)
  if(EXISTS ${licence})
    install(FILES ${licence} DESTINATION ${mote_kit}/schema/include/flatbuffers RENAME LICENSE)
    break()
  endif()
endforeach()
set(cortex_m targets/cortex-m)
install(FILES ${cortex_m}/mote_firmware.cmake ${cortex_m}/mote_model.cmake ${cortex_m}/embed.cmake
              ${cortex_m}/toolchain-arm-none-eabi.cmake ${cortex_m}/README.md
        DESTINATION ${mote_kit}/${cortex_m})
install(PROGRAMS ${cortex_m}/run-qemu.sh DESTINATION ${mote_kit}/${cortex_m})
foreach(dir cmake ld platform runner)
  install(DIRECTORY ${cortex_m}/${dir} DESTINATION ${mote_kit}/${cortex_m})
endforeach()

# validate_runner.elf of every firmware build (MOTE_FIRMWARE_RUNNER_CPUS, targets/cortex-m);
# run_kws_dscnn_like.elf (the demo's) where the firmware tests made it.
if(MOTE_BUILD_FIRMWARE AND MOTE_FIRMWARE_WITH_RUNTIME)
  foreach(cpu ${MOTE_FIRMWARE_RUNNER_CPUS})
    install(FILES ${CMAKE_BINARY_DIR}/firmware-${cpu}/validate_runner.elf
            DESTINATION lib/mote/firmware/firmware-${cpu})
    install(FILES ${CMAKE_BINARY_DIR}/firmware-${cpu}/run_kws_dscnn_like.elf
            DESTINATION lib/mote/firmware/firmware-${cpu} OPTIONAL)
  endforeach()
endif()

configure_package_config_file(cmake/MoteConfig.cmake.in
  ${CMAKE_BINARY_DIR}/MoteConfig.cmake INSTALL_DESTINATION lib/cmake/Mote)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/MoteConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion
  # The host tools run on the host, the kit builds for any CPU: not tied to a pointer size.
  ARCH_INDEPENDENT)
install(FILES ${CMAKE_BINARY_DIR}/MoteConfig.cmake ${CMAKE_BINARY_DIR}/MoteConfigVersion.cmake
        DESTINATION lib/cmake/Mote)
