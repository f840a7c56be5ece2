// md_ipu: LAMMPS-compatible molecular dynamics on the Tessera tile runtime.
//
//   mpirun -np N md_ipu [-in FILE] [-log FILE|none] [-var NAME VALUE...] [--target NAME] ...
//   md_ipu < FILE
//
// Without -in it reads the script from standard input, as LAMMPS does, and when that is a
// terminal or empty it prints and runs a built-in example (a Lennard-Jones liquid). LAMMPS's
// single-dash flags are accepted as LAMMPS users type them: -in/-i, -log/-l, -var/-v,
// -echo/-e, -screen/-sc, -nocite/-nc, and -suffix/-sf and -package/-pk (reported as ignored).

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/options.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/core/shared_input.hpp"
#include "tessera/core/stop_signal.hpp"
#include "tessera/md/console.hpp"
#include "tessera/md/input.hpp"
#include "tessera/md/simulation.hpp"

namespace {

constexpr const char* default_example =
    R"(# md_ipu built-in example: a Lennard-Jones liquid (LAMMPS bench/in.lj, 4000 atoms)
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 10 0 10 0 10
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 1.44 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    delay 0 every 20 check no
fix             1 all nve
thermo          50
run             250
)";

// LAMMPS spells its flags with one dash; CLI11 wants two for long names. -var takes
// a name and one or more values, up to the next flag; -package a style and its arguments.
struct LammpsFlags {
  std::vector<std::pair<std::string, std::vector<std::string>>> variables;
  std::vector<std::string> ignored;  // -suffix and -package as given
  std::vector<std::string> rest;
};

LammpsFlags translate(int argc, char** argv) {
  LammpsFlags out;
  out.rest.push_back(argv[0]);
  const auto next_is_value = [&](int i) { return i + 1 < argc && argv[i + 1][0] != '-'; };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-in" || a == "-i") {
      out.rest.push_back("--in");
    } else if (a == "-log" || a == "-l") {
      out.rest.push_back("--log");
    } else if (a == "-echo" || a == "-e") {
      out.rest.push_back("--echo");
    } else if (a == "-screen" || a == "-sc") {
      out.rest.push_back("--screen");
    } else if (a == "-nocite" || a == "-nc") {
      // md_ipu writes no citation file: nothing to turn off.
    } else if (a == "-suffix" || a == "-sf" || a == "-package" || a == "-pk") {
      if (!next_is_value(i)) throw tessera::ConfigError(a + " needs a style");
      std::string given = a + " " + argv[++i];
      if (a == "-package" || a == "-pk")
        while (next_is_value(i)) given += std::string(" ") + argv[++i];
      out.ignored.push_back(given);
    } else if (a == "-var" || a == "-v" || a == "--var") {
      if (i + 2 >= argc) throw tessera::ConfigError(a + " needs a name and at least one value");
      std::pair<std::string, std::vector<std::string>> v{argv[++i], {}};
      while (next_is_value(i)) v.second.push_back(argv[++i]);
      if (v.second.empty())
        throw tessera::ConfigError(a + " " + v.first + " needs at least one value");
      out.variables.push_back(v);
    } else {
      out.rest.push_back(a);
    }
  }
  return out;
}

// Runs the input; returns the exit code: 0, or 128 + signal after a stop signal.
int run(tessera::Runtime& runtime, tessera::md::Console& console, const LammpsFlags& flags,
        const std::string& input_file, const std::string& echo,
        std::chrono::steady_clock::time_point start) {
  using namespace tessera;
  const Target& t = runtime.target();
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "Tessera md_ipu 0.1.0 (LAMMPS-compatible input)\n  target %s: %d IPU%s x %d "
                "tiles, %d MPI rank%s x %d "
                "thread%s\n",
                t.name.c_str(), t.ipus, t.ipus == 1 ? "" : "s", t.tiles_per_ipu, runtime.ranks(),
                runtime.ranks() == 1 ? "" : "s", runtime.threads(),
                runtime.threads() == 1 ? "" : "s");
  console.print(buf);
  for (const auto& given : flags.ignored)
    console.print("  " + given +
                  ": ignored (LAMMPS's accelerator packages do not apply: md_ipu's kernels serve "
                  "every target, and the runtime places atoms on tiles and threads itself)\n");

  md::Input::Stop stop;
  {
    md::Input input(runtime, console);
    input.set_echo(echo);
    for (const auto& [name, values] : flags.variables) input.define_variable(name, values);
    if (!input_file.empty()) {
      input.run_file(input_file);
    } else {
      const SharedFile script = read_stdin_on_root(runtime.comm());
      if (script.ok && script.bytes.find_first_not_of(" \t\r\n") != std::string::npos) {
        input.run_script(script.bytes, "standard input");
      } else {
        console.print(
            "No -in file given and no script on standard input: running the built-in example, "
            "whose input is:\n\n" +
            std::string(default_example) + "\n");
        input.run_script(default_example, "built-in example");
      }
    }
    stop = input.stopped();
  }
  console.print(runtime.finish());
  const long seconds = static_cast<long>(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  std::snprintf(buf, sizeof buf, "Total wall time: %ld:%02ld:%02ld\n", seconds / 3600,
                seconds / 60 % 60, seconds % 60);
  console.print(buf);
  if (!stop.signal) return 0;
  console.warn("md_ipu: stopped by " + signal_name(stop.signal) + " at step " +
               std::to_string(stop.step) + stop.where +
               "; the dumps are published with their frames up to this step, and the rest of the "
               "input was not run\n");
  return stop_exit_code(stop.signal);
}

}  // namespace

int main(int argc, char** argv) {
  return tessera::run_main(argc, argv, [](int argc, char** argv) {
    using namespace tessera;
    const auto start = std::chrono::steady_clock::now();
    // Rank 0 reads the input for all ranks: they must all have been given the same one.
    require_same_arguments(MPI_COMM_WORLD, argc, argv, "md_ipu");
    LammpsFlags flags = translate(argc, argv);
    CLI::App app{"md_ipu: LAMMPS-compatible molecular dynamics on the Tessera tile runtime"};
    std::string input_file, log_file = "log.lammps", screen_file, echo = "log";
    app.add_option("--in", input_file,
                   "LAMMPS input script (default: standard input, or the built-in example when "
                   "that is a terminal or empty)");
    app.add_option("--log", log_file, "Log file, or none")->capture_default_str();
    app.add_option("--screen", screen_file,
                   "Screen output to this file, or none (default: "
                   "standard output)");
    app.add_option("--echo", echo, "Echo input lines to none, screen, log or both")
        ->check(CLI::IsMember({"none", "screen", "log", "both"}))
        ->capture_default_str();
    RuntimeOptions options;
    add_runtime_options(app, options, "host");
    std::vector<char*> args;
    for (auto& s : flags.rest) args.push_back(s.data());
    if (auto code = parse_command_line(app, static_cast<int>(args.size()), args.data()))
      return *code;

    Runtime runtime(options);
    stop_on_signals();
    md::Console console(runtime.rank(), log_file, screen_file);
    try {
      const int code = run(runtime, console, flags, input_file, echo, start);
      console.finish();
      return code;
    } catch (const std::exception& e) {
      // run_main prints the error; the log, published as the Console goes, records it too.
      try {
        console.log(std::string("ERROR: ") + e.what() + "\n");
      } catch (const std::exception&) {
        // The log itself failed: its error is the one run_main prints.
      }
      throw;
    }
  });
}
