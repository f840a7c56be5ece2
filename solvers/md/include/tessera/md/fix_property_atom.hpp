// fix ID GROUP property/atom NAME... [ghost yes|no]: LAMMPS's FixPropertyAtom, custom per-atom
// properties that travel with the atoms: i_NAME (an integer per atom), d_NAME (a floating-point
// number per atom), i2_NAME N and d2_NAME N (N of them per atom, referred to as NAME[K], K
// from 1). Each starts at 0 for every atom (and for atoms made later); the set command writes
// them (set ... i_NAME V, d_NAME V, d2_NAME[K] V), compute property/atom and fix balance's
// weight store read and write them. Integers are kept exactly (as doubles, |i| < 2^53).
//
// LAMMPS's mol, q, rmass, temperature and heatflow change what the atoms are (molecules,
// charges, per-atom masses) and are refused: charges come with atom_style charge. ghost is
// accepted: no md_ipu pair style reads custom properties of ghosts. The values are not kept in
// restart files (write_restart refuses rather than drop them); unfix drops them. As in LAMMPS, it
// may come before the box, so that read_data ... fix ID NULL SECTION fills it from the file.
#pragma once

#include <string>
#include <vector>

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixPropertyAtom final : public Fix {
 public:
  explicit FixPropertyAtom(const FixArguments& a);
  std::string style() const override { return "property/atom"; }
  void release(Simulation& sim) override;
  bool restartable() const override { return false; }
  std::string restart_refusal() const override;
  // Its properties' names, in the order the command gave them (read_data's fix keyword reads
  // their values in this order).
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
  int handle_ = 0;
};

}  // namespace tessera::md
