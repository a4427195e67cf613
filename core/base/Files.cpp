#include "core/base/Files.h"

#include "core/base/Errors.h"

#include <filesystem>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

namespace core {

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw IoError("cannot read " + path + ": " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad())
        throw IoError("cannot read " + path);
    return ss.str();
}

void writeFileAtomically(const std::string& path, const std::string& bytes) {
    const auto tmp = path + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw IoError("cannot write " + path + ": " + std::strerror(errno));
    const char* p = bytes.data();
    std::size_t left = bytes.size();
    int err = 0;
    while (left > 0 && err == 0) {
        const auto w = ::write(fd, p, left);
        if (w < 0 && errno != EINTR)
            err = errno;
        else if (w > 0) {
            p += w;
            left -= static_cast<std::size_t>(w);
        }
    }
    if (err == 0 && ::fsync(fd) != 0)
        err = errno;
    if (::close(fd) != 0 && err == 0)
        err = errno;
    if (err == 0 && std::rename(tmp.c_str(), path.c_str()) != 0)
        err = errno;
    if (err != 0) {
        std::remove(tmp.c_str());
        throw IoError("cannot write " + path + ": " + std::strerror(err));
    }
}

void requireCorpusFile(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        if (std::filesystem::exists(path + ".xz", ec))
            throw IoError(path + " is missing; the repository keeps it compressed: xz -dk " + path + ".xz");
        throw IoError("cannot read " + path + ": no such file");
    }
}

} // namespace core
