#pragma once
// Whole-file reads and atomic writes: a failed write leaves the old file (or none), never half a file.

#include <cstdint>
#include <set>
#include <string>

namespace core {

/// Throws IoError naming the path and the reason; a FIFO, device or directory is refused without waiting,
/// and a file of more than maxBytes (when it is opened, or as it grows while being read) is refused before
/// that much is held.
std::string readFile(const std::string& path, uint64_t maxBytes = UINT64_MAX);
/// A descriptor of the regular file at path, opened for reading, and its size; what readFile opens with.
/// Throws IoError as readFile does (a FIFO is refused, never waited on).
int openForReading(const std::string& path, uint64_t* size);
/// Writes to a temporary file in the same directory (created exclusively under an unpredictable name),
/// fsyncs, then renames it over path: a reader, or a crash at any moment, sees the old file or the new one.
/// Throws IoError naming the path and the reason (disk full, permissions, a target that is not a regular
/// file); the temporary file is removed and the old file is left as it was.
void writeFileAtomically(const std::string& path, const std::string& bytes);
/// The file attnscope writes into every folder it assembles (a model, a checkpoint): what makes a folder
/// recognisably its own, so that a later save may replace it. It names the process that wrote it, so a
/// half-assembled folder is cleared only once that process is gone.
extern const char* const kFolderMarker;
/// Creates a folder `<target>.new-XXXXXX` beside target (a name nobody could plant in advance) holding only
/// kFolderMarker, and returns its path: where a folder is assembled before replaceDirectory puts it in
/// target's place. Such folders that an earlier save left when it was killed midway are removed first, but
/// only those that carry the marker of a process no longer running: a folder of that name that someone
/// else made, or that another save is assembling right now, is left alone.
std::string createDirectoryBeside(const std::string& target);
/// Why target may not be replaced by a folder attnscope assembled, or empty when it may: a target that is
/// missing or empty, that holds kFolderMarker, or that holds nothing but regular files named in `ours` (the
/// files the new folder writes) may; a link, a file, or a folder holding anything else (a subfolder, a
/// link, a file attnscope does not write) may not, and the reason names what is in the way.
std::string replaceRefusal(const std::string& target, const std::set<std::string>& ours);
/// Puts the folder `fresh` in place of `target` in one step: with a target already there the two are
/// exchanged (renameat2's RENAME_EXCHANGE), so a crash at any moment leaves the old folder or the new one
/// whole at `target`, never neither and never a mix; then the old one (now at `fresh`) is removed. A
/// target that replaceRefusal refuses (with fresh's files as `ours`) is never touched: IoError naming it
/// and what is in it. Throws IoError naming the target and the reason, with both folders left as they were.
void replaceDirectory(const std::string& fresh, const std::string& target);
/// The bytes of a corpus file: path itself, or, when only path.xz is there (the repository and the installed
/// program keep corpora compressed), path.xz decompressed in memory. Throws IoError naming the file when
/// neither can be read, and when the .xz is damaged (with how to see why: xz -dk).
std::string readCorpusFile(const std::string& path);

} // namespace core
