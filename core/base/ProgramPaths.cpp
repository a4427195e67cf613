#include "core/base/ProgramPaths.h"

#include <cstdlib>
#include <filesystem>

namespace core {

namespace fs = std::filesystem;

std::string programDirectory() {
    std::error_code ec;
    const auto exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

std::vector<std::string> dataDirectoryCandidates() {
    std::vector<std::string> out;
    if (const char* env = std::getenv("ATTNSCOPE_DATA_DIR"); env && *env)
        out.emplace_back(env);
    const auto dir = programDirectory();
    if (!dir.empty()) {
        out.push_back((fs::path(dir) / "share" / "attnscope").lexically_normal().string());
        out.push_back((fs::path(dir) / ".." / "share" / "attnscope").lexically_normal().string());
    }
#ifdef ATTNSCOPE_INSTALL_DATADIR
    // The prefix chosen at configure time: a program copied out of it (or started through a wrapper) still
    // finds the installed models.
    out.emplace_back(ATTNSCOPE_INSTALL_DATADIR);
#endif
    return out;
}

std::string dataDirectory() {
    const char* env = std::getenv("ATTNSCOPE_DATA_DIR");
    const auto candidates = dataDirectoryCandidates();
    // A folder the user names is used as named (an error about it is clearer than a silent fallback).
    if (env && *env)
        return candidates.front();
    std::error_code ec;
    for (const auto& c : candidates)
        if (fs::is_directory(fs::path(c) / "models", ec))
            return c;
    return {};
}

std::vector<std::string> libraryCandidates(const std::string& name) {
    const auto dir = programDirectory();
    if (dir.empty())
        return {};
    const fs::path d(dir);
    return {(d / name).string(), (d / ".." / name).lexically_normal().string(),
            (d / ".." / "lib" / "attnscope" / name).lexically_normal().string()};
}

} // namespace core
