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
    return out;
}

std::string dataDirectory() {
    const char* env = std::getenv("ATTNSCOPE_DATA_DIR");
    const auto candidates = dataDirectoryCandidates();
    // A folder the user names is the only one looked in (builtinModelsMissing says when it holds no models/).
    std::error_code ec;
    if (env && *env)
        return fs::is_directory(fs::path(candidates.front()) / "models", ec) ? candidates.front()
                                                                             : std::string();
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
