// Simulation: a classical MD system on the tile runtime, stepped with
// velocity Verlet under LAMMPS's conventions.
//
// Each tile owns the atoms in its sub-box (Domain). Per step:
//   1. integrate: thermostat half-step, v += dt/2 f/m, x += dt v (owned atoms);
//   2. either forward ghosts (pack shifted positions, one exchange plan), or,
//      at a neighbor-list rebuild, migrate atoms to their new tiles by
//      messages, rebuild the ghost send lists and exchange plans from the
//      gathered counts, and send ghost positions and types;
//   3. forces from binned Verlet lists, each pair once (lj/cut: half lists, a ghost
//      pair on the side of the smaller id) or every neighbor of each owned atom
//      (deepmd, a many-body potential); forces on ghosts go back to their owners
//      by a reverse exchange plan;
//   4. returned forces, Langevin forces, v += dt/2 f/m; the thermostat's second
//      half-step; observers (thermo, dumps) at their steps.
// Results are bitwise identical for any thread or rank count on a fixed target.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/core/exchange_plan.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/md/bonded.hpp"
#include "tessera/md/compute.hpp"
#include "tessera/md/compute_temp.hpp"
#include "tessera/md/domain.hpp"
#include "tessera/md/fix.hpp"
#include "tessera/md/kspace.hpp"
#include "tessera/md/pair.hpp"
#include "tessera/md/topology.hpp"
#include "tessera/md/units.hpp"

namespace tessera::md {

// One atom as it travels between tiles, files and the host.
struct AtomRecord {
  std::int64_t id = 0;
  std::int32_t type = 1;
  std::array<std::int32_t, 3> image{0, 0, 0};
  std::uint32_t noise = 1;  // per-atom random state for fix langevin
  std::uint32_t mask = 1;   // the groups the atom is in, a bit per group (bit 0: all)
  double q = 0;             // charge, charge units (atom_style charge; 0 otherwise)
  std::array<double, 3> x{0, 0, 0}, v{0, 0, 0};
  std::array<double, 3> f{0, 0, 0};  // filled by gather_atoms only
};

struct NeighborSettings {
  double skin = 0.3;
  int every = 1, delay = 10;  // LAMMPS's defaults
  bool check = true;
  // neigh_modify once yes: the lists are built at each run's setup and when a fix forces it,
  // never for atoms' moves (LAMMPS's build_once).
  bool once = false;
  // neigh_modify exclude type I J: pairs of these types are left out of the lists (no force).
  std::vector<std::pair<int, int>> exclude_types;
  // neigh_modify exclude group G1 G2: pairs with one atom in G1 and the other in G2, by group bit
  // (the ghosts' group masks then travel with them at each rebuild).
  std::vector<std::pair<int, int>> exclude_groups;
};

// Global sums at the end of a step (from which thermo columns follow).
struct Thermo {
  double ke = 0, pe = 0;
  // The pair style's part of pe in LAMMPS's two parts, van der Waals (with the tail correction)
  // and Coulomb: thermo's evdwl and ecoul.
  double evdwl = 0, ecoul = 0;
  double elong = 0;                    // the kspace style's energy (in pe; its virial is in virial)
  // The bond, angle, dihedral and improper styles' energies (in pe) and virials (in virial), by
  // TermKind.
  std::array<double, term_kinds> bonded_energy{};
  std::array<std::array<double, 6>, term_kinds> bonded_virial{};
  double bonded_energy_total() const {
    return bonded_energy[0] + bonded_energy[1] + bonded_energy[2] + bonded_energy[3];
  }
  std::array<double, 6> kspace_virial{};  // the kspace style's (in virial)
  std::array<double, 6> virial{};      // sum r_a f_b over pairs: xx yy zz xy xz yz, energy units
  std::array<double, 6> fix_virial{};  // the fixes' constraint forces' (Fix::virial_in_pressure)
  std::array<double, 6> ke_tensor{};   // mvv2e * sum m v_a v_b, same order
  std::int64_t natoms = 0;
  // The virial a pressure with every term holds: the pairs' and the fixes'.
  std::array<double, 6> total_virial() const {
    std::array<double, 6> w{};
    for (std::size_t k = 0; k < 6; ++k) w[k] = virial[k] + fix_virial[k];
    return w;
  }
};

// What the atoms carry besides LAMMPS's atomic attributes (its atom_style): `charge` adds a
// charge per atom, which travels with the atom and to its ghosts; `bond` a molecule id and bonds,
// `angle` angles too, `molecular` dihedrals and impropers too, `full` all of that and a charge
// (topology.hpp).
enum class AtomStyle { atomic, charge, bond, angle, molecular, full };
inline const char* atom_style_name(AtomStyle style) {
  switch (style) {
    case AtomStyle::charge:
      return "charge";
    case AtomStyle::bond:
      return "bond";
    case AtomStyle::angle:
      return "angle";
    case AtomStyle::molecular:
      return "molecular";
    case AtomStyle::full:
      return "full";
    default:
      return "atomic";
  }
}
inline bool has_charges(AtomStyle style) {
  return style == AtomStyle::charge || style == AtomStyle::full;
}
inline bool has_bonds(AtomStyle style) {
  return style != AtomStyle::atomic && style != AtomStyle::charge;
}
// Whether the atoms of a style carry terms of a kind.
inline bool has_terms(AtomStyle style, TermKind kind) {
  switch (style) {
    case AtomStyle::bond:
      return kind == TermKind::bond;
    case AtomStyle::angle:
      return kind == TermKind::bond || kind == TermKind::angle;
    case AtomStyle::molecular:
    case AtomStyle::full:
      return true;
    default:
      return false;
  }
}
// "use atom_style ...": the styles whose atoms carry a kind of term, for messages.
inline std::string atom_styles_with(TermKind kind) {
  switch (kind) {
    case TermKind::bond:
      return "use atom_style bond, angle, molecular or full";
    case TermKind::angle:
      return "use atom_style angle, molecular or full";
    default:
      return "use atom_style molecular or full";
  }
}

class Simulation;

// Something that looks at the system every `every` steps (thermo, dumps).
class Observer {
 public:
  virtual ~Observer() = default;
  virtual int every() const = 0;
  // Collective: called on every rank at steps that are multiples of every(),
  // and at the first and last step of each run when `always` is true.
  virtual void observe(Simulation& sim, bool first_of_run, bool last_of_run) = 0;
};

class Simulation {
 public:
  Simulation(Runtime& runtime, Units units);
  ~Simulation();

