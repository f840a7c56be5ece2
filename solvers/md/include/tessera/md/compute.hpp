// Compute: a quantity worked out from the atoms when something asks for it, as LAMMPS's
// Compute, one of an open family made by name (compute_styles(): `compute 1 all temp` makes
// the style registered as "temp").
//
// A compute has any of three outputs, as LAMMPS's:
//   a global scalar       (has_scalar; thermo and variables read it as c_ID),
//   a global vector       (vector_size values; c_ID[N], N from 1),
//   per-atom values       (peratom_columns per owned atom; 1 is a per-atom vector, c_ID, more
//                          a per-atom array, c_ID[N]), read by compute reduce and dumps.
// Global outputs are collective: every rank calls them together and gets the same numbers,
// reduced over tiles and ranks in a fixed order (bitwise the same for any thread or rank
// count). Per-atom values are filled on each tile for its own atoms, concurrently over tiles:
// peratom() may write only to its output.
//
// Computes are evaluated where LAMMPS's may be: at the steps observers (thermo, dumps, fix
// ave/time) look at the system, whose energies and virials the step computed, and between
// runs. Units are the simulation's (units.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/registry.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/md/domain.hpp"
#include "tessera/md/topology.hpp"
#include "tessera/md/units.hpp"

namespace tessera::md {

class Simulation;
class Region;

// One tile's own atoms, read-only, as computes see them.
struct AtomsView {
  explicit AtomsView(Tile& tile) : tile(tile) {}
  Tile& tile;
  int nlocal = 0;
  std::span<const double> x, v, f;      // 3 per atom; positions as stored (see unwrapped)
  std::span<const std::int32_t> type;   // per atom, 1-based
  std::span<const std::int32_t> image;  // 3 per atom: periodic images crossed
  std::span<const std::int64_t> id;     // per atom
  std::span<const std::uint32_t> mask;  // per atom: its groups, a bit each
  std::span<const double> q;            // per atom: charge; empty unless atom_style charge
  std::span<const double> mass;         // by type, 1-based
  const Units* units = nullptr;
  const Box* box = nullptr;
  const Boundary* boundary = nullptr;
  std::span<const double> per_atom;  // per_atom_width per atom (Simulation::add_per_atom)
  std::size_t per_atom_width = 0;
  // The pair style's per-atom energy (1 per atom) and virial (6, xx yy zz xy xz yz; energy
  // units) at this step, ghosts' shares included; empty unless Simulation::per_atom_tallied.
  std::span<const double> eatom, vatom;
  // Coordinate d of atom i with its images counted on (LAMMPS's Domain::unmap).
  double unwrapped(std::size_t i, std::size_t d) const {
    return box->unwrapped(&x[3 * i], &image[3 * i], d);
  }
};

// The attributes of an atom that formulas name, as LAMMPS's variables do (q only where the atoms
// carry charges), and atom i's value of attribute k (an index into atom_attributes; forces 0
// where a view has none).
inline constexpr std::array<std::string_view, 13> atom_attributes{
    "id", "type", "mass", "x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz", "q"};
inline std::optional<std::size_t> atom_attribute_index(std::string_view name) {
  for (std::size_t k = 0; k < atom_attributes.size(); ++k)
    if (atom_attributes[k] == name) return k;
  return std::nullopt;
}
double atom_attribute(const AtomsView& a, std::size_t k, std::size_t i);

// Adds an atom's m v_a v_b to a kinetic tensor (xx yy zz xy xz yz).
inline void add_kinetic_tensor(double* out, double m, const double* v) {
  out[0] += m * v[0] * v[0], out[1] += m * v[1] * v[1], out[2] += m * v[2] * v[2];
  out[3] += m * v[0] * v[1], out[4] += m * v[0] * v[2], out[5] += m * v[1] * v[2];
}

// Per-atom values filled for one tile's atoms (out[i] for its atom i), as an atom-style variable
// or a per-atom compute gives them; called concurrently over tiles.
using AtomValues = std::function<void(const AtomsView&, std::span<double>)>;

// The input's atom-style variables, as fixes and computes read them (v_NAME).
struct AtomVariables {
  // Throws ConfigError, `where` first, unless NAME is an atom-style variable.
  std::function<void(const std::string& name, const std::string& where)> check;
  // NAME bound now (collective, host side: its global values evaluated, the computes it reads
  // prepared), valid for this step.
  std::function<AtomValues(const std::string& name)> bind;
};

// The atom count a temperature's degrees of freedom come from, as LAMMPS's temperature computes
// keep it: counted at each run's setup and held through the run, so that atoms a fix deposits
// count from the next run on; at every evaluation with compute_modify dynamic/dof yes (and for
// temp/region). Outside a run, the count now.
class DofCount {
 public:
  void set_dynamic(bool dynamic) { dynamic_ = dynamic; }
  void set_at_setup(double count) { at_setup_ = count; }
  bool dynamic() const { return dynamic_; }
  // The count to use when `now` atoms are counted.
  double of(const Simulation& sim, double now) const;

 private:
  bool dynamic_ = false;
  std::optional<double> at_setup_;
};

class Compute {
 public:
  Compute(std::string id, std::string group) : id_(std::move(id)), group_(std::move(group)) {}
  virtual ~Compute() = default;

  const std::string& id() const { return id_; }
  const std::string& group() const { return group_; }
  void set_group_bit(int bit) { groupbit_ = 1u << bit; }
  bool in_group(const AtomsView& a, std::size_t i) const { return (a.mask[i] & groupbit_) != 0; }
  std::uint32_t group_mask() const { return groupbit_; }
  // The name the style is registered under.
  virtual std::string style() const = 0;

