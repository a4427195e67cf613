#pragma once
// Files a model folder names are read only from inside that folder. A model folder is handed over whole
// (downloaded, unpacked, shared), and any of its names may be a link: a vocab.txt linking to a private key
// would put every line of the key into a dump and into a converted folder. So a name is followed only when
// it resolves inside the folder, or inside the blobs of the Hugging Face cache repository the folder is a
// snapshot of (the cache keeps every file of `snapshots/<revision>/` as a link to `../../blobs/<hash>`).
// A user who keeps model files elsewhere on purpose says so with ATTNSCOPE_FOLLOW_LINKS=1.

#include <string>

namespace core {

/// Why path may not be read as a file of folder, or empty when it may: path, with every link followed, lies
/// inside folder (itself resolved), or inside `<repository>/blobs` when folder is a Hugging Face cache
/// snapshot `<repository>/snapshots/<revision>`, or ATTNSCOPE_FOLLOW_LINKS is 1. A path that does not
/// exist yet is not refused here (its reader says it is missing).
std::string linkRefusal(const std::string& folder, const std::string& path);
/// Throws IoError naming path, what it resolves to and the folder when linkRefusal refuses it.
void requireWithin(const std::string& folder, const std::string& path);
/// readFile of a file that sits in a model folder: the folder is the one holding path's name, and path is
/// read only when requireWithin(that folder, path) allows it.
std::string readFolderFile(const std::string& path);

} // namespace core