  Runtime& runtime() { return runtime_; }
  const Units& units() const { return units_; }
  void set_units(const Units& units);

  // Set-up (collective, in LAMMPS's order: dimension, box, atoms, masses, pair, velocities).
  // dimension 2: atoms move in x and y (fix enforce2d keeps vz and fz zero), z is one periodic
  // slab with no images across it, the degrees of freedom are 2N - 2 and the pressure is over
  // the box's area, as in LAMMPS. Throws ConfigError once the box exists.
  void set_dimension(int dimension);
  int dimension() const { return dimension_; }
  // boundary (before the box; throws ConfigError after it, or for a 2-d box not periodic in z).
  void set_boundary(const Boundary& boundary);
  // LAMMPS's box tilt large|small (before the box exists): whether a triclinic box's skew beyond
  // half its lengths is allowed (its creators then warn) or refused (the default).
  void set_tilt_large(bool large);
  bool tilt_large() const { return tilt_large_; }
  const Boundary& boundary() const { return boundary_; }
  // atom_style (before the box; throws ConfigError after it).
  void set_atom_style(AtomStyle style);
  AtomStyle atom_style() const { return atom_style_; }
  bool charged() const { return has_charges(atom_style_); }
  bool molecular() const { return has_bonds(atom_style_); }

  // Molecular topology (atom_style bond, angle, molecular, full; topology.hpp). The numbers of
  // bond, angle, dihedral and improper types (by TermKind) come with the box (read_data's
  // header), before any style or topology; throws ConfigError for types the atom style lacks.
  void set_topology_types(const std::array<int, term_kinds>& types);
  int topology_types(TermKind kind) const { return term_types_[static_cast<std::size_t>(kind)]; }
  // Every atom's topology by id, after the atoms exist (an atom not in `atoms` has none), the same
  // on every rank: its rows are sized to the most terms of each kind and special neighbors any
  // atom has. Collective. Throws ConfigError for a type out of range.
  void set_topology(const std::map<std::int64_t, AtomTopology>& atoms);
  // Every atom's molecule id on rank 0 by id (other ranks, and before the atoms have topology:
  // empty). Collective.
  std::map<std::int64_t, std::int64_t> gather_molecules();
  // Every atom's topology on rank 0 by id (other ranks: empty). Collective.
  std::map<std::int64_t, AtomTopology> gather_topology(bool every_rank = false);
  // Where each atom's molecule id sits in its per-atom vector values (AtomsView::per_atom), or
  // nothing before read_data gives the atoms topology (their molecule ids are then 0).
  std::optional<std::size_t> molecule_column() const {
    if (topology_handle_ == 0) return std::nullopt;
    return per_atom_offset(topology_handle_);
  }
  // The bond, angle, dihedral and improper styles (bonded.hpp), or nullptr before bond_style
  // (angle_style, ...) sets one.
  Bond* bond() { return changed(), bond_.get(); }
  const Bond* bond() const { return bond_.get(); }
  void set_bond(std::unique_ptr<Bond> bond);
  Angle* angle() { return changed(), angle_.get(); }
  const Angle* angle() const { return angle_.get(); }
  void set_angle(std::unique_ptr<Angle> angle);
  Dihedral* dihedral() { return changed(), dihedral_.get(); }
  const Dihedral* dihedral() const { return dihedral_.get(); }
  void set_dihedral(std::unique_ptr<Dihedral> dihedral);
  Improper* improper() { return changed(), improper_.get(); }
  const Improper* improper() const { return improper_.get(); }
  void set_improper(std::unique_ptr<Improper> improper);
  // Whether any bonded style is set.
  bool has_bonded_style() const { return bond_ || angle_ || dihedral_ || improper_; }
  // Calls f(style, kind) for each kind of bonded term in TermKind order, with its style or
  // nullptr (f takes any of the four style types: a generic lambda).
  template <class F>
  void for_each_bonded_style(F&& f) const {
    f(static_cast<const Bond*>(bond_.get()), TermKind::bond);
    f(static_cast<const Angle*>(angle_.get()), TermKind::angle);
    f(static_cast<const Dihedral*>(dihedral_.get()), TermKind::dihedral);
    f(static_cast<const Improper*>(improper_.get()), TermKind::improper);
  }
  template <class F>
  void for_each_bonded_style(F&& f) {
    changed();
    f(bond_.get(), TermKind::bond);
    f(angle_.get(), TermKind::angle);
    f(dihedral_.get(), TermKind::dihedral);
    f(improper_.get(), TermKind::improper);
  }
  // special_bonds: the pair weights of 1-2, 1-3 and 1-4 neighbors, and the trims of the special
  // lists. Setting them once the atoms have topology builds every atom's special list again (as
  // LAMMPS's special_bonds does; collective).
  const SpecialBonds& special_bonds() const { return special_; }
  void set_special_bonds(const SpecialBonds& special);
  // `expand`: as LAMMPS's set_initial_box, shrink-wrapped faces move out by 1e-4 of the box
  // length and m faces remember where they were set (not for a box from a restart file, whose
  // faces are where the run left them; set_shrink_state restores the rest).
  void create_box(int types, const Box& box, bool expand = true);
  // What shrink-wrapping keeps besides the box (for restart files): the margin per dimension
  // (1e-4 of the first box length) and the m faces' limits.
  struct ShrinkState {
    std::array<double, 3> small{}, min_lo{}, min_hi{};
  };
  const ShrinkState& shrink_state() const { return shrink_; }
  void set_shrink_state(const ShrinkState& state) { shrink_ = state; }
  bool has_box() const { return types_ > 0; }
  // A barostat's new box during a run (collective, host side; before the superstep that moves
  // the atoms): the ghosts' periodic shifts follow it at once, the tiles' sub-boxes at the next
  // rebuild, and rebuilds are decided as LAMMPS's Neighbor::check_distance does for a box that
  // changes (the skin less how far the box's corners moved).
  void change_box(const Box& box);
  // Maps every owned atom into the box (collective), counting crossings in its image flags, as
  // LAMMPS's Domain::remap does after change_box and fix deform's flip: in a triclinic box
  // through fractional coordinates even for an atom inside, and there and back once more with
  // `migrate` (LAMMPS's migration in fractional coordinates), so that positions are LAMMPS's to
  // the last bit. `flips` (fix deform's, of xy, xz and yz: m, n, p) first renumbers the image
  // flags for the flipped edge vectors b' = b + m a, c' = c + p b + n a, so that unwrapped
  // positions stay (Domain::image_flip). Refuses an atom beyond a fixed face.
  void remap_atoms(bool migrate, const std::array<int, 3>& flips = {0, 0, 0});
  // boundary on an existing box (change_box boundary; collective): periodic and fixed faces.
  // Image flags in dimensions no longer periodic are reset to 0, as LAMMPS's Domain::
  // set_boundary does; returns whether any was not 0 (LAMMPS then warns).
  bool change_boundary(const Boundary& boundary);
  int types() const { return types_; }
  const Box& box() const { return box_; }
  // How fast fix deform changes the box (LAMMPS's Domain::h_rate, Voigt order xx yy zz yz xz
  // xy, and h_ratelo, per time unit), and the groups (a mask) whose atoms take a face's velocity
  // when they cross it (fix deform remap v). Zero without fix deform.
  struct BoxRate {
    std::array<double, 6> h_rate{};
    std::array<double, 3> h_ratelo{};
    std::uint32_t vremap_mask = 0;
  };
  const BoxRate& box_rate() const { return box_rate_; }
  void set_box_rate(const BoxRate& rate) { box_rate_ = rate; }
  // Adds atoms (positions inside the box); ids 0 are numbered after the largest id.
  void add_atoms(std::vector<AtomRecord> atoms);
  // Atoms added during a run, by a fix's pre_exchange (fix deposit), as add_atoms adds them;
  // then every fix starts its per-atom state for them alone (LAMMPS's create_attribute), and
  // the rebuild that follows gives them their tiles, ghosts and forces. Collective.
  void insert_atoms(std::vector<AtomRecord> atoms);
  // Throws ConfigError with the figures when `count` more atoms (`what` makes them) cannot fit
  // the host's memory or, on an IPU target and when `count` is exact (not a bound), the tiles'
  // (lower-bound estimates of what they need).
  void require_room_for_atoms(double count, const std::string& what, bool exact) const;
  void set_mass(int type, double mass);
  double mass(int type) const { return mass_[static_cast<std::size_t>(type)]; }
  // The pair style (pair.hpp), or nullptr before pair_style. The writable accessors count as
  // changes (see run()); the const one does not.
  Pair* pair() { return changed(), pair_.get(); }
  const Pair* pair() const { return pair_.get(); }
  void set_pair(std::unique_ptr<Pair> pair) { changed(), pair_ = std::move(pair); }
  // The kspace style (kspace.hpp), or nullptr (kspace_style none).
  const KSpace* kspace() const { return kspace_.get(); }
  KSpace* kspace() { return changed(), kspace_.get(); }
  void set_kspace(std::unique_ptr<KSpace> kspace) { changed(), kspace_ = std::move(kspace); }
  // LAMMPS's dielectric command: Coulomb interactions (pair and kspace styles) divided by it
  // from the next run on (positive; 1 by default).
  void set_dielectric(double dielectric) { changed(), dielectric_ = dielectric; }
  double dielectric() const { return dielectric_; }
  // Where a run's setup says what it worked out (the kspace style's parameters) and styles warn,
  // on every rank; nothing is said without one.
  void set_log(std::function<void(const std::string&)> log) { log_ = std::move(log); }
  void log(const std::string& text) const {
    if (log_) log_(text);
  }
  NeighborSettings& neighbor() { return changed(), neighbor_; }
  const NeighborSettings& neighbor() const { return neighbor_; }
  void set_timestep(double dt) { changed(), dt_ = dt; }
  double timestep() const { return dt_; }
  std::int64_t step() const { return step_; }
  // Steps since the neighbor lists were last built (LAMMPS's neighbor->ago): 0 at a step that
  // built them.
  std::int64_t steps_since_build() const { return since_build_; }
  // Whether a run or a minimization is under way (LAMMPS's update->whichflag > 0).
  bool in_run() const { return running_ || minimizing_; }
  void set_step(std::int64_t step) { changed(), step_ = step; }
  std::int64_t natoms() const { return natoms_; }
  // How many times the neighbor lists were built in this run after its setup (LAMMPS's thermo
  // nbuild, which Verlet::setup resets).
  std::int64_t neighbor_builds() const { return builds_ - builds_at_run_start_; }
  // Of those, the builds that the skin check asked for at the first step it could (LAMMPS's
  // ndanger: some atom may have moved more than half the skin before it); counted only with
  // neigh_modify check yes.
  std::int64_t dangerous_builds() const { return dangerous_ - dangerous_at_run_start_; }
  // This rank's atoms and neighbor pairs, summed over its tiles, as LAMMPS's Finish counts them
  // per process after a run: owned atoms, ghost copies (each tile's own), pairs in the pair
  // style's list (weighted special pairs included) and the owned atoms' special neighbors.
  struct NeighborCounts {
    double nlocal = 0, nghost = 0, pairs = 0, specials = 0;
  };
  NeighborCounts neighbor_counts() const;
  // The largest atom id there has been (new atoms are numbered after it).
  std::int64_t max_id() const { return max_id_; }

