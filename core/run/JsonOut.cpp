#include "core/run/JsonOut.h"

#include "core/base/TextFormat.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace core::json {

void writeFloat(std::ostream& out, float v) {
    if (!std::isfinite(v)) {
        out << "null";
        return;
    }
    out << formatFloat(v);
}

void writeFloats(std::ostream& out, const float* p, int n) {
    out << '[';
    for (int i = 0; i < n; ++i) {
        if (i)
            out << ',';
        writeFloat(out, p[i]);
    }
    out << ']';
}

void writeFloats(std::ostream& out, const std::vector<float>& v) {
    writeFloats(out, v.data(), static_cast<int>(v.size()));
}

void writeMatrix(std::ostream& out, const Matrix& m) {
    out << '[';
    for (int r = 0; r < m.rows; ++r) {
        out << (r ? ",\n  " : "\n  ");
        writeFloats(out, m.row(r), m.cols);
    }
    out << ']';
}

std::string quoted(const std::string& s) {
    return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string tokenTexts(const std::vector<Token>& tokens) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& t : tokens)
        j.push_back(t.text);
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace core::json
