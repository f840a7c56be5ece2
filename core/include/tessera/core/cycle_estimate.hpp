// Cycle estimators for tile kernels, in the style of PopLibs' codelet estimators.
//
// A kernel that runs over `elements` items on a tile costs
//   overhead_cycles + cycles_per_vector * ceil(elements / (workers * vector_width))
// cycles: the tile's worker threads share the loop, each worker processes
// `vector_width` elements per iteration of `cycles_per_vector` cycles, and the
// supervisor pays a fixed overhead to launch the workers.
#pragma once

#include <cstdint>

#include "tessera/core/target.hpp"

namespace tessera {

struct KernelCost {
  std::uint64_t overhead_cycles = 0;  // launch and loop set-up
  double cycles_per_vector = 1.0;     // one worker iteration
  int vector_width = 1;               // elements per worker iteration
};

std::uint64_t estimate_cycles(const Target& target, const KernelCost& cost, std::uint64_t elements);

// Cycles to move `bytes` through one tile's exchange port: ceil(bytes / bytes_per_cycle).
std::uint64_t exchange_cycles(const Target& target, std::uint64_t bytes);

}  // namespace tessera
