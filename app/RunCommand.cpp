#include "app/RunCommand.h"

#include "core/base/Files.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>

#include <unistd.h>

namespace {

// The program's name for a message written when memory may have run out: a fixed buffer, no allocation.
char gProgram[64] = "attnscope";

void writeError(const char* text) {
    for (const char* part : {static_cast<const char*>(gProgram), ": ", text, "\n"})
        if (::write(STDERR_FILENO, part, std::strlen(part)) < 0)
            return;
}

// An exception that reaches std::terminate: one thrown in a Qt event handler or slot (Qt lets none pass
// through its event loop) or on a worker thread. Without this the program aborted with a core dump and
// libstdc++'s "terminate called after throwing"; now it says what went wrong and exits 2, like the rest.
[[noreturn]] void reportUncaught() {
    if (const auto e = std::current_exception()) {
        try {
            std::rethrow_exception(e);
        } catch (const std::bad_alloc&) {
            writeError("out of memory (an input or setting asks for more than this machine or its limits "
                       "allow)");
        } catch (const std::exception& x) {
            writeError(x.what());
        } catch (...) {
            writeError("failed with an error of unknown type");
        }
    } else {
        writeError("ended by an internal error");
    }
    std::_Exit(2);
}

} // namespace

int runCommand(const std::string& name, const char* help, const CommandOptions& options,
               const std::vector<std::string>& argv, const std::function<int(const Args&)>& body) {
    // The window's options have no command name: "attnscope: ...", "see attnscope --help".
    const std::string program = name.empty() ? "attnscope" : "attnscope " + name;
    std::snprintf(gProgram, sizeof gProgram, "%s", program.c_str());
    std::set_terminate(reportUncaught);
    const auto fail = [&](const std::string& message) {
        if (options.beforeError)
            options.beforeError();
        std::cerr << program << ": " << message << "\n";
        return 2;
    };
    try {
        auto flags = options.flags;
        flags.insert({"--help", "-h"});
        const Args a(argv, options.valued, flags);
        if (a.has("--help") || a.has("-h")) {
            std::cout << help;
            return 0;
        }
        const int status = body(a);
        // A full disk or a closed pipe shows only as the stream's error state: without this check
        // `attnscope dump > /dev/full` lost its output and still exited 0.
        std::cout.flush();
        if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
            return fail("cannot write to standard output (disk full or closed pipe?)");
        return status;
    } catch (const UsageError& e) {
        std::cerr << program << ": " << e.what() << " (see " << program << " --help)\n";
        return 2;
    } catch (const std::bad_alloc&) {
        return fail("out of memory (an input or setting asks for more than this machine has)");
    } catch (const std::exception& e) {
        // core's errors, and those it does not report (a std::filesystem_error, a library's own exception):
        // uncaught, the latter would end the program in std::terminate, with an abort and no useful message.
        return fail(e.what());
    } catch (...) {
        return fail("failed with an error of unknown type");
    }
}

void writeOutput(const Args& a, const std::string& text) {
    if (a.has("--out"))
        core::writeFileAtomically(a.get("--out"), text);
    else
        std::cout << text;
}

std::string jsonText(const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}
