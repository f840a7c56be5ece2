// How much memory this process can have, to refuse up front a request that cannot fit
// rather than allocate until the kernel kills the process.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera {

// The least of the machine's physical memory (sysconf), the process's address-space and data
// limits (ulimit -v, -d) and its cgroup's memory.max, in bytes.
std::uint64_t host_memory_bytes();

// Throws ConfigError "<what> needs at least <bytes> of host memory, more than the <limit> this
// process can have (<which limit>); <advice>" when `bytes` exceeds host_memory_bytes().
void require_host_memory(double bytes, const std::string& what, const std::string& advice);

}  // namespace tessera
