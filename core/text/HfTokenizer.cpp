#include "core/text/HfTokenizer.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/JsonText.h"
#include "core/text/ByteLevelBpe.h"
#include "core/text/HfBpeModel.h"
#include "core/text/HfNormalizer.h"
#include "core/text/HfPreTokenizer.h"
#include "core/text/HfUnigramModel.h"
#include "core/text/HfWordPieceModel.h"
#include "core/text/UnicodeText.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_set>

namespace core {

using nlohmann::json;

namespace {

struct AddedToken {
    std::string content;
    int64_t id = 0;
    bool special = false, lstrip = false, rstrip = false;
};

// One step of the decoder, applied to the list of token strings as the library's decoders are.
struct DecodeStep {
    std::string type;
    std::string from, to;      // Replace
    std::string content;       // Strip
    int start = 0, stop = 0;   // Strip
    std::string replacement;   // Metaspace
    bool prependSpace = true;  // Metaspace: drop the space the first token starts with
    std::string prefix = "##"; // WordPiece
    bool cleanup = true;       // WordPiece: the library's clean-up of spaces before punctuation
};

void parseDecoder(const json& j, const std::string& source, std::vector<DecodeStep>& out) {
    if (j.is_null())
        return;
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
        throw FormatError(source + ": a decoder must be an object with a \"type\"");
    const auto type = j["type"].get<std::string>();
    const auto where = source + ": decoder " + type;
    auto str = [&](const char* key, const std::string& fallback) {
        return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
    };
    if (type == "Sequence") {
        if (!j.contains("decoders") || !j["decoders"].is_array())
            throw FormatError(where + ": 'decoders' must be a list");
        for (const auto& d : j["decoders"])
            parseDecoder(d, source, out);
        return;
    }
    DecodeStep s;
    s.type = type;
    if (type == "Replace") {
        if (!j.contains("pattern") || !j["pattern"].is_object() || !j["pattern"].contains("String"))
            throw FormatError(where + ": only a {\"String\": …} pattern is supported");
        s.from = j["pattern"]["String"].get<std::string>();
        s.to = str("content", "");
    } else if (type == "Strip") {
        s.content = str("content", " ");
        s.start = j.value("start", 0);
        s.stop = j.value("stop", 0);
    } else if (type == "Metaspace") {
        s.replacement = str("replacement", "\u2581");
        s.prependSpace =
            str("prepend_scheme", j.value("add_prefix_space", true) ? "always" : "never") != "never";
    } else if (type == "WordPiece") {
        s.prefix = str("prefix", "##");
        s.cleanup = j.value("cleanup", true);
    } else if (type != "ByteLevel" && type != "ByteFallback" && type != "Fuse") {
        throw FormatError(where + " is not supported (attnscope reads Sequence, ByteLevel, Replace, "
                                  "ByteFallback, Fuse, Strip, Metaspace and WordPiece)");
    }
    out.push_back(std::move(s));
}

// The tokenizers library's clean-up of decoded WordPiece text: no space before punctuation and contractions.
std::string cleanedUp(std::string t) {
    const std::pair<const char*, const char*> rules[] = {
        {" .", "."},   {" ?", "?"},           {" !", "!"},   {" ,", ","},     {" ' ", "'"},   {" n't", "n't"},
        {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : rules)
        t = replaceText(t, from, to);
    return t;
}

// "<0xE2>" → 0xE2; −1 for anything else.
int fallbackByte(const std::string& t) {
    if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>')
        return -1;
    const auto hex = t.substr(3, 2);
    if (!std::isxdigit(static_cast<unsigned char>(hex[0])) ||
        !std::isxdigit(static_cast<unsigned char>(hex[1])))
        return -1;
    return std::stoi(hex, nullptr, 16);
}

std::vector<std::string> runDecoder(const std::vector<DecodeStep>& steps, std::vector<std::string> tokens,
                                    bool whole) {
    for (const auto& s : steps) {
        if (s.type == "ByteLevel") {
            for (auto& t : tokens) {
                std::string raw;
                if (ByteLevelBpe::fromUnicodeAlphabet(t, raw))
                    t = std::move(raw);
            }
        } else if (s.type == "Replace") {
            for (auto& t : tokens)
                t = replaceText(t, s.from, s.to);
        } else if (s.type == "ByteFallback") {
            // Runs of byte tokens become their text when they are valid UTF-8, else one U+FFFD a byte.
            std::vector<std::string> out;
            std::string bytes;
            std::size_t count = 0;
            auto flush = [&] {
                if (count == 0)
                    return;
                if (validUtf8(bytes) == bytes)
                    out.push_back(bytes);
                else
                    for (std::size_t i = 0; i < count; ++i)
                        out.push_back("\uFFFD");
                bytes.clear();
                count = 0;
            };
            for (auto& t : tokens) {
                const int b = fallbackByte(t);
                if (b >= 0) {
                    bytes += static_cast<char>(b);
                    ++count;
                } else {
                    flush();
                    out.push_back(std::move(t));
                }
            }
            flush();
            tokens = std::move(out);
        } else if (s.type == "Fuse" && whole) {
            std::string all;
            for (const auto& t : tokens)
                all += t;
            tokens = {all};
        } else if (s.type == "Strip" && whole) {
            for (auto& t : tokens) {
                for (int i = 0; i < s.start && t.compare(0, s.content.size(), s.content) == 0; ++i)
                    t.erase(0, s.content.size());
                for (int i = 0; i < s.stop && t.size() >= s.content.size() &&
                                t.compare(t.size() - s.content.size(), s.content.size(), s.content) == 0;
                     ++i)
                    t.erase(t.size() - s.content.size());
            }
        } else if (s.type == "Metaspace") {
            for (std::size_t i = 0; i < tokens.size(); ++i) {
                tokens[i] = replaceText(tokens[i], s.replacement, " ");
                if (whole && i == 0 && s.prependSpace && !tokens[i].empty() && tokens[i].front() == ' ')
                    tokens[i].erase(0, 1);
            }
        } else if (s.type == "WordPiece") {
            for (std::size_t i = 0; i < tokens.size(); ++i) {
                if (tokens[i].compare(0, s.prefix.size(), s.prefix) == 0)
                    tokens[i].erase(0, s.prefix.size());
                else if (i > 0 && whole)
                    tokens[i].insert(0, " ");
                if (s.cleanup && whole)
                    tokens[i] = cleanedUp(tokens[i]);
            }
        }
    }
    return tokens;
}

// A special token's name in tokenizer_config.json: "<s>" or {"content": "<s>", …}.
std::string configToken(const json& config, const char* key) {
    if (!config.is_object() || !config.contains(key))
        return {};
    const auto& v = config[key];
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string())
        return v["content"].get<std::string>();
    return {};
}

} // namespace

struct HfTokenizer::Tables {
    std::string text;       // tokenizer.json as read
    std::string configText; // tokenizer_config.json as read, or empty
    HfNormalizer normalizer;
    HfPreTokenizer preTokenizer;
    std::unique_ptr<HfModel> model;
    std::vector<AddedToken> added; // longest first, so the longest of two that start alike is found
    std::vector<DecodeStep> decoder;
    std::vector<std::string> spelling; // by id: the vocabulary's own token strings
    std::unordered_set<int64_t> special;
    std::vector<int64_t> prefix, suffix;
};

HfTokenizer::HfTokenizer(Vocabulary vocab, std::shared_ptr<const Tables> tables)
    : Tokenizer(std::move(vocab)), tables_(std::move(tables)) {}

HfTokenizer::~HfTokenizer() = default;

std::unique_ptr<HfTokenizer> HfTokenizer::fromFile(const std::string& path, int64_t rows) {
    const auto config = std::filesystem::path(path).parent_path() / "tokenizer_config.json";
    std::error_code ec;
    const auto configText = std::filesystem::exists(config, ec) ? readFile(config.string()) : std::string();
    return fromText(readFile(path), configText, path, rows);
}

std::unique_ptr<HfTokenizer> HfTokenizer::fromText(const std::string& text, const std::string& configText,
                                                   const std::string& name, int64_t rows) {
    const auto j = parseJsonObject(text, name);
    const json config =
        configText.empty() ? json::object() : parseJsonObject(configText, "tokenizer_config.json");
    auto t = std::make_shared<Tables>();
    t->text = text;
    t->configText = configText;
    const auto& model = j.contains("model") ? j["model"] : json();
    const auto type = model.is_object() && model.contains("type") && model["type"].is_string()
                          ? model["type"].get<std::string>()
                          : std::string("BPE"); // files without a type are BPE's older form
    if (type == "BPE")
        t->model = std::make_unique<HfBpeModel>(HfBpeModel::fromJson(model, name));
    else if (type == "WordPiece")
        t->model = std::make_unique<HfWordPieceModel>(HfWordPieceModel::fromJson(model, name));
    else if (type == "Unigram")
        t->model = std::make_unique<HfUnigramModel>(HfUnigramModel::fromJson(model, name));
    else
        throw FormatError(
            name + ": a " + type +
            " model; attnscope reads tokenizer.json files of BPE, WordPiece and Unigram models");
    t->normalizer = HfNormalizer::fromJson(j.value("normalizer", json()), name);
    t->preTokenizer = HfPreTokenizer::fromJson(j.value("pre_tokenizer", json()), name);
    parseDecoder(j.value("decoder", json()), name, t->decoder);

    // The id table: the model's vocabulary and the added tokens, gaps named, up to the model's rows.
    int64_t size = rows;
    for (const auto& [token, id] : t->model->vocab())
        size = std::max(size, id + 1);
    if (j.contains("added_tokens") && !j["added_tokens"].is_array())
        throw FormatError(name + ": 'added_tokens' must be a list");
    for (const auto& a : j.value("added_tokens", json::array())) {
        if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() || !a.contains("content") ||
            !a["content"].is_string() || a["id"].get<int64_t>() < 0 ||
            a["id"].get<int64_t>() >= (int64_t{1} << 31))
            throw FormatError(name + ": an added token needs a whole \"id\" from 0 and a \"content\" string");
        AddedToken tok{a["content"].get<std::string>(), a["id"].get<int64_t>(), a.value("special", false),
                       a.value("lstrip", false), a.value("rstrip", false)};
        if (tok.content.empty())
            throw FormatError(name + ": added token " + std::to_string(tok.id) + " is empty");
        size = std::max(size, tok.id + 1);
        if (tok.special)
            t->special.insert(tok.id);
        t->added.push_back(std::move(tok));
    }
    std::stable_sort(t->added.begin(), t->added.end(), [](const AddedToken& a, const AddedToken& b) {
        return a.content.size() > b.content.size();
    });
    t->spelling.assign(static_cast<std::size_t>(size), std::string());
    for (const auto& [token, id] : t->model->vocab())
        t->spelling[static_cast<std::size_t>(id)] = token;
    for (const auto& a : t->added)
        t->spelling[static_cast<std::size_t>(a.id)] = a.content;