  // Fixes (fix.hpp), applied in the order they were added (restart files keep that order). A
  // fix with the ID of an existing one of the same style replaces it; one fix integrates a
  // group. `start_atoms`: let the fix start its per-atom state (false from a restart file,
  // whose atoms carry it). Throws ConfigError.
  void add_fix(std::unique_ptr<Fix> fix, bool start_atoms = true);

  // Groups, as LAMMPS's: up to 32 names, each a bit of every atom's mask (bit 0 is all); an
  // atom is in a group from the moment the group command put it there, wherever it moves.
  struct GroupAtom {
    std::int64_t id;
    std::int32_t type;
    std::array<double, 3> x;
    std::uint32_t mask;
  };
  // The group's bit, or -1 when there is no such group.
  int group_bit(const std::string& name) const;
  const std::vector<std::string>& groups() const { return groups_; }
  // Makes `name` a group if it is not one, and puts in it every atom for which select is true
  // (collective); returns how many atoms the group then has. Throws ConfigError past 32 groups.
  std::int64_t add_to_group(const std::string& name,
                            const std::function<bool(const GroupAtom&)>& select);
  // Takes every atom out of the group (clear) and forgets it (delete; not all).
  void clear_group(const std::string& name);
  void delete_group(const std::string& name);
  // What the set command may change of an owned atom (collective): `change` is called for
  // every atom for which select is true, and returns whether it changed it; returns how many it
  // changed over all ranks. Positions moved out of a tile's sub-box find their tile at the next
  // run's setup.
  // `sources` are per-atom values (atom-style variables) worked out on each tile before
  // `change` runs there: `values` holds this atom's, one per source.
  struct AtomChange {
    std::int64_t id;
    std::int32_t& type;
    std::span<double> x, v;
    std::uint32_t mask;
    std::span<std::int32_t> image;   // 3: periodic images crossed
    std::span<double> q;             // its charge (1), empty unless charged()
    std::span<double> per_atom;      // its per-atom vectors (add_per_atom)
    std::span<const double> values;  // one per source
  };
  // Wraps a position into the box's periodic dimensions, counting crossings in image, as a
  // rebuild does (Domain::wrap); false, both unchanged, when it is not finite or too far.
  bool wrap_position(std::span<double> x, std::span<std::int32_t> image) const;
  std::int64_t change_atoms(const std::function<bool(const GroupAtom&)>& select,
                            const std::function<bool(AtomChange&)>& change,
                            const std::vector<AtomValues>& sources = {});
  // delete_atoms (collective): removes every owned atom for which select is true and returns
  // how many went over all ranks. `compress`: the remaining atoms' ids become 1..N, in the order
  // LAMMPS's compress yes gives them on one processor when the ids were 1..N (each deleted
  // atom's place taken by the last; in id order otherwise).
  std::int64_t delete_atoms(const std::function<bool(const GroupAtom&)>& select, bool compress);
  // The group names by bit, from a restart file (the atoms carry their masks).
  void set_groups(std::vector<std::string> names) { changed(), groups_ = std::move(names); }
  void unfix(const std::string& id);
  // Fixes' global states from a restart file (Fix::global_state), by ID, each with its style:
  // add_fix gives one to the fix of that ID and style, once; read_restart sets them.
  struct FixState {
    std::string style;
    nlohmann::json state;
  };
  void set_fix_states(std::map<std::string, FixState> states) { fix_states_ = std::move(states); }
  // Whether add_fix gave the last fix a state from the restart file.
  bool fix_state_restored() const { return fix_state_restored_; }
  const std::vector<std::unique_ptr<Fix>>& fixes() const { return fixes_; }

