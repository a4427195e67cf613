#include "core/base/Memory.h"

#include "core/base/Errors.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace core {

int64_t physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
        return 0;
    return static_cast<int64_t>(pages) * pageSize;
}

void checkMemoryFor(int64_t bytes, const std::string& what) {
    const auto have = physicalMemoryBytes();
    if (have > 0 && bytes > have)
        throw ConfigError(what + " need " + byteText(bytes) + ", more than this machine's " + byteText(have) +
                          " of memory");
}

std::string byteText(int64_t bytes) {
    const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

int64_t addressSpaceLeft() {
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return -1;
    // The first field of /proc/self/statm is the mapped size in pages.
    long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld", &pages) != 1)
            pages = 0;
        std::fclose(f);
    }
    const int64_t mapped = int64_t{pages} * ::sysconf(_SC_PAGESIZE);
    return std::max<int64_t>(0, static_cast<int64_t>(limit.rlim_cur) - mapped);
}

} // namespace core
