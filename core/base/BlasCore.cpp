#include "core/base/BlasCore.h"

#include <dlfcn.h>

namespace core {

std::string blasCoreName() {
    using CoreName = char* (*)();
    // Resolved at run time: LibTorch reaches OpenBLAS through the libblas.so.3 alternative, which may as
    // well be the reference BLAS or BLIS.
    const auto fn = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
    const char* name = fn ? fn() : nullptr;
    return name ? std::string(name) : std::string();
}

} // namespace core
