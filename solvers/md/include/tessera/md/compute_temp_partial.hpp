// compute ID GROUP temp/partial XFLAG YFLAG ZFLAG: LAMMPS's ComputeTempPartial, the temperature
// of the group's velocity components whose flag is 1 (a flow's direction left out): over
// dof = n N - (n / d) extra with n flagged components, N atoms, d the dimension and extra the
// dimension or compute_modify extra/dof; the vector is the kinetic tensor of those components.
// The other components are its bias: fix temp/rescale scales only the counted ones.
#pragma once

#include <array>
#include <optional>

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeTempPartial : public Compute {
 public:
  explicit ComputeTempPartial(const ComputeArguments& args);
  std::string style() const override { return "temp/partial"; }
  bool has_scalar() const override { return true; }
  std::size_t vector_size() const override { return 6; }
  bool extensive_vector(std::size_t) const override { return true; }  // as LAMMPS's extvector
  bool is_temperature() const override { return true; }
  std::array<bool, 3> thermal_components() const override { return flags_; }
  double dof(Simulation& sim) override;
  std::size_t modify(const std::vector<std::string>& words, std::size_t at) override;
  void setup(Simulation& sim) override;
  double scalar(Simulation& sim) override;
  std::vector<double> vector(Simulation& sim) override;

 private:
  double dof_of(const Simulation& sim, double count) const;
  std::array<bool, 3> flags_{true, true, true};
  std::optional<double> extra_dof_;
  DofCount count_;
  double fix_dof_ = 0;  // what fixes remove from the group (fix rigid), counted at setup
  double group_count(Simulation& sim) const;
};

}  // namespace tessera::md
