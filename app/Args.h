#pragma once
// The subcommands' options, parsed by QCommandLineParser ("--key value", "--key=value", "-h"); unknown
// options are errors, not silently ignored.

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Args {
public:
    /// valued: options that take a value; flags: options that don't.
    Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
         const std::set<std::string>& flags);
    bool has(const std::string& key) const { return values_.count(key) > 0; }
    std::string get(const std::string& key, const std::string& fallback = {}) const;
    long long getInt(const std::string& key, long long fallback) const;
    /// Every value an option was given, in order (get() gives the last).
    std::vector<std::string> getAll(const std::string& key) const;

private:
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> all_;
};

/// "1,2,3" -> {1,2,3}; throws UsageError naming the option and the bad element.
std::vector<long long> parseIdList(const std::string& option, const std::string& text);
