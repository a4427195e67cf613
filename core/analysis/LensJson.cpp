#include "core/analysis/LensJson.h"

#include <nlohmann/json.hpp>

namespace core {

void writeLensJson(std::ostream& out, const std::string& model, const LogitLens& lens) {
    nlohmann::json j;
    j["model"] = model;
    j["points"] = lens.points;
    j["positions"] = lens.tokens.size();
    auto tokens = nlohmann::json::array();
    for (const auto& t : lens.tokens)
        tokens.push_back(t.text);
    j["tokens"] = tokens;
    j["chosen"] = lens.chosen;
    j["logprob"] = lens.logprob;
    j["rank"] = lens.rank;
    j["entropy"] = lens.entropy;
    auto readings = nlohmann::json::array();
    for (const auto& point : lens.top) {
        auto positions = nlohmann::json::array();
        for (const auto& candidates : point) {
            auto row = nlohmann::json::array();
            for (const auto& c : candidates)
                row.push_back({{"id", c.id}, {"token", c.token}, {"prob", c.prob}});
            positions.push_back(std::move(row));
        }
        readings.push_back(std::move(positions));
    }
    j["top"] = std::move(readings);
    j["post_norm"] = lens.postNorm;
    j["reads"] = lens.encoderSide ? "encoder" : "decoder";
    j["ms"] = lens.ms;
    // Token texts are bytes of the vocabulary (a byte-level BPE piece may hold part of a character).
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void writeAttributionJson(std::ostream& out, const std::string& model, const Attribution& a,
                          const Vocabulary& vocab) {
    const auto orNull = [](auto v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(); };
    nlohmann::json j;
    j["model"] = model;
    j["position"] = a.position;
    j["token"] = a.token;
    j["token_text"] = a.token < vocab.size() ? vocab.token(a.token) : std::string();
    j["versus"] = orNull(a.versus);
    j["logit"] = a.logit;
    j["sum"] = a.sum;
    j["post_norm"] = a.postNorm;
    j["reads"] = a.encoderSide ? "encoder" : "decoder";
    auto components = nlohmann::json::array();
    for (const auto& c : a.components) {
        nlohmann::json one{{"name", c.name},           {"kind", c.kind},
                           {"layer", orNull(c.layer)}, {"head", orNull(c.head)},
                           {"sublayer", c.sublayer},   {"contribution", c.contribution}};
        if (!c.promotes.empty()) {
            const auto list = [&](const std::vector<std::pair<int64_t, float>>& tokens) {
                auto l = nlohmann::json::array();
                for (const auto& [id, change] : tokens)
                    l.push_back({{"id", id},
                                 {"token", id < vocab.size() ? vocab.token(id) : ""},
                                 {"change", change}});
                return l;
            };
            one["promotes"] = list(c.promotes);
            one["suppresses"] = list(c.suppresses);
        }
        components.push_back(std::move(one));
    }
    j["components"] = std::move(components);
    j["split_gap"] = a.splitGap;
    j["ms"] = a.ms;
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

} // namespace core
