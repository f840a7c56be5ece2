// compute ID GROUP temp: LAMMPS's ComputeTemp. The scalar is the group's temperature,
// T = mvv2e sum m v^2 / (dof kB) with dof = dimension * N_group - extra - fix (extra: the
// dimension, or compute_modify extra/dof N; fix: what fixes such as fix rigid remove from the
// group, counted at each run's setup); the vector its kinetic-energy tensor mvv2e sum m v_a v_b
// (xx yy zz xy xz yz, energy units). The scalar is intensive, the tensor extensive (thermo
// divides it by the atom count under norm yes), as LAMMPS's.
//
// compute ID GROUP temp/region REGION-ID: LAMMPS's ComputeTempRegion, the same over the group's
// atoms inside the region now (positions as stored), its degrees of freedom counted from them at
// each evaluation (the others count at each run's setup unless compute_modify dynamic/dof yes:
// DofCount). LAMMPS treats the other atoms' velocities as a bias: fix langevin then acts
// only on the atoms inside the region (bias_region); md_ipu's other thermostats refuse it as
// their temperature (removes_atom_bias).
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeTemp : public Compute {
 public:
  explicit ComputeTemp(const ComputeArguments& args);
  std::string style() const override { return "temp"; }
  bool has_scalar() const override { return true; }
  std::size_t vector_size() const override { return 6; }
  bool extensive_vector(std::size_t) const override { return true; }  // as LAMMPS's extvector
  bool is_temperature() const override { return true; }
  double dof(Simulation& sim) override;
  std::size_t modify(const std::vector<std::string>& words, std::size_t at) override;
  void setup(Simulation& sim) override;
  double scalar(Simulation& sim) override;
  std::vector<double> vector(Simulation& sim) override;

 protected:
  DofCount count_;
  // The atoms counted: the group's, and only those inside `region` where one is set.
  std::shared_ptr<const Region> region_;
  // dimension * count - extra - the fixes' (compute_modify extra/dof, the dimension by default;
  // the degrees of freedom fixes such as fix rigid remove, counted at setup; none for
  // temp/region, as LAMMPS's).
  double dof_of(const Simulation& sim, double count) const;
  double fix_dof_ = 0;

 private:
  bool counted(const AtomsView& a, std::size_t i) const;
  // How many atoms are counted now (collective).
  double count(Simulation& sim) const;
  std::optional<double> extra_dof_;  // compute_modify extra/dof; the dimension by default
};

// A temperature of the velocities less a profile that differs from atom to atom (temp/ramp's
// shear profile, temp/deform's streaming velocity, viscosity/cos's cosine flow): its sums, dof,
// scalar and kinetic tensor (xx yy zz xy xz yz, energy units, extensive) once for every such
// style. The profile is a per-atom bias: thermo_modify temp, compute pressure and the
// thermostats take it (VelocityBias).
class ComputeTempProfile : public ComputeTemp {
 public:
  using ComputeTemp::ComputeTemp;
  bool removes_atom_bias() const override { return true; }
  double dof(Simulation& sim) override;
  double scalar(Simulation& sim) override;
  std::vector<double> vector(Simulation& sim) override;

  // The profile as the compute holds it now (after its last scalar, for a profile measured from
  // the velocities): the bias velocity (velocity units) of an atom at position x (as stored).
  // The function keeps its own copy of what it needs: it may run on every tile concurrently.
  using Bias = std::function<std::array<double, 3>(const double* x)>;
  virtual Bias bias(Simulation& sim) const = 0;

 private:
  // Sums over the group's atoms of m v_a v_b of the velocities less the profile, and the count
  // (collective).
  std::array<double, 7> thermal_sums(Simulation& sim) const;
};

// What a thermostat leaves alone, as LAMMPS's remove_bias and restore_bias: for each atom the
// velocity components its temperature does not count (temp/partial's) and a per-atom profile
// on those it does (ComputeTempProfile's). A thermostat scales v - bias and adds the bias back.
// An empty profile and all components counted: no bias (none(); of() is zero).
struct VelocityBias {
  std::array<bool, 3> thermal{true, true, true};
  ComputeTempProfile::Bias profile;
  bool none() const { return !profile && thermal[0] && thermal[1] && thermal[2]; }
  std::array<double, 3> of(const double* x, const double* v) const {
    std::array<double, 3> b{};
    if (profile) b = profile(x);
    for (std::size_t d = 0; d < 3; ++d)
      if (!thermal[d]) b[d] = v[d];
    return b;
  }
};
// The bias of `temperature` now. Throws ConfigError for a bias no thermostat can remove atom by
// atom (temp/region's atoms outside its region: fix langevin alone takes it).
VelocityBias velocity_bias(Simulation& sim, const Compute& temperature);

class ComputeTempRegion final : public ComputeTemp {
 public:
  explicit ComputeTempRegion(const ComputeArguments& args);
  std::string style() const override { return "temp/region"; }
  bool removes_atom_bias() const override { return true; }
  std::shared_ptr<const Region> bias_region() const override { return region_; }
};

}  // namespace tessera::md
