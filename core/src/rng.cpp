#include "tessera/core/rng.hpp"

#include <random>

namespace tessera {

RngEngine rng_stream(std::uint64_t seed, std::uint64_t stream) {
  std::seed_seq sequence{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                         static_cast<std::uint32_t>(stream),
                         static_cast<std::uint32_t>(stream >> 32)};
  return RngEngine(sequence);
}

}  // namespace tessera
