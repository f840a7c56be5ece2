// compute ID all pressure TEMP-ID|NULL [ke pair virial bond angle dihedral improper kspace fix]:
// LAMMPS's ComputePressure. The scalar is (dof kB T + trace of the virial) / (d V) * nktv2p,
// the vector the tensor (ke tensor + virial) / V * nktv2p (xx yy zz xy xz yz; in 2-d over the
// area, with zz xz yz zero), pressure units; T, dof and the ke tensor come from the
// temperature compute TEMP-ID. With keywords, only the named parts count (ke needs a
// temperature): pair the pair style's virial, bond, angle, dihedral and improper each bonded
// style's, kspace the kspace style's, fix the fixes' constraint virial (fix rigid's), virial all
// of them. Not extensive.
#pragma once

#include <array>
#include <optional>

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputePressure : public Compute {
 public:
  explicit ComputePressure(const ComputeArguments& args);
  std::string style() const override { return "pressure"; }
  bool has_scalar() const override { return true; }
  std::size_t vector_size() const override { return 6; }
  double scalar(Simulation& sim) override;
  std::vector<double> vector(Simulation& sim) override;
  // thermo_modify temp ID: the temperature this pressure's kinetic part comes from.
  void set_temperature(const std::string& id) { temperature_ = id; }

 private:
  Compute& temperature(Simulation& sim) const;
  // The virial terms chosen (xx yy zz xy xz yz, energy units).
  std::array<double, 6> virial(Simulation& sim) const;
  std::optional<std::string> temperature_;  // NULL: none
  VirialTerms terms_;
  // Whether any term but ke is on.
  bool any_virial() const;
};

}  // namespace tessera::md
