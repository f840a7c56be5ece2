// The command-line options every Tessera program accepts, parsed by one piece
// of code:
//   --target NAME|FILE.json   machine preset, or a JSON file {"base": NAME, field: value, ...}
//   --ipus N, --tiles-per-ipu N, --tile-memory BYTES (suffixes k, KiB, M, MiB ... accepted)
//   --threads N               host threads per rank [=hardware threads / ranks on the node]
//   --profile FILE.json       write the cost-model profile of the run
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>

#include "tessera/core/target.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace tessera {

struct RuntimeOptions {
  std::string target;  // preset name or JSON file
  std::optional<int> ipus;
  std::optional<int> tiles_per_ipu;
  std::optional<std::size_t> tile_memory_bytes;
  int threads = 0;  // 0: default_threads()
  std::string profile_path;
};

// Registers the options on `app`; `default_target` is this program's default preset.
void add_runtime_options(CLI::App& app, RuntimeOptions& options,
                         const std::string& default_target = "host");

// Adds to a floating-point option the check that its value is a finite number: CLI11's
// Range, PositiveNumber and NonNegativeNumber let "nan" through (every comparison with NaN is
// false), and "inf" through PositiveNumber. Returns the option, to chain further checks.
CLI::Option* require_finite(CLI::Option* option);

// The target the options describe: the preset or JSON file, then the command-line
// overrides, validated. `threads` and `processes` size the `host` preset.
// A target file is read on rank 0 of `comm` for every rank (read_json_file), so all ranks
// simulate the same machine (collective over `comm`).
Target resolve_target(const RuntimeOptions& options, int threads, int processes,
                      MPI_Comm comm = MPI_COMM_SELF);

// Parses the command line. Returns nothing when the program should go on, or
// the exit code when it should stop: 0 after --help, 1 after an error. Only
// rank 0 prints (help, or `ERROR: ...` with a pointer to --help).
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

// The number of host threads per rank the options ask for (collective over `comm`).
int resolve_threads(const RuntimeOptions& options, MPI_Comm comm);

}  // namespace tessera