  // Computes (compute.hpp), by ID, as LAMMPS's: a new compute may not take the ID of one that
  // exists (uncompute it first), and its group must exist. Throws ConfigError.
  void add_compute(std::unique_ptr<Compute> compute);
  void uncompute(const std::string& id);
  // The compute with this ID, or nullptr.
  Compute* find_compute(const std::string& id);
  // Per-atom vectors that travel with the atoms between tiles (LAMMPS's fix STORE): a
  // minimizer's search direction, a compute's reference positions. add_per_atom adds `width`
  // doubles per atom (zero, and zero for atoms added later) and returns a handle;
  // per_atom_offset gives where they start within each atom's FixTile::per_atom and
  // AtomsView::per_atom values now (removing others moves them); remove_per_atom drops them.
  // Collective. Not kept in restart files.
  int add_per_atom(std::size_t width);
  // Whether any per-atom vectors exist now (replicate refuses them, as LAMMPS's refuses fixes that
  // store per-atom values).
  bool has_per_atom_vectors() const { return per_atom_width_ > 0; }
  void remove_per_atom(int handle);
  std::size_t per_atom_offset(int handle) const;
  // Custom per-atom properties by name, as LAMMPS's Atom::find_custom (fix property/atom's
  // i_NAME, d_NAME, i2_NAME, d2_NAME): per-atom vectors (`handle`) of `columns` values (1 for a
  // vector) from `offset` within it, integers or not. A name may be taken once; add_custom_property
  // throws ConfigError for a name in use.
  struct CustomProperty {
    int handle = 0;
    std::size_t offset = 0;  // its first value within the handle's per-atom vector
    std::size_t columns = 1;
    bool integer = false;
    bool array = false;  // i2_/d2_: referred to as NAME[K]
  };
  void add_custom_property(const std::string& name, const CustomProperty& property);
  void remove_custom_property(const std::string& name);
  const CustomProperty* custom_property(const std::string& name) const;
  // A reference to a custom property's values: i_NAME, d_NAME, i2_NAME[K] or d2_NAME[K] (K
  // from 1), checked against the property; nullopt for a word of none of these forms. Throws
  // ConfigError, `where` first.
  struct CustomReference {
    std::string name;
    std::size_t element = 0;  // K - 1
    bool integer = false;
  };
  std::optional<CustomReference> custom_reference(const std::string& word,
                                                  const std::string& where) const;
  // Where that value sits in the per-atom vectors now (removing others moves it); throws
  // ConfigError, `where` first, when its fix property/atom is gone.
  std::size_t custom_column(const CustomReference& reference, const std::string& where) const;

