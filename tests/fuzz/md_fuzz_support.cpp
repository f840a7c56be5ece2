#include "md_fuzz_support.hpp"

#include <csignal>
#include <exception>
#include <map>
#include <sstream>
#include <vector>

#include "fuzz_support.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/stop_signal.hpp"
#include "tessera/md/console.hpp"
#include "tessera/md/input.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::fuzz {
namespace {

// The -var values: the names the project's inputs take from the command line, and sizes that
// keep in.lj's box small (20 * 0.2 lattice cells a side).
const std::map<std::string, std::string> variables = {
    {"data", "eight.data"}, {"restart", "md.restart"},
    {"file", "md.restart"}, {"model", "model.yaml"},
    {"out", "traj.nc"},     {"dumpfile", "dump.txt"},
    {"dir", "."},           {"trajectory", "water.nc"},
    {"steps", "20"},        {"x", "0.2"},
    {"y", "0.2"},           {"z", "0.2"}};

bool names_outside(std::string_view script) {
  std::istringstream words{std::string(script)};
  for (std::string w; words >> w;) {
    const auto start = w.find_first_not_of("\"'");
    if (start == std::string::npos) continue;
    if (w[start] == '/' || w.find("..") != std::string::npos) return true;
  }
  return false;
}

void run_script(std::string_view script, long polls) {
  Runtime runtime(tiny_target(), 1, MPI_COMM_SELF);
  md::Console console(0, "none");
  md::Input input(runtime, console);
  for (const auto& [name, value] : variables) input.define_variable(name, {value});
  request_stop(SIGTERM, polls);
  input.run_script(std::string(script), "fuzz input");
}

}  // namespace

void md_fixtures() {
  const std::string eight = source_file("tests/md/data/eight.data");
  write_file("eight.data", eight);
  write_file("lj4000.data", eight);
  write_file("data.lmp", eight);
  write_file("forces.data", source_file("tests/md/data/forces.data"));
  write_file("water_192.data", source_file("examples/deepmd_water/water_192.data"));
  write_file("model.yaml", source_file("tests/fuzz/corpus/deepmd_model/tiny.yaml"));
  try {
    run_script(
        "units lj\nlattice fcc 0.8442\nregion box block 0 2 0 2 0 2\ncreate_box 1 box\n"
        "create_atoms 1 box\nmass 1 1.0\nvelocity all create 1.0 5 loop geom\n"
        "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\nfix 1 all nve\n"
        "fix 2 all langevin 1.0 1.0 1.0 77\nrun 5\nwrite_restart md.restart\n",
        1000);
  } catch (const std::exception& e) {
    finding(std::string("the md.restart fixture could not be written: ") + e.what());
  }
  clear_stop_request();
}

void run_md_script(std::string_view script, long polls) {
  if (names_outside(script)) return count("inputs skipped: a script naming a path outside");
  run_script(script, polls);
}

}  // namespace tessera::fuzz
