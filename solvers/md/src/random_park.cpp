#include "tessera/md/random_park.hpp"

#include <cmath>
#include <cstring>
#include <sstream>

#include "tessera/core/error.hpp"

namespace tessera::md {

RandomPark::RandomPark(int seed) : engine_(1) {
  if (seed <= 0)
    throw ConfigError("random seed must be a positive integer, not " + std::to_string(seed));
  engine_.seed(static_cast<boost::random::minstd_rand0::result_type>(seed));
}

int RandomPark::state() const {
  std::ostringstream text;
  text << engine_;  // Boost writes a linear congruential engine's state as its one number
  return std::stoi(text.str());
}

void RandomPark::reset(int state) {
  if (state <= 0)
    throw ConfigError("random state must be a positive integer, not " + std::to_string(state));
  engine_.seed(static_cast<boost::random::minstd_rand0::result_type>(state));
  saved_ = false;
}

double RandomPark::uniform() { return (1.0 / 2147483647) * static_cast<double>(engine_()); }

double RandomPark::gaussian() {
  if (saved_) {
    saved_ = false;
    return second_;
  }
  double v1, v2, rsq;
  do {
    v1 = 2.0 * uniform() - 1.0;
    v2 = 2.0 * uniform() - 1.0;
    rsq = v1 * v1 + v2 * v2;
  } while (!(rsq < 1.0 && rsq != 0.0));
  const double fac = std::sqrt(-2.0 * std::log(rsq) / rsq);
  second_ = v1 * fac;
  saved_ = true;
  return v2 * fac;
}

void RandomPark::reseed(int seed, const std::array<double, 3>& xyz) {
  unsigned int hash = 0;
  auto mix = [&hash](const void* data, std::size_t n) {
    const auto* bytes =
        static_cast<const signed char*>(data);  // LAMMPS hashes plain (signed) chars
    for (std::size_t i = 0; i < n; ++i) {
      hash += static_cast<unsigned int>(bytes[i]);
      hash += hash << 10;
      hash ^= hash >> 6;
    }
  };
  mix(&seed, sizeof seed);
  mix(xyz.data(), 3 * sizeof(double));
  hash += hash << 3;
  hash ^= hash >> 11;
  hash += hash << 15;
  unsigned int s = hash & 0x7ffffff;
  if (s == 0) s = 1;
  engine_.seed(s);
  for (int i = 0; i < 5; ++i) uniform();
  saved_ = false;
}

}  // namespace tessera::md
