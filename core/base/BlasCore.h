#pragma once
// Which kernels OpenBLAS runs the matrix products with, and the fix for a CPU it doesn't recognise.
//
// OpenBLAS picks its kernels from the CPU model when it is loaded. Debian 12's OpenBLAS (0.3.21) does not
// know recent Xeons, nor the generic "Intel Xeon Processor" that virtual machines report, and falls back to
// its SSE3 "Prescott" kernels: on such a machine with AVX-512, a 1024² product runs at 38 GFLOP/s instead of
// ~190, and the small products of training take three times as long. The variable OPENBLAS_CORETYPE
// overrides the choice, but OpenBLAS reads it only while loading, before main() runs: the launcher
// (app/Launcher.cpp) sets it before it loads the program.

#include <string>

namespace core {

/// The kernel set OpenBLAS is using ("Prescott", "Haswell", "SkylakeX", …); empty when the BLAS LibTorch
/// calls is not OpenBLAS.
std::string blasCoreName();

} // namespace core
