#pragma once
// The Hugging Face checkpoint tests compare our outputs with a reference script's reference.json: the
// largest absolute difference of a distribution, and of every attention weight of a block.

#include "core/model/AttentionBlock.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
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
