#include "core/text/Vocabulary.h"

#include "core/base/Errors.h"
#include "core/base/Files.h"
#include "core/base/FolderLinks.h"
#include "core/base/JsonText.h"

#include <nlohmann/json.hpp>

namespace core {

std::vector<std::string> Vocabulary::parseTokenIds(const std::string& text, const std::string& source) {
    const auto j = parseJsonObject(text, source);
    if (j.empty())
        throw FormatError(source + ": must be a non-empty JSON object of token -> id");
    std::vector<std::string> tokens(j.size());
    std::vector<bool> seen(j.size(), false);
    for (const auto& [tok, idv] : j.items()) {
        if (!idv.is_number_integer())
            throw FormatError(source + ": id of token '" + tok + "' is not an integer");
        const auto id = idv.get<int64_t>();
        if (id < 0 || id >= static_cast<int64_t>(j.size()))
            throw FormatError(source + ": id " + std::to_string(id) + " of token '" + tok +
                              "' is outside 0.." + std::to_string(j.size() - 1) +
                              " (ids must be contiguous)");
        if (seen[static_cast<std::size_t>(id)])
            throw FormatError(source + ": id " + std::to_string(id) + " is used by two tokens ('" +
                              tokens[static_cast<std::size_t>(id)] + "' and '" + tok + "')");
        seen[static_cast<std::size_t>(id)] = true;
        tokens[static_cast<std::size_t>(id)] = tok;
    }
    return tokens;
}

Vocabulary Vocabulary::fromJson(const std::string& text, const std::string& source) {
    Vocabulary v;
    v.tokens_ = parseTokenIds(text, source);
    for (std::size_t i = 0; i < v.tokens_.size(); ++i)
        v.ids_.emplace(v.tokens_[i], static_cast<int64_t>(i));
    v.indexSpecials(source);
    return v;
}

Vocabulary Vocabulary::fromFile(const std::string& path) {
    return fromJson(readFolderFile(path), path);
}

Vocabulary Vocabulary::fromTokens(const std::vector<std::string>& tokens) {
    Vocabulary v;
    auto add = [&v](const std::string& t) {
        if (v.ids_.count(t))
            return;
        v.ids_.emplace(t, static_cast<int64_t>(v.tokens_.size()));
        v.tokens_.push_back(t);
    };
    for (const char* s : {kPad, kBos, kEos, kUnk})
        add(s);
    for (const auto& t : tokens)
        add(t);
    v.indexSpecials("vocabulary");
    return v;
}

Vocabulary Vocabulary::fromTokens(const std::vector<std::string>& tokens, const std::string& pad,
                                  const std::string& bos, const std::string& eos, const std::string& unk) {
    Vocabulary v;
    v.tokens_ = tokens;
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (!v.ids_.emplace(tokens[i], static_cast<int64_t>(i)).second)
            throw FormatError("vocabulary: token " + std::to_string(i) + " repeats an earlier one");
    v.indexSpecials("vocabulary", pad, bos, eos, unk);
    return v;
}

void Vocabulary::indexSpecials(const std::string& source, const std::string& pad, const std::string& bos,
                               const std::string& eos, const std::string& unk) {
    auto need = [&](const std::string& name) {
        const auto id = find(name);
        if (id < 0)
            throw FormatError(source + ": the special token '" + name + "' is missing");
        return id;
    };
    pad_ = need(pad);
    bos_ = need(bos);
    eos_ = need(eos);
    unk_ = need(unk);
}

std::string Vocabulary::toJson() const {
    // Written in id order so the file reads naturally; nlohmann's object would sort by token.
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < tokens_.size(); ++i)
        j[tokens_[i]] = i;
    return j.dump(1) + "\n";
}

int64_t Vocabulary::find(const std::string& token) const {
    const auto it = ids_.find(token);
    return it == ids_.end() ? -1 : it->second;
}

const std::string& Vocabulary::token(int64_t id) const {
    if (id < 0 || id >= size())
        throw InputError("token id " + std::to_string(id) + " is outside the vocabulary (size " +
                         std::to_string(size()) + ")");
    return tokens_[static_cast<std::size_t>(id)];
}

} // namespace core
