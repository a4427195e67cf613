#include "core/text/hf/TokenTrie.h"

namespace core {

namespace {

uint64_t edge(int32_t node, unsigned char byte) {
    return static_cast<uint64_t>(node) << 8 | byte;
}

} // namespace

TokenTrie::TokenTrie() : values_{-1} {
    root_.fill(-1);
}

int32_t TokenTrie::child(int32_t node, unsigned char byte) const {
    if (node == 0)
        return root_[byte];
    const auto it = children_.find(edge(node, byte));
    return it == children_.end() ? -1 : it->second;
}

void TokenTrie::add(const std::string& key, int32_t value) {
    int32_t node = 0;
    for (const char c : key) {
        const auto byte = static_cast<unsigned char>(c);
        int32_t next = child(node, byte);
        if (next < 0) {
            next = static_cast<int32_t>(values_.size());
            values_.push_back(-1);
            if (node == 0)
                root_[byte] = next;
            else
                children_.emplace(edge(node, byte), next);
        }
        node = next;
    }
    if (node != 0 && values_[static_cast<std::size_t>(node)] < 0)
        values_[static_cast<std::size_t>(node)] = value;
}

std::vector<TokenTrie::Match> TokenTrie::matches(const std::string& text, std::size_t* steps) const {
    std::vector<Match> out;
    std::size_t taken = 0;
    for (std::size_t i = 0; i < text.size();) {
        Match best;
        int32_t node = 0;
        for (std::size_t j = i; j < text.size(); ++j) {
            ++taken;
            node = child(node, static_cast<unsigned char>(text[j]));
            if (node < 0)
                break;
            if (values_[static_cast<std::size_t>(node)] >= 0)
                best = {i, j + 1, values_[static_cast<std::size_t>(node)]};
        }
        if (best.value < 0) {
            ++i;
            continue;
        }
        out.push_back(best);
        i = best.end;
    }
    if (steps)
        *steps = taken;
    return out;
}

} // namespace core
