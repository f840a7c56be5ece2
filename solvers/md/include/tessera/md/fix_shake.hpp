// fix ID GROUP shake TOL ITER N [b BONDTYPES...] [a ANGLETYPES...] [t ATOMTYPES...] [m MASSES...]:
// LAMMPS's FixShake (RIGID package), followed step by step. Bonds (and the angles of 3-atom
// clusters) are held at their equilibrium lengths by constraint forces, so that water (SPC/E,
// TIP3P) or the hydrogens of a biomolecule can run at a 2 fs step.
//
// Clusters, as LAMMPS's find_clusters: a bond is constrained when both atoms are in GROUP and its
// type is listed after b, or either atom's type after t, or either atom's mass within 0.1 of a
// mass after m. A cluster is a central atom and the 1 to 3 atoms it is bonded to by constrained
// bonds (sizes 2, 3, 4; a 2-atom cluster's central atom is the lower id); a 3-atom cluster whose
// angle (kept by the central atom) has a type listed after a is also held at that angle's
// distance between its outer atoms ("frozen angle"). Two clusters may not share an atom's bond
// ("Shake clusters are connected") and none may hold more than 4 atoms. The constrained bonds
// and angles leave the bond and angle styles' forces and energies (LAMMPS turns their types
// negative), and each cluster removes its constraints from the degrees of freedom of every
// temperature whose group holds its central atom.
//
// Each step, after the forces: every atom's unconstrained position at the next step is predicted
// (x + dt v + dt^2 f / m), the tiles of a cluster's atoms each solve it (LAMMPS's shake, shake3,
// shake4, shake3angle: an exact quadratic for 2 atoms, else ITER iterations of the linearised
// system with the quadratic terms until the multipliers change by at most TOL) and add the
// constraint forces to their own atoms, and the forces' virial enters the pressure
// (fix_modify virial). At a run's setup the atoms are first moved onto the constraints (LAMMPS's
// correct_coordinates) and the first step's forces use dt^2/2. Every N steps (0: never), and at
// setup, LAMMPS's "SHAKE stats" lines: each constrained bond and angle type's mean length (angle
// in degrees), its spread and its count.
//
// Not here: `mol` (molecule templates), rRESPA and minimization (refused, as LAMMPS's); fix
// rattle (fix_rattle.hpp) adds the velocity constraints. Restart files do not keep it (nor do
// LAMMPS's). Units are the simulation's.
//
// Thread-safety: the per-tile hooks write only their own atoms, their tile's cluster list and
// their own tally rows; the rest changes on the host side.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/md/domain.hpp"
#include "tessera/md/fix.hpp"
#include "tessera/md/tile_tally.hpp"

namespace tessera::md {

class FixShake : public Fix {
 public:
  explicit FixShake(const FixArguments& a) : FixShake(a, "shake") {}
  std::string style() const override { return "shake"; }
  bool constrains() const override { return true; }
  bool restartable() const override { return false; }
  bool has_virial() const override { return true; }
  std::array<double, 6> tile_virial(const Tile& tile) const override;
  double dof_removed(Simulation& sim, std::uint32_t group_mask) override;
  bool replaces_term(TermKind kind, std::span<const std::int64_t> ids,
                     std::span<const double> per_atom) const override;

  void init(Simulation& sim) override;
  void pre_force(Simulation& sim) override;
  void setup(Simulation& sim) override;
  void predict_positions(const FixTile& t, bool correcting, std::span<double> out) const override;
  void correct_positions(FixTile& t) override;
  void post_force(FixTile& t) override;
  void end_of_step(Simulation& sim) override;
  void release(Simulation& sim) override;

  // A cluster as one tile sees it, central atom first: where its atoms' positions are among the
  // tile's atoms (owned, then ghosts: the images nearest the tile's own atom of the cluster),
  // and which of them are the tile's own (their owned index; -1 for another tile's).
  struct Cluster {
    int flag = 0;  // 2, 3, 4 atoms; 1: 3 atoms and their angle
    std::array<int, 4> atom{}, own{-1, -1, -1, -1};
    std::array<int, 3> type{};  // bond types; for flag 1 the angle type third
  };

 protected:
  // `style`: the fix's name in its messages (shake, rattle).
  FixShake(const FixArguments& a, const std::string& style);
  // Whether the positions are predicted over half a step (dt^2/2 in place of dt^2): at a run's
  // setup, and always for fix rattle, whose prediction starts from the step's final velocities.
  virtual bool half_step_prediction(const FixTile& t) const { return t.setup; }
  // The clusters the tile solves (each with an atom of its own), found again at each rebuild.
  struct TileClusters {
    std::uint64_t builds = ~std::uint64_t{0};
    std::vector<Cluster> clusters;
  };
  TileClusters& clusters_of(const FixTile& t);
  // Whether the tile's own atom i belongs to a cluster.
  bool in_cluster(const FixTile& t, std::size_t i) const {
    return t.per_atom[i * t.per_atom_width + offset_] != 0.0;
  }
  const std::string& style_name() const { return style_; }
  std::function<void(const std::string&)> print_;

 private:
  // Per-atom values (Simulation::add_per_atom): the cluster's flag, its 4 atom ids (central
  // first, 0 where none) and its 3 types, as LAMMPS's shake_flag, shake_atom and shake_type.
  static constexpr std::size_t width = 8;
  void find_clusters(Simulation& sim, const std::vector<int>& bond_types,
                     const std::vector<int>& angle_types, const std::vector<int>& atom_types,
                     const std::vector<double>& masses);
  // The constraint forces of cluster c, added to the tile's own atoms in f, from the tile's
  // positions and predictions (FixTile::x, ghost_x, predicted, ghost_predicted) and masses;
  // dtfsq is LAMMPS's dt^2 ftm2v (halved by half_step_prediction). Returns the tile's share of the
  // cluster's virial.
  std::array<double, 6> solve(const FixTile& t, const Cluster& c, double dtfsq,
                              std::span<double> f);
  void stats_sample(const FixTile& t, const std::vector<Cluster>& clusters);
  void print_stats(Simulation& sim);
  void warn_negative_determinants(Simulation& sim);

  std::string style_;
  double tolerance_;
  int max_iter_;
  int output_every_;
  std::int64_t next_output_ = -1;
  bool stats_due_ = false;
  int handle_ = 0;
  std::size_t offset_ = 0;
  int bond_types_ = 0, angle_types_ = 0;
  bool any_pairs_ = false;  // 2-atom clusters exist (their determinant may go negative)
  std::vector<double> bond_distance_, angle_distance_;  // by type, from 1
  // Per angle type listed after a: the bond types of its clusters (smaller, larger), or -1
  // when its clusters differ ("Shake angles have different bond types"); 0 when it has none.
  std::vector<std::array<int, 2>> angle_bonds_;
  std::vector<TileClusters> tiles_;  // by tile id
  TileTally virial_;                 // 6 per tile
  // Per tile: 2-atom clusters whose determinant was negative (LAMMPS warns).
  TileTally negative_;
  // Per tile, for the stats: per bond type, then per angle type, the count and sum (summed
  // over tiles), the max and -min (their maxima).
  TileTally stats_sum_, stats_max_;
};

}  // namespace tessera::md