  // For computes (collective): `count` values, each tile filling `out` (zeroed) from its own
  // atoms, velocities current, reduced element-wise with `op` over every tile in a fixed order.
  std::vector<double> reduce_atoms(
      std::string_view name, ReduceOp op, std::size_t count,
      const std::function<void(const AtomsView&, std::span<double>)>& fill);
  // For computes over pairs (collective): each tile fills `out` (zeroed) from its neighbor lists,
  // summed over every tile in a fixed order. The pair style's lists as the last step built them
  // and moved their atoms (every pair within the force cutoff, force_cutoff), or, with
  // `full_cutoff` (at most force_cutoff), a list of every neighbor within it of each owned atom,
  // built then from where the atoms are (LAMMPS's occasional full list; the pair style's own
  // when it is full). special_bonds and neigh_modify exclude apply as for the forces. Throws
  // ConfigError before a run.
  struct PairsView {
    int nlocal = 0;
    std::span<const double> x;            // 3 per atom, owned then ghosts
    std::span<const std::int32_t> type;   // per atom, owned then ghosts
    std::span<const std::uint32_t> mask;  // per owned atom
    std::span<const int> begin, list;     // neighbors of owned atom i: list[begin[i]..begin[i+1])
    // Weighted special pairs, kept out of `list` (PairTile::special_list; empty without them).
    std::span<const int> special_begin, special_list;
    const SpecialBonds* special = nullptr;
    bool full = false;  // every neighbor of each owned atom; else each pair once over all tiles
    int tile = 0;       // the tile's Tile::id
    std::span<const std::int64_t> id, ghost_id;  // the owned atoms' ids, the ghosts'
    // Calls f(j) for each neighbor j of owned atom i: the list's, then its weighted special
    // pairs, less those whose weights are both 0 when `skip_zero_weights` (as LAMMPS's compute
    // rdf and adf skip them).
    template <class F>
    void for_each_neighbor(std::size_t i, bool skip_zero_weights, F&& f) const {
      for (int k = begin[i]; k < begin[i + 1]; ++k)
        f(static_cast<std::size_t>(list[static_cast<std::size_t>(k)]));
      if (special_list.empty()) return;
      for (int k = special_begin[i]; k < special_begin[i + 1]; ++k) {
        const auto at = 2 * static_cast<std::size_t>(k);
        const auto level = static_cast<std::size_t>(special_list[at + 1]);
        if (skip_zero_weights && special->lj[level] == 0.0 && special->coul[level] == 0.0) continue;
        f(static_cast<std::size_t>(special_list[at]));
      }
    }
  };
  std::vector<double> reduce_pairs(
      std::string_view name, std::size_t count,
      const std::function<void(const PairsView&, std::span<double>)>& fill, double full_cutoff = 0);
  // Whether per-atom energies and virials (AtomsView::eatom, vatom) were tallied at this step:
  // at the steps a run's observers and fixes look at the system, while a compute that needs
  // them (Compute::needs_per_atom_tally) exists, and after such a run until the atoms change.
  bool per_atom_tallied() const { return tally_step_ >= 0 && tally_step_ == step_; }
  // The pair style's largest cutoff as the last run's setup found it (0 before any run).
  double force_cutoff() const { return force_cutoff_; }
  // The same, each tile's `count` values gathered onto every rank: tile t's at [t * count].
  std::vector<double> gather_atoms(
      std::string_view name, std::size_t count,
      const std::function<void(const AtomsView&, std::span<double>)>& fill);

  // Writes per-atom vector column `column` (custom_column, per_atom_offset) of each tile's own
  // atoms from `fill` (one value per atom; collective).
  void store_per_atom(std::string_view name, std::size_t column,
                      const std::function<void(const AtomsView&, std::span<double>)>& fill);

