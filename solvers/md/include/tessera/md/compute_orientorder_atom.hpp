// compute ID GROUP orientorder/atom [nnn N|NULL] [degrees N L1 ... LN] [wl yes|no]
//   [wl/hat yes|no] [components L] [cutoff RC] [chunksize N]: LAMMPS's ComputeOrientOrderAtom,
// the bond-orientational order parameters of Steinhardt, Nelson and Ronchetti (Phys. Rev. B 28,
// 784 (1983)) of each atom in the group, a per-atom array:
//   Q_l = sqrt(4 pi / (2l + 1) sum_m |q_lm|^2),  q_lm = (1/N) sum_j Y_lm(r_ij),
// over its N nearest neighbors within RC (nnn, default 12; NULL: all within RC; an atom with
// fewer gets zeros), for the degrees L (default 4 6 8 10 12); with wl yes the third-order
// invariants W_l = sum over m1 + m2 + m3 = 0 of the Wigner 3j symbol times q_lm1 q_lm2 q_lm3,
// with wl/hat yes W_l normalised by (sum_m |q_lm|^2)^(3/2) (0 where Q_l < 1e-6); with components
// L the normalised real and imaginary parts of q_lm, m = -L..L, for one of the degrees. Columns:
// the Q_l, then the W_l, then the hat W_l, then the components, as LAMMPS's. RC defaults to the
// pair style's cutoff, which it may not exceed. chunksize is accepted (LAMMPS's Kokkos setting).
//
// The neighbors of each owned atom, its tile's ghosts among them, are found anew at each
// evaluation (prepare_peratom), on every tile in one pass. Values are dimensionless.
#pragma once

#include <vector>

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeOrientOrderAtom final : public Compute {
 public:
  explicit ComputeOrientOrderAtom(const ComputeArguments& args);
  std::string style() const override { return "orientorder/atom"; }
  std::size_t peratom_columns() const override { return columns_; }
  void prepare_peratom(Simulation& sim) override;
  void peratom(const AtomsView& atoms, std::span<double> out) const override;

 private:
  // The parameters of one atom from the vectors to its neighbors (3 per neighbor).
  void order_parameters(const std::vector<double>& r, std::span<double> out) const;

  int nearest_ = 12;   // 0: all within the cutoff
  double cutoff_ = 0;  // 0: the pair style's
  std::vector<int> degrees_{4, 6, 8, 10, 12};
  bool wl_ = false, wl_hat_ = false;
  int component_ = -1;  // the index in degrees_ of `components L`, or -1
  std::size_t columns_ = 0;
  double cutsq_ = 0;
  // Clebsch-Gordan coefficients of each degree's (m1, m2) pairs, in the order they are summed.
  std::vector<double> clebsch_gordan_;
  // Each tile's values (by Tile::id), worked out by prepare_peratom.
  std::vector<std::vector<double>> values_;
};

}  // namespace tessera::md
