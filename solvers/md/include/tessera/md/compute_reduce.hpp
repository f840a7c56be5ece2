// compute ID GROUP reduce MODE INPUT...: LAMMPS's ComputeReduce over the group's atoms. MODE is
// sum, sumsq, sumabs, min, max, ave, avesq or aveabs (ave*: divided by the group's atom count;
// min/max of no atoms: +-1e20, as LAMMPS). An INPUT is a per-atom property x y z vx vy vz fx fy
// fz (positions as stored, as LAMMPS's), or c_ID (a per-atom vector compute), c_ID[N] (column N
// of a per-atom array), c_ID[*] (every column), or v_NAME (an atom-style variable, evaluated for
// every atom as LAMMPS's, then reduced over the group). One input gives a scalar, more a vector of
// one value per input, extensive for the sum modes.
#pragma once

#include "tessera/md/compute.hpp"

namespace tessera::md {

class ComputeReduce : public Compute {
 public:
  explicit ComputeReduce(const ComputeArguments& args);
  std::string style() const override { return "reduce"; }
  bool has_scalar() const override { return inputs_.size() == 1; }
  std::size_t vector_size() const override { return inputs_.size() > 1 ? inputs_.size() : 0; }
  bool extensive_scalar() const override { return sum_mode(); }
  bool extensive_vector(std::size_t) const override { return sum_mode(); }
  double scalar(Simulation& sim) override { return reduce(sim)[0]; }
  std::vector<double> vector(Simulation& sim) override { return reduce(sim); }

 private:
  enum class Mode { sum, sumsq, sumabs, min, max, ave, avesq, aveabs };
  struct Input {
    int property = -1;     // 0..8: x y z vx vy vz fx fy fz; -1: a compute or a variable
    std::string compute;   // its ID
    std::string variable;  // an atom-style variable's name
    std::size_t column = 0;
  };
  bool sum_mode() const {
    return mode_ == Mode::sum || mode_ == Mode::sumsq || mode_ == Mode::sumabs;
  }
  std::vector<double> reduce(Simulation& sim);
  Mode mode_ = Mode::sum;
  std::vector<Input> inputs_;
  AtomVariables variables_;
};

}  // namespace tessera::md
