#pragma once
// The built-in models and recipes, found at run time (core/base/ProgramPaths.h).

#include <string>

/// <data>/models, or empty when no data folder was found.
std::string builtinModelsDir();
/// The model the window and `bench` open when none is named: the built-in translation model.
std::string defaultModelDir();
/// "the built-in models were not found (looked in A, B, C); …": for when builtinModelsDir() is empty.
std::string builtinModelsMissing();
