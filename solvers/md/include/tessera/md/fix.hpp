// Fix: an operation on the atoms at set points of each step, as LAMMPS's Fix, one of an open
// family made by name (fix_styles(): `fix 1 all nve` makes the style registered as "nve").
//
// The points of a step, in LAMMPS's order (its FixNVE::setmask names them), each called for
// every fix in the order the fixes were defined:
//   init              at a run's setup, before the atoms are wrapped into the box and the lists
//                     built (collective, host side; LAMMPS's init: fix rigid's bodies);
//   pre_force         before each force computation, a run's setup's and a minimizer's too
//                     (collective, host side: where a fix evaluates its variables);
//   setup             after a run's setup computed the forces (collective, host side);
//   pre_integrate     before the step's first superstep (collective, host side);
//   initial_integrate on each tile inside that superstep (first half-kick and drift);
//   post_integrate    on each tile after every fix's initial_integrate (walls);
//   pre_exchange      at a step whose neighbor lists are rebuilt, before atoms move to their
//                     new tiles (collective, host side: where fix deposit adds atoms);
//   post_force        on each tile once the forces are complete (also in a run's setup);
//   final_integrate   on each tile after post_force (the second half-kick);
//   end_of_integrate  after every fix's final_integrate, before any end_of_step (collective,
//                     host side: the reductions of LAMMPS's final_integrate, as fix nvt's
//                     temperature compute read and its scaling done in LAMMPS's order);
//   end_of_step       after the step, when the kinetic energy is known (collective, host side).
// The per-tile hooks run concurrently on different tiles: they may write only to their FixTile
// and to state they keep per tile. A fix's state goes into restart files through its own
// section (restart_section, restore).
//
// Units are the simulation's (units.hpp): v in velocity units, f in force units; a kick is
// v += dt/2 * ftm2v * f / m.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/registry.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/md/compute.hpp"
#include "tessera/md/topology.hpp"
#include "tessera/md/units.hpp"

namespace tessera::md {

class Simulation;
class Region;
namespace detail {
class RestartHeader;
}

// One tile's own atoms at one step, as the per-tile hooks see them.
struct FixTile {
  FixTile(Tile& tile, std::int64_t step) : tile(tile), step(step) {}
  Tile& tile;
  std::int64_t step;
  double ramp = 0;  // how far the step is through the run's ramp (start/stop), 0..1
  double dt = 0;    // the timestep, time units
  const Units* units = nullptr;
  int nlocal = 0;
  std::span<double> x, v, f;            // 3 per atom
  std::span<const std::int32_t> type;   // per atom, 1-based
  std::span<const std::int64_t> id;     // per atom
  std::span<std::uint32_t> noise;       // per-atom random state (travels with the atom)
  std::span<const std::uint32_t> mask;  // per atom: its groups, a bit each (Simulation::group)
  std::span<const double> mass;         // by type, 1-based
  std::span<const std::int32_t> image;  // 3 per atom: periodic images crossed
  std::span<double> per_atom;           // per_atom_width per atom (Simulation::add_per_atom)
  std::size_t per_atom_width = 0;
  // For a fix that constrains the atoms (Fix::constrains): the tile's ghost atoms (copies of
  // other tiles' atoms near its own, and periodic images), their ids, types and positions, and,
  // in post_force, their predicted positions (Fix::predict_positions) shifted to each copy's
  // image, and the own atoms' (a fix that constrains velocities: predict_velocities's there,
  // unshifted); `builds` counts the rebuilds of the ghosts so far (the ghosts change
  // only then); `setup` is set during a run's setup (LAMMPS's Fix::setup, where velocities are
  // whole-step).
  int nghost = 0;
  std::span<const double> ghost_x, ghost_predicted;  // 3 per ghost
  std::span<const double> predicted;                 // 3 per own atom
  std::span<const std::int64_t> ghost_id;
  std::span<const std::int32_t> ghost_type;
  std::uint64_t builds = 0;
  bool setup = false;
};

class Fix {
 public:
  explicit Fix(std::string id, std::string group = "all")
      : id_(std::move(id)), group_(std::move(group)) {}
  virtual ~Fix() = default;

