#pragma once
// The program's entry point inside libattnscope_app, which the launcher looks up by this unmangled name.

extern "C" __attribute__((visibility("default"))) int attnscope_main(int argc, char** argv);
