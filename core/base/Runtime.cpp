#include "core/base/Runtime.h"

#include "core/base/Errors.h"

#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <cstdlib>
#include <thread>

namespace core {

DeviceChoice parseDevice(const std::string& name) {
    if (name == "auto")
        return DeviceChoice::Auto;
    if (name == "cpu")
        return DeviceChoice::Cpu;
    if (name == "cuda")
        return DeviceChoice::Cuda;
    throw InputError("unknown device '" + name + "'; expected auto, cpu or cuda");
}

bool cudaAvailable() {
    return torch::cuda::is_available();
}

void configureThreads(int threads) {
    if (threads <= 0)
        threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (at::get_num_threads() != threads)
        at::set_num_threads(threads);
}

int threadCount() {
    return at::get_num_threads();
}

std::string torchVersion() {
    return TORCH_VERSION;
}

std::string ompWaitSetting() {
    std::string s;
    for (const char* name : {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"})
        if (const char* v = std::getenv(name))
            s += (s.empty() ? "" : " ") + std::string(name) + "=" + v;
    return s.empty() ? "libgomp default" : s;
}

} // namespace core
