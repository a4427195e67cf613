#pragma once
// The "post_processor" of a Hugging Face tokenizer.json, for one sequence: the special ids it puts before
// and after the text, and how many times its template holds the text. TemplateProcessing names its special
// tokens by keys of its special_tokens; Bert- and RobertaProcessing give [token, id] for cls and sep;
// ByteLevel adds none; a Sequence adds what each of its processors adds.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace core {

class HfPostProcessor {
public:
    /// Parses the post_processor object (null: nothing added). `idOf` gives a token's id (throwing when it
    /// has none). Throws FormatError naming `source` for an unsupported type, or a template attnscope cannot
    /// frame as prefix, text, suffix: one without $A, one naming the pair's $B, one with special tokens
    /// between two copies of the text.
    static HfPostProcessor fromJson(const nlohmann::json& j, const std::string& source,
                                    const std::function<int64_t(const std::string&)>& idOf);

    const std::vector<int64_t>& prefix() const { return prefix_; }
    const std::vector<int64_t>& suffix() const { return suffix_; }
    /// How many times the text stands between prefix and suffix: the library reads `[CLS] $A $A [SEP]`'s
    /// text twice, with or without the special tokens.
    int copies() const { return copies_; }

private:
    void read(const nlohmann::json& j, const std::string& source,
              const std::function<int64_t(const std::string&)>& idOf);
    void readTemplate(const nlohmann::json& j, const std::string& where,
                      const std::function<int64_t(const std::string&)>& idOf);
    std::vector<int64_t> prefix_, suffix_;
    int copies_ = 1;
};

} // namespace core