  const std::string& id() const { return id_; }
  // The group the fix acts on; Simulation::add_fix sets its bit.
  const std::string& group() const { return group_; }
  void set_group_bit(int bit) { groupbit_ = 1u << bit; }
  bool in_group(const FixTile& t, std::size_t i) const { return (t.mask[i] & groupbit_) != 0; }
  std::uint32_t group_mask() const { return groupbit_; }
  // The name the style is registered under.
  virtual std::string style() const = 0;
  // Whether the fix moves the atoms (nve, nvt): exactly one such fix may act on them.
  virtual bool integrates() const { return false; }
  // Whether end_of_step reads the step's velocities (at its steps: a kinetic energy, a swap, a
  // power), so that the second half-kick cannot wait for the next step's first superstep.
  virtual bool needs_step_velocities() const { return false; }
  // Sums over the tiles that post_force needs (fix aveforce's total force on its group): how
  // many; each tile's part, from its forces as the fixes before this one left them; and, on
  // every rank, the totals, before post_force runs.
  virtual std::size_t post_force_sums() const { return 0; }
  virtual void sum_post_force(const FixTile& /*t*/, std::span<double> /*out*/) const {}
  virtual void set_post_force_sums(std::span<const double> /*sums*/) {}
  // The same for initial_integrate (fix recenter's centre of mass of the positions the fixes
  // before it just moved): each tile's part after the earlier fixes' initial_integrate on it,
  // and the totals on every rank before this fix's initial_integrate runs.
  virtual std::size_t initial_integrate_sums() const { return 0; }
  virtual void sum_initial_integrate(const FixTile& /*t*/, std::span<double> /*out*/) const {}
  virtual void set_initial_integrate_sums(std::span<const double> /*sums*/) {}
  // The same for final_integrate (fix rigid's forces and torques on its bodies): each tile's
  // part after every fix's post_force and the earlier fixes' final_integrate, the totals on
  // every rank before this fix's final_integrate runs.
  virtual std::size_t final_integrate_sums() const { return 0; }
  virtual void sum_final_integrate(const FixTile& /*t*/, std::span<double> /*out*/) const {}
  virtual void set_final_integrate_sums(std::span<const double> /*sums*/) {}
  // A fix that constrains the atoms' motion (fix shake): its post_force needs the positions the
  // atoms would reach at the next step, its ghosts' included. predict_positions gives them for
  // the tile's own atoms (3 per atom, from the forces as the fixes before it left them), and
  // the run sends them to the ghost copies (FixTile::ghost_predicted) before post_force. At a
  // run's setup, before that, the atoms are first moved onto the constraints: the predictions
  // with `correcting` set (velocities and forces taken as zero) are sent, correct_positions
  // moves each tile's own atoms, and the ghosts' positions are sent again (LAMMPS's
  // FixShake::correct_coordinates). Such a fix refuses minimizations (Simulation does).
  virtual bool constrains() const { return false; }
  virtual void predict_positions(const FixTile& /*t*/, bool /*correcting*/,
                                 std::span<double> /*out*/) const {}
  virtual void correct_positions(FixTile& /*t*/) {}
  // A constraint fix that also holds the velocities (fix rattle, LAMMPS's RATTLE): its post_force
  // corrects the velocities from each atom's velocity half a kick on (predict_velocities: 3 per
  // own atom, sent unshifted to the ghost copies in place of the positions), and its forces on
  // the positions come once the fixes before it have finished the step's velocities: its
  // end_of_step calls Simulation::constrain_positions, which sends predict_positions from them
  // and calls constrain_positions. At a run's setup its setup calls
  // Simulation::setup_constraint: the positions corrected, then the velocities
  // (predict_velocities with `correcting`: the velocities as they are; correct_velocities), then
  // the positions held; its post_force does nothing then.
  virtual bool constrains_velocities() const { return false; }
  virtual void predict_velocities(const FixTile& /*t*/, bool /*correcting*/,
                                  std::span<double> /*out*/) const {}
  virtual void correct_velocities(FixTile& /*t*/) {}
  virtual void constrain_positions(FixTile& /*t*/) {}
  // Whether a bonded term is taken over by the fix (fix shake's constrained bonds and angles,
  // which the bond and angle styles then leave out, as LAMMPS's negated types do): term `kind`
  // of atoms `ids` (the data file's order) kept by an atom whose per-atom values
  // (FixTile::per_atom) are `per_atom`.
  virtual bool replaces_term(TermKind /*kind*/, std::span<const std::int64_t> /*ids*/,
                             std::span<const double> /*per_atom*/) const {
    return false;
  }
  // Whether its post_force (and setup) also acts during a minimization, as LAMMPS's
  // min_post_force (setforce, addforce, enforce2d); the other hooks never do.
  virtual bool acts_in_minimize() const { return false; }
  // Whether the fix may change the box or its partition (LAMMPS's box_change): thermo_style one
  // then prints the volume too, as LAMMPS's does.
  virtual bool changes_box() const { return false; }

