#include "tessera/md/random_mars.hpp"

#include <cmath>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::md {

RandomMars::RandomMars(int seed) {
  if (seed <= 0 || seed > 900000000)
    throw ConfigError("the seed " + std::to_string(seed) +
                      " is outside 1..900000000 (Marsaglia's generator)");
  // The seed gives four small seeds; 24 bits of each of the 97 table entries come from a
  // multiplicative and a linear congruential sequence of them.
  const int ij = (seed - 1) / 30082, kl = (seed - 1) - 30082 * ij;
  int i = (ij / 177) % 177 + 2, j = ij % 177 + 2, k = (kl / 169) % 178 + 1, l = kl % 169;
  for (std::size_t entry = 1; entry <= 97; ++entry) {
    double sum = 0.0, bit = 0.5;
    for (int b = 0; b < 24; ++b) {
      const int m = ((i * j) % 179) * k % 179;
      i = j, j = k, k = m;
      l = (53 * l + 1) % 169;
      if ((l * m) % 64 >= 32) sum += bit;
      bit *= 0.5;
    }
    u_[entry] = sum;
  }
  c_ = 362436.0 / 16777216.0;
  cd_ = 7654321.0 / 16777216.0;
  cm_ = 16777213.0 / 16777216.0;
  uniform();  // LAMMPS discards the first
}

double RandomMars::uniform() {
  double value = u_[static_cast<std::size_t>(i97_)] - u_[static_cast<std::size_t>(j97_)];
  if (value < 0.0) value += 1.0;
  u_[static_cast<std::size_t>(i97_)] = value;
  if (--i97_ == 0) i97_ = 97;
  if (--j97_ == 0) j97_ = 97;
  c_ -= cd_;
  if (c_ < 0.0) c_ += cm_;
  value -= c_;
  if (value < 0.0) value += 1.0;
  return value;
}

double RandomMars::gaussian() {
  if (saved_) {
    saved_ = false;
    return second_;
  }
  double v1, v2, rsq;
  do {
    v1 = 2.0 * uniform() - 1.0;
    v2 = 2.0 * uniform() - 1.0;
    rsq = v1 * v1 + v2 * v2;
  } while (rsq >= 1.0 || rsq == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(rsq) / rsq);
  second_ = v1 * factor;
  saved_ = true;
  return v2 * factor;
}

}  // namespace tessera::md
