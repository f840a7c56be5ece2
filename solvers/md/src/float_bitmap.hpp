// LAMMPS's bitmapped lookup tables (Pair::init_bitmap, src/pair.cpp): 2^bits bins indexed by the
// bits of r^2 rounded to a float (its exponent's low bits and its mantissa's high ones) between
// inner^2 and outer^2; bins whose edge would fall below inner^2 wrap around to the top of the
// range. Used by pair_style table bitmap and by the long-range styles' Coulomb table.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera::md {

inline float bits_as_float(std::int32_t bits) { return std::bit_cast<float>(bits); }
inline std::int32_t float_bits(float value) { return std::bit_cast<std::int32_t>(value); }

struct FloatBitmap {
  std::int32_t masklo = 0, maskhi = 0, nmask = 0, nshiftbits = 0;
  // The bin of r^2 (rounded to a float).
  std::size_t bin(float rsq) const {
    return static_cast<std::size_t>((float_bits(rsq) & nmask) >> nshiftbits);
  }
  // The lower edge (r^2, a float) of bin i: the index's bits over the low mask, or over the high
  // one where that falls below inner^2.
  float bin_edge(std::size_t i, double innersq) const {
    const auto index = static_cast<std::int32_t>(i) << nshiftbits;
    const float lo = bits_as_float(index | masklo);
    return lo < innersq ? bits_as_float(index | maskhi) : lo;
  }
};

// The masks for `bits` bins between inner and outer (distances). Throws ConfigError, prefixed by
// `what`, where LAMMPS stops: more bits than a float has, more exponent or mantissa bits than
// the range allows, fewer than 3 mantissa bits.
FloatBitmap float_bitmap(double inner, double outer, int bits, const std::string& what);

}  // namespace tessera::md
