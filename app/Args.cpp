#include "app/Args.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QStringList>

#include <algorithm>
#include <cctype>

#include <sstream>

namespace {

// Arguments go through QCommandLineParser as Latin-1, one char per byte, and come back the same way: a file
// name that is not valid UTF-8 keeps its exact bytes (option names are ASCII either way).
QString bytes(const std::string& s) {
    return QString::fromLatin1(s.data(), static_cast<qsizetype>(s.size()));
}
std::string bytes(const QString& s) {
    return s.toLatin1().toStdString();
}

std::string bare(const std::string& key) {
    const auto start = key.find_first_not_of('-');
    return start == std::string::npos ? std::string() : key.substr(start);
}

} // namespace

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& flags) {
    // Qt's parser: --opt value, --opt=value, -h, and "--" ending the options, with its own messages for an
    // unknown option, a missing value and a value given to a flag.
    QCommandLineParser parser;
    // "-model x" is --model, not -m -o -d -e -l: no option here is a letter to combine with others.
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    for (const auto& key : valued)
        parser.addOption(QCommandLineOption(bytes(bare(key)), QString(), QStringLiteral("value")));
    for (const auto& key : flags)
        parser.addOption(QCommandLineOption(bytes(bare(key))));
    QStringList list{QStringLiteral("attnscope")}; // parse() skips the program's name
    for (const auto& a : argv)
        list << bytes(a);
    if (!parser.parse(list)) {
        auto message = bytes(parser.errorText());
        if (!message.empty() && message.back() == '.')
            message.pop_back();
        if (!message.empty())
            message[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(message[0])));
        // Qt names an unknown option without its dashes ('modle'); say it as it was typed ('--modle').
        for (const auto& a : argv) {
            if (a.size() < 2 || a[0] != '-')
                continue;
            const auto name = bare(a.substr(0, a.find('=')));
            const auto quoted = "'" + name + "'";
            const auto at = message.find(quoted);
            if (!name.empty() && at != std::string::npos) {
                message.replace(at, quoted.size(), "'" + a.substr(0, a.find('=')) + "'");
                break;
            }
        }
        throw UsageError(message);
    }
    for (const auto& key : valued) {
        const auto values = parser.values(bytes(bare(key)));
        if (values.isEmpty())
            continue;
        const auto value = bytes(values.back()); // given twice, the last one counts
        // "--screenshot --help" forgot the file name; taking "--help" as one would write a file of that name.
        // "--src=--help" says it means it.
        const bool joined = std::any_of(argv.begin(), argv.end(),
                                        [&](const std::string& a) { return a.rfind(key + "=", 0) == 0; });
        if (!joined && (valued.count(value) || flags.count(value)))
            throw UsageError(key + " needs a value, not the option " + value);
        values_[key] = value;
        for (const auto& v : values)
            all_[key].push_back(bytes(v));
    }
    // After the values: "--model --src a" is a forgotten value, not a stray "a".
    if (!parser.positionalArguments().isEmpty())
        throw UsageError("unknown argument '" + bytes(parser.positionalArguments().front()) + "'");
    for (const auto& key : flags)
        if (parser.isSet(bytes(bare(key))))
            values_[key] = "1";
}

std::string Args::get(const std::string& key, const std::string& fallback) const {
    const auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
}

std::vector<std::string> Args::getAll(const std::string& key) const {
    const auto it = all_.find(key);
    return it == all_.end() ? std::vector<std::string>{} : it->second;
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
