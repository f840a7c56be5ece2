// kspace_style ewald ACCURACY: the standard Ewald sum's reciprocal-space part, as LAMMPS's Ewald
// (KSPACE/ewald.cpp; Darden, York and Pedersen's and Kolafa and Perram's error estimates).
//
// ACCURACY is relative to the force between two unit charges 1 distance unit apart (LAMMPS's
// two_charge_force); kspace_modify gewald G (1/distance) and kmax/ewald KX KY KZ override what
// it gives. g_ewald from the accuracy, the pair style's Coulomb cutoff and the charges
// (KSpace::init); then k-vectors k = 2 pi (l/Lx, m/Ly, n/Lz) up to |k|^2 <= the largest of the
// three axes' (times 1.00001), in LAMMPS's order, with their coefficients
//   ug = 4 pi / V exp(-k^2 / (4 g^2)) / k^2
// (and LAMMPS's eg and vg for forces and virial). Each step: per atom cos and sin of k_d x_d by
// the angle-addition recurrence, the structure factors S(k) = sum_i q_i exp(i k.r_i) as each
// tile's partial sums all-reduced over the tiles (the one collective of the solver: 2 numbers per
// k-vector, an all-reduce over the IPU's exchange), then the forces
//   f_i = qqrd2e q_i sum_k eg_k [sin(k.r_i) Re S - cos(k.r_i) Im S]
// and E = qqrd2e [sum_k ug |S(k)|^2 - g sum q^2 / sqrt(pi) - pi (sum q)^2 / (2 g^2 V)].
// The arithmetic is LAMMPS's, term by term, so that forces agree to the last bits but for the
// order of the sums over atoms.
//
// md_ipu's ewald is for orthogonal boxes periodic in 3 dimensions (LAMMPS's slab correction and
// triclinic boxes are refused); the box is fixed over a run (a barostat is refused, as the
// k-vectors would have to follow it).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessera/md/kspace.hpp"

namespace tessera::md {

class KSpaceEwald final : public KSpace {
 public:
  std::string style() const override { return "ewald"; }
  void settings(const std::vector<std::string>& args) override;
  void modify(const std::vector<std::string>& args) override;
  double init(const KSpaceSystem& system, std::string& log) override;
  void box_changed(const Box& box) override;
  void compute(Runtime& runtime, const std::function<KSpaceTile(Tile&)>& view, bool energy_virial,
               bool per_atom, double& energy, std::array<double, 6>& virial) override;

 private:
  // The two phases: each tile's share of the structure factors (2 per k-vector), all-reduced;
  // then the forces on each tile's atoms from the totals; the energy and virial from them.
  void partial(const KSpaceTile& t, std::span<double> out);
  void forces(KSpaceTile& t, std::span<const double> total);
  void energy_virial(std::span<const double> total, double& energy,
                     std::array<double, 6>& virial) const;
  struct KVector {
    std::array<int, 3> n;  // k = unitk * n, n signed
    double ug;
    std::array<double, 3> eg;
    std::array<double, 6> vg;
  };
  double rms(int km, double prd) const;
  void setup(const Box& box);
  // Per atom cos and sin of m unitk_d x_d, m = 0..kmax_d, per dimension: [d][m * n + i].
  void exponentials(const KSpaceTile& t);

  double accuracy_relative_ = 0;
  std::optional<double> gewald_;                // kspace_modify gewald
  std::optional<std::array<int, 3>> kmax_set_;  // kspace_modify kmax/ewald
  double accuracy_ = 0, g_ewald_ = 0, natoms_ = 0, q2_ = 0, qsum_ = 0, qsqsum_ = 0;
  double qqrd2e_ = 0, volume_ = 0;
  std::array<double, 3> unitk_{};
  std::array<int, 3> kmax_{}, reach_{};  // reach_: the largest |n_d| of the k-vectors
  double gsqmx_ = 0;
  std::vector<KVector> kvectors_;
  // Per tile (by slot): the exponentials of its atoms at this step.
  struct TileExponentials {
    std::array<std::vector<double>, 3> cs, sn;
  };
  std::vector<TileExponentials> tiles_;
};

}  // namespace tessera::md
