#include "RunCommand.h"

#include "core/base/Errors.h"

#include <exception>
#include <iostream>

int runCommand(const std::string& name, const char* help, const CommandOptions& options,
               const std::vector<std::string>& argv, const std::function<int(const Args&)>& body) {
    try {
        auto flags = options.flags;
        flags.insert({"--help", "-h"});
        const Args a(argv, options.valued, flags);
        if (a.has("--help") || a.has("-h")) {
            std::cout << help;
            return 0;
        }
        return body(a);
    } catch (const UsageError& e) {
        std::cerr << "attnscope " << name << ": " << e.what() << " (see attnscope " << name << " --help)\n";
        return 2;
    } catch (const core::Error& e) {
        if (options.beforeError)
            options.beforeError();
        std::cerr << "attnscope " << name << ": " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        // Not an error core reports (a std::filesystem_error, std::bad_alloc, a library's own exception):
        // uncaught it would end the program in std::terminate, with an abort and no useful message.
        if (options.beforeError)
            options.beforeError();
        std::cerr << "attnscope " << name << ": unexpected error: " << e.what() << "\n";
        return 1;
    }
}
