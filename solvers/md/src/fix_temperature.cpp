#include "tessera/md/fix_temperature.hpp"

#include "tessera/md/simulation.hpp"

namespace tessera::md {

std::size_t FixTemperature::modify(const Fix& fix, Simulation& sim,
                                   const std::vector<std::string>& words, std::size_t at) {
  if (words[at] != "temp" || at + 1 >= words.size()) return 0;
  const Compute* c = sim.find_compute(words[at + 1]);
  if (!c)
    throw ConfigError("fix_modify " + fix.id() + " temp: there is no compute " + words[at + 1]);
  if (!c->is_temperature())
    throw ConfigError("fix_modify " + fix.id() + " temp: compute " + words[at + 1] + " (" +
                      c->style() + ") does not compute a temperature");
  // A profile (temp/ramp, temp/deform, viscosity/cos) is removed and restored atom by atom;
  // temp/region's atoms outside its region are not (fix langevin alone takes them).
  if (c->removes_atom_bias() && !dynamic_cast<const ComputeTempProfile*>(c))
    throw ConfigError("fix_modify " + fix.id() + " temp: compute " + words[at + 1] + " (" +
                      c->style() +
                      ") removes a bias that differs from atom to atom, which md_ipu's " +
                      "thermostats do not support");
  id_ = words[at + 1];
  return 2;
}

Compute& FixTemperature::get(const Fix& fix, Simulation& sim) {
  if (!id_.empty()) {
    Compute* c = sim.find_compute(id_);
    if (!c)
      throw ConfigError("fix " + fix.id() + " " + fix.style() + ": its temperature compute " + id_ +
                        " no longer exists");
    return *c;
  }
  if (!own_) {
    // LAMMPS's fix makes compute ID_temp of its group.
    own_ =
        std::make_unique<ComputeTemp>(ComputeArguments{fix.id() + "_temp", fix.group(), {}, &sim});
    own_->set_group_bit(sim.group_bit(fix.group()));
  }
  return *own_;
}

}  // namespace tessera::md
