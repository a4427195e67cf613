#include "core/model/WeightIO.h"

#include "core/base/Errors.h"

#include <torch/torch.h>

#include <set>
#include <sstream>

namespace core {

namespace {

std::string shapeText(const std::vector<int64_t>& s) {
    std::ostringstream o;
    o << '[';
    for (std::size_t i = 0; i < s.size(); ++i)
        o << (i ? ", " : "") << s[i];
    o << ']';
    return o.str();
}

// The sinusoidal tables are fixed functions of the config, so a file may omit them; the seed saves them.
std::vector<std::pair<std::string, nn::PositionalTable>> sinusoidalTables(const nn::TransformerImpl& net) {
    std::vector<std::pair<std::string, nn::PositionalTable>> out;
    if (net.config().positional != PositionalEncoding::Sinusoidal)
        return out;
    if (net.src_embed)
        out.emplace_back("src_embed.1.pe", net.src_embed->positions);
    if (net.tgt_embed)
        out.emplace_back("tgt_embed.1.pe", net.tgt_embed->positions);
    return out;
}

torch::Tensor readTensor(const WeightFiles& file, const TensorInfo& info) {
    auto t = torch::empty(info.shape, torch::kFloat32);
    file.copyFloat32(info, t.data_ptr<float>());
    return t;
}

// Every parameter of module from the file; the names it read go into used.
void copyParameters(torch::nn::Module& module, const WeightFiles& file, std::set<std::string>& used) {
    torch::NoGradGuard noGrad;
    const auto& path = file.path();
    for (auto& item : module.named_parameters(/*recurse=*/true)) {
        const auto& name = item.key();
        auto& param = item.value();
        const auto* info = file.find(name);
        if (!info)
            throw ModelError(path + ": missing tensor '" + name + "' (expected shape " +
                             shapeText(param.sizes().vec()) + ")");
        if (info->shape != param.sizes().vec())
            throw ModelError(path + ": tensor '" + name + "' has shape " + shapeText(info->shape) +
                             " but config.json implies " + shapeText(param.sizes().vec()));
        param.copy_(readTensor(file, *info));
        used.insert(name);
    }
}

void refuseUnused(const WeightFiles& file, const std::set<std::string>& used, const std::string& what) {
    for (const auto& info : file.tensors())
        if (!used.count(info.name))
            throw ModelError(file.path() + ": unexpected tensor '" + info.name + "' (not part of " + what +
                             ")");
}

} // namespace

void loadParameters(torch::nn::Module& module, const WeightFiles& file) {
    std::set<std::string> used;
    copyParameters(module, file, used);
    refuseUnused(file, used, "this model");
}

std::vector<std::pair<std::string, torch::Tensor>> parametersToSave(const torch::nn::Module& module) {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (const auto& item : module.named_parameters(true))
        out.emplace_back(item.key(), item.value().detach().to(torch::kCPU, torch::kFloat32).contiguous());
    return out;
}

void loadWeights(nn::TransformerImpl& net, const WeightFiles& file) {
    torch::NoGradGuard noGrad;
    const auto& path = file.path();
    std::set<std::string> used;
    copyParameters(net, file, used);
    for (auto& [name, table] : sinusoidalTables(net)) {
        const auto* info = file.find(name);
        if (!info)
            continue;
        const auto c = net.config().dModel;
        const auto& s = info->shape;
        if (s.size() != 3 || s[0] != 1 || s[2] != c || s[1] < net.config().maxLen)
            throw ModelError(path + ": tensor '" + name + "' has shape " + shapeText(s) +
                             " but config.json implies [1, " + "≥" + std::to_string(net.config().maxLen) +
                             ", " + std::to_string(c) + "]");
        table->setSinusoidal(readTensor(file, *info));
        used.insert(name);
    }
    refuseUnused(file, used,
                 std::string("a ") + toString(net.config().architecture) + " model with this config.json");
}

std::vector<std::pair<std::string, torch::Tensor>> tensorsToSave(const nn::TransformerImpl& net) {
    auto out = parametersToSave(net);
    for (auto& [name, table] : sinusoidalTables(net))
        out.emplace_back(name, table->pe.detach().to(torch::kCPU, torch::kFloat32).contiguous());
    return out;
}

} // namespace core
