# The fuzz targets, tests/fuzz/<name>.cpp, and what each links besides core: read by tests/fuzz/CMakeLists.txt
# (the libFuzzer programs, -DATTNSCOPE_FUZZ=ON) and by tests/fuzz/Replay.cmake (the ordinary suite's
# replay_<name> tests), so a new target is listed once. scripts/fuzz.sh runs them all by default.
set(attnscope_fuzz_targets fuzz_safetensors fuzz_config fuzz_vocab fuzz_merges fuzz_modeldir fuzz_recipe fuzz_text
    fuzz_tokenizer fuzz_vocabtxt fuzz_shardindex fuzz_lesson)
set(attnscope_fuzz_links_fuzz_lesson attnscope::ui attnscope::qt_defs)
