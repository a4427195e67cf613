#include "core/base/FileReader.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace core {

std::shared_ptr<const FileReader> FileReader::open(const std::string& path) {
    std::shared_ptr<FileReader> f(new FileReader);
    f->path_ = path;
    f->fd_ = openForReading(path, &f->size_);
    return f;
}

FileReader::~FileReader() {
    if (fd_ >= 0)
        ::close(fd_);
}

void FileReader::readAt(uint64_t offset, std::size_t n, char* dst) const {
    std::size_t got = 0;
    while (got < n) {
        const auto r = ::pread(fd_, dst + got, n - got, static_cast<off_t>(offset + got));
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r < 0)
            throw IoError("cannot read " + path_ + ": " + std::strerror(errno));
        if (r == 0)
            throw IoError("cannot read " + path_ + ": it ends at byte " + std::to_string(offset + got) +
                          ", before the " + std::to_string(n) + " bytes at " + std::to_string(offset) +
                          " (the file changed while it was read?)");
        got += static_cast<std::size_t>(r);
    }
}

} // namespace core
