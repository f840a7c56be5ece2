// pair_style eam, eam/alloy and eam/fs: the embedded-atom method as LAMMPS's MANYBODY package
// computes it (pair_eam.cpp and its alloy and fs variants), reading the same DYNAMO files.
//
//   E = sum_i F_a(rho_i) + 1/2 sum_{i != j} phi_ab(r_ij),   rho_i = sum_{j != i} rho_b(r_ij)
// with a, b the elements of atoms i and j (for eam/fs the density is rho_ba: Finnis-Sinclair).
//
//   pair_style eam        pair_coeff I J FILE           (funcfl, one element per file; I = J
//                                                        sets type I, other pairs are mixed)
//   pair_style eam/alloy  pair_coeff * * FILE E1 ... EN (setfl; E names an element of the file
//   pair_style eam/fs     pair_coeff * * FILE E1 ... EN  for each of the N types)
// Each pair_coeff sets the masses of its types from the file, as LAMMPS's does. A path that
// cannot be read is looked for in $LAMMPS_POTENTIALS too (Debian's files are in
// /usr/share/lammps/potentials). Files tagged `UNITS: metal` run in units real with LAMMPS's
// conversion; other units are refused.
//
// Tables as LAMMPS builds them: funcfl files interpolated to one grid by 4-point Lagrange
// polynomials, every table turned into LAMMPS's cubic splines (array2spline), F extended
// linearly above the table's largest density. Forces come from a full neighbor list in two
// supersteps: the densities and F'(rho) of each tile's atoms, F' sent to their ghost copies
// (LAMMPS's forward_comm_pair), then each atom's force from its own neighbors (no ghost
// forces). The sums are LAMMPS's in another order: results agree to rounding.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tessera/md/pair.hpp"

namespace tessera::md {

class PairEAM final : public Pair {
 public:
  enum class Format { funcfl, setfl, fs };
  using Variant = Format;
  PairEAM(const PairContext& context, Format format);

  std::string style() const override;
  void settings(const std::vector<std::string>& args) override;
  void coeff(const std::vector<std::string>& args, int types) override;
  bool has_coeff(int i, int j) const override;
  double init(int types, std::size_t tiles) override;
  bool full_list() const override { return true; }
  bool tallies_per_atom() const override { return true; }
  // The splines of F, rho and z2 init builds.
  std::size_t replicated_bytes() const override;
  std::size_t forward_per_atom() const override { return 1; }
  void compute_forward(PairTile& t, std::span<double> owned) override;
  void compute(PairTile& t) override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               int types) override;

  // A tabulated function as LAMMPS's splines: 7 coefficients per grid point m = 1..n (index
  // 7 m + k); value ((c3 p + c4) p + c5) p + c6 and derivative (c0 p + c1) p + c2 at a
  // fraction p of the interval past point m.
  using Spline = std::vector<double>;
  static Spline spline(const std::vector<double>& values, double delta);

 private:
  struct Funcfl {  // one DYNAMO funcfl file
    std::string path;
    double mass = 0, drho = 0, dr = 0, cut = 0;
    std::vector<double> frho, zr, rhor;  // 1-based as the file's tables: [0] unused
  };
  struct Setfl {  // a setfl (alloy) or Finnis-Sinclair file
    std::string path;
    std::vector<std::string> elements;
    std::vector<double> mass;
    int nrho = 0, nr = 0;
    double drho = 0, dr = 0, cut = 0;
    std::vector<std::vector<double>> frho, rhor, z2r;  // rhor: N (alloy) or N x N (fs)
  };
  struct TileState {  // per tile, between the two supersteps, in the tile's memory
    explicit TileState(Tile& t)
        : rho(t.make_vector<double>("md.eam_rho")),
          embedding(t.make_vector<double>("md.eam_embedding")) {}
    TileVector<double> rho, embedding;  // per owned atom: rho and F(rho)
    double embedding_energy = 0;
  };

  void read_funcfl(const std::string& path);
  void read_setfl(const std::string& path);
  void build_funcfl_tables();
  void build_setfl_tables();
  template <bool EnergyVirial, bool PerAtom>
  void kernel(PairTile& t) const;

  PairContext context_;
  Format format_;
  std::vector<std::vector<std::string>> coeff_calls_;  // for restart files
  std::vector<Funcfl> funcfl_;
  Setfl setfl_;
  bool have_setfl_ = false;
  std::vector<int> map_;  // per type (1-based): its funcfl file or element, -1 none

  // The tables init builds (LAMMPS's names).
  int nrho_ = 0, nr_ = 0;
  double drho_ = 0, dr_ = 0, rdr_ = 0, rdrho_ = 0, rhomax_ = 0, cutforcesq_ = 0;
  std::vector<Spline> frho_spline_, rhor_spline_, z2r_spline_;
  std::vector<int> type2frho_, type2rhor_, type2z2r_;  // [i] and [i * (types + 1) + j]
  int types_ = 0;
  std::vector<std::unique_ptr<TileState>> tiles_;
};

}  // namespace tessera::md
