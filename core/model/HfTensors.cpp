#include "core/model/HfTensors.h"

#include "core/base/Errors.h"

#include <torch/torch.h>

namespace core {

HfTensors::HfTensors(const WeightFiles& files, std::string prefix, std::string family,
                     std::vector<std::string> beside)
    : files_(files), prefix_(std::move(prefix)), family_(std::move(family)), beside_(std::move(beside)) {}

std::string HfTensors::shapeText(const std::vector<int64_t>& s) {
    std::string o = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        o += (i ? ", " : "") + std::to_string(s[i]);
    return o + "]";
}

std::string HfTensors::fullName(const std::string& name) const {
    for (const auto& b : beside_)
        if (name.rfind(b, 0) == 0)
            return name;
    return prefix_ + name;
}

const TensorInfo* HfTensors::find(const std::string& name) const {
    return files_.find(fullName(name));
}

torch::Tensor HfTensors::take(const std::string& name, const std::vector<int64_t>& shape) {
    const auto full = fullName(name);
    const auto* info = files_.find(full);
    if (!info)
        throw ModelError(files_.path() + ": missing tensor '" + full + "' (expected shape " +
                         shapeText(shape) + ")");
    return read(*info, shape);
}

torch::Tensor HfTensors::read(const TensorInfo& info, const std::vector<int64_t>& shape) {
    if (info.shape != shape)
        throw ModelError(files_.path() + ": tensor '" + info.name + "' has shape " + shapeText(info.shape) +
                         " but config.json implies " + shapeText(shape));
    auto t = torch::empty(shape, torch::kFloat32);
    files_.copyFloat32(info, t.data_ptr<float>());
    used_.insert(info.name);
    return t;
}

void HfTensors::skip(const std::string& name) {
    if (files_.find(fullName(name)))
        used_.insert(fullName(name));
}

void HfTensors::refuseLeftovers() const {
    for (const auto& info : files_.tensors())
        if (!used_.count(info.name))
            throw ModelError(files_.path() + ": unexpected tensor '" + info.name + "' (not part of a " +
                             family_ + " model with this config.json)");
}

} // namespace core
