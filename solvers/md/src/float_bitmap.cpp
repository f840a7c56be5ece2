// LAMMPS's Pair::init_bitmap (src/pair.cpp), step by step.
#include "float_bitmap.hpp"

#include <cfloat>
#include <climits>
#include <cmath>

#include "tessera/core/error.hpp"

namespace tessera::md {

FloatBitmap float_bitmap(double inner, double outer, int bits, const std::string& what) {
  if (bits > static_cast<int>(sizeof(float)) * CHAR_BIT)
    throw ConfigError(what + ": too many bits (" + std::to_string(bits) +
                      ") for a bitmapped lookup table");
  int nlowermin = 1;
  while (!(std::pow(2.0, nlowermin) <= inner * inner &&
           std::pow(2.0, nlowermin + 1.0) > inner * inner)) {
    if (std::pow(2.0, nlowermin) <= inner * inner)
      ++nlowermin;
    else
      --nlowermin;
  }
  int nexpbits = 0;
  const double required_range = outer * outer / std::pow(2.0, nlowermin);
  double available_range = 2.0;
  while (available_range < required_range) {
    ++nexpbits;
    available_range = std::pow(2.0, std::pow(2.0, nexpbits));
  }
  const int nmantbits = bits - nexpbits;
  if (nexpbits > static_cast<int>(sizeof(float)) * CHAR_BIT - FLT_MANT_DIG)
    throw ConfigError(what + ": too many exponent bits for the lookup table");
  if (nmantbits + 1 > FLT_MANT_DIG)
    throw ConfigError(what + ": too many mantissa bits for the lookup table");
  if (nmantbits < 3)
    throw ConfigError(what + ": too few bits (" + std::to_string(bits) +
                      ") for the lookup table between " + std::to_string(inner) + " and " +
                      std::to_string(outer));
  FloatBitmap b;
  b.nshiftbits = FLT_MANT_DIG - (nmantbits + 1);
  b.nmask = static_cast<std::int32_t>((std::int64_t{1} << (bits + b.nshiftbits)) - 1);
  // The bits of inner^2 and of outer^2 outside the index.
  b.masklo = float_bits(static_cast<float>(inner * inner)) & ~b.nmask;
  b.maskhi = float_bits(static_cast<float>(outer * outer)) & ~b.nmask;
  return b;
}

}  // namespace tessera::md