    // What each id shows in the window: its decoded text, unless two ids would then read alike.
    std::vector<std::string> shown(t->spelling.size());
    std::set<std::string> seen;
    for (std::size_t id = 0; id < shown.size(); ++id) {
        const auto& spelled = t->spelling[id];
        auto label = spelled.empty() ? "<unused " + std::to_string(id) + ">"
                     : t->special.count(static_cast<int64_t>(id))
                         ? spelled
                         : runDecoder(t->decoder, {spelled}, false).front();
        if (label.empty() || !seen.insert(label).second) {
            label = spelled.empty() ? "<unused " + std::to_string(id) + ">" : spelled;
            if (!seen.insert(label).second)
                label = "<id " + std::to_string(id) + ">";
            seen.insert(label);
        }
        shown[id] = std::move(label);
    }

    // The post-processor's specials around one sequence.
    const auto& post = j.value("post_processor", json());
    auto idOf = [&](const std::string& token) -> int64_t {
        for (std::size_t id = 0; id < t->spelling.size(); ++id)
            if (t->spelling[id] == token)
                return static_cast<int64_t>(id);
        throw FormatError(name + ": the post-processor's token '" + token + "' is not in the vocabulary");
    };
    const auto postType = post.is_object() ? post.value("type", std::string()) : std::string();
    if (postType == "TemplateProcessing" && post.contains("single") && post["single"].is_array()) {
        bool before = true;
        for (const auto& item : post["single"]) {
            if (item.contains("Sequence")) {
                before = false;
            } else if (item.contains("SpecialToken") && item["SpecialToken"].contains("id")) {
                (before ? t->prefix : t->suffix)
                    .push_back(idOf(item["SpecialToken"]["id"].get<std::string>()));
            }
        }
    } else if ((postType == "BertProcessing" || postType == "RobertaProcessing") && post.contains("cls") &&
               post.contains("sep")) {
        t->prefix.push_back(post["cls"][1].get<int64_t>());
        t->suffix.push_back(post["sep"][1].get<int64_t>());
    }