  // For a fix that constrains velocities (Fix::constrains_velocities), from its end_of_step,
  // where the fixes before it have finished the step's velocities (as LAMMPS's FixRattle's
  // final_integrate comes after theirs): the next step's positions are predicted from them, sent
  // to the ghosts, and held (Fix::constrain_positions). Collective.
  void constrain_positions(Fix& fix);
  // The same fix's setup, from its Fix::setup (so that the fixes before it set up from the
  // velocities as they were, as in LAMMPS's FixShake::setup): the atoms moved onto the
  // constraints, the velocities corrected, then the first constraint forces. Collective.
  void setup_constraint(Fix& fix);

  void add_observer(std::shared_ptr<Observer> observer) {
    observers_.push_back(std::move(observer));
  }
  void clear_observers() { observers_.clear(); }

  // How a run starts, as LAMMPS's run keywords say it.
  struct RunOptions {
    // LAMMPS's `pre yes`: set up (neighbor lists rebuilt and their schedule restarted, forces,
    // and with fix langevin the thermostat's forces drawn from each atom's noise stream).
    // false (`pre no`): when nothing changed since the previous run ended, continue it where it
    // stopped, so that run 50 + run 50 pre no is bitwise run 100; after a change, set up anyway.
    bool setup = true;
    // LAMMPS's `start` and `stop`: the steps the ramps of fix nvt and fix langevin go from and
    // to (default: this run's first and last step); they must bracket the run.
    std::optional<std::int64_t> ramp_begin, ramp_end;
  };
  // Whether a fix integrates the atoms; without one a run's steps compute forces and energies
  // of atoms that stay where they are (LAMMPS's Monte Carlo scripts do this).
  bool integrated() const;
  // Runs `steps` steps (collective).
  // A stop signal polled after each step (stop_on_signals) ends the run early, after that step.
  void run(std::int64_t steps, const RunOptions& options);
  void run(std::int64_t steps) { run(steps, RunOptions{}); }
  // One snapshot of a rerun (LAMMPS's Rerun: setup_minimal, then the fixes' end_of_step): the
  // setup of a run at the current step, atoms where they are (lists, ghosts, forces, energies
  // and virials, per-atom tallies, the fixes' setup), then end_of_step of each fix whose
  // interval divides the step. Nothing moves; the caller observes (observe). Collective.
  void evaluate_snapshot();
  // For minimizers (minimize.hpp), collective. begin_minimize sets up as a run does (lists,
  // ghosts, forces, energy), under neighbor every 1 delay 0 check yes and with only the fixes
  // that act in a minimization (Fix::acts_in_minimize) until end_minimize, which restores the
  // neighbor settings. min_energy_force: each tile moves its own atoms (`move` writes x and
  // the per-atom vectors), then the forces and energy there, the lists rebuilt (atoms
  // migrating with their per-atom vectors) when an atom moved more than half the skin since
  // they were built; returns the potential energy (energy units) and whether they were.
  void begin_minimize();
  void end_minimize();
  struct MinEnergy {
    double energy;
    bool rebuilt;
  };
  MinEnergy min_energy_force(const std::function<void(FixTile&)>& move);
  // A superstep over each tile's own atoms (collective).
  void for_each_tile(std::string_view name, const std::function<void(FixTile&)>& fn);
  // The observers at this step, as a run calls them (collective): each whose interval divides
  // the step, or all when `first` (a run's first line) or `last`.
  void observe(bool first, bool last);

  // Makes the next run set up anew, as a run from a restart file of this state does.
  void require_setup() { changed(); }

  // Global sums for thermo output (collective). A non-finite sum stops the run with an Error
  // naming the step and the first bad atom: this, on thermo steps, is where energies are checked.
  Thermo thermo();
  // Temperature and degrees of freedom as LAMMPS's compute temp of group all: dof = dN - d in
  // d dimensions, less what the fixes remove (fix shake's constraints, fix rigid's bodies) as
  // the last run's setup counted them.
  double temperature(double ke) const;
  double dof() const { return dimension_ * static_cast<double>(natoms_) - dimension_ - fix_dof_; }
  // The box's volume, its area in 2-d (the measure pressures are over).
  double volume() const {
    return dimension_ == 2 ? box_.length(0) * box_.length(1) : box_.volume();
  }
  double pressure(const Thermo& t) const;
  // For fixes (collective): the temperature of the velocities now, and that of the kinetic
  // energy each tile summed at this step's second half-kick.
  double temperature_now();
  double step_temperature();
  // How far the current step is through the run's ramp (LAMMPS's delta, 0..1).
  double ramp_fraction() const;
  // The ramp's span (LAMMPS's beginstep and endstep: the run's start and stop values, or its
  // own first and last steps) and the run's first step (LAMMPS's firststep).
  std::int64_t ramp_begin() const { return run_begin_; }
  std::int64_t ramp_end() const { return run_end_; }
  std::int64_t run_first() const { return run_first_; }
  // Scales every velocity by `factor`, lazily: the next superstep that reads the velocities
  // applies it (thermo and gather_atoms count it in before).
  void scale_velocities(double factor) { pending_scale_ *= factor; }
  // Changes the velocities of each tile's own atoms now (collective; a fix's end_of_step, as fix
  // momentum's): `change` runs on each tile, then the step's kinetic sums are taken again.
  void adjust_velocities(std::string_view name, const std::function<void(FixTile&)>& change);
  // Scales the velocities of the atoms in the groups of `mask` by `factor` now, less their
  // temperature's bias (v = (v - b) factor + b, as LAMMPS's thermostats' remove_bias and
  // restore_bias), the step's kinetic sums with them (collective; fix temp/rescale).
  void scale_thermal_velocities(std::uint32_t mask, double factor, const VelocityBias& bias = {});