  // Its outputs (see the top of this file).
  virtual bool has_scalar() const { return false; }
  virtual std::size_t vector_size() const { return 0; }
  virtual std::size_t peratom_columns() const { return 0; }
  // Whether the scalar, or vector element k, grows with the system (a sum over atoms): thermo
  // divides it by the atom count under thermo_modify norm yes, as LAMMPS's extscalar/extvector.
  virtual bool extensive_scalar() const { return false; }
  virtual bool extensive_vector(std::size_t /*k*/) const { return false; }
  // A temperature (LAMMPS's tempflag): one compute pressure and thermo_modify temp accept.
  virtual bool is_temperature() const { return false; }
  // For a temperature: whether its bias differs from atom to atom (temp/region leaves atoms
  // out, temp/ramp takes a velocity profile off): a thermostat cannot use it, as md_ipu's
  // thermostats remove only thermal_components' biases (fix langevin: bias_region's too).
  virtual bool removes_atom_bias() const { return false; }
  // For such a temperature: the region whose atoms it counts (temp/region's); LAMMPS's
  // thermostats that take it act only on the atoms inside (fix langevin).
  virtual std::shared_ptr<const Region> bias_region() const { return nullptr; }
  // For a temperature: the velocity components it counts (LAMMPS's bias is the others, as
  // temp/partial leaves a flow's direction out); a thermostat that scales to it scales these.
  virtual std::array<bool, 3> thermal_components() const { return {true, true, true}; }
  // For a temperature: the degrees of freedom its scalar is over (collective).
  virtual double dof(Simulation& /*sim*/) { return 0; }
  // At each run's and minimization's setup, once the forces are computed and before the fixes'
  // setup (collective, host side; LAMMPS's Compute::setup): what it holds for the run.
  virtual void setup(Simulation& /*sim*/) {}
  // Before per-atom values are read at a step (collective, host side): what peratom() needs
  // worked out first (compute chunk/atom lays its bins). Every reader of peratom() calls it.
  virtual void prepare_peratom(Simulation& /*sim*/) {}
  // Whether it reads AtomsView::eatom or vatom: while it exists, the pair style tallies them at
  // the steps observers look at (LAMMPS's eflag_atom and vflag_atom).
  virtual bool needs_per_atom_tally() const { return false; }
  // compute_modify KEYWORD VALUE...: the words; the default refuses any. Returns how many
  // words it took (at least one), throws ConfigError.
  virtual std::size_t modify(const std::vector<std::string>& words, std::size_t at);

  // Before uncompute destroys it (collective): what it holds in the simulation (per-atom
  // vectors) goes back.
  virtual void release(Simulation& /*sim*/) {}

  // Collective (see above). Each is called only for the outputs the compute says it has.
  virtual double scalar(Simulation& /*sim*/) { return 0; }
  virtual std::vector<double> vector(Simulation& /*sim*/) { return {}; }
  // A global array (LAMMPS's compute_array: compute rdf's), intensive: its size and its values
  // row by row. Collective.
  virtual std::size_t array_rows() const { return 0; }
  virtual std::size_t array_columns() const { return 0; }
  virtual std::vector<double> array(Simulation& /*sim*/) { return {}; }
  // On each tile: out[i * peratom_columns() + c] for owned atom i (0 outside the group).
  virtual void peratom(const AtomsView& /*atoms*/, std::span<double> /*out*/) const {}

 private:
  std::string id_, group_;
  std::uint32_t groupbit_ = 1;
};

// What the compute command gives a style: its ID and group, the words after the style name,
// and the simulation (for the dimension and the computes a style refers to).
struct ComputeArguments {
  std::string id;
  std::string group = "all";
  std::vector<std::string> args;
  Simulation* sim = nullptr;
  // The lattice's spacing per axis (LAMMPS's xlattice ylattice zlattice, for lattice units) and
  // the input's regions by ID (throws ConfigError for an unknown one); empty where a compute is
  // made without a script.
  std::array<double, 3> lattice{1.0, 1.0, 1.0};
  std::function<std::shared_ptr<const Region>(const std::string& id)> region{};
  AtomVariables atom_variables{};
};

// The terms LAMMPS's compute pressure and compute stress/atom take after the temperature's ID
// (words[from] on): ke, pair, bond, angle, dihedral, improper, kspace, fix, or virial (every term
// but ke); none given means all. md_ipu's forces have the kinetic, pair and fix terms (the
// constraint forces of fixes with a virial, Fix::virial_in_pressure): whether each is on.
// Throws ConfigError, `what` first, for another word.
struct VirialTerms {
  bool ke = true, pair = true, fix = true;
  std::array<bool, term_kinds> bonded{true, true, true, true};  // by TermKind
  bool kspace = true;
  void set_interactions(bool on) { pair = kspace = on, bonded.fill(on); }
};
// The TermKind a compute keyword names (bond, angle, dihedral, improper), if any.
std::optional<TermKind> term_keyword(const std::string& word);
// md_ipu tallies each atom's shares of the pair, bonded and kspace terms together: a per-atom
// compute takes all the terms the system has, or none (throws ConfigError, `what` first).
void require_lumped_terms(const Simulation& sim, const std::string& what, const VirialTerms& terms);
VirialTerms virial_terms(const std::string& what, const std::vector<std::string>& words,
                         std::size_t from);

// The degrees of freedom the simulation's fixes take from a temperature group's atoms (LAMMPS's
// Compute::adjust_dof_fix: fix rigid's constraints; collective).
double dof_removed_by_fixes(Simulation& sim, std::uint32_t group_mask);

// The compute styles md_ipu has, by name.
const Registry<Compute, const ComputeArguments&>& compute_styles();

}  // namespace tessera::md
