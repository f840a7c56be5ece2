// The Park–Miller "minimal standard" generator as LAMMPS's `velocity` command
// uses it, so that `velocity create` gives LAMMPS's velocities.
//
// Park & Miller, CACM 31 (1988): x <- 16807 x mod (2^31 - 1), uniform = x / (2^31 - 1);
// this is boost::random::minstd_rand0. Gaussians by the polar Box–Muller method,
// keeping the second value of each pair. reseed(seed, xyz) is LAMMPS's
// geometry-based seeding (`loop geom`): Jenkins' one-at-a-time hash of the seed's
// and the coordinates' bytes, 27 bits kept, then 5 warm-up draws.
#pragma once

#include <array>
#include <boost/random/linear_congruential.hpp>

namespace tessera::md {

class RandomPark {
 public:
  explicit RandomPark(int seed);
  double uniform();
  double gaussian();
  void reseed(int seed, const std::array<double, 3>& xyz);
  // The generator's state (LAMMPS's RanPark::state), and a generator continued from one
  // (RanPark::reset(seed): the saved second gaussian is dropped, as LAMMPS drops it).
  int state() const;
  void reset(int state);

 private:
  boost::random::minstd_rand0 engine_;
  bool saved_ = false;
  double second_ = 0;
};

}  // namespace tessera::md
