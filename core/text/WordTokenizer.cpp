#include "core/text/WordTokenizer.h"

#include <cctype>

namespace core {

namespace {

bool isSpace(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool isWordChar(unsigned char c) {
    return c >= 0x80 || std::isalnum(c) != 0;
}

// No space is put before these when joining words back into text.
bool attachesLeft(const std::string& t) {
    return t == "." || t == "," || t == "!" || t == "?" || t == ";" || t == ":" || t == ")" || t == "]" ||
           t == "}" || t == "%";
}
bool attachesRight(const std::string& t) {
    return t == "(" || t == "[" || t == "{";
}

} // namespace

std::vector<std::string> WordTokenizer::pieces(const std::string& text) const {
    std::vector<std::string> out;
    std::string word;
    auto flush = [&] {
        if (!word.empty())
            out.push_back(std::move(word));
        word.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (isSpace(c)) {
            flush();
        } else if (isWordChar(c)) {
            word += lowercase_ && c < 0x80 ? static_cast<char>(std::tolower(c)) : static_cast<char>(c);
        } else if (c == '\'' && !word.empty() && i + 1 < text.size() &&
                   isWordChar(static_cast<unsigned char>(text[i + 1]))) {
            word += '\''; // don't, it's: one word
        } else {
            flush();
            out.emplace_back(1, static_cast<char>(c));
        }
    }
    flush();
    return out;
}

std::vector<Token> WordTokenizer::tokenize(const std::string& text) const {
    std::vector<Token> out;
    for (auto& p : pieces(text))
        out.push_back(lookup(std::move(p)));
    return out;
}

std::string WordTokenizer::detokenize(const std::vector<int64_t>& ids) const {
    std::string s;
    bool glueNext = true;
    for (const auto id : ids) {
        if (vocab().isSpecial(id))
            continue;
        const auto& t = vocab().token(id);
        if (!glueNext && !attachesLeft(t))
            s += ' ';
        s += t;
        glueNext = attachesRight(t);
    }
    return s;
}

} // namespace core