    // The four parts the vocabulary names: tokenizer_config.json's, else the post-processor's and the
    // model's, each standing in for a missing other (byte-level vocabularies have no unknown token).
    auto nameOf = [&](int64_t id) { return shown[static_cast<std::size_t>(id)]; };
    auto shownFor = [&](const std::string& token) -> std::string {
        if (token.empty())
            return {};
        for (std::size_t id = 0; id < t->spelling.size(); ++id)
            if (t->spelling[id] == token)
                return shown[id];
        return {};
    };
    auto bos = shownFor(configToken(config, "bos_token"));
    auto eos = shownFor(configToken(config, "eos_token"));
    auto unk = shownFor(configToken(config, "unk_token"));
    auto pad = shownFor(configToken(config, "pad_token"));
    if (bos.empty() && !t->prefix.empty())
        bos = nameOf(t->prefix.front());
    if (eos.empty() && !t->suffix.empty())
        eos = nameOf(t->suffix.back());
    if (unk.empty() && t->model->unk() >= 0)
        unk = nameOf(t->model->unk());
    if (bos.empty() && eos.empty()) {
        for (const auto& a : j.value("added_tokens", json::array()))
            if (a.value("special", false)) {
                bos = eos = nameOf(a["id"].get<int64_t>());
                break;
            }
    }
    if (bos.empty() && eos.empty())
        throw FormatError(name +
                          ": no special token to begin and end a sequence with (no tokenizer_config.json "
                          "beside it, no post-processor template, no special added token)");
    if (bos.empty())
        bos = eos;
    if (eos.empty())
        eos = bos;
    if (unk.empty())
        unk = eos;
    if (pad.empty())
        pad = eos;
    auto vocab = Vocabulary::fromTokens(shown, pad, bos, eos, unk);
    return std::unique_ptr<HfTokenizer>(new HfTokenizer(std::move(vocab), std::move(t)));
}

