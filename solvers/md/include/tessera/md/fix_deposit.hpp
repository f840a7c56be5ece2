// fix ID GROUP deposit N TYPE M SEED region REGION-ID [keywords]: LAMMPS's FixDeposit for single
// atoms. N atoms of TYPE are inserted, one every M steps from the step after the fix is defined,
// each at a step whose neighbor lists it rebuilds (pre_exchange), before the atoms move to their
// tiles. An atom is placed uniformly in the region (or gaussian X Y Z SIGMA about a point, kept
// to the region), and, with global LO HI or local LO HI DELTA, LO..HI above the highest atom
// (nearby ones only, within DELTA sideways, for local); rate V lifts the insertion volume by V per
// unit time; near R retries (up to attempt Q times, default 10) when an atom is closer than R;
// its velocity is uniform in vx, vy, vz LO HI (default 0), or aimed at target X Y Z at that
// speed. The atom is in groups all and GROUP, with id max (default: after the largest id now)
// or id next (after the largest id when the fix was defined, then counting on; an id that an atom
// made since then has stops the run, where LAMMPS would make two atoms with one id). Distances and
// velocities are in lattice units unless units box. Draws follow LAMMPS's (a Park-Miller stream
// from SEED, warmed up by 30 draws; the same on every rank), so positions and velocities are
// LAMMPS's to the last digit. f_ID is the number inserted (newer LAMMPS's scalar).
//
// Molecule templates (mol, molfrac, rigid, shake, orient) need atom styles md_ipu lacks and are
// refused, as are per-atom vectors of other fixes and computes (compute msd's origins), which
// md_ipu cannot start for an atom that arrives mid-run. As LAMMPS's, a restart file keeps its
// random stream, count and schedule (not its region): the same fix defined again after
// read_restart continues from them.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "tessera/md/domain.hpp"
#include "tessera/md/fix.hpp"
#include "tessera/md/random_park.hpp"

namespace tessera::md {

class FixDeposit final : public Fix {
 public:
  explicit FixDeposit(const FixArguments& a);
  std::string style() const override { return "deposit"; }
  bool restartable() const override { return false; }
  nlohmann::json global_state() const override;
  void restore_state(const nlohmann::json& state, const std::string& where) override;
  void setup(Simulation& sim) override;
  bool rebuilds_at(std::int64_t step) const override {
    return next_ != 0 && step == next_;
  }
  void pre_exchange(Simulation& sim) override;
  bool has_scalar() const override { return true; }
  double scalar(Simulation&) override { return static_cast<double>(inserted_); }

 private:
  // A candidate position: uniform in the region's extent, or gaussian, until the region has it.
  std::array<double, 3> draw_position();
  // The largest coordinate along `dim` over the atoms (the box's lower face if none is higher),
  // only those within delta sideways of `at` for local.
  double highest(Simulation& sim, const std::array<double, 3>& at, std::size_t dim) const;
  // Whether any atom is closer than near to `at` (periodic images as LAMMPS's minimum_image).
  bool crowded(Simulation& sim, const std::array<double, 3>& at) const;
  std::int64_t largest_id(Simulation& sim) const;
  bool has_atom(Simulation& sim, std::int64_t id) const;

  std::string what_;
  std::int64_t count_ = 0, every_ = 0;
  int type_ = 1;
  RandomPark random_;
  std::shared_ptr<const Region> region_;
  Box extent_;
  bool gaussian_ = false;
  std::array<double, 3> centre_{};
  double sigma_ = 1.0;
  enum class Height { none, global, local } height_ = Height::none;
  double lo_ = 0, hi_ = 0, delta_sq_ = 0, near_sq_ = 0;
  int attempts_ = 10;
  bool rate_given_ = false;
  double rate_ = 0;
  std::array<double, 3> v_lo_{}, v_hi_{};
  bool aimed_ = false;
  std::array<double, 3> target_{};
  bool id_next_ = false;
  std::int64_t max_id_ = 0;  // with id next: the largest id given so far
  std::function<void(const std::string&)> print_;
  std::int64_t inserted_ = 0, first_ = 0, next_ = 0;  // LAMMPS's ninserted, nfirst, next_reneighbor
};

}  // namespace tessera::md
