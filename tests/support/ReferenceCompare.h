#pragma once
// The reference tests compare our outputs with a reference script's JSON: the largest absolute difference of
// a distribution, and of every attention weight of a block; and run a seed reference's case as it ran there.

#include "core/model/AttentionBlock.h"
#include "core/model/HeadAblation.h"
#include "core/run/Session.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

inline nlohmann::json readJson(const std::filesystem::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

/// max |got − want| over a row; infinity when their lengths differ.
inline double worstRow(const std::vector<float>& got, const nlohmann::json& want) {
    double worst = want.size() == got.size() ? 0.0 : INFINITY;
    for (std::size_t v = 0; v < std::min(got.size(), want.size()); ++v)
        worst = std::max(worst, std::abs(double(got[v]) - want[v].get<double>()));
    return worst;
}

/// max |got − want| over [layer][head][query][key]; infinity when the layer counts differ.
inline double worstAttention(const core::AttentionBlock& block, const nlohmann::json& att) {
    if (block.layers != int(att.size()))
        return INFINITY;
    double worst = 0.0;
    for (int l = 0; l < block.layers; ++l)
        for (int h = 0; h < block.heads; ++h)
            for (int q = 0; q < block.queries; ++q)
                for (int k = 0; k < block.keys; ++k)
                    worst = std::max(worst,
                                     std::abs(double(block.at(l, h, q, k)) - att[l][h][q][k].get<double>()));
    return worst;
}

/// The heads a seed reference's case switched off: {"ablate": {kind: [[layer, head], …]}}.
inline core::HeadAblation ablationOf(const nlohmann::json& cs) {
    core::HeadAblation off;
    for (const auto& [kind, heads] : cs["ablate"].items())
        for (const auto& lh : heads)
            off.set({*core::attentionKindNamed(kind), lh[0].get<int>(), lh[1].get<int>()}, true);
    return off;
}

/// A seed reference's case run here: its source and target ids analysed with its heads off.
inline core::AttentionSnapshot referenceRun(std::shared_ptr<const core::Model> model,
                                            const nlohmann::json& cs) {
    core::Session session(std::move(model));
    session.setAblation(ablationOf(cs));
    session.analyzeIds(cs["src_ids"].get<std::vector<int64_t>>(), cs["tgt_ids"].get<std::vector<int64_t>>());
    return session.snapshot();
}
