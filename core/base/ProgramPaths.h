#pragma once
// Where the program's own files are, found at run time from where the executable is: the same binary works
// in its build folder, copied or moved elsewhere, and installed under a prefix. No source path is compiled
// in.
//
// clang-format off
//   build folder   B/attnscope, B/libattnscope_app.so, B/libattnscope_spm.so, B/share/attnscope/{models,recipes}
//   installed      P/bin/attnscope, P/lib/attnscope/lib*.so, P/share/attnscope/{models,recipes}
//   test programs  B/tests/test_*  (B/tests/../share/attnscope is the build folder's)
// clang-format on

#include <string>
#include <vector>

namespace core {

/// The folder of the running executable (from /proc/self/exe), or empty when the system does not say.
std::string programDirectory();

/// The folder holding the built-in `models/` and `recipes/`: $ATTNSCOPE_DATA_DIR when set (and only it),
/// else the first of <program>/share/attnscope and <program>/../share/attnscope that has a models/ folder.
/// Empty when none does.
std::string dataDirectory();
/// The folders dataDirectory() looks in, in order (for a message that says where it looked).
std::vector<std::string> dataDirectoryCandidates();

/// Where a library the program ships (`name`, e.g. "libattnscope_spm.so") may be: beside the executable,
/// one folder up (tests), and in <program>/../lib/attnscope (installed). Existing or not.
std::vector<std::string> libraryCandidates(const std::string& name);

} // namespace core
