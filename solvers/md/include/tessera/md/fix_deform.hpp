// fix ID GROUP deform N PARAMETER STYLE ARGS ... [remap x|v|none] [flip yes|no]
// [units lattice|box]: LAMMPS's FixDeform, the box changed every N steps over a run.
//   x|y|z   final LO HI | delta DLO DHI | scale F | vel V | erate R | trate R | volume |
//           wiggle A PERIOD
//   xy|xz|yz (triclinic boxes)  final T | delta DT | vel V | erate R | trate R | wiggle A PERIOD
// Lengths and velocities are in lattice spacings unless units box (a tilt in those of its first
// dimension: x for xy and xz, y for yz); erate is an engineering strain rate (1/time; a tilt's
// relative to the length of its second dimension), trate a true one. The change is linear from
// the box at the run's start (or at the fix's definition, with run start/stop) to its end,
// exponential for trate, sinusoidal for wiggle; volume keeps the volume with the other lengths'
// changes. remap x (the default) moves the group's atoms with the box; remap v gives an atom
// that crosses a periodic face the velocity of that face (for shear flow with fix nvt/sllod and
// compute temp/deform, which read the box's rates). A tilt that passes half of the length it
// tilts along flips the box to the equivalent one with the tilt on the other side (flip yes, the
// default), at the next step's neighbor-list rebuild, with the atoms' image flags renumbered so
// that their unwrapped positions stay (LAMMPS's Domain::image_flip).
//
// Arithmetic as LAMMPS's, so that boxes and thermo are LAMMPS's digits. variable styles are
// refused. A restart file keeps the box at the fix's definition (restart_global, as LAMMPS's):
// the same fix defined again after read_restart runs start/stop spans from it.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "tessera/md/domain.hpp"
#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixDeform final : public Fix {
 public:
  explicit FixDeform(const FixArguments& a);
  std::string style() const override { return "deform"; }
  bool changes_box() const override { return true; }
  int end_of_step_every() const override { return every_; }
  bool rebuilds_at(std::int64_t step) const override { return flip_ && step >= flip_step_; }
  void setup(Simulation& sim) override;
  void pre_exchange(Simulation& sim) override;
  void end_of_step(Simulation& sim) override;
  void release(Simulation& sim) override;
  bool remaps_velocities() const { return remap_ == Remap::v; }
  // Whether it changes component i of the box (Voigt: x y z lengths, yz xz xy tilts).
  bool changes(std::size_t i) const { return set_[i].style != Style::none; }
  bool restartable() const override { return false; }
  nlohmann::json global_state() const override;
  void restore_state(const nlohmann::json& state, const std::string& where) override;

 private:
  enum class Style { none, final, delta, scale, vel, erate, trate, volume, wiggle };
  enum class Remap { x, v, none };
  enum class Linked { one_from_one, one_from_two, two_from_one };
  // LAMMPS's FixDeform::Set: a length (0..2, x y z) or a tilt (3..5, yz xz xy), Voigt order.
  struct Parameter {
    Style style = Style::none;
    double flo = 0, fhi = 0, dlo = 0, dhi = 0, scale = 0, vel = 0, rate = 0;
    double amplitude = 0, period = 0, ftilt = 0, dtilt = 0;
    double lo_initial = 0, hi_initial = 0, vol_initial = 0, tilt_initial = 0;
    double lo_start = 0, hi_start = 0, lo_stop = 0, hi_stop = 0, lo_target = 0, hi_target = 0;
    double vol_start = 0, tilt_start = 0, tilt_stop = 0, tilt_target = 0, tilt_flip = 0;
    double tilt_min = 0, tilt_max = 0;
    Linked linked = Linked::one_from_one;
    int fixed = 0, dynamic1 = 0, dynamic2 = 0;
  };
  void set_rates(Simulation& sim);

  std::string what_;
  int every_ = 1;
  std::array<Parameter, 6> set_{};
  Remap remap_ = Remap::x;
  bool flip_allowed_ = true;
  bool flip_ = false;
  std::int64_t flip_step_ = 0;
  std::array<int, 3> flips_{};  // xy, xz, yz: LAMMPS's flipxy flipxz flipyz
  std::array<double, 6> h_rate_{};
  std::array<double, 3> h_ratelo_{};
};

}  // namespace tessera::md
