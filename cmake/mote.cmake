# Helpers shared by every component's CMakeLists.txt (the device libraries: mote_libraries.cmake).

# mote_test(<name> SOURCES ... LIBS ... [LABELS label]): one gtest executable, its cases registered with ctest.
function(mote_test name)
  if(NOT MOTE_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    MOTE_SHARED_DIR="${MOTE_SHARED_DIR}" MOTE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  # One label per executable (gtest_discover_tests cannot pass a list): the given one, or `unit`.
  set(label unit)
  if(T_LABELS)
    list(GET T_LABELS 0 label)
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS ${label} DISCOVERY_TIMEOUT 60)
endfunction()
