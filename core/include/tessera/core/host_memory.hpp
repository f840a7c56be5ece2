// physical_memory_bytes: how much memory this host has, for checks that refuse a problem
// too large for it before allocating (rather than allocating until the kernel kills the
// process). Shared by the solvers' up-front size checks.
#pragma once

#include <cstdint>

namespace tessera {

// The physical memory of this host in bytes (sysconf), or less when this process runs in a
// control group with a lower limit (cgroup v2 memory.max); 0 if neither can be read.
std::uint64_t physical_memory_bytes();

}  // namespace tessera
