#include "core/text/hf/HfTokenizer.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/FolderLinks.h"
#include "core/base/JsonText.h"
#include "core/text/ByteLevelBpe.h"
#include "core/text/UnicodeText.h"
#include "core/text/hf/HfAddedTokens.h"
#include "core/text/hf/HfBpeModel.h"
#include "core/text/hf/HfDecoder.h"
#include "core/text/hf/HfNormalizer.h"
#include "core/text/hf/HfPostProcessor.h"
#include "core/text/hf/HfPreTokenizer.h"
#include "core/text/hf/HfUnigramModel.h"
#include "core/text/hf/HfWordPieceModel.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace core {

using nlohmann::json;

namespace {

// As the model's vocab_size is bounded: a file claiming more ids than this is malformed, and allocating a
// table for them would exhaust memory.
constexpr int64_t kMaxIds = int64_t{1} << 24;

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
    HfAddedTokens added;
    HfDecoder decoder;
    std::vector<std::string> spelling; // by id: the vocabulary's own token strings
    std::unordered_set<int64_t> special;
    std::vector<int64_t> prefix, suffix;
    int copies = 1; // of the text between prefix and suffix (the post-processor's template)
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

// The largest id the file may give, before a table is sized by it: the model's rows when they are known
// (checked against the weights), else as far as the file's own tokens reach when numbered densely: the
// library numbers an added token the model lacks from the model's size on, so its tokens and added tokens
// end below their sum. A 2 KB file with one added token of id 16,777,215 otherwise built 16.7 million names.
void checkIds(const std::string& name, int64_t rows, const HfTokenizer::Tables& t) {
    const auto entries = static_cast<int64_t>(t.model->vocab().size());
    const auto added = static_cast<int64_t>(t.added.tokens().size());
    const int64_t limit = std::max(rows, entries + added);
    const auto why = [&] {
        return "ids end at " + std::to_string(limit - 1) +
               (rows >= entries + added ? std::string(", the model's last row")
                                        : " (its model's " + std::to_string(entries) + " tokens and " +
                                              std::to_string(added) + " added ones, numbered from 0)");
    };
    if (limit > kMaxIds)
        throw FormatError(name + ": " + std::to_string(limit) +
                          " ids; attnscope reads vocabularies of at most " + std::to_string(kMaxIds) +
                          " tokens");
    for (const auto& [token, id] : t.model->vocab())
        if (id >= limit)
            throw FormatError(name + ": the model's token '" + token + "' has the id " + std::to_string(id) +
                              ", but " + why());
    // One id, one token: the library gives an added token the model already has the model's id, and two
    // tokens of one id would make the id table (and the unknown token's id) depend on their order.
    std::unordered_map<int64_t, const std::string*> byId;
    for (const auto& a : t.added.tokens()) {
        if (a.id >= limit)
            throw FormatError(name + ": added token " + std::to_string(a.id) + " ('" + a.content +
                              "') is past the ids the file can number: " + why());
        const auto inModel = t.model->vocab().find(a.content);
        if (inModel != t.model->vocab().end() && inModel->second != a.id)
            throw FormatError(name + ": added token '" + a.content + "' has the id " + std::to_string(a.id) +
                              ", but the model numbers it " + std::to_string(inModel->second));
        const auto [other, fresh] = byId.emplace(a.id, &a.content);
        if (!fresh && *other->second != a.content)
            throw FormatError(name + ": added tokens '" + *other->second + "' and '" + a.content +
                              "' have the same id " + std::to_string(a.id));
    }
}

// The id table: the model's vocabulary and the added tokens, gaps named, up to the model's rows.
void readIdTable(const std::string& name, int64_t rows, HfTokenizer::Tables& t) {
    checkIds(name, rows, t);
    int64_t size = rows;
    for (const auto& [token, id] : t.model->vocab())
        size = std::max(size, id + 1);
    for (const auto& a : t.added.tokens()) {
        size = std::max(size, a.id + 1);
        if (a.special)
            t.special.insert(a.id);
    }
    t.spelling.assign(static_cast<std::size_t>(size), std::string());
    for (const auto& [token, id] : t.model->vocab())
        t.spelling[static_cast<std::size_t>(id)] = token;
    for (const auto& a : t.added.tokens())
        t.spelling[static_cast<std::size_t>(a.id)] = a.content;
}

// What each id shows in the window: its decoded text, unless two ids would then read alike.
std::vector<std::string> shownTokens(const HfTokenizer::Tables& t) {
    std::vector<std::string> shown(t.spelling.size());
    std::set<std::string> seen;
    for (std::size_t id = 0; id < shown.size(); ++id) {
        const auto& spelled = t.spelling[id];
        auto label = spelled.empty()                             ? "<unused" + std::to_string(id) + ">"
                     : t.special.count(static_cast<int64_t>(id)) ? spelled
                                                                 : t.decoder.tokenText(spelled);
        if (label.empty() || !seen.insert(label).second) {
            label = spelled.empty() ? "<unused" + std::to_string(id) + ">" : spelled;
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
    const auto processor = HfPostProcessor::fromJson(post, name, idOf);
    t.prefix = processor.prefix();
    t.suffix = processor.suffix();
    t.copies = processor.copies();
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
        for (const auto& a : t.added.tokens())
            if (a.special) {
                bos = eos = nameOf(a.id);
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
    const auto configText =
        std::filesystem::exists(config, ec) ? readFolderFile(config.string()) : std::string();
    return fromText(readFolderFile(path), configText, path, rows);
}

std::unique_ptr<HfTokenizer> HfTokenizer::fromText(const std::string& text, const std::string& configText,
                                                   const std::string& name, int64_t rows) {
    const auto j = parseJsonObject(text, name);
    const json config =
        configText.empty() ? json::object() : parseJsonObject(configText, "tokenizer_config.json");
    auto t = std::make_shared<Tables>();
    t->text = text;
    t->configText = configText;
    // The parts check the types they read; a value of a type none expected still names the file.
    try {
        t->model = readModel(j, name);
        t->normalizer = HfNormalizer::fromJson(j.value("normalizer", json()), name);
        t->preTokenizer = HfPreTokenizer::fromJson(j.value("pre_tokenizer", json()), name);
        t->decoder = HfDecoder::fromJson(j.contains("decoder") ? j["decoder"] : json(), name);
        t->added = HfAddedTokens::fromJson(j.value("added_tokens", json()), name);
        t->added.index(t->normalizer);
        readIdTable(name, rows, *t);
        const auto shown = shownTokens(*t);
        readPostProcessorIds(j, name, *t);
        auto vocab = namedVocabulary(j, config, name, *t, shown);
        return std::unique_ptr<HfTokenizer>(new HfTokenizer(std::move(vocab), std::move(t)));
    } catch (const json::exception& e) {
        throw FormatError(name + ": " + e.what());
    }
}

std::vector<Token> HfTokenizer::tokenize(const std::string& input) const {
    const auto& t = *tables_;
    const auto text = validUtf8(input);
    std::vector<Token> out;
    // An unknown piece keeps what was typed ("naïve"), as the other tokenizers' do, not the unknown token's
    // own spelling ("[UNK]"): the id says it is unknown.
    auto add = [&](int64_t id, bool fromModel, const std::string* typed = nullptr) {
        Token tok;
        tok.unknown = fromModel && id == t.model->unk();
        tok.id = id;
        tok.text = tok.unknown && typed ? *typed : vocab().token(id);
        out.push_back(std::move(tok));
    };
    // As the library: added tokens found in the raw text first; each stretch between normalized, the
    // normalized added tokens found in it, and what is left cut into words and split by the model.
    for (const auto& part : t.added.split(text, false)) {
        if (part.token) {
            add(part.token->id, false);
            continue;
        }
        const auto normal = t.normalizer.apply(text.substr(part.begin, part.end - part.begin));
        for (const auto& inner : t.added.split(normal, true)) {
            if (inner.token) {
                add(inner.token->id, false);
                continue;
            }
            const bool atStart = part.begin == 0 && inner.begin == 0;
            for (const auto& piece :
                 t.preTokenizer.apply(normal.substr(inner.begin, inner.end - inner.begin), atStart)) {
                const auto ids = t.model->encode(piece.text);
                for (const auto id : ids)
                    add(id, true, ids.size() == 1 ? &piece.text : nullptr);
            }
        }
    }
    // A template that holds the text twice reads it twice ([CLS] $A $A [SEP]), as the library does with
    // or without its special tokens.
    const auto once = out;
    for (int copy = 1; copy < t.copies; ++copy)
        out.insert(out.end(), once.begin(), once.end());
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
