#include "tessera/core/cycle_estimate.hpp"

#include <cmath>

namespace tessera {

std::uint64_t estimate_cycles(const Target& target, const KernelCost& cost,
                              std::uint64_t elements) {
  const std::uint64_t per_iteration = static_cast<std::uint64_t>(target.workers_per_tile) *
                                      static_cast<std::uint64_t>(cost.vector_width);
  const std::uint64_t iterations = (elements + per_iteration - 1) / per_iteration;
  return cost.overhead_cycles + static_cast<std::uint64_t>(std::ceil(
                                    cost.cycles_per_vector * static_cast<double>(iterations)));
}

std::uint64_t exchange_cycles(const Target& target, std::uint64_t bytes) {
  return static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(bytes) / target.exchange_bytes_per_cycle));
}

}  // namespace tessera
