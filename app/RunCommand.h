#pragma once
// A terminal subcommand's frame: parses the options, prints --help (exit 0), and turns errors into exit
// code 2 with "attnscope NAME: message" (plus a pointer to --help for a usage error). The window's own
// options run in it too, with no NAME. The body's return
// value is the exit code, passed on unchanged (train's 130/143 after a signal).

#include "app/Args.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

struct CommandOptions {
    std::set<std::string> valued; // options that take a value
    std::set<std::string> flags;  // options that don't; --help and -h are added
    /// Runs before an error is printed (bench: clears its progress line on a terminal).
    std::function<void()> beforeError{};
};

int runCommand(const std::string& name, const char* help, const CommandOptions& options,
               const std::vector<std::string>& argv, const std::function<int(const Args&)>& body);

/// A command's result: to the file --out names (atomically), or to standard output without it.
void writeOutput(const Args& a, const std::string& text);

/// JSON as the commands print it: a token that is not valid UTF-8 (a byte-level BPE piece of a character)
/// is written with U+FFFD for its bad bytes instead of failing the whole result.
std::string jsonText(const nlohmann::json& j, int indent = -1);
