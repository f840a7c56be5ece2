// Bond, angle, dihedral and improper styles, as LAMMPS's Bond, Angle, Dihedral and Improper
// classes: four open families made by name (bond_styles(): `bond_style harmonic` makes the bond
// style registered as "harmonic"; angle_styles(), dihedral_styles(), improper_styles() likewise).
//
// Life cycle, as LAMMPS's: settings (the words of bond_style after the name) -> coeff (each
// bond_coeff) -> init (at each run's setup: every type has coefficients) -> compute (each step,
// on every tile, inside the force superstep after the pair style, so concurrently on different
// tiles: compute writes only to its BondedTile). A restart file keeps the style's own section,
// a data file its Bond Coeffs (Angle, Dihedral, Improper Coeffs).
//
// Each term is computed once, by the tile that owns the atom that keeps it (topology.hpp: a
// bond's first atom, the others' second), with the other atoms as that tile's owned atoms or
// ghosts (their images nearest that atom): LAMMPS's newton_bond on. Units are the simulation's;
// energies in energy units, the virial as sum r_a f_b (xx yy zz xy xz yz).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/cycle_estimate.hpp"
#include "tessera/core/registry.hpp"
#include "tessera/md/topology.hpp"

namespace tessera::md {

namespace detail {
class RestartHeader;
}
class Pair;

// One tile's atoms as a bonded style sees them: atoms 0..nlocal-1 are the tile's own,
// the rest its ghosts. Outputs add to what the pair style left.
struct BondedTile {
  int nlocal = 0;
  std::span<const double> x;     // 3 per atom
  std::span<double> f, ghost_f;  // forces on owned atoms, and on ghosts (returned to owners)
  bool energy_virial = false;    // thermo wants the energy and virial this step
  bool per_atom = false;         // and each atom's share (LAMMPS's ev_tally with newton_bond)
  std::span<double> eatom, vatom, ghost_tally;  // as PairTile's
  double energy = 0;
  std::array<double, 6> virial{};
  // For styles that compute pair terms too (dihedral charmm's 1-4 pairs): the atoms' types
  // (1-based) and charges (empty without atom_style charge), and those terms' energies (van der
  // Waals, Coulomb) and virial, tallied as the pair style's (LAMMPS's force->pair->ev_tally).
  std::span<const std::int32_t> type;
  std::span<const double> q;
  double pair_vdwl = 0, pair_coul = 0;
  std::array<double, 6> pair_virial{};

  // Adds the force (fx, fy, fz) to atom a, owned or a ghost.
  void add_force(int a, double fx, double fy, double fz) {
    const auto u = static_cast<std::size_t>(a);
    const auto n = static_cast<std::size_t>(nlocal);
    double* to = u < n ? &f[3 * u] : &ghost_f[3 * (u - n)];
    to[0] += fx, to[1] += fy, to[2] += fz;
  }
  // Tallies one term's energy and virial, and with per_atom an equal share of each onto each of
  // its atoms (LAMMPS's Bond, Angle, Dihedral and Improper ev_tally).
  void tally(std::span<const int> atoms, double e, const std::array<double, 6>& v);
  // Tallies a pair term of atoms i and j into the pair_ sums, and with per_atom half of it onto
  // each.
  void tally_pair(int i, int j, double evdwl, double ecoul, const std::array<double, 6>& v);

 private:
  void share(std::span<const int> atoms, double e, const std::array<double, 6>& v);
};

// What init may read besides a style's coefficients: the number of types, the pair style (after
// its init; dihedral charmm takes its 1-4 coefficients) and special_bonds' weights.
struct BondedSetup {
  int types;
  const Pair* pair;
  const SpecialBonds& special;
};

// A bond (i its first atom, owned; j the other), an angle (i2 its centre, owned), a dihedral
// (i1-i2-i3-i4 along its bonds, i2 owned) and an improper (its atoms in the data file's order, i2
// owned) of type `type`, as tile atom indices.
struct BondEntry {
  int i, j, type;
};
struct AngleEntry {
  int i1, i2, i3, type;
};
struct DihedralEntry {
  int i1, i2, i3, i4, type;
};
struct ImproperEntry {
  int i1, i2, i3, i4, type;
};

// The style interface both families share; Entry is what compute takes.
template <class Entry>
class BondedStyle {
 public:
  virtual ~BondedStyle() = default;
  virtual std::string style() const = 0;
  // bond_style NAME ARGS...: the ARGS (harmonic takes none).
  virtual void settings(const std::vector<std::string>& args) = 0;
  // bond_coeff ARGS... (angle_coeff) for `types` bond (angle) types.
  virtual void coeff(const std::vector<std::string>& args, int types) = 0;
  // At a run's setup: throws ConfigError naming a type without coefficients.
  virtual void init(const BondedSetup& setup) = 0;
  virtual void compute(BondedTile& t, std::span<const Entry> entries) const = 0;
  // The counted work of one term on an IPU tile (kernel_work.hpp).
  virtual KernelWork work() const = 0;
  // A type's equilibrium value, for fix shake (LAMMPS's Bond::equilibrium_distance, in distance
  // units, and Angle::equilibrium_angle, in radians); none for styles without one.
  virtual std::optional<double> equilibrium(int /*type*/) const { return std::nullopt; }
  // Its restart section ({"style": NAME, ...}) and its data file coefficient lines ("TYPE
  // COEFF..."), each read back.
  virtual nlohmann::json restart_section() const = 0;
  virtual void restore(const nlohmann::json& section, const detail::RestartHeader& header,
                       int types) = 0;
  virtual void write_data_coeffs(std::ostream& out, int types) const = 0;
  virtual void data_coeff(const std::vector<std::string>& words, int types) = 0;
};
using Bond = BondedStyle<BondEntry>;
using Angle = BondedStyle<AngleEntry>;
using Dihedral = BondedStyle<DihedralEntry>;
using Improper = BondedStyle<ImproperEntry>;

// Coefficients per type, N numbers each, as bond_coeff (angle_coeff, ...) sets them (a type range
// "*", "n*m" as LAMMPS's; `usage`: the numbers' names). `problem`, when given, says what is wrong
// with a type's numbers (empty: nothing), for commands and files alike.
template <std::size_t N>
class TypeCoefficients {
 public:
  using Check = std::string (*)(const std::array<double, N>&);
  TypeCoefficients(TermKind kind, const char* usage, Check problem = nullptr)
      : kind_(kind), usage_(usage), problem_(problem) {}
  void set(const std::vector<std::string>& args, int types);
  // Every type has its numbers; throws ConfigError naming the first that does not.
  void require_all(int types) const;
  const std::array<double, N>& operator[](int type) const {
    return values_[static_cast<std::size_t>(type)];
  }
  nlohmann::json to_json() const;
  void from_json(const nlohmann::json& coeffs, const detail::RestartHeader& header, int types);

 private:
  TermKind kind_;
  const char* usage_;
  Check problem_;
  std::vector<std::array<double, N>> values_;
  std::vector<bool> set_;
};

const Registry<Bond>& bond_styles();
const Registry<Angle>& angle_styles();
const Registry<Dihedral>& dihedral_styles();
const Registry<Improper>& improper_styles();

}  // namespace tessera::md