  // Every atom, on rank 0, sorted by id (other ranks: empty). Collective. `wrapped`: positions
  // put inside the box with their image flags counted on (write_data and restart files, as
  // LAMMPS's pbc() before them); as stored: as the last rebuild left them, an atom that has
  // crossed a face since still outside (dumps, as LAMMPS's).
  enum class Positions { wrapped, as_stored };
  std::vector<AtomRecord> gather_atoms(Positions positions = Positions::wrapped);
  // Replaces all atoms (restart, read_data into an existing box). Collective.
  void set_atoms(std::vector<AtomRecord> atoms);

  // Wall-clock seconds of the last run() and its step count.
  double last_run_seconds() const { return last_run_seconds_; }
  // Seconds this rank's tiles have spent in force supersteps so far (summed over its tiles,
  // so over its threads): md.force in all, in neighbor-list rebuilds and in bonded terms;
  // md.pair_forward (a style's values sent to ghosts first) in all and in rebuilds. The timing
  // breakdown splits these supersteps' wall time in these proportions.
  struct ForcePhaseSeconds {
    double total = 0, neighbor = 0, bonded = 0;
    double forward_total = 0, forward_neighbor = 0;
    ForcePhaseSeconds& operator+=(const ForcePhaseSeconds& o) {
      total += o.total;
      neighbor += o.neighbor;
      bonded += o.bonded;
      forward_total += o.forward_total;
      forward_neighbor += o.forward_neighbor;
      return *this;
    }
    ForcePhaseSeconds operator-(const ForcePhaseSeconds& o) const {
      return {total - o.total, neighbor - o.neighbor, bonded - o.bonded,
              forward_total - o.forward_total, forward_neighbor - o.forward_neighbor};
    }
  };
  ForcePhaseSeconds force_phase_seconds() const;
  std::int64_t last_run_steps() const { return last_run_steps_; }
  // The signal that stopped the last run early (tessera/core/stop_signal.hpp), or 0; the
  // stopping step was the run's last (observers saw it as such).
  int stopped_by() const { return stopped_by_; }

 private:
  struct NeighborList;
  struct TileAtoms;
  TileAtoms& state(const Tile& t);
  void require_box(const char* command) const;
  // Something that a run's setup depends on changed: the next run sets up anew.
  void changed() { continuable_ = false; }
  void setup_run();
  void rebuild(bool canonical_order);
  // Shrink-wrapping (LAMMPS's Domain::reset_box): the shrinking faces to the atoms' extent, the
  // decomposition to the new box (collective; at every rebuild).
  void shrink_wrap();
  void keep_atoms(Tile& t, const std::vector<bool>& leaves);
  void relayout_per_atom(std::size_t old_width, std::size_t at, std::size_t removed,
                         std::size_t added);
  std::array<bool, 3> periodicity() const;
  void forward_ghosts();
  // rebuild_coordinates: the segments' shifts in rebuild coordinates (domain.hpp), at a rebuild.
  void pack_ghost_positions(Tile& t, bool rebuild_coordinates = false);
  // Lists every pair within `cutoff` on tile t into `out` (a half list, or with `full` every
  // neighbor of each owned atom), special_bonds and neigh_modify exclude applied.
  void build_neighbor_list(Tile& t, bool full, double cutoff, NeighborList& out);
  void integrate_first(bool pack);
  void force_and_integrate_second(bool build_lists, bool integrate, bool energy_virial, bool defer);
  void finish_step(Tile& t, std::int64_t step, bool integrate, bool extra, bool kinetic);
  void fold_forces(Tile& t, std::int64_t step, bool extra);
  void post_force_range(Tile& t, std::int64_t step, std::size_t first, std::size_t last);
  void finish_integrate(Tile& t, std::int64_t step, bool integrate, bool kinetic,
                        std::size_t first_final = 0);
  bool post_force_needs_sums() const;
  bool constrained() const;
  // For the constraint fix k: every tile folds its forces (unless `folded`), runs the post_force
  // of fixes [first, k) and sends fix k's predicted positions to the ghosts; at a run's setup the
  // atoms are first moved onto the constraints.
  void predict_for_constraint(std::size_t k, std::size_t first, bool folded, bool extra);
  // A constraint fix's predictions (positions, each ghost's shifted to its image, or velocities)
  // for the tile's own atoms, packed for their ghost copies (plan_predicted_).
  void send_constraint_predictions(Tile& t, Fix& fix, bool velocities, bool correcting);
  void correct_constrained(Fix& fix, const std::function<void(Tile&)>& begin);
  // The tile's kinetic sums (ke, ke_tensor) from its velocities.
  void sum_kinetic(Tile& t);
  FixTile fix_view(Tile& t, std::int64_t step);
  AtomsView atoms_view(Tile& t);
  double ramp_at(std::int64_t step) const;
  void apply_pending_scale();
  // Throws Error (collective): `what` is not finite at this step, naming the atom of lowest
  // id with a non-finite position, velocity, force or kinetic energy.
  [[noreturn]] void report_non_finite(const std::string& what);
  // Whether a fix wants the lists rebuilt at this step (LAMMPS's force_reneighbor), whatever
  // neighbor every, delay and check say.
  bool rebuild_forced() const;
  bool decide_rebuild();

