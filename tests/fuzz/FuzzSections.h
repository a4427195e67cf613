#pragma once
// The fuzz targets' way of carrying several files in one input: named sections, each opened by a line of its
// own, and the folder built from them for the readers that only read a folder.
//
//   {"model": …}              before the first header: the target's main file (fuzz_tokenizer, fuzz_vocabtxt,
//   === tokenizer_config.json  fuzz_shardindex say which); then a regular file, its content running up to
//   {"cls_token": …}           the newline before the next "=== " line,
//   === model.safetensors/    a directory under that name (a non-regular file where a file is expected),
//   === vocab.txt -> other    a symbolic link (to a name in the same folder, or "../name" beside it).
//
// Names are one path component of [A-Za-z0-9._-], so the fuzzer never writes outside its scratch folder;
// other headers are skipped. The seeds (make-seeds.py) are written in the same form.

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fuzz {

namespace fs = std::filesystem;

struct Section {
    std::string header; ///< the header line without "=== "; empty for what comes before the first header
    std::string body;
};

/// The input cut at its "=== " lines; the first section, header "", is what comes before the first one.
inline std::vector<Section> sections(const std::string& in) {
    static const std::string mark = "=== ";
    std::vector<Section> out;
    std::size_t pos = in.rfind(mark, 0) == 0 ? 0 : in.find("\n" + mark);
    out.push_back({"", in.substr(0, pos)});
    if (pos != 0 && pos != std::string::npos)
        ++pos; // the newline before a header belongs to the header, not to the content before it
    while (pos != std::string::npos) {
        const auto lineEnd = in.find('\n', pos);
        const auto header =
            in.substr(pos + mark.size(),
                      lineEnd == std::string::npos ? std::string::npos : lineEnd - pos - mark.size());
        const std::size_t next =
            lineEnd == std::string::npos ? std::string::npos : in.find("\n" + mark, lineEnd);
        const auto bodyStart = lineEnd == std::string::npos ? in.size() : lineEnd + 1;
        out.push_back(
            {header, in.substr(bodyStart, next == std::string::npos ? std::string::npos : next - bodyStart)});
        pos = next == std::string::npos ? next : next + 1;
    }
    return out;
}

/// The body of the first section under `header`, or nullptr.
inline const std::string* find(const std::vector<Section>& all, const std::string& header) {
    for (const auto& s : all)
        if (!s.header.empty() && s.header == header)
            return &s.body;
    return nullptr;
}

inline bool plainName(const std::string& name) {
    if (name.empty() || name.size() > 64 || name == "." || name == "..")
        return false;
    for (const char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
            return false;
    return true;
}

/// Makes the sections after the first into entries of `dir`: files, "NAME/" directories and "NAME -> TARGET"
/// links. A link's target is a plain name, or with outsideLinks "../" and a plain name: a file beside the
/// folder, which the target puts there. A name made once is not made again.
inline void buildFolder(const std::vector<Section>& all, const fs::path& dir, bool outsideLinks = false) {
    std::error_code ec;
    for (std::size_t i = 1; i < all.size(); ++i) {
        const auto& header = all[i].header;
        const auto arrow = header.find(" -> ");
        if (arrow != std::string::npos) {
            const auto name = header.substr(0, arrow);
            auto target = header.substr(arrow + 4);
            const bool outside = outsideLinks && target.rfind("../", 0) == 0;
            if (plainName(name) && plainName(outside ? target.substr(3) : target))
                fs::create_symlink(target, dir / name, ec);
        } else if (!header.empty() && header.back() == '/') {
            const auto name = header.substr(0, header.size() - 1);
            if (plainName(name))
                fs::create_directory(dir / name, ec);
        } else if (plainName(header) && !fs::exists(fs::symlink_status(dir / header))) {
            std::ofstream(dir / header, std::ios::binary) << all[i].body;
        }
    }
}

/// A regular file's bytes (empty when it cannot be read).
inline std::string fileBytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    const auto end = in.tellg();
    if (!in || end < 0)
        return {};
    std::string bytes(static_cast<std::size_t>(end), '\0');
    in.seekg(0);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return bytes;
}

/// Whether `path`, its links followed, is a file outside `dir`: a model folder's reader must not read one
/// (core/base/FolderLinks.h), unless ATTNSCOPE_FOLLOW_LINKS says so, which the targets unset. False for a
/// path that does not resolve: its reader says it is missing.
inline bool resolvesOutside(const fs::path& dir, const fs::path& path) {
    std::error_code ec;
    const auto resolved = fs::canonical(path, ec);
    if (ec)
        return false;
    return resolved.parent_path() != fs::canonical(dir, ec);
}

/// A scratch folder of this process under the temporary folder (TMPDIR), removed when the process ends:
/// libFuzzer's fork mode starts a process per job, and each leaves nothing behind.
inline fs::path scratchFolder(const std::string& target) {
    ::unsetenv("ATTNSCOPE_FOLLOW_LINKS"); // links out of a folder are refused, as a user gets them
    static fs::path made;
    made = fs::temp_directory_path() / ("attnscope-" + target + "-" + std::to_string(::getpid()));
    fs::create_directories(made);
    std::atexit([] {
        std::error_code ec;
        fs::remove_all(made, ec);
    });
    return made;
}

/// Removes everything in `dir` but the names in `keep`.
inline void clearFolder(const fs::path& dir, const std::vector<std::string>& keep = {}) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir)) {
        bool kept = false;
        for (const auto& k : keep)
            kept = kept || entry.path().filename() == k;
        if (!kept)
            fs::remove_all(entry.path(), ec);
    }
}

} // namespace fuzz
