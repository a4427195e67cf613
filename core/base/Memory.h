#pragma once
// How much memory the machine has, asked before allocating something whose size a user's file decides.

#include <cstdint>
#include <string>

namespace core {

/// Installed memory in bytes, or 0 when the system does not say.
int64_t physicalMemoryBytes();

/// How many more bytes this process may map before an allocation fails: its address-space limit (ulimit -v,
/// RLIMIT_AS) less what it has mapped now; -1 when no limit is set.
int64_t addressSpaceLeft();

/// Throws ConfigError("<what> need 1.5 TB, more than this machine's 23.4 GB of memory") when `bytes` is more
/// than the machine has; an allocation that large would end the program rather than fail with a message.
void checkMemoryFor(int64_t bytes, const std::string& what);

/// "512 B", "15.2 MB", "1.5 TB": powers of 1024, one decimal.
std::string byteText(int64_t bytes);

} // namespace core