  Runtime& runtime_;
  Units units_;
  int dimension_ = 3;
  AtomStyle atom_style_ = AtomStyle::atomic;
  int types_ = 0;
  Box box_;
  Box box_at_build_;          // the box at the last rebuild (for the rebuild decision)
  bool box_changed_ = false;  // change_box since the last rebuild
  BoxRate box_rate_;
  Boundary boundary_;
  ShrinkState shrink_;
  double ghost_cutoff_ = 0, force_cutoff_ = 0;
  // The pair style's tail correction (etail, ptail) from the last setup, when it has one on.
  std::optional<std::array<double, 2>> tail_;
  std::vector<double> mass_;
  std::vector<bool> mass_set_;
  std::unique_ptr<Pair> pair_;
  std::unique_ptr<KSpace> kspace_;
  // Molecular topology: type counts, the styles, the weights, and the per-atom rows' layout and
  // per-atom vector (0: none).
  std::array<int, term_kinds> term_types_{};
  std::unique_ptr<Bond> bond_;
  std::unique_ptr<Angle> angle_;
  std::unique_ptr<Dihedral> dihedral_;
  std::unique_ptr<Improper> improper_;
  SpecialBonds special_;
  TopologyLayout topology_;
  int topology_handle_ = 0;
  // The terms each owned atom keeps as tile atom indices, at each rebuild (LAMMPS's
  // Neighbor::bond_all, angle_all, dihedral_all, improper_all); throws Error naming a term's
  // atoms when one is missing.
  void resolve_topology(Tile& t);
  // The bonded styles' forces (and energies and virials) on the tile, onto the pair style's
  // outputs.
  void compute_bonded(Tile& t, const PairTile& pt);
  // At a run's setup: the bonded styles' checks, and how special pairs are listed.
  void init_topology();
  // What the neighbor lists do with a pair of special neighbors by level (1-3): leave it out,
  // keep it as any pair, or list it with its weights.
  enum class SpecialPair : char { dropped, ordinary, weighted };
  std::array<SpecialPair, 4> special_pair_{};
  // The kspace style's energy and virial at the last step that asked for them.
  double kspace_energy_ = 0;
  std::array<double, 6> kspace_virial_{};
  std::function<void(const std::string&)> log_;
  void init_kspace();
  void compute_kspace(bool energy_virial);
  NeighborSettings neighbor_;
  double dt_;
  double dielectric_ = 1.0;
  std::int64_t step_ = 0;
  std::int64_t natoms_ = 0;
  std::int64_t max_id_ = 0;
  bool tilt_large_ = false;
  std::int64_t builds_ = 0, builds_at_run_start_ = 0;
  std::int64_t dangerous_ = 0, dangerous_at_run_start_ = 0;

  std::vector<std::unique_ptr<Fix>> fixes_;
  std::map<std::string, FixState> fix_states_;
  bool fix_state_restored_ = false;
  std::vector<std::unique_ptr<Compute>> computes_;
  std::vector<std::string> groups_{"all"};
  std::size_t per_atom_width_ = 0;
  std::vector<std::pair<int, std::size_t>> per_atom_;  // (handle, width), in layout order
  std::map<std::string, CustomProperty> custom_properties_;
  int next_per_atom_handle_ = 1;
  bool minimizing_ = false, running_ = false;
  double fix_dof_ = 0;  // degrees of freedom the fixes remove from group all (dof())
  NeighborSettings saved_neighbor_;
  double pending_scale_ = 1.0;  // scale_velocities not yet applied

  Domain domain_;
  Variable<double> x_, send_x_;
  Variable<std::int32_t> type_, send_type_;
  Variable<double> q_, send_q_;  // charges, owned then ghosts (empty unless charged())
  Variable<std::int64_t> ghost_tag_, send_tag_;     // ids of ghosts, for the pair rule
  Variable<std::uint32_t> ghost_mask_, send_mask_;  // their groups (neigh_modify exclude group)
  Variable<double> ghost_f_, send_f_;               // forces on ghosts, and as returned to owners
  std::vector<std::unique_ptr<TileAtoms>> tiles_;
  // What the pair style returns from ghosts besides forces (Pair::extra_per_ghost).
  Variable<double> ghost_extra_, send_extra_;
  std::optional<ExchangePlan> plan_x_, plan_type_, plan_q_, plan_tag_, plan_mask_, plan_reverse_,
      plan_reverse_extra_;
  // What the pair style sends from owned atoms to their ghosts before the forces
  // (Pair::forward_per_atom: EAM's F'(rho)), as sent and as the ghosts receive it.
  Variable<double> send_forward_, ghost_forward_;
  std::optional<ExchangePlan> plan_forward_;
  // A constraint fix's predicted positions (Fix::predict_positions), as sent and as the ghosts
  // receive them (3 per atom, only while such a fix exists); setting_up_ during a run's setup.
  Variable<double> send_predicted_, ghost_predicted_;
  std::optional<ExchangePlan> plan_predicted_;
  bool setting_up_ = false;
  // Per-atom energies and virials (PairTile::per_atom): wanted by a compute since the last
  // setup, tallied at this force evaluation, the step they were last tallied at (-1: none
  // valid), and the ghosts' tallies returned to their owners (7 per ghost).
  bool tally_wanted_ = false, tally_now_ = false;
  std::int64_t tally_step_ = -1;
  Variable<double> ghost_tally_, send_tally_;
  std::optional<ExchangePlan> plan_reverse_tally_;
  std::int64_t since_build_ = 0;
  // A step whose end (returned forces, post_force, second half-kick) runs at the start of the
  // next.
  struct Deferred {
    bool pending = false;
    std::int64_t step = 0;
  };
  Deferred deferred_;
  std::int64_t run_begin_ = 0, run_end_ = 0, run_first_ = 0;
  // True from the end of a run until anything changes the system: the next run then continues
  // the previous one without a setup of its own.
  bool continuable_ = false;

  std::vector<std::shared_ptr<Observer>> observers_;
  double last_run_seconds_ = 0;
  std::int64_t last_run_steps_ = 0;
  int stopped_by_ = 0;
};

}  // namespace tessera::md
