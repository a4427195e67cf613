#include "core/base/FolderLinks.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace core {

namespace fs = std::filesystem;

namespace {

// True when child is root or lies under it (both already resolved).
bool under(const fs::path& child, const fs::path& root) {
    auto c = child.begin();
    for (auto r = root.begin(); r != root.end(); ++r, ++c)
        if (c == child.end() || *c != *r)
            return false;
    return true;
}

bool followAnyLink() {
    const char* v = std::getenv("ATTNSCOPE_FOLLOW_LINKS");
    return v && std::strcmp(v, "1") == 0;
}

} // namespace

std::string linkRefusal(const std::string& folder, const std::string& path) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec)) || followAnyLink())
        return {};
    const auto root = fs::canonical(folder.empty() ? "." : folder, ec);
    if (ec)
        return "cannot resolve the folder " + folder + ": " + ec.message();
    const auto real = fs::canonical(path, ec);
    if (ec) // a dangling link, or a loop of links
        return path + " is a link that leads nowhere (" + ec.message() + ")";
    if (under(real, root))
        return {};
    // A Hugging Face cache snapshot: models--org--name/snapshots/<revision>/file -> ../../blobs/<hash>.
    const auto snapshots = root.parent_path();
    if (snapshots.filename() == "snapshots" && under(real, snapshots.parent_path() / "blobs"))
        return {};
    return path + " resolves to " + real.string() + ", outside the folder " + root.string() +
           "; attnscope reads a model folder's files only from inside it (ATTNSCOPE_FOLLOW_LINKS=1 "
           "follows links anywhere)";
}

void requireWithin(const std::string& folder, const std::string& path) {
    if (const auto refusal = linkRefusal(folder, path); !refusal.empty())
        throw IoError("cannot read " + refusal);
}

std::string readFolderFile(const std::string& path) {
    const auto parent = fs::path(path).parent_path();
    requireWithin(parent.empty() ? "." : parent.string(), path);
    return readFile(path);
}

} // namespace core
