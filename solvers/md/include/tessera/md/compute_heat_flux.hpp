// compute ID GROUP heat/flux KE-ID PE-ID STRESS-ID: LAMMPS's ComputeHeatFlux, the group's heat
// flux times volume (energy * velocity units), a global vector of 6, extensive:
//   J = sum_i (e_i v_i - S_i v_i / nktv2p)   (elements 1-3),
//   Jc = sum_i e_i v_i                        (elements 4-6, the convective part),
// over the group's atoms, e_i = ke_i + pe_i from the per-atom computes KE-ID (ke/atom) and
// PE-ID (pe/atom), S_i the stress tensor times volume of STRESS-ID (stress/atom), v_i the
// velocity. Divided by the volume it is the flux of the Green-Kubo thermal conductivity.
#pragma once

#include <string>

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeHeatFlux final : public Compute {
 public:
  explicit ComputeHeatFlux(const ComputeArguments& args);
  std::string style() const override { return "heat/flux"; }
  std::size_t vector_size() const override { return 6; }
  bool extensive_vector(std::size_t) const override { return true; }
  std::vector<double> vector(Simulation& sim) override;

 private:
  std::string ke_, pe_, stress_;
};

}  // namespace tessera::md
