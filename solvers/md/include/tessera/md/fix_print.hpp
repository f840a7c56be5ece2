// fix ID GROUP print N TEXT [file F | append F] [screen yes|no] [title T]: LAMMPS's FixPrint.
// At a run's setup when its step is a multiple of N, and at every step that is one, TEXT is
// substituted as the input substitutes a line ($x, ${x}, $(formula), evaluated then) and
// printed on the screen and in the log (screen yes, the default) and as a line of the file. The
// file starts with the title line ("# Fix print output for fix ID" by default) when the fix is
// made; append keeps what the file held before it. Each print publishes the whole file
// (tessera/core/atomic_file.hpp), so a failed write leaves the last complete one. Rank 0 writes;
// every rank substitutes (a formula may be collective). N as a variable (v_NAME) is refused.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "tessera/md/fix.hpp"

namespace tessera::md {

class FixPrint final : public Fix {
 public:
  explicit FixPrint(const FixArguments& a);
  std::string style() const override { return "print"; }
  bool restartable() const override { return false; }  // as LAMMPS's: no restart state
  int end_of_step_every() const override { return every_; }
  // Its text may read anything thermo can: the step's energies and velocities.
  bool needs_energy() const override { return true; }
  bool needs_step_velocities() const override { return true; }
  void setup(Simulation& sim) override;
  void continue_run(Simulation& sim) override { setup(sim); }
  void end_of_step(Simulation& sim) override;

 private:
  void print(Simulation& sim);
  int every_ = 1;
  std::string text_, file_;
  bool screen_ = true;
  std::string contents_;  // the file's whole text so far
  std::function<std::string(const std::string&)> substitute_;
  std::function<void(const std::string&)> console_;
};

}  // namespace tessera::md
