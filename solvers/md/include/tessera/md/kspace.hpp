// KSpace: a long-range Coulomb solver, as LAMMPS's KSpace class, one of an open family made by
// name (kspace_styles(): `kspace_style ewald 1e-5` makes the style registered as "ewald").
//
// It pairs with a pair style whose Coulomb term is the short-range, erfc-screened part of the
// Ewald sum (coul/long, lj/cut/coul/long): at each run's setup init works out the splitting
// parameter g_ewald (1/distance) from the accuracy, which the pair style then uses, and
// prepare gets the tiles' sub-boxes; each step compute adds the long-range forces to the tiles'
// own atoms (and, when asked, their per-atom energies and virials) in supersteps of its own on
// the runtime: Ewald's structure factors all-reduced over the tiles, PPPM's mesh through a
// distributed FFT. Tile work runs concurrently: a style writes only to the KSpaceTile it is
// given and the state it keeps for that tile (`slot`), and charges its work to the tile
// (Tile::charge) for the cost model. The energy and virial (energy units; xx yy zz xy xz yz)
// come out the same on every rank.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
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
  double qqrd2e = 0;            // Coulomb's constant over the dielectric constant
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
  // Then, once the tiles' sub-boxes are set (collective): what depends on them (PPPM's meshes).
  // `skin`: how far (distance) an atom may stray from its tile's sub-box between rebuilds.
  virtual void prepare(Runtime& /*runtime*/, const Domain& /*domain*/, double /*skin*/) {}
  // A box that changed since init (a barostat): the parameters that depend on it.
  virtual void box_changed(const Box& box) = 0;
  // Each step (collective): the forces on every tile's atoms (`view` gives a tile's), with
  // energy_virial the energy and virial, and with per_atom (the same on every rank; then each
  // KSpaceTile's per_atom is set) each atom's energy and virial.
  virtual void compute(Runtime& runtime, const std::function<KSpaceTile(Tile&)>& view,
                       bool energy_virial, bool per_atom, double& energy,
                       std::array<double, 6>& virial) = 0;
};

// What Ewald and PPPM check and work out alike at init, as LAMMPS's KSpace: the system is 3-d,
// orthogonal and periodic in x, y and z (else ConfigError: `name` is LAMMPS's, `triclinic_needs`
// what a triclinic box would take); the warnings about no or net charge (log lines); and the first
// g_ewald (1/distance) from the accuracy (force units) and q2 = qqrd2e sum q^2 (ConfigError when
// it cannot be had: no accuracy, no charges).
void check_kspace_system(const KSpaceSystem& system, const std::string& style, const char* name,
                         const char* triclinic_needs);
std::string kspace_charge_warnings(const KSpaceSystem& system);
double g_ewald_from_accuracy(const KSpaceSystem& system, double accuracy, double q2,
                             const std::string& style);

// The arguments both styles take as LAMMPS's: kspace_style STYLE ACCURACY (its absolute value,
// relative to two unit charges' force), and kspace_modify gewald G at words[at + 1] (0: from the
// accuracy again, nullopt; a G missing or negative is a ConfigError giving `usage`).
double kspace_accuracy(const std::string& style, const std::vector<std::string>& args);
std::optional<double> kspace_gewald(const std::vector<std::string>& words, std::size_t at,
                                    const char* usage);

// The kspace styles md_ipu has, by name.
const Registry<KSpace>& kspace_styles();

}  // namespace tessera::md
