#pragma once
// Whole-file reads and atomic writes: a failed write leaves the old file (or none), never half a file.

#include <string>

namespace core {

/// Throws IoError naming the path and the reason.
std::string readFile(const std::string& path);
/// Writes to a temporary file in the same directory, fsyncs, then renames it over path.
/// Throws IoError naming the path and the reason (disk full, permissions); the temporary file is removed.
void writeFileAtomically(const std::string& path, const std::string& bytes);
/// Throws IoError unless path exists; when only path.xz does (the repository keeps its corpora compressed),
/// the message says how to unpack it.
void requireCorpusFile(const std::string& path);

} // namespace core