  // fix_modify ID KEYWORD VALUE...: the words from `at`; returns how many it took (at least
  // one). The default takes `energy yes|no` from a fix that has an energy and refuses the rest;
  // throws ConfigError.
  virtual std::size_t modify(Simulation& sim, const std::vector<std::string>& words,
                             std::size_t at);
  // An energy the fix's post_force tallies on each tile (fix indent's, the walls'): with
  // fix_modify energy yes (LAMMPS's thermo_energy) it counts in the potential energy, in
  // thermo's pe, compute pe and what a minimizer minimizes. tile_energy is read by the
  // reduction of thermo sums, after the post_force of the same forces.
  virtual bool has_energy() const { return false; }
  virtual double tile_energy(const Tile& /*tile*/) const { return 0.0; }
  bool energy_in_pe() const { return energy_in_pe_; }
  // A virial the fix's constraint forces add (fix rigid's, LAMMPS's virial_global_flag): each
  // tile's part (xx yy zz xy xz yz, energy units) at a step whose second half-kick is done, read
  // by thermo's reduction. With fix_modify virial yes (the default for such a fix, as LAMMPS's
  // thermo_virial) it counts in the pressure.
  virtual bool has_virial() const { return false; }
  virtual std::array<double, 6> tile_virial(const Tile& /*tile*/) const { return {}; }
  bool virial_in_pressure() const { return has_virial() && virial_in_pressure_; }
  // The degrees of freedom the fix takes from the atoms of a temperature's group (LAMMPS's
  // Fix::dof; collective, at a run's setup after init).
  virtual double dof_removed(Simulation& /*sim*/, std::uint32_t /*group_mask*/) { return 0; }
  // Whether the neighbor lists must be rebuilt at this step, whatever neighbor every, delay and
  // check say (LAMMPS's force_reneighbor and next_reneighbor: fix balance's steps).
  virtual bool rebuilds_at(std::int64_t /*step*/) const { return false; }
  // How often end_of_step runs (LAMMPS's nevery): at steps that are multiples of it.
  virtual int end_of_step_every() const { return 1; }

  // Global outputs, as LAMMPS's fixes have them (f_ID, f_ID[N] in thermo and variables; see
  // compute.hpp for the meaning); collective. Fixes have none unless they say so.
  virtual bool has_scalar() const { return false; }
  virtual std::size_t vector_size() const { return 0; }
  // Whether the vector grows as the run goes (fix vector's), so that it may be empty for now.
  virtual bool vector_grows() const { return false; }
  virtual bool extensive_scalar() const { return false; }
  virtual bool extensive_vector(std::size_t /*k*/) const { return false; }
  // The steps whose global outputs are current: multiples of this (LAMMPS's global_freq);
  // thermo and fix ave/time refuse to read them at other steps, as LAMMPS does.
  virtual int global_frequency() const { return 1; }
  virtual double scalar(Simulation& /*sim*/) { return 0; }
  // A thermostat whose scalar is the cumulative energy it exchanged with its reservoir (LAMMPS's
  // ecouple_flag): thermo's ecouple sums them, econserve adds them to etotal.
  virtual bool couples_energy() const { return false; }
  virtual std::vector<double> vector(Simulation& /*sim*/) { return {}; }
  // A global array (f_ID[I][J]), intensive: its columns, and element (row, column) from 0 (0
  // beyond its rows, whose number may change, as LAMMPS's fix ave/chunk's).
  virtual std::size_t array_columns() const { return 0; }
  virtual std::size_t array_rows() const { return 0; }
  virtual double array(Simulation& /*sim*/, std::size_t /*row*/, std::size_t /*column*/) {
    return 0;
  }
  // Whether end_of_step reads energies or virials (through computes) at its steps, so that the
  // step computes them as it does for thermo.
  virtual bool needs_energy() const { return false; }

