#include "core/base/Files.h"

#include "core/base/Errors.h"

#include <filesystem>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <lzma.h>
#include <stdio.h> // renameat2
#include <sys/stat.h>
#include <unistd.h>

namespace core {

namespace {

std::string reason(int err) {
    return std::strerror(err);
}

// What a path is when it is not a regular file, for messages.
const char* kindOf(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

// Six characters from the system's random source, for names nobody can guess in advance.
std::string randomSuffix() {
    static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device rd;
    std::string out;
    for (int i = 0; i < 6; ++i)
        out += kAlphabet[rd() % 36];
    return out;
}

// A rename is durable only once the folder holding the name is synced.
void syncFolderOf(const std::string& path) {
    const auto dir = std::filesystem::path(path).parent_path();
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

} // namespace

int openForReading(const std::string& path, uint64_t* size) {
    // Non-blocking open: opening a FIFO for reading waits for a writer, so a FIFO planted as
    // model.safetensors hung the program (at start-up too, when that folder was the remembered model).
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        throw IoError("cannot read " + path + ": " + reason(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw IoError("cannot read " + path + ": " + reason(err));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw IoError("cannot read " + path + ": it is " + kindOf(st.st_mode) + ", not a regular file");
    }
    *size = static_cast<uint64_t>(st.st_size);
    return fd;
}

std::string readFile(const std::string& path) {
    uint64_t size = 0;
    const int fd = openForReading(path, &size);
    std::string bytes;
    try {
        bytes.resize(static_cast<std::size_t>(size));
    } catch (const std::bad_alloc&) {
        ::close(fd);
        throw IoError("cannot read " + path + ": " + std::to_string(size) + " bytes do not fit in memory");
    }
    std::size_t got = 0;
    int err = 0;
    while (err == 0) {
        if (got == bytes.size())
            bytes.resize(bytes.size() + 65536); // the file grew while being read
        const auto r = ::read(fd, bytes.data() + got, bytes.size() - got);
        if (r < 0 && errno != EINTR && errno != EAGAIN)
            err = errno;
        else if (r == 0)
            break;
        else if (r > 0)
            got += static_cast<std::size_t>(r);
    }
    ::close(fd);
    if (err != 0)
        throw IoError("cannot read " + path + ": " + reason(err));
    bytes.resize(got);
    return bytes;
}

void writeFileAtomically(const std::string& path, const std::string& bytes) {
    // Only a regular file (or nothing) is replaced: renaming over a device node or a FIFO that an --out
    // argument named would swap it for a plain file.
    struct stat target {};
    const bool exists = ::stat(path.c_str(), &target) == 0;
    if (exists && !S_ISREG(target.st_mode))
        throw IoError("cannot write " + path + ": it is " + kindOf(target.st_mode) + ", not a regular file");
    // An unpredictable temporary name, created exclusively and never through a link: a file or symlink
    // planted at a predictable name would be written through.
    std::string tmp;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
        tmp = path + ".tmp-" + randomSuffix();
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0)
        throw IoError("cannot write " + path + ": " + reason(errno));
    // A new file gets what the umask allows, as any program's would; a replaced one keeps its owner's choice.
    int err = exists && ::fchmod(fd, target.st_mode & 07777) != 0 ? errno : 0;
    const char* p = bytes.data();
    std::size_t left = bytes.size();
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
        throw IoError("cannot write " + path + ": " + reason(err));
    }
    syncFolderOf(path);
}

std::string createDirectoryBeside(const std::string& target) {
    const auto base = std::filesystem::path(target).lexically_normal().string();
    // What an earlier save left when it was killed midway goes first, or every crash would leave a folder.
    const auto path = std::filesystem::path(base);
    const auto prefix = path.filename().string() + ".new-";
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(path.has_parent_path() ? path.parent_path() : ".", ec)) {
        const auto name = e.path().filename().string();
        if (name.size() == prefix.size() + 6 && name.compare(0, prefix.size(), prefix) == 0)
            std::filesystem::remove_all(e.path(), ec);
    }
    for (int attempt = 0; attempt < 100; ++attempt) {
        const auto dir = base + ".new-" + randomSuffix();
        if (::mkdir(dir.c_str(), 0777) == 0)
            return dir;
        if (errno != EEXIST)
            throw IoError("cannot write " + target + ": " + reason(errno));
    }
    throw IoError("cannot write " + target + ": no free temporary name beside it");
}

void replaceDirectory(const std::string& fresh, const std::string& target) {
    int err = 0;
    if (::renameat2(AT_FDCWD, fresh.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
        err = errno;
        // No target yet: a plain rename is atomic too. (EINVAL: a file system without the exchange, where
        // the plain rename works only when the target is missing or empty.)
        if ((err == ENOENT || err == EINVAL) && ::rename(fresh.c_str(), target.c_str()) == 0) {
            syncFolderOf(target);
            return;
        }
        if (err == ENOENT || err == EINVAL)
            err = errno;
        throw IoError("cannot replace " + target + ": " + reason(err));
    }
    syncFolderOf(target);
    std::error_code ec;
    std::filesystem::remove_all(fresh, ec); // the old folder; a leftover is harmless, the next save clears it
}

std::string readCorpusFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec))
        return readFile(path);
    const std::string xz = path + ".xz";
    if (!std::filesystem::exists(xz, ec))
        throw IoError("cannot read " + path + ": no such file");
    const std::string packed = readFile(xz);
    // Ends the decoder whatever happens below (a failed allocation included).
    struct Stream {
        lzma_stream s = LZMA_STREAM_INIT;
        ~Stream() { lzma_end(&s); }
    } stream;
    // xz -9 needs 65 MiB to decode; a file asking for far more is damaged or hostile.
    constexpr uint64_t kMemoryLimit = uint64_t{1} << 30;
    if (lzma_stream_decoder(&stream.s, kMemoryLimit, LZMA_CONCATENATED) != LZMA_OK)
        throw IoError("cannot read " + xz + ": the xz decoder could not start");
    std::string out;
    std::vector<uint8_t> chunk(1 << 16);
    stream.s.next_in = reinterpret_cast<const uint8_t*>(packed.data());
    stream.s.avail_in = packed.size();
    lzma_ret ret = LZMA_OK;
    try {
        while (ret == LZMA_OK) {
            stream.s.next_out = chunk.data();
            stream.s.avail_out = chunk.size();
            ret = lzma_code(&stream.s, LZMA_FINISH);
            out.append(reinterpret_cast<const char*>(chunk.data()), chunk.size() - stream.s.avail_out);
        }
    } catch (const std::bad_alloc&) {
        throw IoError("cannot read " + xz + ": it unpacks to more than this machine's memory holds");
    }
    if (ret == LZMA_MEMLIMIT_ERROR)
        throw IoError("cannot read " + xz + ": it asks for more than 1 GiB of memory to unpack; xz -dk " +
                      xz + " unpacks it");
    if (ret != LZMA_STREAM_END)
        throw IoError("cannot read " + xz + " (kept compressed in place of " + path +
                      "): it is not whole xz data (lzma error " + std::to_string(static_cast<int>(ret)) +
                      "); xz -dk " + xz + " says more");
    return out;
}

} // namespace core
