#pragma once
// Process-wide settings of the compute library, and the versions shown in Help ▸ About.

#include <string>

namespace core {

enum class DeviceChoice { Auto, Cpu, Cuda };

/// "auto" | "cpu" | "cuda"; throws InputError naming the bad value.
DeviceChoice parseDevice(const std::string& name);
/// Whether this build of LibTorch can see a CUDA device right now.
bool cudaAvailable();
/// Sets intra-op threads to the number of cores (LibTorch here starts with one). Idempotent.
void configureThreads(int threads = 0);
int threadCount();
std::string torchVersion();
/// How libgomp's idle threads wait, from the variables it read at load: "GOMP_SPINCOUNT=10000" (what the
/// launcher sets), "OMP_WAIT_POLICY=PASSIVE", …, or "libgomp default".
std::string ompWaitSetting();

} // namespace core
