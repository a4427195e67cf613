#include "core/text/CharTokenizer.h"

namespace core {

std::vector<std::string> splitUtf8(const std::string& text) {
    std::vector<std::string> out;
    const auto n = text.size();
    std::size_t i = 0;
    while (i < n) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        bool ok = len > 0 && i + len <= n;
        for (std::size_t k = 1; ok && k < len; ++k)
            ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
        if (!ok)
            len = 1;
        out.push_back(text.substr(i, len));
        i += len;
    }
    return out;
}

std::vector<std::string> CharTokenizer::pieces(const std::string& text) const {
    return splitUtf8(text);
}

std::vector<Token> CharTokenizer::tokenize(const std::string& text) const {
    std::vector<Token> out;
    for (auto& p : splitUtf8(text))
        out.push_back(lookup(std::move(p)));
    return out;
}

std::string CharTokenizer::detokenize(const std::vector<int64_t>& ids) const {
    std::string s;
    for (const auto id : ids)
        if (!vocab().isSpecial(id))
            s += vocab().token(id);
    return s;
}

} // namespace core
