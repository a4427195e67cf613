#include "core/BlasCore.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>

namespace core {

std::string blasCoreName() {
    using CoreName = char* (*)();
    // Resolved at run time: LibTorch reaches OpenBLAS through the libblas.so.3 alternative, which may as
    // well be the reference BLAS or BLIS.
    const auto fn = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
    const char* name = fn ? fn() : nullptr;
    return name ? std::string(name) : std::string();
}

std::string betterBlasCore() {
    if (std::getenv("OPENBLAS_CORETYPE"))
        return {};
    if (blasCoreName() != "Prescott")
        return {};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "Haswell";
#endif
    return {};
}

void reexecWithBetterBlas(char** argv) {
    const auto core = betterBlasCore();
    if (core.empty())
        return;
    // Set before exec, so the new process finds it and never re-executes again.
    if (setenv("OPENBLAS_CORETYPE", core.c_str(), 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    unsetenv("OPENBLAS_CORETYPE"); // exec failed: this process keeps the kernels it has
}

} // namespace core
