// Marsaglia's RANMAR generator as LAMMPS's RanMars has it (its variables' random() and normal(),
// and many of its fixes), so that md_ipu draws LAMMPS's numbers from LAMMPS's seeds.
//
// G. Marsaglia, A. Zaman and W. W. Tsang, Stat. Prob. Lett. 9 (1990) 35, in the form of F.
// James, Comp. Phys. Comm. 60 (1990) 329: a lagged Fibonacci generator of 97 doubles filled
// from the seed (1..900 000 000) and combined with an arithmetic sequence; uniform() is in
// (0, 1) or 0, as LAMMPS's. Gaussians by the polar method, the second of each pair kept for the
// next call. Not thread-safe: one stream, drawn from in order.
#pragma once

#include <array>

#include "tessera/core/error.hpp"

namespace tessera::md {

class RandomMars {
 public:
  // Throws ConfigError for a seed outside 1..900000000.
  explicit RandomMars(int seed);
  double uniform();
  double gaussian();

 private:
  std::array<double, 98> u_{};  // 1-based, as the algorithm is written
  int i97_ = 97, j97_ = 33;
  double c_ = 0, cd_ = 0, cm_ = 0;
  bool saved_ = false;
  double second_ = 0;
};

}  // namespace tessera::md
