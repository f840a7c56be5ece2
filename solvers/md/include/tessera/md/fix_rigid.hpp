// fix ID GROUP rigid BODYSTYLE ... [KEYWORD VALUES ...] and fix ID GROUP rigid/nve ...: LAMMPS's
// FixRigid and FixRigidNVE (RIGID package). The group's atoms form rigid bodies that move as
// one: each body's centre of mass, its velocity and its angular momentum follow the summed forces
// and torques on its atoms, and its atoms are put back each step at their fixed places in the
// body's frame (positions and velocities; no force between atoms of one body matters, so
// `neigh_modify exclude group` usually leaves those pairs out).
//
// BODYSTYLE, as LAMMPS's: `single` (the whole group one body), `group N G1 ... GN` (each group a
// body; an atom in two is refused), `custom i_NAME` (an integer fix property/atom) or `custom
// v_NAME` (an atom-style variable): atoms with the same value form one body, bodies ordered by
// value. `molecule` needs molecule IDs, which md_ipu's atom style atomic lacks, and is refused.
// Keywords: `force M xflag yflag zflag` and `torque M ...` (on|off per component for bodies M, a
// range as LAMMPS's I*J), `langevin Tstart Tstop Tdamp seed` (a Langevin thermostat on the
// bodies' six degrees of freedom, from one Marsaglia stream as LAMMPS's on one processor, so the
// draws are LAMMPS's whatever the tiles and ranks), `reinit yes|no`; fix_modify ID bodyforces
// early|late and virial yes|no.
//
// Integrators: `rigid` advances the orientation by LAMMPS's Richardson iteration on the
// quaternion; `rigid/nve` by the symplectic NO_SQUISH splitting of Miller et al., J. Chem.
// Phys. 116, 8649 (2002), as LAMMPS's FixRigidNH (Kamberaj et al., J. Chem. Phys. 122, 224114
// (2005)) with neither thermostat nor barostat.
//
// As LAMMPS's: the bodies are set up anew from the atoms at each run's setup (reinit yes); each
// body removes its 3N - 6 degrees of freedom (3N - 5 for a linear one, 2N - 3 in 2-d) from every
// temperature whose group holds all of it; the constraint forces' virial enters the pressure;
// the scalar f_ID is the bodies' temperature and the array f_ID[I][J] (I a body, from 1) holds
// xcm (J 1-3), vcm (4-6), fcm (7-9), torque (10-12) and image flags (13-15). Units are the
// simulation's.
//
// Not here (refused with a message): rigid/nvt, rigid/npt, rigid/nph and the /small variants,
// finite-size particles, `infile`, `gravity`, a box that a fix changes during the run, and
// per-atom virials for compute stress/atom. Restart files do not keep it (nor do LAMMPS's): a
// script defines it again.
//
// Thread-safety: the bodies' state is the same on every rank and changes only on the host
// side; per-tile hooks read it and write their own atoms and their own tally rows.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/md/fix.hpp"
#include "tessera/md/random_mars.hpp"
#include "tessera/md/tile_tally.hpp"

namespace tessera::md {

class FixRigid final : public Fix {
 public:
  // `style` is "rigid" or "rigid/nve".
  FixRigid(const FixArguments& a, const std::string& style);
  std::string style() const override { return style_; }
  bool integrates() const override { return true; }
  std::size_t modify(Simulation& sim, const std::vector<std::string>& words,
                     std::size_t at) override;

  void init(Simulation& sim) override;
  void setup(Simulation& sim) override;
  void pre_integrate(Simulation& sim) override;
  void initial_integrate(FixTile& t) override;
  void pre_exchange(Simulation& sim) override;
  // The bodies' forces and torques: after every fix's post_force (bodyforces late, the
  // default) or after this fix's own (early).
  std::size_t post_force_sums() const override { return early_ ? sums_per_body() : 0; }
  void sum_post_force(const FixTile& t, std::span<double> out) const override;
  void set_post_force_sums(std::span<const double> sums) override;
  std::size_t final_integrate_sums() const override { return early_ ? 0 : sums_per_body(); }
  void sum_final_integrate(const FixTile& t, std::span<double> out) const override;
  void set_final_integrate_sums(std::span<const double> sums) override;
  void final_integrate(FixTile& t) override;

  double dof_removed(Simulation& sim, std::uint32_t group_mask) override;
  bool has_virial() const override { return true; }
  std::array<double, 6> tile_virial(const Tile& tile) const override;

