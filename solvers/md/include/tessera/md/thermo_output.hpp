// ThermoOutput: LAMMPS's thermo lines (`thermo`, `thermo_style`, `thermo_modify`).
//
// Styles `one` (Step Temp E_pair E_mol TotEng Press), `multi` (a block per step: a line with
// the step and CPU time, then TotEng KinEng Temp PotEng E_bond E_angle E_dihed E_impro E_vdwl
// E_coul E_long Press, three "Name = value" per line, floats as "%14.4f") and `custom` with
// LAMMPS's keywords and column names, v_NAME for a variable and c_ID, c_ID[N], c_ID[*] for a
// compute's global outputs. As LAMMPS's Output, it defines the computes thermo_temp (temp of all),
// thermo_press (pressure from thermo_temp) and thermo_pe (pe), and takes temp, ke, etotal,
// press, pxx... and pe from them (thermo_modify temp ID / press ID choose others).
// Extensive quantities are divided by the atom count under `thermo_modify norm yes` (the
// default in lj units). A thermo_style command forgets every thermo_modify setting, as
// LAMMPS's (which makes a new Thermo). Integers print as "%8d", floats as "%12.8g" or the
// `thermo_modify format float` format, as LAMMPS (29 Sep 2021) does.
#pragma once

#include <array>
#include <chrono>
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
  // Adds thermo_temp, thermo_press and thermo_pe to `sim`.
  ThermoOutput(Console& console, Simulation& sim);

  void set_every(int every) { every_ = every; }
  // thermo_style one | custom keyword...; throws ConfigError naming an unknown keyword. A
  // keyword v_NAME is the value of variable NAME, evaluated at each thermo step by `variable`
  // (set_variables), as LAMMPS's thermo custom prints it (a float, column "v_NAME").
  void set_style(Simulation& sim, const std::vector<std::string>& args);
  using VariableValue = std::function<double(const std::string& name)>;
  void set_variables(VariableValue variable) { variable_ = std::move(variable); }
  // thermo_modify norm; without it, yes in lj units and no in others, as LAMMPS's.
  void set_norm(bool norm) { norm_ = norm; }
  // thermo_modify temp ID (also the temperature of the thermo pressure, as LAMMPS's) and
  // press ID; throws ConfigError when the compute is missing or of the wrong kind.
  void set_temperature(Simulation& sim, const std::string& id);
  void set_pressure(Simulation& sim, const std::string& id);
  void set_float_format(const std::string& format);
  // thermo_modify line one|multi: the keywords on one line, or in LAMMPS's blocks (three
  // "Name = value" to a line after a line with the step and the CPU time).
  void set_multiline(bool multiline) { multiline_ = multiline; }
  // The lattice's spacing per axis (thermo keywords xlat ylat zlat), from the lattice command.
  void set_lattice(const std::array<double, 3>& spacing) { lattice_ = spacing; }

  int every() const override { return every_; }
  void observe(Simulation& sim, bool first_of_run, bool last_of_run) override;

  // The value of a thermo keyword now (for equal-style variables); nothing if unknown.
  std::optional<double> value(Simulation& sim, const std::string& keyword);
  static bool is_keyword(const std::string& keyword);

 private:
  // The values one line shares (each compute called once per line).
  struct Line;
  double value_of(Simulation& sim, Line& line, const std::string& keyword) const;
  Console& console_;
  std::string temp_id_ = "thermo_temp", press_id_ = "thermo_press", pe_id_ = "thermo_pe";
  int every_ = 0;

 public:
  // Whether extensive values are divided by the atom count (thermo_modify norm, or the units).
  bool normalized(const Simulation& sim) const {
    return norm_ ? *norm_ : sim.units().style == "lj";
  }

 private:
  std::optional<bool> norm_;
  std::vector<std::string> keywords_;
  bool custom_ = false;     // thermo_style custom (else one or multi: Volume added as LAMMPS's)
  bool multiline_ = false;  // LAMMPS's MULTILINE layout (thermo_style multi, thermo_modify line)
  std::optional<std::string> float_format_;  // thermo_modify format float's
  std::array<double, 3> lattice_{1.0, 1.0, 1.0};
  VariableValue variable_;
  std::chrono::steady_clock::time_point run_start_ = std::chrono::steady_clock::now();  // cpu
};

}  // namespace tessera::md
