// Helpers for the MD tests: run an input through the library and record thermo.
#pragma once

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/core/checksum.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/md/console.hpp"
#include "tessera/md/input.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md::test {

inline std::string data_dir() { return TESSERA_MD_TEST_DATA; }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Records Step, Temp, E_pair/atom, TotEng/atom, Press at every observed step.
class Recorder : public Observer {
 public:
  explicit Recorder(int every) : every_(every) {}
  int every() const override { return every_; }
  void observe(Simulation& sim, bool, bool) override {
    const Thermo t = sim.thermo();
    const double n = static_cast<double>(t.natoms);
    rows[sim.step()] = {sim.temperature(t.ke), t.pe / n, (t.pe + t.ke) / n, sim.pressure(t)};
    last = t;
  }
  std::map<std::int64_t, std::vector<double>> rows;
  Thermo last;

 private:
  int every_;
};

// LAMMPS's thermo table "Step Temp E_pair E_mol TotEng Press" as rows of {Temp, E_pair, TotEng,
// Press}.
inline std::map<std::int64_t, std::vector<double>> read_lammps_thermo(const std::string& path) {
  std::map<std::int64_t, std::vector<double>> rows;
  std::istringstream in(read_text(path));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::int64_t step;
    double temp, epair, emol, etotal, press;
    if (w >> step >> temp >> epair >> emol >> etotal >> press)
      rows[step] = {temp, epair, etotal, press};
  }
  return rows;
}

// A runtime, a simulation and an interpreter, printing nothing.
struct Session {
  explicit Session(Target target, int threads = 1)
      : runtime(std::move(target), threads),
        console(1, ""),
        input(runtime, console) {}
  Simulation& sim() { return input.sim(); }
  Runtime runtime;
  Console console;  // rank 1's console prints nothing
  Input input;
};

// A restart file's bytes with their checksum trailer (the last 15 bytes, "crc32 XXXXXXXX\n")
// made valid again, for tests that edit a restart file on purpose.
inline std::string reseal_restart(std::string bytes) {
  bytes.resize(bytes.size() - 15);
  char trailer[16];
  std::snprintf(trailer, sizeof trailer, "crc32 %08x\n", static_cast<unsigned>(crc32(bytes)));
  return bytes + trailer;
}

inline Target host_target(int tiles) {
  Target t = Target::preset("host", tiles, 1);
  return t;
}

}  // namespace tessera::md::test
