// The attnscope executable: sets the environment that OpenBLAS and libgomp read only while they load, then
// loads the program (libattnscope_app.so, beside this file or in ../lib/attnscope) and runs it.
//
// Why a separate launcher: both libraries read their settings in load-time constructors, before main() of
// a program linked against them runs. The alternative, re-executing the program after setenv, loads
// LibTorch's ~300 shared libraries twice and cost 0.4 s of every start. This file links nothing but libc
// and libdl, so it must not include project headers that pull in LibTorch or Qt.

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// Debian 12's OpenBLAS (0.3.21) does not recognise recent Xeons, nor the generic "Intel Xeon Processor"
// that virtual machines report, and falls back to its SSE3 "Prescott" kernels: a 1024² single-precision
// product at 38 GFLOP/s instead of ~190 on a CPU with AVX-512. For single precision the kernels OpenBLAS
// would pick on any AVX-512 CPU it knows are the SkylakeX ones, and on AVX2 CPUs the Haswell ones, so
// naming them up front loses nothing where detection works. A value the user set is kept.
const char* blasKernelsForThisCpu() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "Haswell";
#endif
    return nullptr;
}

// libgomp's idle threads spin for ~300,000 iterations before sleeping. With the cores to itself that saves
// a wake-up per parallel region; with any other job on the cores (a build, a training run) the spinning
// threads take its time slices and the window became 20x slower. Measured with `attnscope bench`, greedy
// decoding of 63 tokens on the default / medium shapes with the cores idle, and a translation with two busy
// processes beside it:
//   spin count   idle default   idle medium   busy translation
//   300,000       52.5 ms        245 ms        484 ms   (libgomp's default)
//    30,000       53.8 ms        260-299 ms    465 ms
//    10,000       55.4 ms        256-268 ms    185 ms
//     3,000       63.7 ms        366 ms        97-197 ms
// 10,000 keeps the idle speed within a few percent and answers 2.5x sooner on a busy machine. OMP_WAIT_POLICY
// or GOMP_SPINCOUNT set by the user win.
constexpr const char* kSpinCount = "10000";

std::string directoryOfThisProgram() {
    std::string path(4096, '\0');
    const auto n = readlink("/proc/self/exe", path.data(), path.size() - 1);
    if (n <= 0)
        return ".";
    path.resize(static_cast<std::size_t>(n));
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

} // namespace

int main(int argc, char** argv) {
    if (!std::getenv("OPENBLAS_CORETYPE"))
        if (const char* kernels = blasKernelsForThisCpu())
            setenv("OPENBLAS_CORETYPE", kernels, 0);
    if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT"))
        setenv("GOMP_SPINCOUNT", kSpinCount, 0);

    // Beside the launcher in a build folder; in ../lib/attnscope when installed (bin/attnscope).
    const auto dir = directoryOfThisProgram();
    const auto beside = dir + "/libattnscope_app.so";
    auto library = beside;
    if (access(beside.c_str(), F_OK) != 0) {
        library = dir + "/../lib/attnscope/libattnscope_app.so";
        if (access(library.c_str(), F_OK) != 0) {
            std::fprintf(stderr, "attnscope: the program's library is neither at %s nor at %s\n",
                         beside.c_str(), library.c_str());
            return 127;
        }
    }
    // Global, as if linked: the program finds OpenBLAS's symbols through the default scope.
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
        std::fprintf(stderr, "attnscope: cannot load %s: %s\n", library.c_str(), dlerror());
        return 127;
    }
    using Entry = int (*)(int, char**);
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, "attnscope_main"));
    if (!entry) {
        std::fprintf(stderr, "attnscope: %s has no attnscope_main: %s\n", library.c_str(), dlerror());
        return 127;
    }
    // The library stays loaded until exit: its static objects (Qt, LibTorch) are torn down by exit().
    return entry(argc, argv);
}
