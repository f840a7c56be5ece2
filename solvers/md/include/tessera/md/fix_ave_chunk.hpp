// fix ID GROUP ave/chunk NEVERY NREPEAT NFREQ CHUNK-ID VALUE... [keyword value ...]: LAMMPS's
// FixAveChunk. Every NFREQ steps it averages, per chunk of the compute chunk/atom CHUNK-ID,
// NREPEAT samples taken NEVERY steps apart (the last at the NFREQ step) of each VALUE over the
// atoms of the fix's group in the chunk:
//   vx vy vz fx fy fz mass    the atoms' attribute (velocity and force units, mass units);
//   density/number            atoms per volume (per area in 2-d);
//   density/mass              mass per volume (times LAMMPS's mv2d: g/cm^3 in metal and real);
//   temp                      the chunk's temperature, mvv2e sum(m v^2) / ((cdof + adof N) kB);
//   c_ID, c_ID[N], c_ID[*]    a per-atom compute's vector or column(s);
//   v_NAME                    an atom-style variable (evaluated for every atom, as LAMMPS's).
// Keywords as LAMMPS's: norm all|sample|none (the average over all the samples' atoms, the
// average of the samples' averages, or the samples' sums averaged), ave one|running|window M,
// bias TEMP-ID (temp counts the velocities less that temperature compute's bias: only the
// components it counts (temp/partial), less its profile (temp/ramp, temp/deform, viscosity/cos)),
// adof, cdof, file FILE, overwrite, format F, title1/2/3 TEXT. The file has LAMMPS's layout:
// three comment lines, then per average "STEP NCHUNK TOTAL-COUNT" and a line per chunk
// "  CHUNK [COORDS...] COUNT VALUES..."; it is rewritten whole (atomic_file.hpp) on rank 0 at each
// average. Per-atom fix values (f_ID) are refused (md_ipu's fixes have none). Its global array,
// as LAMMPS's (f_ID[I][J]): a row per chunk, columns its coordinates, its count and its values.
//
// Sums run on each tile over its own atoms and are reduced over tiles and ranks in a fixed
// order: the averages are bitwise the same for any thread and rank count.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/md/fix.hpp"
#include "tessera/md/time_average.hpp"

namespace tessera::md {

class ComputeChunkAtom;

class FixAveChunk final : public Fix {
 public:
  explicit FixAveChunk(const FixArguments& a);
  std::string style() const override { return "ave/chunk"; }
  bool needs_step_velocities() const override { return true; }
  bool restartable() const override { return false; }
  int end_of_step_every() const override { return every_; }
  int global_frequency() const override { return frequency_; }
  void setup(Simulation& sim) override;
  void end_of_step(Simulation& sim) override;
  std::size_t array_columns() const override { return coordinates_ + 1 + values_.size(); }
  std::size_t array_rows() const override { return static_cast<std::size_t>(nchunk_); }
  double array(Simulation& sim, std::size_t row, std::size_t column) override;

 private:
  enum class Kind {
    velocity,
    force,
    density_number,
    density_mass,
    mass,
    temperature,
    compute,
    variable
  };
  struct Value {
    std::string text;  // as given, [*] expanded
    Kind kind = Kind::velocity;
    std::size_t component = 0;  // x, y, z for velocity and force; the compute's column
    std::string compute;        // c_ID's ID
    std::string variable;       // v_NAME's NAME
  };
  ComputeChunkAtom& chunk(Simulation& sim) const;
  void allocate(int chunks);
  void write(const ComputeChunkAtom& chunk, std::int64_t step);

  Simulation* sim_ = nullptr;
  AtomVariables variables_;
  int every_ = 1, repeat_ = 1, frequency_ = 1;
  std::string chunk_id_;
  std::vector<Value> values_;
  enum class Norm { all, sample } norm_ = Norm::all;
  bool scale_by_count_ = true;  // false for norm none
  TimeAverage average_;         // over counts (a slot per allocated chunk) then values
  std::string bias_;            // a temperature compute's ID
  double adof_ = 3, cdof_ = 0;
  std::string format_ = " %g";
  AveragesFile output_;
  bool has_density_ = false;
  std::size_t coordinates_ = 0;       // the chunk compute's
  std::shared_ptr<const void> lock_;  // held while the chunks must not change (see chunk/atom)

  SampleSchedule schedule_;
  int nchunk_ = 0, allocated_ = 0;
  // Per chunk: counts and values (chunk-major, values_.size() per chunk) summed over the
  // current samples (many) and averaged over them (sum).
  std::vector<double> count_many_, count_sum_;
  std::vector<double> values_many_, values_sum_;
  double count_total(std::size_t m) const { return average_.total()[m] / average_.norm(); }
  double value_total(std::size_t m, std::size_t j) const {
    return average_.total()[static_cast<std::size_t>(allocated_) + m * values_.size() + j] /
           average_.norm();
  }
};

}  // namespace tessera::md
