#include "core/text/ByteLevelBpe.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/FolderLinks.h"
#include "core/text/Vocabulary.h"

#include <nlohmann/json.hpp>
#include <unicode/uchar.h>

#include <array>
#include <limits>
#include <sstream>

namespace core {

namespace {

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes for the code
// points 256 and up, in byte order, so every token is printable text without spaces.
struct Alphabet {
    std::array<char32_t, 256> codeOf{};
    std::unordered_map<char32_t, unsigned char> byteOf;
    Alphabet() {
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable =
                (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            codeOf[static_cast<std::size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
            byteOf[codeOf[static_cast<std::size_t>(b)]] = static_cast<unsigned char>(b);
        }
    }
};

const Alphabet& alphabet() {
    static const Alphabet a;
    return a;
}

void appendUtf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

// The code point at s[i] and its length in bytes; an invalid sequence is one byte of U+FFFD, so nothing is
// dropped and the original bytes stay in the piece.
std::pair<char32_t, std::size_t> decodeAt(const std::string& s, std::size_t i) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80)
        return {b0, 1};
    std::size_t len = 0;
    char32_t c = 0, min = 0;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2, c = b0 & 0x1F, min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3, c = b0 & 0x0F, min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4, c = b0 & 0x07, min = 0x10000;
    } else {
        return {0xFFFD, 1};
    }
    if (i + len > s.size())
        return {0xFFFD, 1};
    for (std::size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80)
            return {0xFFFD, 1};
        c = (c << 6) | (b & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return {0xFFFD, 1};
    return {c, len};
}

enum class CharClass { Letter, Number, Space, Other };

// JavaScript's \s: WhiteSpace and LineTerminator of ECMAScript (U+0085 is not one of them).
bool jsSpace(char32_t c) {
    return c == 0x09 || c == 0x0A || c == 0x0B || c == 0x0C || c == 0x0D || c == 0x20 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

CharClass classify(char32_t c) {
    if (jsSpace(c))
        return CharClass::Space;
    const auto mask = U_GET_GC_MASK(static_cast<UChar32>(c));
    if (mask & U_GC_L_MASK)
        return CharClass::Letter;
    if (mask & U_GC_N_MASK)
        return CharClass::Number;
    return CharClass::Other;
}

} // namespace

std::string ByteLevelBpe::toUnicodeAlphabet(const std::string& raw) {
    std::string out;
    out.reserve(raw.size() * 2);
    for (const char ch : raw)
        appendUtf8(out, alphabet().codeOf[static_cast<unsigned char>(ch)]);
    return out;
}

bool ByteLevelBpe::fromUnicodeAlphabet(const std::string& s, std::string& raw) {
    raw.clear();
    for (std::size_t i = 0; i < s.size();) {
        const auto [c, len] = decodeAt(s, i);
        const auto it = alphabet().byteOf.find(c);
        if (it == alphabet().byteOf.end() || (c == 0xFFFD && len == 1))
            return false;
        raw += static_cast<char>(it->second);
        i += len;
    }
    return true;
}

std::vector<std::string> ByteLevelBpe::pretokenize(const std::string& text) {
    struct Char {
        std::size_t at, len;
        char32_t code;
        CharClass cls;
    };
    std::vector<Char> cs;
    cs.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto [c, len] = decodeAt(text, i);
        cs.push_back({i, len, c, classify(c)});
        i += len;
    }
    const std::size_t n = cs.size();
    const auto runEnd = [&](std::size_t i, CharClass cls) {
        while (i < n && cs[i].cls == cls)
            ++i;
        return i;
    };
    std::vector<std::string> pieces;
    for (std::size_t i = 0; i < n;) {
        std::size_t end = i + 1;
        const auto at = [&](std::size_t k) { return k < n ? cs[k].code : char32_t(0); };
        // The alternatives in the pattern's order: the first that matches here wins, as in a regex.
        bool matched = false;
        if (cs[i].code == U'\'') {
            for (const char* c : {"s", "t", "re", "ve", "m", "ll", "d"}) {
                std::size_t k = 0;
                while (c[k] && at(i + 1 + k) == static_cast<char32_t>(c[k]))
                    ++k;
                if (!c[k]) {
                    end = i + 1 + k, matched = true;
                    break;
                }
            }
        }
        if (!matched && cs[i].cls != CharClass::Space) {
            end = runEnd(i, cs[i].cls); // letters, numbers, or other characters
        } else if (!matched && cs[i].code == U' ' && i + 1 < n && cs[i + 1].cls != CharClass::Space) {
            end = runEnd(i + 1, cs[i + 1].cls); // " ?\p{L}+" and its kin take one leading space
        } else if (!matched) {
            const auto j = runEnd(i, CharClass::Space);
            // \s+(?!\S) leaves the last space for the word after it; a lone one is \s+.
            end = (j == n || j - i == 1) ? j : j - 1;
        }
        const auto from = cs[i].at;
        const auto to = end < n ? cs[end].at : text.size();
        pieces.push_back(text.substr(from, to - from));
        i = end;
    }
    return pieces;
}

