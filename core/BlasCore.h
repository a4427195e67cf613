#pragma once
// Which kernels OpenBLAS runs the matrix products with, and the fix for a CPU it doesn't recognise.
//
// OpenBLAS picks its kernels from the CPU model when it is loaded. Debian 12's OpenBLAS (0.3.21) does not
// know recent Xeons, nor the generic "Intel Xeon Processor" that virtual machines report, and falls back to
// its SSE3 "Prescott" kernels: on such a machine with AVX-512, a 1024² product runs at 38 GFLOP/s instead of
// ~190, and the small products of training take three times as long. The variable OPENBLAS_CORETYPE
// overrides the choice, but OpenBLAS reads it only while loading, before main() runs.

#include <string>

namespace core {

/// The kernel set OpenBLAS is using ("Prescott", "Haswell", "SkylakeX", …); empty when the BLAS LibTorch
/// calls is not OpenBLAS.
std::string blasCoreName();

/// The kernel set to ask for instead: "SkylakeX" on a CPU with AVX-512 (F, CD, BW, DQ, VL), "Haswell" with
/// AVX2 and FMA. Empty when OpenBLAS chose something better than Prescott, when OPENBLAS_CORETYPE is set
/// already (the user's choice stands), or when the BLAS is not OpenBLAS.
std::string betterBlasCore();

/// When betterBlasCore() names a kernel set: sets OPENBLAS_CORETYPE and replaces this process with a fresh
/// run of the same program and arguments, so OpenBLAS loads with it. Returns only when there is nothing to
/// do or the re-execution failed (then the program carries on with the slow kernels).
void reexecWithBetterBlas(char** argv);

} // namespace core
