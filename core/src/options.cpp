#include "tessera/core/options.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/json_file.hpp"

namespace tessera {

void add_runtime_options(CLI::App& app, RuntimeOptions& o, const std::string& default_target) {
  o.target = default_target;
  auto* group = "Machine (Tessera runtime)";
  app.add_option("--target", o.target,
                 "Target preset (host, gc200, pod4, pod16, pod64, pod256) or JSON file")
      ->capture_default_str()
      ->group(group);
  app.add_option("--ipus", o.ipus, "Override the number of IPUs")
      ->check(CLI::PositiveNumber)
      ->group(group);
  app.add_option("--tiles-per-ipu", o.tiles_per_ipu, "Override the tiles per IPU")
      ->check(CLI::PositiveNumber)
      ->group(group);
  app.add_option("--tile-memory", o.tile_memory_bytes,
                 "Override the memory per tile (e.g. 4096, 624KiB)")
      ->transform(CLI::AsSizeValue(false))
      ->group(group);
  app.add_option("--threads", o.threads,
                 "Host threads per MPI rank (default: hardware threads / ranks)")
      ->check(CLI::PositiveNumber)
      ->group(group);
  app.add_option("--profile", o.profile_path, "Write the cost-model profile to this JSON file")
      ->group(group);
}

CLI::Option* require_finite(CLI::Option* option) {
  return option->check(CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || std::isfinite(value)) return {};
        return "Value " + text + " is not a finite number";
      },
      "FINITE"));
}

Target resolve_target(const RuntimeOptions& o, int threads, int processes, MPI_Comm comm) {
  Target t;
  const bool is_file =
      o.target.size() > 5 && o.target.compare(o.target.size() - 5, 5, ".json") == 0;
  if (is_file) {
    const nlohmann::json j = read_json_file(comm, o.target, "target file");
    if (!j.is_object() || !j.contains("base") || !j["base"].is_string())
      throw ConfigError(
          "target file '" + o.target +
          "' must be a JSON object with \"base\": a preset name, then the fields to change");
    t = Target::preset(j["base"].get<std::string>(), threads, processes);
    t.name = o.target;
    t.apply_overrides(j, "target file '" + o.target + "'");
  } else {
    t = Target::preset(o.target, threads, processes);
  }
  nlohmann::json cli = nlohmann::json::object();
  if (o.ipus) cli["ipus"] = *o.ipus;
  if (o.tiles_per_ipu) cli["tiles_per_ipu"] = *o.tiles_per_ipu;
  if (o.tile_memory_bytes) cli["tile_memory_bytes"] = *o.tile_memory_bytes;
  t.apply_overrides(cli, "command line");
  t.validate();
  return t;
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const bool help = e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success);
    if (rank == 0) {
      if (help)
        app.exit(e);
      else
        std::fprintf(stderr, "ERROR: %s\nRun with --help for the options.\n", e.what());
    }
    return help ? 0 : 1;
  }
}

int resolve_threads(const RuntimeOptions& o, MPI_Comm comm) {
  return o.threads > 0 ? o.threads : default_threads(comm);
}

}  // namespace tessera
