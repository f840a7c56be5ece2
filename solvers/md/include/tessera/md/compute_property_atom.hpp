// compute ID GROUP property/atom ATTRIBUTE...: LAMMPS's ComputePropertyAtom, the atoms' own
// values as per-atom output (one attribute: a per-atom vector; more: an array, c_ID[K] its
// K-th): id type mass (mass units), x y z (distance; as stored), xs ys zs (scaled to the box,
// 0..1), xu yu zu (unwrapped by the image flags), ix iy iz (image flags), vx vy vz (velocity),
// fx fy fz (force), q (charge, atom_style charge only), and the custom properties of fix
// property/atom (i_NAME, d_NAME, i2_NAME[K], d2_NAME[K]). 0 for atoms outside the group.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tessera/md/compute.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

class ComputePropertyAtom final : public Compute {
 public:
  explicit ComputePropertyAtom(const ComputeArguments& a);
  std::string style() const override { return "property/atom"; }
  std::size_t peratom_columns() const override { return attributes_.size(); }
  void prepare_peratom(Simulation& sim) override;
  void peratom(const AtomsView& atoms, std::span<double> out) const override;

  enum class Kind { id, type, mass, x, scaled, unwrapped, image, v, f, q, molecule, custom };
  struct Attribute {
    Kind kind = Kind::id;
    std::size_t axis = 0;                // x y z and their kin
    Simulation::CustomReference custom;  // a custom property's
    std::size_t column = 0;              // where its value sits in the per-atom vectors, now
    bool present = true;                 // molecule: whether the atoms have topology rows
  };

 private:
  std::vector<Attribute> attributes_;
};

}  // namespace tessera::md
