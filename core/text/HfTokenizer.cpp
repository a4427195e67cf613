#include "core/text/HfTokenizer.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/JsonText.h"
#include "core/text/ByteLevelBpe.h"
#include "core/text/HfBpeModel.h"
#include "core/text/HfDecoder.h"
#include "core/text/HfNormalizer.h"
#include "core/text/HfPreTokenizer.h"
#include "core/text/HfUnigramModel.h"
#include "core/text/HfWordPieceModel.h"
#include "core/text/UnicodeText.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <unordered_set>

namespace core {

using nlohmann::json;

namespace {

// As the model's vocab_size is bounded: a file claiming more ids than this is malformed, and allocating a
// table for them would exhaust memory.
constexpr int64_t kMaxIds = int64_t{1} << 24;

struct AddedToken {
    std::string content;
    int64_t id = 0;
    bool special = false, lstrip = false, rstrip = false;
};

// The special ids the post-processor puts before and after one sequence. TemplateProcessing names its special
// tokens by keys of its special_tokens (whose ids it adds); Bert- and RobertaProcessing give [token, id] for
// cls and sep; ByteLevel adds none; a Sequence adds what each of its processors adds.
void readPostProcessor(const json& post, const std::string& name,
                       const std::function<int64_t(const std::string&)>& idOf, std::vector<int64_t>& prefix,
                       std::vector<int64_t>& suffix) {
    if (post.is_null())
        return;
    const auto where = name + ": post_processor";
    if (!post.is_object() || !post.contains("type") || !post["type"].is_string())
        throw FormatError(where + " must be an object with a \"type\"");
    const auto type = post["type"].get<std::string>();
    auto idCheck = [&](const json& v) {
        if (!v.is_number_unsigned())
            throw FormatError(where + " " + type + ": a special token's id must be a whole number from 0");
        return v.get<int64_t>();
    };
    if (type == "Sequence") {
        if (!post.contains("processors") || !post["processors"].is_array())
            throw FormatError(where + " Sequence: 'processors' must be a list");
        for (const auto& p : post["processors"])
            readPostProcessor(p, name, idOf, prefix, suffix);
    } else if (type == "TemplateProcessing") {
        if (!post.contains("single") || !post["single"].is_array())
            throw FormatError(where + " TemplateProcessing: 'single' must be a list");
        const auto& specials = post.contains("special_tokens") ? post["special_tokens"] : json::object();
        bool before = true;
        for (const auto& item : post["single"]) {
            if (item.is_object() && item.contains("Sequence")) {
                before = false;
                continue;
            }
            if (!item.is_object() || !item.contains("SpecialToken") || !item["SpecialToken"].is_object() ||
                !item["SpecialToken"].contains("id") || !item["SpecialToken"]["id"].is_string())
                throw FormatError(where + " TemplateProcessing: an item of 'single' must be a Sequence or a "
                                          "SpecialToken with an \"id\"");
            const auto key = item["SpecialToken"]["id"].get<std::string>();
            auto& out = before ? prefix : suffix;
            if (specials.is_object() && specials.contains(key) && specials[key].contains("ids") &&
                specials[key]["ids"].is_array()) {
                for (const auto& id : specials[key]["ids"])
                    out.push_back(idCheck(id));
            } else {
                out.push_back(idOf(key));
            }
        }
    } else if (type == "BertProcessing" || type == "RobertaProcessing") {
        for (const char* part : {"cls", "sep"}) {
            const auto& v = post.contains(part) ? post[part] : json();
            if (!v.is_array() || v.size() != 2 || !v[0].is_string())
                throw FormatError(where + " " + type + ": '" + part + "' must be [token, id]");
            (std::string(part) == "cls" ? prefix : suffix).push_back(idCheck(v[1]));
        }
    } else if (type != "ByteLevel") {
        throw FormatError(where + " " + type +
                          " is not supported (attnscope reads TemplateProcessing, BertProcessing, "
                          "RobertaProcessing, ByteLevel and Sequence)");
    }
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
    HfDecoder decoder;
    std::vector<std::string> spelling; // by id: the vocabulary's own token strings
    std::unordered_set<int64_t> special;
    std::vector<int64_t> prefix, suffix;
};

namespace {

// The "model" section as the model its "type" names (BPE when it names none).
std::unique_ptr<HfModel> readModel(const json& j, const std::string& name) {
    const auto& model = j.contains("model") ? j["model"] : json();
    const auto type = model.is_object() && model.contains("type") && model["type"].is_string()
                          ? model["type"].get<std::string>()
                          : std::string("BPE"); // files without a type are BPE's older form
    if (type == "BPE")
        return std::make_unique<HfBpeModel>(HfBpeModel::fromJson(model, name));
    if (type == "WordPiece")
        return std::make_unique<HfWordPieceModel>(HfWordPieceModel::fromJson(model, name));
    if (type == "Unigram")
        return std::make_unique<HfUnigramModel>(HfUnigramModel::fromJson(model, name));
    throw FormatError(name + ": a " + type +
                      " model; attnscope reads tokenizer.json files of BPE, WordPiece and Unigram models");
}

// The "added_tokens" list into t.added (longest first) and t.special; size grows to hold their ids.
void readAddedTokens(const json& j, const std::string& name, HfTokenizer::Tables& t, int64_t& size) {
    if (j.contains("added_tokens") && !j["added_tokens"].is_array())
        throw FormatError(name + ": 'added_tokens' must be a list");
    for (const auto& a : j.contains("added_tokens") ? j["added_tokens"] : json::array()) {
        const auto where =
            name + ": added token " + (a.is_object() && a.contains("id") ? a["id"].dump() : "?");
        if (!a.is_object() || !a.contains("id") || !a["id"].is_number_unsigned() || !a.contains("content") ||
            !a["content"].is_string() || a["id"].get<uint64_t>() >= kMaxIds)
            throw FormatError(where + ": it needs a whole \"id\" below " + std::to_string(kMaxIds) +
                              " and a \"content\" string");
        auto flag = [&](const char* key) {
            if (!a.contains(key) || a[key].is_null())
                return false;
            if (!a[key].is_boolean())
                throw FormatError(where + ": '" + key + "' must be true or false");
            return a[key].get<bool>();
        };
        AddedToken tok{a["content"].get<std::string>(), a["id"].get<int64_t>(), flag("special"),
                       flag("lstrip"), flag("rstrip")};
        if (tok.content.empty())
            throw FormatError(where + " is empty");
        size = std::max(size, tok.id + 1);
        if (tok.special)
            t.special.insert(tok.id);
        t.added.push_back(std::move(tok));
    }
    std::stable_sort(t.added.begin(), t.added.end(), [](const AddedToken& a, const AddedToken& b) {
        return a.content.size() > b.content.size();
    });
}

// The id table: the model's vocabulary and the added tokens, gaps named, up to the model's rows.
void readIdTable(const json& j, const std::string& name, int64_t rows, HfTokenizer::Tables& t) {
    int64_t size = rows;
    for (const auto& [token, id] : t.model->vocab())
        size = std::max(size, id + 1);
    if (size > kMaxIds)
        throw FormatError(name + ": ids up to " + std::to_string(size - 1) +
                          "; attnscope reads vocabularies of at most " + std::to_string(kMaxIds) + " tokens");
    readAddedTokens(j, name, t, size);
    t.spelling.assign(static_cast<std::size_t>(size), std::string());
    for (const auto& [token, id] : t.model->vocab())
        t.spelling[static_cast<std::size_t>(id)] = token;
    for (const auto& a : t.added)
        t.spelling[static_cast<std::size_t>(a.id)] = a.content;
}

// What each id shows in the window: its decoded text, unless two ids would then read alike.
std::vector<std::string> shownTokens(const HfTokenizer::Tables& t) {
    std::vector<std::string> shown(t.spelling.size());
    std::set<std::string> seen;
    for (std::size_t id = 0; id < shown.size(); ++id) {
        const auto& spelled = t.spelling[id];
        auto label = spelled.empty()                             ? "<unused " + std::to_string(id) + ">"
                     : t.special.count(static_cast<int64_t>(id)) ? spelled
                                                                 : t.decoder.tokenText(spelled);
        if (label.empty() || !seen.insert(label).second) {
            label = spelled.empty() ? "<unused " + std::to_string(id) + ">" : spelled;
            if (!seen.insert(label).second)
                label = "<id " + std::to_string(id) + ">";
            seen.insert(label);
        }
        shown[id] = std::move(label);
    }
    return shown;
}

// The post-processor's specials around one sequence into t.prefix and t.suffix, each checked to be an id
// of the table.
void readPostProcessorIds(const json& j, const std::string& name, HfTokenizer::Tables& t) {
    const auto& post = j.contains("post_processor") ? j["post_processor"] : json();
    auto idOf = [&](const std::string& token) -> int64_t {
        for (std::size_t id = 0; id < t.spelling.size(); ++id)
            if (t.spelling[id] == token)
                return static_cast<int64_t>(id);
        throw FormatError(name + ": the post-processor's token '" + token + "' is not in the vocabulary");
    };
    readPostProcessor(post, name, idOf, t.prefix, t.suffix);
    for (const auto id : t.prefix)
        if (id >= static_cast<int64_t>(t.spelling.size()))
            throw FormatError(name + ": the post-processor's id " + std::to_string(id) +
                              " is outside the vocabulary");
    for (const auto id : t.suffix)
        if (id >= static_cast<int64_t>(t.spelling.size()))
            throw FormatError(name + ": the post-processor's id " + std::to_string(id) +
                              " is outside the vocabulary");
}

// The four parts the vocabulary names: tokenizer_config.json's, else the post-processor's and the
// model's, each standing in for a missing other (byte-level vocabularies have no unknown token).
Vocabulary namedVocabulary(const json& j, const json& config, const std::string& name,
                           const HfTokenizer::Tables& t, const std::vector<std::string>& shown) {
    auto nameOf = [&](int64_t id) { return shown[static_cast<std::size_t>(id)]; };
    auto shownFor = [&](const std::string& token) -> std::string {
        if (token.empty())
            return {};
        for (std::size_t id = 0; id < t.spelling.size(); ++id)
            if (t.spelling[id] == token)
                return shown[id];
        return {};
    };
    auto bos = shownFor(configToken(config, "bos_token"));
    auto eos = shownFor(configToken(config, "eos_token"));
    auto unk = shownFor(configToken(config, "unk_token"));
    auto pad = shownFor(configToken(config, "pad_token"));
    if (bos.empty() && !t.prefix.empty())
        bos = nameOf(t.prefix.front());
    if (eos.empty() && !t.suffix.empty())
        eos = nameOf(t.suffix.back());
    if (unk.empty() && t.model->unk() >= 0)
        unk = nameOf(t.model->unk());
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
    // BERT's and RoBERTa's folders rarely name their pad token in tokenizer_config.json; their tokenizer.json
    // pads with it, or at least lists it among the added tokens.
    const auto& padding = j.contains("padding") ? j["padding"] : json();
    if (pad.empty() && padding.is_object() && padding.contains("pad_token") &&
        padding["pad_token"].is_string())
        pad = shownFor(padding["pad_token"].get<std::string>());
    for (const char* candidate : {"[PAD]", "<pad>"})
        if (pad.empty())
            pad = shownFor(candidate);
    if (pad.empty())
        pad = eos;
    return Vocabulary::fromTokens(shown, pad, bos, eos, unk);
}

} // namespace

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
    t->model = readModel(j, name);
    t->normalizer = HfNormalizer::fromJson(j.value("normalizer", json()), name);
    t->preTokenizer = HfPreTokenizer::fromJson(j.value("pre_tokenizer", json()), name);
    t->decoder = HfDecoder::fromJson(j.contains("decoder") ? j["decoder"] : json(), name);
    readIdTable(j, name, rows, *t);
    const auto shown = shownTokens(*t);
    readPostProcessorIds(j, name, *t);
    auto vocab = namedVocabulary(j, config, name, *t, shown);
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
                tok.unknown = id == t.model->unk();
                tok.id = id;
                tok.text = vocab().token(id);
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
            begin = skipSpaceBackward(text, from, begin);
        if (hit->rstrip)
            end = skipSpaceForward(text, end);
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
    return t.decoder.decode(tokens);
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
