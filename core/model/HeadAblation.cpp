#include "core/model/HeadAblation.h"

#include "core/base/Errors.h"

#include <algorithm>
#include <sstream>
#include <tuple>

namespace core {

namespace {

std::size_t slot(AttentionKind kind) {
    return static_cast<std::size_t>(kind);
}

} // namespace

bool HeadRef::operator<(const HeadRef& o) const {
    return std::tie(kind, layer, head) < std::tie(o.kind, o.layer, o.head);
}

std::string toString(const HeadRef& head) {
    return std::string(toString(head.kind)) + " " + std::to_string(head.layer) + ":" +
           std::to_string(head.head);
}

bool HeadAblation::off(const HeadRef& h) const {
    const auto& layers = masks_[slot(h.kind)];
    if (h.layer < 0 || h.head < 0 || static_cast<std::size_t>(h.layer) >= layers.size())
        return false;
    const auto& heads = layers[static_cast<std::size_t>(h.layer)];
    return static_cast<std::size_t>(h.head) < heads.size() && heads[static_cast<std::size_t>(h.head)] != 0;
}

void HeadAblation::set(const HeadRef& h, bool off) {
    if (h.layer < 0 || h.head < 0 || this->off(h) == off)
        return;
    auto& layers = masks_[slot(h.kind)];
    const auto l = static_cast<std::size_t>(h.layer), i = static_cast<std::size_t>(h.head);
    if (layers.size() <= l)
        layers.resize(l + 1);
    if (layers[l].size() <= i)
        layers[l].resize(i + 1, 0);
    layers[l][i] = off ? 1 : 0;
    count_ = off ? count_ + 1 : count_ - 1;
}

void HeadAblation::clear() {
    for (auto& m : masks_)
        m.clear();
    count_ = 0;
}

std::vector<HeadRef> HeadAblation::heads() const {
    std::vector<HeadRef> out;
    for (const auto kind : kAttentionKinds) {
        const auto& layers = masks_[slot(kind)];
        for (std::size_t l = 0; l < layers.size(); ++l)
            for (std::size_t h = 0; h < layers[l].size(); ++h)
                if (layers[l][h])
                    out.push_back({kind, static_cast<int>(l), static_cast<int>(h)});
    }
    return out;
}

std::vector<std::uint8_t> HeadAblation::layerMask(AttentionKind kind, int layer, int heads) const {
    const auto& layers = masks_[slot(kind)];
    if (layer < 0 || static_cast<std::size_t>(layer) >= layers.size())
        return {};
    // The flags kept stop at the last head set; the block reads all of its heads.
    auto mask = layers[static_cast<std::size_t>(layer)];
    if (std::none_of(mask.begin(), mask.end(), [](std::uint8_t f) { return f != 0; }))
        return {};
    mask.resize(static_cast<std::size_t>(std::max(heads, 0)), 0);
    return mask;
}

std::string HeadAblation::text() const {
    if (empty())
        return "none";
    std::string out;
    for (const auto& h : heads())
        out += (out.empty() ? "" : ", ") + toString(h);
    return out;
}

void checkAblation(const HeadAblation& ablation, const ModelConfig& config) {
    if (ablation.empty())
        return;
    if (config.recurrent())
        throw InputError("head ablation needs a Transformer: '" + config.name + "' is of the " +
                         toString(config.family) + " family, whose attention has no heads to switch off");
    for (const auto& h : ablation.heads()) {
        const auto what = toString(h) + ": ";
        if (h.kind == AttentionKind::Pooling || (h.kind != AttentionKind::Decoder && !config.hasEncoder()))
            throw InputError(what + "this model has no " + toString(h.kind) +
                             " attention (a decoder-only model has decoder attention only)");
        if (h.kind != AttentionKind::Encoder && !config.hasDecoder())
            throw InputError(what + "this model has no " + toString(h.kind) +
                             " attention (an encoder-only model has encoder attention only)");
        const int layers = h.kind == AttentionKind::Encoder ? config.encoderLayers : config.decoderLayers;
        if (h.layer >= layers)
            throw InputError(what + "layer " + std::to_string(h.layer) + " is out of range: the " +
                             toString(h.kind) + " attention has layers 0–" + std::to_string(layers - 1));
        if (h.head >= config.heads)
            throw InputError(what + "head " + std::to_string(h.head) +
                             " is out of range: each layer has heads 0–" + std::to_string(config.heads - 1));
    }
}

void addAblation(HeadAblation& into, const std::string& list, AttentionKind kind, const ModelConfig& config) {
    HeadAblation added = into;
    std::stringstream items(list);
    std::string item;
    bool any = false;
    const auto bad = [](const std::string& what) {
        return InputError("\"" + what +
                          "\" is not a head: write LAYER:HEAD or KIND:LAYER:HEAD, counting from 0 " +
                          "(as 1:3 or cross:1:3; KIND is encoder, decoder or cross)");
    };
    while (std::getline(items, item, ',')) {
        // "0:1, 1:2" as people type lists: the spaces around an item are not part of it.
        const auto first = item.find_first_not_of(" \t");
        item = first == std::string::npos ? std::string()
                                          : item.substr(first, item.find_last_not_of(" \t") - first + 1);
        auto rest = item;
        auto itemKind = kind;
        if (std::count(rest.begin(), rest.end(), ':') == 2) {
            const auto named = attentionKindNamed(rest.substr(0, rest.find(':')));
            if (!named)
                throw bad(item);
            itemKind = *named;
            rest = rest.substr(rest.find(':') + 1);
        }
        const auto colon = rest.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size() ||
            rest.find_first_not_of("0123456789:") != std::string::npos ||
            rest.find(':', colon + 1) != std::string::npos || colon > 6 || rest.size() - colon - 1 > 6)
            throw bad(item);
        added.set({itemKind, std::stoi(rest.substr(0, colon)), std::stoi(rest.substr(colon + 1))}, true);
        any = true;
    }
    if (!any)
        throw InputError("no heads given: write LAYER:HEAD[,LAYER:HEAD…], counting from 0 (as 0:1,1:3)");
    checkAblation(added, config);
    into = added;
}

} // namespace core