std::vector<Token> HfTokenizer::tokenize(const std::string& input) const {
    const auto& t = *tables_;
    const auto text = validUtf8(input);
    std::vector<Token> out;
    auto addWords = [&](const std::string& stretch, bool atStart) {
        if (stretch.empty())
            return;
        for (const auto& piece : t.preTokenizer.apply(t.normalizer.apply(stretch), atStart))
            for (const auto id : t.model->encode(piece.text)) {
                Token tok;
                tok.unknown = id < 0 || id == t.model->unk();
                tok.id = id < 0 ? vocab().unk() : id;
                tok.text = id < 0 ? piece.text : vocab().token(id);
                out.push_back(std::move(tok));
            }
    };
    // Added tokens are found in the raw text, the longest at the leftmost place first; lstrip and rstrip
    // take the whitespace beside them along.
    std::size_t from = 0, i = 0;
    while (i < text.size()) {
        const AddedToken* hit = nullptr;
        for (const auto& a : t.added)
            if (text.compare(i, a.content.size(), a.content) == 0) {
                hit = &a;
                break;
            }
        if (!hit) {
            ++i;
            continue;
        }
        std::size_t begin = i, end = i + hit->content.size();
        if (hit->lstrip)
            while (begin > from && isUnicodeSpace(static_cast<unsigned char>(text[begin - 1])))
                --begin;
        if (hit->rstrip)
            while (end < text.size() && isUnicodeSpace(static_cast<unsigned char>(text[end])))
                ++end;
        addWords(text.substr(from, begin - from), from == 0);
        Token tok;
        tok.id = hit->id;
        tok.text = vocab().token(hit->id);
        out.push_back(std::move(tok));
        from = i = end;
    }
    addWords(text.substr(from), from == 0);
    return out;
}

std::string HfTokenizer::detokenize(const std::vector<int64_t>& ids) const {
    const auto& t = *tables_;
    std::vector<std::string> tokens;
    for (const auto id : ids)
        if (id >= 0 && id < static_cast<int64_t>(t.spelling.size()) && !t.special.count(id) &&
            !vocab().isSpecial(id))
            tokens.push_back(t.spelling[static_cast<std::size_t>(id)]);
    std::string out;
    for (const auto& s : runDecoder(t.decoder, std::move(tokens), true))
        out += s;
    return out;
}

std::vector<std::string> HfTokenizer::pieces(const std::string& text) const {
    std::vector<std::string> out;
    for (auto& p : tables_->preTokenizer.apply(tables_->normalizer.apply(validUtf8(text)), true))
        out.push_back(std::move(p.text));
    return out;
}

std::unique_ptr<Tokenizer> HfTokenizer::clone() const {
    return std::unique_ptr<Tokenizer>(new HfTokenizer(vocab(), tables_));
}

std::string HfTokenizer::fileContents() const {
    return tables_->text;
}

std::vector<std::pair<std::string, std::string>> HfTokenizer::extraFiles(const std::string&) const {
    if (tables_->configText.empty())
        return {};
    return {{"tokenizer_config.json", tables_->configText}};
}

const std::vector<int64_t>& HfTokenizer::prefixIds() const {
    return tables_->prefix;
}

const std::vector<int64_t>& HfTokenizer::suffixIds() const {
    return tables_->suffix;
}

} // namespace core
