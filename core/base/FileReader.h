#pragma once
// A regular file read at offsets (pread), so a large weights file goes tensor by tensor straight into the
// network rather than whole into memory first. Not a memory mapping: a file cut short underneath (another
// program rewriting it in place) is then a short read and a message, where a mapping would die of SIGBUS.

#include <cstdint>
#include <memory>
#include <string>

namespace core {

class FileReader {
public:
    /// Opens path as readFile does: IoError naming it when it cannot be read or is not a regular file.
    static std::shared_ptr<const FileReader> open(const std::string& path);
    ~FileReader();
    FileReader(const FileReader&) = delete;
    FileReader& operator=(const FileReader&) = delete;

    const std::string& path() const { return path_; }
    /// The size when it was opened.
    uint64_t size() const { return size_; }
    /// n bytes at offset into dst. Throws IoError naming the path when they cannot be read, or the file now
    /// ends before them.
    void readAt(uint64_t offset, std::size_t n, char* dst) const;

private:
    FileReader() = default;
    std::string path_;
    int fd_ = -1;
    uint64_t size_ = 0;
};

} // namespace core
