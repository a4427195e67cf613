#include "Args.h"

#include <sstream>

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& flags) {
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const auto& a = argv[i];
        if (valued.count(a)) {
            if (i + 1 >= argv.size())
                throw UsageError(a + " needs a value");
            // "--screenshot --help" forgot the file name; taking "--help" as one would write a file of that
            // name.
            if (valued.count(argv[i + 1]) || flags.count(argv[i + 1]))
                throw UsageError(a + " needs a value, not the option " + argv[i + 1]);
            values_[a] = argv[++i];
        } else if (flags.count(a)) {
            values_[a] = "1";
        } else {
            throw UsageError("unknown argument '" + a + "'");
        }
    }
}

std::string Args::get(const std::string& key, const std::string& fallback) const {
    const auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
}

long long Args::getInt(const std::string& key, long long fallback) const {
    if (!has(key))
        return fallback;
    const auto s = get(key);
    try {
        std::size_t used = 0;
        const auto v = std::stoll(s, &used);
        if (used == s.size())
            return v;
    } catch (const std::exception&) {
    }
    throw UsageError(key + " expects a whole number, got '" + s + "'");
}

std::vector<long long> parseIdList(const std::string& option, const std::string& text) {
    std::vector<long long> ids;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        try {
            std::size_t used = 0;
            ids.push_back(std::stoll(item, &used));
            if (used != item.size())
                throw std::invalid_argument(item);
        } catch (const std::exception&) {
            throw UsageError(option + ": '" + item + "' is not a token id");
        }
    }
    if (ids.empty())
        throw UsageError(option + " needs at least one id");
    return ids;
}