  bool has_scalar() const override { return true; }
  double scalar(Simulation& sim) override;
  std::size_t array_columns() const override { return 15; }
  std::size_t array_rows() const override { return bodies_.size(); }
  double array(Simulation& sim, std::size_t row, std::size_t column) override;

  void release(Simulation& sim) override;
  bool restartable() const override { return false; }

 private:
  struct Body {
    int atoms = 0;
    double mass = 0;
    std::array<double, 3> xcm{}, vcm{}, fcm{}, torque{}, angmom{}, omega{};
    std::array<double, 3> inertia{};         // principal moments
    std::array<double, 3> ex{}, ey{}, ez{};  // principal axes in the space frame
    std::array<double, 4> quat{};            // orientation
    std::array<double, 4> conjqm{};          // conjugate quaternion momentum (rigid/nve)
    std::array<int, 3> image{};              // periods the centre of mass crossed
    std::array<double, 3> force_on{1, 1, 1}, torque_on{1, 1, 1};  // force/torque keywords
    std::array<double, 6> langevin{};  // thermostat force and torque of this step
  };
  // Per atom (Simulation::add_per_atom): its body + 1 (0: none) and its place in the body's
  // principal frame.
  static constexpr std::size_t body_column = 0, displace_column = 1, per_atom_width = 4;

  std::size_t sums_per_body() const { return 6 * bodies_.size(); }
  void setup_bodies(Simulation& sim);
  // Of a tile's atoms as the per-tile hooks (FixTile) or reductions (AtomsView) see them: the
  // body of atom i (-1: none), its image flags relative to its body's (LAMMPS's xcmimage), its
  // unwrapped coordinate d, and each body's summed force and torque (6 per body).
  template <class View>
  int body_of(const View& t, std::size_t i) const;
  template <class View>
  std::array<int, 3> image_in_body(const View& t, std::size_t i, const Body& b) const;
  template <class View>
  double unwrapped(const View& t, std::size_t i, const Body& b, std::size_t d) const;
  template <class View>
  void sum_forces(const View& t, std::span<double> out) const;
  // The second half of the step on the bodies: thermostat, forces and torques, half-kick.
  void finish_bodies(std::span<const double> sums);
  void half_kick(Body& b) const;
  void angular_momentum_from_conjqm(Body& b);
  // The per-atom columns' place and the box, before the tiles read them.
  void capture(const Simulation& sim);
  void remap_centres(Simulation& sim);
  void enforce2d();
  // Atom velocities from their bodies' (LAMMPS's set_v), the constraint virial scaled.
  void set_atom_velocities(FixTile& t, double virial_scale);
  // Half the virial of the constraint force that changed atom i's velocity from v_before, at its
  // unwrapped position x, times scale, into a tile's tally row.
  void add_constraint_virial(const FixTile& t, std::size_t i, const std::array<double, 3>& x,
                             const std::array<double, 3>& v_before, std::span<double> row,
                             double scale) const;

  std::string style_;
  bool no_squish_ = false;  // rigid/nve
  std::vector<Body> bodies_;
  int handle_ = -1;
  std::size_t offset_ = 0;  // where the per-atom columns start now
  bool early_ = false;      // fix_modify bodyforces early
  bool reinit_ = true;
  bool set_up_ = false;
  bool in_step_ = false;  // between a step's pre_integrate and its bodies' second half
  int nlinear_ = 0;
  double tfactor_ = 0;
  int dimension_ = 3;
  bool two_d_enforced_ = false;  // 2-d with fix enforce2d, which zeroes the bodies' z motion
  // The step's constants and box, captured on the host before the tiles read them.
  double dtv_ = 0, dtf_ = 0, dtq_ = 0;
  std::array<double, 3> length_{};
  double xy_ = 0, xz_ = 0, yz_ = 0;
  // Langevin thermostat (keyword langevin).
  struct Langevin {
    double t_start = 0, t_stop = 0, t_period = 0;
    std::unique_ptr<RandomMars> random;
  };
  std::optional<Langevin> langevin_;
  double ramp_ = 0;  // the run's ramp fraction at this step, for the thermostat's target
  double boltz_ = 0, mvv2e_ = 0, ftm2v_ = 0;
  TileTally virial_tally_;
  std::function<void(const std::string&)> print_;  // the console (warnings), rank 0
};

}  // namespace tessera::md