  // When the fix is added by the fix command (not from a restart file), on each tile, and for
  // atoms added during a run (a view of those alone): per-atom state it starts (fix langevin's
  // noise streams).
  virtual void start_atoms(FixTile& /*t*/) {}
  virtual void init(Simulation& /*sim*/) {}
  virtual void pre_force(Simulation& /*sim*/) {}
  virtual void setup(Simulation& /*sim*/) {}
  // A run that continues the previous one without a setup (run ... pre no).
  virtual void continue_run(Simulation& /*sim*/) {}
  virtual void pre_integrate(Simulation& /*sim*/) {}
  virtual void initial_integrate(FixTile& /*t*/) {}
  virtual void post_integrate(FixTile& /*t*/) {}
  virtual void pre_exchange(Simulation& /*sim*/) {}
  virtual void post_force(FixTile& /*t*/) {}
  virtual void final_integrate(FixTile& /*t*/) {}
  virtual void end_of_integrate(Simulation& /*sim*/) {}
  virtual void end_of_step(Simulation& /*sim*/) {}

  // Before unfix (or a fix of its ID replacing it) destroys it (collective): what it holds in
  // the simulation (per-atom vectors, custom properties) goes back.
  virtual void release(Simulation& /*sim*/) {}

  // Whether restart files keep it (LAMMPS leaves out the fixes that have no restart state,
  // such as fix ave/time: a script defines them again).
  virtual bool restartable() const { return true; }
  // Why a restart file cannot keep what it holds (empty when it can or it has nothing to
  // keep): write_restart then stops with this reason rather than drop it.
  virtual std::string restart_refusal() const { return {}; }
  // Its section of a restart file (an object; the style and ID are added by the caller), and
  // one read back, each field checked as the fix command checks it (FormatError naming it).
  virtual nlohmann::json restart_section() const { return nlohmann::json::object(); }
  virtual void restore(const nlohmann::json& /*section*/, const detail::RestartHeader& /*header*/,
                       const std::string& /*where*/) {}
  // For a fix a restart file cannot keep whole (restartable() false) but whose state a run
  // continues from (fix deposit's random stream and schedule): that state, null when none. As
  // LAMMPS's restart_global, it is given back to the fix of the same ID and style that the
  // script defines after read_restart (restore_state, throwing ConfigError naming `where`).
  virtual nlohmann::json global_state() const { return nullptr; }
  virtual void restore_state(const nlohmann::json& /*state*/, const std::string& /*where*/) {}

 private:
  std::string id_, group_;
  std::uint32_t groupbit_ = 1;
  bool energy_in_pe_ = false;
  bool virial_in_pressure_ = true;
};

// What the fix command gives a style: its ID and group, the words after the style name, and the
// units;
// from a restart file, no words (restore fills the fix in).
struct FixArguments {
  std::string id;
  std::string group = "all";
  std::vector<std::string> args;
  Units units;
  bool from_restart = false;
  // The simulation the fix is for (its box, its computes; nullptr from a restart file) and the
  // lattice's spacing per axis (LAMMPS's xlattice ylattice zlattice, for lattice units).
  Simulation* sim = nullptr;
  std::array<double, 3> lattice{1.0, 1.0, 1.0};
  // The input's equal-style variables by name (fix ave/time's v_NAME) and its atom-style ones;
  // empty from a restart.
  std::function<double(const std::string& name)> variable;
  AtomVariables atom_variables{};
  // The input's regions by ID (throws ConfigError for an unknown one); empty from a restart.
  std::function<std::shared_ptr<const Region>(const std::string& id)> region{};
  // The input's substitution of $x, ${x} and $(formula) in a text, evaluated when called
  // (collective), and its console (screen and log, rank 0); empty from a restart.
  std::function<std::string(const std::string& text)> substitute{};
  std::function<void(const std::string& text)> print{};
  // Sets the input's internal-style variable NAME to a value (fix controller's control
  // variable); throws ConfigError unless NAME is one. Empty from a restart.
  std::function<void(const std::string& name, double value)> set_internal{};
};

// The fix styles md_ipu has, by name.
const Registry<Fix, const FixArguments&>& fix_styles();

}  // namespace tessera::md
