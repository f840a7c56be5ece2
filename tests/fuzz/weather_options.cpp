// Fuzz harness: weather_ipu's command line (one argument per line of the input), parsed by the
// program's own function (apps/weather/weather_ipu_options.hpp); a run small enough (at most
// 16384 cells, a target of at most 64 tiles) is then run as weather_ipu runs it, on one thread,
// bounded to 40 polls of its stop flag (time steps and output records), with the files it names
// (a topography, an --initial or --restart output of an earlier run) in the private folder.
#include <CLI/CLI.hpp>
#include <csignal>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/stop_signal.hpp"
#include "tessera/weather/run.hpp"
#include "weather_ipu_options.hpp"

namespace {

using namespace tessera;

// A file the run reads or writes is in the private folder (or not named at all).
bool inside(const std::string& path) {
  return path.find('/') == std::string::npos && path.find("..") == std::string::npos;
}

bool small_enough(const weather::RunSettings& s, const Target& target) {
  const long nx = s.nx > 0 ? s.nx : 128, ny = s.ny > 0 ? s.ny : 128;
  const bool sphere = s.case_name.starts_with("williamson");
  return target.total_tiles() <= 64 && nx * ny <= 16384 &&
         (s.resolution == 0 || s.resolution >= 2.8125) && (!sphere || s.reference_factor <= 2);
}

}  // namespace

TESSERA_FUZZ_INIT() {
  fuzz::write_file("volcano_elevation.csv",
                   fuzz::source_file("examples/data/volcano_elevation.csv"));
  // An output of an earlier run, for --initial and --restart.
  weather::RunSettings s;
  s.nx = 8, s.ny = 6, s.days = 0.02, s.output_every_hours = 0.2, s.output = "start.nc";
  Runtime runtime(fuzz::tiny_target(), 1, MPI_COMM_SELF);
  if (weather::run(runtime, s, "weather_ipu --nx 8 --ny 6 --days 0.02 --output start.nc") != 0)
    fuzz::finding("the start.nc fixture could not be written");
}

TESSERA_FUZZ_HARNESS(data, size) {
  std::vector<std::string> args{"weather_ipu"};
  std::istringstream lines{std::string(fuzz::text(data, size))};
  for (std::string line; std::getline(lines, line);) args.push_back(line);
  if (args.size() > 64) return;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());

  CLI::App app{"weather_ipu"};
  weather::RunSettings s;
  RuntimeOptions options;
  weather::add_weather_ipu_options(app, s, options);
  if (parse_command_line(app, static_cast<int>(argv.size()), argv.data())) return;
  for (const std::string* path :
       {&s.output, &s.topography, &s.initial, &s.restart, &options.target, &options.profile_path})
    if (!inside(*path)) return fuzz::count("inputs skipped: a path outside the private folder");
  const Target target = resolve_target(options, 1, 1);
  if (!small_enough(s, target)) return fuzz::count("inputs skipped: a run too large");
  Runtime runtime(target, 1, MPI_COMM_SELF);
  request_stop(SIGTERM, 40);
  weather::run(runtime, s, "weather_ipu (fuzz input)");
}
