#pragma once

#include <cstdint>
#include <string>

namespace core {

/// One token of a text: its id and the exact text it came from, so unknown pieces can be shown, not dropped.
struct Token {
    int64_t id = 0;
    std::string text;
    bool unknown = false; ///< the text is not in the vocabulary; id is <unk>
    bool special = false; ///< <bos>, <eos>, <pad> or <unk> put there by the model, not typed
};

} // namespace core
