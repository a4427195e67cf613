# Every fuzz target built without libFuzzer as replay_<target> (its LLVMFuzzerTestOneInput and ReplayMain.cpp)
# and run by CTest on its seed corpus and its findings: tests/fuzz/corpus/<target>/ and, once it has any,
# tests/fuzz/findings/<target>/. The ordinary compiler and build type then check every input that has broken
# a reader on every change, in seconds, with no clang or libFuzzer; a sanitized build (ATTNSCOPE_SANITIZE)
# replays them under ASan and UBSan. Included by tests/CMakeLists.txt, whose test environment it uses.
include(${CMAKE_CURRENT_LIST_DIR}/FuzzTargets.cmake)

foreach(t ${attnscope_fuzz_targets})
  add_executable(replay_${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.cpp ${CMAKE_CURRENT_LIST_DIR}/ReplayMain.cpp)
  target_link_libraries(replay_${t} PRIVATE attnscope::core attnscope::warnings ${attnscope_fuzz_links_${t}})
  target_compile_definitions(replay_${t} PRIVATE ATTNSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_test(NAME replay_${t} COMMAND replay_${t} ${CMAKE_CURRENT_LIST_DIR}/corpus/${t}
                                    --if-present ${CMAKE_CURRENT_LIST_DIR}/findings/${t})
  set_tests_properties(replay_${t} PROPERTIES ENVIRONMENT "${attnscope_test_env}" TIMEOUT 120)
endforeach()
