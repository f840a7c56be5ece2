// pair_style tersoff, tersoff/mod and tersoff/mod/c: Tersoff's bond-order potential and
// Kumagai et al.'s modified form, as LAMMPS's MANYBODY package computes them (pair_tersoff.cpp,
// pair_tersoff_mod.cpp, pair_tersoff_mod_c.cpp of the Debian build, 29 Sep 2021), reading the
// same files:
//
//   E = 1/2 sum_i sum_{j != i} fc(r_ij) [fR(r_ij) + b_ij fA(r_ij)]
//   fR = A exp(-lam1 r) (+ c0 for mod/c),  fA = -B exp(-lam2 r)
//   b_ij = (1 + (beta zeta_ij)^n)^(-1/2n)   (mod: ^(-1/2 delta), with delta = powern_del)
//   zeta_ij = sum_{k != i,j} fc(r_ik) g(theta_ijk) exp[(lam3 (r_ij - r_ik))^m]
// with the parameters of each element triplet (i, j, k) from the file: tersoff's 17 words per
// entry (E1 E2 E3 m gamma lam3 c d cos(theta0) n beta lam2 B R D lam1 A), tersoff/mod's 20
// (E1 E2 E3 m lam3 h n beta lam2 B R D lam1 A delta c1 c2 c3 c4 c5, LAMMPS's order; Kumagai's
// beta alpha h eta beta_ters ... n) and tersoff/mod/c's 21 (the same and c0). Tersoff (Phys. Rev. B
// 37, 6991 (1988) and 39, 5566 (1989)); Kumagai, Izumi, Hara and Sakai (Comput. Mater. Sci. 39, 457
// (2007)); mod/c: Schelling (Comput. Mater. Sci. 44, 274 (2008)).
//
//   pair_style tersoff [shift DELTA]   pair_coeff * * FILE E1 ... EN (an element per type)
//
// shift DELTA evaluates every function at r + DELTA (LAMMPS's shift keyword, for strained
// lattices; Ouyang et al.). Files tagged `UNITS: metal` run in units real with LAMMPS's
// conversion of A, B (and c0). A path that cannot be read is looked for in $LAMMPS_POTENTIALS.
//
// Forces from the full neighbor list of each owned atom: its two-body terms with the pairs
// LAMMPS's tag rule gives it (so that each pair is computed once, with the parameters LAMMPS
// picks, even from a file whose I-J-J and J-I-I entries differ), and all of its three-body
// terms; forces on ghosts are returned to their owners. Energies and virials are tallied as
// LAMMPS's ev_tally and v_tally3 (per atom too: compute pe/atom, stress/atom).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tessera/md/pair.hpp"
#include "tessera/md/pair_threebody.hpp"

namespace tessera::md {

class PairTersoff final : public Pair {
 public:
  enum class Variant { tersoff, mod, mod_c };
  PairTersoff(const PairContext& context, Variant variant);

  std::string style() const override;
  void settings(const std::vector<std::string>& args) override;
  void coeff(const std::vector<std::string>& args, int types) override;
  double init(int types, std::size_t tiles) override;
  bool has_coeff(int i, int j) const override { return elements_.mapped(i) && elements_.mapped(j); }
  bool full_list() const override { return true; }
  bool tallies_per_atom() const override { return true; }
  void compute(PairTile& t) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               int types) override;

  // One element triplet's parameters (LAMMPS's names) and what setup derives from them.
  struct Param {
    double lam1 = 0, lam2 = 0, lam3 = 0, c = 0, d = 0, h = 0, gamma = 0, powerm = 0;
    double powern = 0, beta = 0, biga = 0, bigb = 0, bigd = 0, bigr = 0;
    double cut = 0, cutsq = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0;
    double c5 = 0, ca1 = 0, ca4 = 0, powern_del = 0, c0 = 0;  // tersoff/mod, mod/c
    int powermint = 0;
  };

 private:
  Param make_param(const std::vector<double>& values) const;
  template <Variant V, bool Shift, bool EnergyVirial, bool PerAtom>
  void kernel(PairTile& t, TileVector<int>& shortlist) const;

  PairContext context_;
  Variant variant_;
  bool shift_on_ = false;
  double shift_ = 0;
  std::vector<std::string> coeff_call_;  // the last pair_coeff, for restart files
  threebody::Elements elements_;
  std::vector<Param> params_;
  double cutmax_ = 0;
  threebody::ShortLists short_;  // within the largest cutoff
};

}  // namespace tessera::md
