#include "app/BuiltinModels.h"

#include "core/base/ProgramPaths.h"

#include <cstdlib>

std::string builtinModelsDir() {
    const auto data = core::dataDirectory();
    return data.empty() ? std::string() : data + "/models";
}

std::string defaultModelDir() {
    const auto models = builtinModelsDir();
    return models.empty() ? std::string() : models + "/en-es";
}

std::string builtinModelsMissing() {
    if (const char* env = std::getenv("ATTNSCOPE_DATA_DIR"); env && *env)
        return std::string("ATTNSCOPE_DATA_DIR=") + env +
               " holds no models/ folder; unset it to use the built-in models, or name a model with --model "
               "DIR";
    std::string where;
    for (const auto& c : core::dataDirectoryCandidates())
        where += (where.empty() ? "" : ", ") + c;
    return "the built-in models were not found (looked for models/ in " + where +
           "); name a model with --model DIR, or the folder that holds models/ with ATTNSCOPE_DATA_DIR";
}
