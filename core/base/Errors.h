#pragma once
// base/ — what every folder of core/ stands on and nothing else: typed errors (this file), whole-file reads
// and atomic writes, JSON parsing with one wording of what is wrong, locale-free number text, and the
// process-wide runtime settings (threads, device, which BLAS kernels run). It includes nothing of core/.
//
// Typed exceptions for everything a user can cause: a file, a typed string, a setting.
// Each message names what was wrong so it can be shown as is.

#include <stdexcept>
#include <string>

namespace core {

/// Base of every error core reports to callers.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A file on disk is malformed (safetensors, vocab.json, config.json syntax).
class FormatError : public Error {
public:
    using Error::Error;
};

/// config.json parsed but describes an impossible or unsupported model.
class ConfigError : public Error {
public:
    using Error::Error;
};

/// A model directory is incomplete or disagrees with its config.
class ModelError : public Error {
public:
    using Error::Error;
};

/// Input given at run time (ids, text, lengths, settings) that the model cannot take.
class InputError : public Error {
public:
    using Error::Error;
};

/// Writing a file failed (disk full, permissions); nothing half-written is left behind.
class IoError : public Error {
public:
    using Error::Error;
};

} // namespace core
