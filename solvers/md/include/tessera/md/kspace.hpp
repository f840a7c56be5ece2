// KSpace: a long-range Coulomb solver, as LAMMPS's KSpace class, one of an open family made by
// name (kspace_styles(): `kspace_style ewald 1e-5` makes the style registered as "ewald").
//
// It pairs with a pair style whose Coulomb term is the short-range, erfc-screened part of the
// Ewald sum (coul/long, lj/cut/coul/long): at each run's setup init works out the splitting
// parameter g_ewald (1/distance) from the accuracy, which the pair style then uses, and each
// step adds the long-range forces to the owned atoms, in two phases on the tile runtime:
//   1. every tile sums its atoms' share of `reduced()` values (partial, e.g. Ewald's structure
//      factors), which the runtime all-reduces over tiles and ranks in a fixed order;
//   2. every tile adds the forces on its own atoms from the totals (forces), and, when asked,
//      their per-atom energies and virials.
// The energy and virial (energy units; xx yy zz xy xz yz) follow from the totals alone
// (energy_virial), the same on every rank. partial and forces run concurrently on different
// tiles: they write only to their KSpaceTile and the state kept for that tile (`slot`), and
// charge their work to the tile (Tile::charge) for the cost model.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/registry.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/md/domain.hpp"
#include "tessera/md/units.hpp"

namespace tessera::md {

// What init needs of the system.
struct KSpaceSystem {
  Units units;
  Box box;
  Boundary boundary;
  int dimension = 3;
  double natoms = 0;
  double qsum = 0, qsqsum = 0;  // sum q_i and sum q_i^2 (charge units)
  double cutoff = 0;            // the pair style's Coulomb cutoff (distance)
  std::size_t tiles = 0;        // on this rank
};

// One tile's owned atoms as the solver sees them.
struct KSpaceTile {
  KSpaceTile(Tile& tile, std::size_t slot) : tile(tile), slot(slot) {}
  Tile& tile;
  std::size_t slot;
  std::span<const double> x, q;  // 3 per atom, 1 per atom
  std::span<double> f;           // forces to add to, 3 per atom
  // When set, each atom's energy (1) and virial (6) to add to.
  bool per_atom = false;
  std::span<double> eatom, vatom;
};

class KSpace {
 public:
  virtual ~KSpace() = default;
  virtual std::string style() const = 0;
  // kspace_style NAME ARGS...: the ARGS; kspace_modify ARGS.
  virtual void settings(const std::vector<std::string>& args) = 0;
  virtual void modify(const std::vector<std::string>& args) = 0;
  // At each run's setup (collective only through what it is given): checks the system, works
  // out the parameters and returns g_ewald; `log` gets LAMMPS's lines about them. Throws
  // ConfigError.
  virtual double init(const KSpaceSystem& system, std::string& log) = 0;
  // A box that changed since init (a barostat): the parameters that depend on it.
  virtual void box_changed(const Box& box) = 0;
  virtual std::size_t reduced() const = 0;
  virtual void partial(const KSpaceTile& t, std::span<double> out) = 0;
  virtual void forces(KSpaceTile& t, std::span<const double> total) = 0;
  virtual void energy_virial(std::span<const double> total, double& energy,
                             std::array<double, 6>& virial) const = 0;
};

// The kspace styles md_ipu has, by name.
const Registry<KSpace>& kspace_styles();

}  // namespace tessera::md
