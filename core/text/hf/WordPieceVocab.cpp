#include "core/text/hf/WordPieceVocab.h"

#include "core/base/Errors.h"
#include "core/base/JsonText.h"
#include "core/text/UnicodeText.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace core {

using nlohmann::json;

std::string wordPieceTokenizerJson(const std::string& vocabText, const std::string& configText,
                                   const std::string& source) {
    const auto config = configText.empty() ? json::object() : parseJsonObject(configText, source);
    const auto setting = [&](const char* key, const json& fallback) {
        return config.contains(key) && !config[key].is_null() ? config[key] : fallback;
    };
    // A special named as a string, or as {"content": …} (an AddedToken serialised).
    const auto special = [&](const char* key, const char* fallback) {
        const auto v = setting(key, fallback);
        if (v.is_object() && v.contains("content") && v["content"].is_string())
            return v["content"].get<std::string>();
        if (!v.is_string())
            throw FormatError(source + ": '" + key + "' in tokenizer_config.json is not a token");
        return v.get<std::string>();
    };
    json vocab = json::object();
    std::istringstream lines(vocabText);
    std::string token;
    int64_t id = 0;
    while (std::getline(lines, token)) {
        if (!token.empty() && token.back() == '\r')
            token.pop_back();
        if (validUtf8(token) != token) // JSON holds only UTF-8, as does the library's vocabulary
            throw FormatError(source + ": line " + std::to_string(id + 1) + " is not UTF-8 text");
        vocab[token] = id++; // a token listed twice keeps its last line, as transformers' load_vocab does
    }
    const auto unk = special("unk_token", "[UNK]"), cls = special("cls_token", "[CLS]"),
               sep = special("sep_token", "[SEP]");
    for (const auto* t : {&unk, &cls, &sep})
        if (!vocab.contains(*t))
            throw FormatError(source + ": the vocabulary has no " + *t +
                              " token, which BERT's tokenizer needs");
    json added = json::array();
    for (const auto& name : {special("pad_token", "[PAD]"), unk, cls, sep, special("mask_token", "[MASK]")})
        if (vocab.contains(name))
            added.push_back({{"id", vocab[name]},
                             {"content", name},
                             {"single_word", false},
                             {"lstrip", false},
                             {"rstrip", false},
                             {"normalized", false},
                             {"special", true}});
    // The flags are true or false (strip_accents may also be null: as lowercase says).
    const auto flag = [&](const char* key, const json& fallback) {
        const auto v = setting(key, fallback);
        if (!v.is_boolean() && !(v.is_null() && fallback.is_null()))
            throw FormatError(source + ": '" + key + "' in tokenizer_config.json must be true or false");
        return v;
    };
    const bool lowercase = flag("do_lower_case", true).get<bool>();
    const auto piece = [](const std::string& t, int type) {
        return json{{"SpecialToken", {{"id", t}, {"type_id", type}}}};
    };
    const json tokenizer = {
        {"version", "1.0"},
        {"added_tokens", added},
        {"normalizer",
         {{"type", "BertNormalizer"},
          {"clean_text", true},
          {"handle_chinese_chars", flag("tokenize_chinese_chars", true)},
          {"strip_accents", flag("strip_accents", nullptr)},
          {"lowercase", lowercase}}},
        {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
        {"post_processor",
         {{"type", "TemplateProcessing"},
          {"single", {piece(cls, 0), {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}, piece(sep, 0)}},
          {"pair",
           {piece(cls, 0),
            {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
            piece(sep, 0),
            {{"Sequence", {{"id", "B"}, {"type_id", 1}}}},
            piece(sep, 1)}},
          {"special_tokens",
           {{cls, {{"id", cls}, {"ids", {vocab[cls]}}, {"tokens", {cls}}}},
            {sep, {{"id", sep}, {"ids", {vocab[sep]}}, {"tokens", {sep}}}}}}}},
        {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
        {"model",
         {{"type", "WordPiece"},
          {"unk_token", unk},
          {"continuing_subword_prefix", "##"},
          {"max_input_chars_per_word", 100},
          {"vocab", vocab}}}};
    return tokenizer.dump();
}

} // namespace core
