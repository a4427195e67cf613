#include "core/train/Tasks.h"

#include "core/base/Errors.h"

#include <algorithm>

namespace core {

namespace {
// Ten letters for copy/reverse (so a mistake is not a near-miss digit), digits for sort and addition.
const std::string kLetters = "abcdefghij";
const std::string kDigits = "0123456789";
// Induction: enough letters that a segment of them has no letter twice, so the letter after the earlier
// occurrence of the current one is always the answer.
const std::string kManyLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

std::string digitsLsdFirst(uint64_t n) {
    std::string s;
    do {
        s += static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n > 0);
    return s;
}

uint64_t parseLsdFirst(const std::string& s) {
    uint64_t n = 0;
    for (auto it = s.rbegin(); it != s.rend(); ++it)
        n = n * 10 + static_cast<uint64_t>(*it - '0');
    return n;
}
} // namespace

TaskKind Task::parseKind(const std::string& name) {
    if (name == "copy")
        return TaskKind::Copy;
    if (name == "reverse")
        return TaskKind::Reverse;
    if (name == "sort")
        return TaskKind::Sort;
    if (name == "addition")
        return TaskKind::Addition;
    if (name == "translation")
        return TaskKind::Translation;
    if (name == "language_model")
        return TaskKind::LanguageModel;
    if (name == "classification")
        return TaskKind::Classification;
    if (name == "induction")
        return TaskKind::Induction;
    throw ConfigError("unknown task '" + name +
                      "': use copy, reverse, sort, addition, translation, language_model, classification or "
                      "induction");
}

const char* Task::toString(TaskKind kind) {
    switch (kind) {
    case TaskKind::Copy:
        return "copy";
    case TaskKind::Reverse:
        return "reverse";
    case TaskKind::Sort:
        return "sort";
    case TaskKind::Addition:
        return "addition";
    case TaskKind::Translation:
        return "translation";
    case TaskKind::LanguageModel:
        return "language_model";
    case TaskKind::Classification:
        return "classification";
    case TaskKind::Induction:
        return "induction";
    }
    return "?";
}

Task::Task(TaskKind kind, int minLen, int maxLen) : kind_(kind), minLen_(minLen), maxLen_(maxLen) {
    if (minLen < 1 || maxLen < minLen || maxLen > kMaxLength)
        throw ConfigError(
            "task lengths must satisfy 1 <= min_len <= max_len <= " + std::to_string(kMaxLength) + ", got " +
            std::to_string(minLen) + ".." + std::to_string(maxLen));
    if (kind == TaskKind::Addition && maxLen > 18)
        throw ConfigError("addition: at most 18 digits per number (the sum must fit 64 bits)");
    if (kind == TaskKind::Induction && maxLen > static_cast<int>(kManyLetters.size()))
        throw ConfigError("induction: at most " + std::to_string(kManyLetters.size()) +
                          " letters a segment (no letter may come twice)");
}

std::vector<std::string> Task::alphabet() const {
    if (!generated())
        return {}; // the SentencePiece model, trained on the corpus, is the vocabulary
    const std::string& chars = kind_ == TaskKind::Induction                            ? kManyLetters
                               : kind_ == TaskKind::Copy || kind_ == TaskKind::Reverse ? kLetters
                                                                                       : kDigits;
    std::vector<std::string> out;
    for (char c : chars)
        out.emplace_back(1, c);
    if (kind_ == TaskKind::Addition)
        out.emplace_back("+");
    return out;
}

Example Task::sample(std::mt19937_64& rng) const {
    if (!generated())
        throw ConfigError("translation pairs and language-model text come from a corpus, not a generator");
    std::uniform_int_distribution<int> length(minLen_, maxLen_);
    if (kind_ == TaskKind::Addition) {
        // Each addend gets its own number of digits, with no leading zero (written last, LSD first).
        auto number = [&] {
            const int n = length(rng);
            std::string s;
            for (int i = 0; i < n; ++i)
                s += static_cast<char>(
                    '0' + std::uniform_int_distribution<int>(i + 1 == n && n > 1 ? 1 : 0, 9)(rng));
            return s;
        };
        Example e;
        e.source = number() + "+" + number();
        e.target = solve(e.source);
        return e;
    }
    if (kind_ == TaskKind::Induction) {
        // Distinct letters: the first n of a shuffled alphabet. The target repeats the segment.
        std::string letters = kManyLetters;
        std::shuffle(letters.begin(), letters.end(), rng);
        Example e;
        e.source = letters.substr(0, static_cast<std::size_t>(length(rng)));
        e.target = e.source;
        return e;
    }
    const std::string& chars = kind_ == TaskKind::Sort ? kDigits : kLetters;
    std::uniform_int_distribution<std::size_t> pick(0, chars.size() - 1);
    Example e;
    const int n = length(rng);
    for (int i = 0; i < n; ++i)
        e.source += chars[pick(rng)];
    e.target = solve(e.source);
    return e;
}

std::string Task::solve(const std::string& source) const {
    switch (kind_) {
    case TaskKind::Copy:
    case TaskKind::Induction:
        return source;
    case TaskKind::Reverse:
        return {source.rbegin(), source.rend()};
    case TaskKind::Sort: {
        std::string s = source;
        std::sort(s.begin(), s.end());
        return s;
    }
    case TaskKind::Addition: {
        const auto plus = source.find('+');
        if (plus == std::string::npos)
            throw InputError("addition: '" + source + "' has no '+'");
        return digitsLsdFirst(parseLsdFirst(source.substr(0, plus)) + parseLsdFirst(source.substr(plus + 1)));
    }
    case TaskKind::Translation:
    case TaskKind::LanguageModel:
    case TaskKind::Classification:
        throw ConfigError("text from a corpus has no computed answer; it is scored against held-out text");
    }
    return {};
}

int Task::maxSourceLength() const {
    return kind_ == TaskKind::Addition ? 2 * maxLen_ + 1 : maxLen_;
}

int Task::maxTargetLength() const {
    return kind_ == TaskKind::Addition ? maxLen_ + 1 : maxLen_;
}

} // namespace core
