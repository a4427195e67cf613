#include "core/base/Files.h"

#include "core/base/Errors.h"

#include <filesystem>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

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

std::string readFile(const std::string& path, uint64_t maxBytes) {
    uint64_t size = 0;
    const int fd = openForReading(path, &size);
    const auto tooLarge = [&] {
        ::close(fd);
        return IoError("cannot read " + path + ": it is larger than " + std::to_string(maxBytes) +
                       " bytes, more than a file of its kind holds");
    };
    if (size > maxBytes)
        throw tooLarge();
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
        else if (r > 0 && (got += static_cast<std::size_t>(r)) > maxBytes)
            throw tooLarge();
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
    // Only the permission bits: a setuid or setgid bit of the old file must never pass to bytes this process
    // wrote (nor the sticky bit, which means nothing on a file).
    int err = exists && ::fchmod(fd, target.st_mode & 0777) != 0 ? errno : 0;
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

const char* const kFolderMarker = ".attnscope";

namespace {

namespace fs = std::filesystem;

// The process id a folder's marker names, or 0 when the folder has no marker (or one that names none).
long markerPid(const fs::path& dir) {
    struct stat st {};
    const auto marker = dir / kFolderMarker;
    if (::lstat(marker.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 4096)
        return 0;
    try {
        const auto text = readFile(marker.string());
        const auto at = text.find("\npid ");
        return at == std::string::npos ? -1 : std::strtol(text.c_str() + at + 5, nullptr, 10);
    } catch (const IoError&) {
        return 0;
    }
}

bool hasMarker(const fs::path& dir) {
    return markerPid(dir) != 0;
}

// A leftover of a save killed midway: named `<target>.new-XXXXXX`, a real folder (not a link), carrying
// the marker of a process that is no longer running. Anything else of that name is someone else's.
bool isLeftover(const fs::path& path, const std::string& prefix) {
    const auto name = path.filename().string();
    if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0)
        return false;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    const long pid = markerPid(path);
    if (pid == 0) {
        // A save killed between creating the folder and finishing its marker leaves it empty or holding
        // only the marker's start: nothing anyone could lose.
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(path, ec))
            if (e.path().filename() != kFolderMarker)
                return false;
        return !ec;
    }
    return pid < 0 || (pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
}

// The marker of a folder just made: written in place (the folder is new and nobody else's, so there is
// nothing to replace atomically), and not synced, since a marker cut short by a crash still marks it.
bool writeMarker(const std::string& dir) {
    const auto path = (fs::path(dir) / kFolderMarker).string();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return false;
    const auto text =
        "written by attnscope: a save may replace this folder\npid " + std::to_string(::getpid()) + "\n";
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    return ::close(fd) == 0 && ok;
}

const char* entryKind(const fs::file_status& st) {
    switch (st.type()) {
    case fs::file_type::directory:
        return "a folder";
    case fs::file_type::symlink:
        return "a link";
    case fs::file_type::fifo:
        return "a FIFO";
    case fs::file_type::socket:
        return "a socket";
    case fs::file_type::block:
    case fs::file_type::character:
        return "a device";
    default:
        return "not a regular file";
    }
}

} // namespace

std::string createDirectoryBeside(const std::string& target) {
    const auto base = fs::path(target).lexically_normal().string();
    // What an earlier save left when it was killed midway goes first, or every crash would leave a folder.
    const auto path = fs::path(base);
    const auto prefix = path.filename().string() + ".new-";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(path.has_parent_path() ? path.parent_path() : ".", ec))
        if (isLeftover(e.path(), prefix))
            fs::remove_all(e.path(), ec);
    for (int attempt = 0; attempt < 100; ++attempt) {
        const auto dir = base + ".new-" + randomSuffix();
        if (::mkdir(dir.c_str(), 0777) == 0) {
            if (!writeMarker(dir)) {
                const int err = errno;
                fs::remove_all(dir, ec);
                throw IoError("cannot write " + target + ": " + reason(err));
            }
            return dir;
        }
        if (errno != EEXIST)
            throw IoError("cannot write " + target + ": " + reason(errno));
    }
    throw IoError("cannot write " + target + ": no free temporary name beside it");
}

std::string replaceRefusal(const std::string& target, const std::set<std::string>& ours) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0)
        return {}; // nothing there yet
    if (S_ISLNK(st.st_mode))
        return target + " is a link; a save replaces only a folder itself, never what a link points at";
    if (!S_ISDIR(st.st_mode))
        return target + " exists and is " + kindOf(st.st_mode) + ", not a folder";
    const bool marked = hasMarker(target);
    std::vector<std::string> inTheWay;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(target, ec)) {
        const auto name = e.path().filename().string();
        const auto status = e.symlink_status(ec);
        if (status.type() != fs::file_type::regular)
            inTheWay.push_back(name + " (" + entryKind(status) + ")");
        else if (!marked && !ours.count(name))
            inTheWay.push_back(name);
    }
    if (ec)
        return "cannot look inside " + target + ": " + ec.message();
    if (inTheWay.empty())
        return {};
    std::string list;
    for (std::size_t i = 0; i < inTheWay.size() && i < 5; ++i)
        list += (i ? ", " : "") + inTheWay[i];
    if (inTheWay.size() > 5)
        list += " and " + std::to_string(inTheWay.size() - 5) + " more";
    return target + " holds " + list +
           (marked ? ", which a save would not keep"
                   : ", which attnscope did not write; it replaces only a folder it made (one holding " +
                         std::string(kFolderMarker) + ") or one with nothing but the files it writes") +
           "; save to a new or empty folder, or move them out first";
}

void replaceDirectory(const std::string& fresh, const std::string& target) {
    std::set<std::string> ours;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fresh, ec))
        ours.insert(e.path().filename().string());
    if (ec)
        throw IoError("cannot replace " + target + ": cannot look inside " + fresh + ": " + ec.message());
    if (const auto refusal = replaceRefusal(target, ours); !refusal.empty())
        throw IoError("cannot replace " + target + ": " + refusal);
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
    // The old folder, its marker last: a kill midway leaves a marked folder, which the next save clears as
    // a leftover, never an unmarked remnant that would look like someone else's.
    for (const auto& e : fs::directory_iterator(fresh, ec))
        if (e.path().filename() != kFolderMarker)
            fs::remove_all(e.path(), ec);
    fs::remove_all(fresh, ec);
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
