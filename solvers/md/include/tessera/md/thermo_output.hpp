// ThermoOutput: LAMMPS's thermo lines (`thermo`, `thermo_style`, `thermo_modify`).
//
// Styles `one` (Step Temp E_pair E_mol TotEng Press) and `custom` with LAMMPS's
// keywords and column names, and v_NAME for a variable. Extensive quantities are divided by the
// atom count under `thermo_modify norm yes` (the default in lj units). Integers print as
// "%8d", floats as "%12.8g" or the `thermo_modify format float` format, as
// LAMMPS (29 Sep 2021) does.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/md/console.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

class ThermoOutput : public Observer {
 public:
  ThermoOutput(Console& console, const Units& units);

  void set_every(int every) { every_ = every; }
  // thermo_style one | custom keyword...; throws ConfigError naming an unknown keyword. A
  // keyword v_NAME is the value of variable NAME, evaluated at each thermo step by `variable`
  // (set_variables), as LAMMPS's thermo custom prints it (a float, column "v_NAME").
  void set_style(const std::vector<std::string>& args);
  using VariableValue = std::function<double(const std::string& name)>;
  void set_variables(VariableValue variable) { variable_ = std::move(variable); }
  void set_norm(bool norm) { norm_ = norm; }
  void set_float_format(const std::string& format);

  int every() const override { return every_; }
  void observe(Simulation& sim, bool first_of_run, bool last_of_run) override;

  // The value of a thermo keyword now (for equal-style variables); nothing if unknown.
  std::optional<double> value(Simulation& sim, const std::string& keyword);
  static bool is_keyword(const std::string& keyword);

 private:
  double value_of(Simulation& sim, const Thermo& t, const std::string& keyword) const;
  Console& console_;
  int every_ = 0;
  bool norm_;
  std::vector<std::string> keywords_;
  bool one_ = true;  // thermo_style one (the default)
  std::string float_format_ = "%12.8g";
  VariableValue variable_;
};

}  // namespace tessera::md
