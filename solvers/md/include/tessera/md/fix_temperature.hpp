// The temperature a thermostatting fix reads (internal to the md fixes): as LAMMPS's
// temp/rescale and temp/berendsen, a compute temp of the fix's group that the fix makes itself
// (ID_temp), or the temperature compute fix_modify ID temp CID names. Collective where it
// evaluates; throws ConfigError naming the fix.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tessera/md/compute_temp.hpp"
#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixTemperature {
 public:
  // fix_modify ID temp CID: how many words it took from `at` (0: not this keyword).
  std::size_t modify(const Fix& fix, Simulation& sim, const std::vector<std::string>& words,
                     std::size_t at);
  Compute& get(const Fix& fix, Simulation& sim);
  const std::string& id() const { return id_; }
  void set_id(std::string id) { id_ = std::move(id); }

 private:
  std::string id_;  // fix_modify temp; empty: the fix's own
  std::unique_ptr<ComputeTemp> own_;
};

}  // namespace tessera::md