std::vector<std::string> ByteLevelBpe::bpe(const std::string& piece) const {
    std::vector<std::string> word;
    word.reserve(piece.size());
    for (const char ch : piece)
        word.emplace_back(1, ch);
    constexpr auto kMissing = std::numeric_limits<int64_t>::max();
    std::string key;
    while (word.size() > 1) {
        // The lowest-ranked pair; among equal ranks the last one, as the reference's object of ranks keeps.
        int64_t best = kMissing;
        std::size_t at = 0;
        for (std::size_t i = 0; i + 1 < word.size(); ++i) {
            key.assign(word[i]).append(1, ',').append(word[i + 1]);
            const auto it = ranks_.find(key);
            const auto rank = it == ranks_.end() ? kMissing : it->second;
            if (rank <= best)
                best = rank, at = i;
        }
        if (best == kMissing)
            break;
        const std::string first = word[at], second = word[at + 1];
        std::vector<std::string> merged;
        merged.reserve(word.size());
        for (std::size_t i = 0; i < word.size();) {
            if (word[i] == first && i + 1 < word.size() && word[i + 1] == second) {
                merged.push_back(first + second);
                i += 2;
            } else {
                merged.push_back(word[i]);
                i += 1;
            }
        }
        word = std::move(merged);
    }
    return word;
}

std::vector<int64_t> ByteLevelBpe::encode(const std::string& text) const {
    std::vector<int64_t> ids;
    for (const auto& piece : pretokenize(text))
        for (const auto& symbol : bpe(piece))
            ids.push_back(find(symbol));
    return ids;
}

std::string ByteLevelBpe::decode(const std::vector<int64_t>& ids) const {
    std::string out;
    for (const auto id : ids)
        if (id >= 0 && id < size())
            out += token(id);
    return out;
}

int64_t ByteLevelBpe::find(const std::string& rawToken) const {
    const auto it = ids_.find(rawToken);
    return it == ids_.end() ? -1 : it->second;
}

void ByteLevelBpe::index() {
    ids_.clear();
    ranks_.clear();
    for (std::size_t i = 0; i < tokens_.size(); ++i)
        if (!ids_.emplace(tokens_[i], static_cast<int64_t>(i)).second)
            throw FormatError("the token '" + toUnicodeAlphabet(tokens_[i]) +
                              "' appears twice in the vocabulary");
    for (std::size_t r = 0; r < merges_.size(); ++r)
        ranks_[merges_[r].first + "," + merges_[r].second] = static_cast<int64_t>(r);
}

ByteLevelBpe ByteLevelBpe::fromTokens(std::vector<std::string> tokens,
                                      std::vector<std::pair<std::string, std::string>> merges) {
    ByteLevelBpe b;
    b.tokens_ = std::move(tokens);
    b.merges_ = std::move(merges);
    b.index();
    return b;
}

ByteLevelBpe ByteLevelBpe::fromText(const std::string& vocabJson, const std::string& mergesText,
                                    const std::string& vocabName, const std::string& mergesName) {
    auto tokens = Vocabulary::parseTokenIds(vocabJson, vocabName);
    for (auto& tok : tokens) {
        std::string raw;
        // A token outside the byte alphabet is a special token, kept as written.
        if (fromUnicodeAlphabet(tok, raw))
            tok = std::move(raw);
    }
    std::vector<std::pair<std::string, std::string>> merges;
    std::istringstream in(mergesText);
    std::string line;
    for (int lineNo = 1; std::getline(in, line); ++lineNo) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty() || (lineNo == 1 && line.rfind("#version", 0) == 0))
            continue;
        std::istringstream words(line);
        std::string a, b, extra;
        std::string ra, rb;
        if (!(words >> a >> b) || (words >> extra))
            throw FormatError(mergesName + ":" + std::to_string(lineNo) + ": expected two tokens, got '" +
                              line + "'");
        if (!fromUnicodeAlphabet(a, ra) || !fromUnicodeAlphabet(b, rb))
            throw FormatError(mergesName + ":" + std::to_string(lineNo) +
                              ": a token has characters outside GPT-2's byte alphabet: '" + line + "'");
        merges.emplace_back(std::move(ra), std::move(rb));
    }
    ByteLevelBpe result;
    try {
        result = fromTokens(std::move(tokens), std::move(merges));
    } catch (const FormatError& e) {
        throw FormatError(vocabName + ": " + e.what());
    }
    for (int b = 0; b < 256; ++b)
        if (result.find(std::string(1, static_cast<char>(b))) < 0)
            throw FormatError(vocabName + ": the byte token '" +
                              toUnicodeAlphabet(std::string(1, static_cast<char>(b))) +
                              "' is missing; byte-level BPE needs all 256");
    for (std::size_t r = 0; r < result.merges_.size(); ++r) {
        const auto& [a, b] = result.merges_[r];
        if (result.find(a + b) < 0)
            throw FormatError(mergesName + ": merge " + std::to_string(r + 1) + " ('" + toUnicodeAlphabet(a) +
                              " " + toUnicodeAlphabet(b) + "') makes a token that is not in " + vocabName);
    }
    return result;
}

ByteLevelBpe ByteLevelBpe::fromFiles(const std::string& vocabPath, const std::string& mergesPath) {
    return fromText(readFolderFile(vocabPath), readFolderFile(mergesPath), vocabPath, mergesPath);
}

std::string ByteLevelBpe::vocabJson() const {
    // In id order, as GPT-2's file is, so the file reads naturally; nlohmann's object would sort by token.
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    // A special token like <|endoftext|> is printable ASCII, which the alphabet writes as it is.
    for (std::size_t i = 0; i < tokens_.size(); ++i)
        j[toUnicodeAlphabet(tokens_[i])] = i;
    return j.dump() + "\n";
}

std::string ByteLevelBpe::mergesText() const {
    std::string out = "#version: 0.2\n";
    for (const auto& [a, b] : merges_)
        out += toUnicodeAlphabet(a) + " " + toUnicodeAlphabet(b) + "\n";
    return out;
}

} // namespace core
