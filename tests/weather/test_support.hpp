// Helpers shared by the weather tests: small targets and error capture.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/core/runtime.hpp"

namespace tessera::weather::testing {

// One simulated IPU of `tiles` tiles (gc200 figures otherwise).
inline Target small_target(int tiles, std::size_t memory = 4 << 20) {
  Target t = Target::preset("gc200");
  t.name = "small";
  t.tiles_per_ipu = tiles;
  t.tile_memory_bytes = memory;
  return t;
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// Observed order of convergence between two errors at resolutions differing by `ratio`.
inline double observed_order(double coarse, double fine, double ratio = 2) {
  return std::log(coarse / fine) / std::log(ratio);
}

}  // namespace tessera::weather::testing
