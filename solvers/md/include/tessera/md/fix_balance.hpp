// fix ID GROUP balance ...: LAMMPS's dynamic load balancing, which moves the boundaries between
// ranks as a run goes. md_ipu's tile grid is fixed by the target (results are the same for any
// rank count), so the fix takes its arguments and changes nothing.
#pragma once

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixBalance final : public Fix {
 public:
  explicit FixBalance(const FixArguments& a);
  std::string style() const override { return "balance"; }
  bool changes_box() const override { return true; }  // LAMMPS's BOX_CHANGE_DOMAIN
};

}  // namespace tessera::md
