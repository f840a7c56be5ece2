#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include "stan_names.hpp"
#include "tessera/core/atomic_file.hpp"
#include "tessera/core/error.hpp"
#include "tessera/mcmc/output.hpp"

namespace tessera::mcmc {

namespace {

std::string number(double v) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
  std::string s(buffer, result.ptr);
  if (s == "inf") return "inf";
  if (s == "-inf") return "-inf";
  return s;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// Stan's timing figure: whole milliseconds (Stan's duration_cast) in seconds, in the
// stream's default format, as stan::services::util::mcmc_writer::write_timing prints it.
std::string elapsed(double seconds) {
  std::ostringstream out;
  out << std::floor(std::max(seconds, 0.0) * 1000.0) / 1000.0;
  return out.str();
}

// The fixed acceptance target of rwm's scale (and so of pt's replicas), as chain_sampler.cpp
// sets it: Roberts, Gelman & Gilks' 0.234, or 0.44 in one dimension.
double random_walk_target(const Draws& draws) {
  const int parameters =
      static_cast<int>(draws.inverse_metric.empty() ? 0 : draws.inverse_metric.front().size());
  return parameters == 1 ? 0.44 : 0.234;
}

void write_row(std::ostringstream& out, const Draws& draws, bool warmup, int chain, int d) {
  for (std::size_t c = 0; c < draws.width(); ++c)
    out << (c ? "," : "") << number(warmup ? draws.warmup_at(chain, d, c) : draws.at(chain, d, c));
  out << "\n";
}

}  // namespace

std::string cmdstan_csv(const Draws& draws, int chain, const RunDescription& run) {
  const SamplerConfig& s = run.sampler;
  const bool hamiltonian = s.kind == SamplerKind::nuts || s.kind == SamplerKind::hmc;
  const bool simple = hamiltonian && s.step_adaptation == StepAdaptation::simple;
  const bool adapts = s.kind != SamplerKind::ensemble;  // the ensemble has no adaptation
  auto defaulted = [](bool is_default) { return is_default ? " (Default)" : ""; };
  std::ostringstream out;
  out << "# model = " << run.model << "\n"
      << "# method = sample (Default)\n"
      << "#   sample\n"
      << "#     num_samples = " << s.draws << defaulted(s.draws == 1000) << "\n"
      << "#     num_warmup = " << s.warmup << defaulted(s.warmup == 1000) << "\n"
      << "#     save_warmup = " << (s.save_warmup ? 1 : 0) << defaulted(!s.save_warmup) << "\n"
      << "#     thin = " << s.thin << defaulted(s.thin == 1) << "\n"
      << "#     adapt\n"
      << "#       engaged = " << (adapts && s.warmup > 0 ? 1 : 0) << "\n";
  if (adapts) {
    // rwm and pt tune their proposal scale towards a fixed target, not --delta.
    const double delta = hamiltonian ? s.delta : random_walk_target(draws);
    out << "#       delta = " << number(delta) << "\n";
    if (simple)
      out << "#       step_adaptation = simple\n";  // TFP's policy: no metric windows
    else
      out << "#       init_buffer = 75 (Default)\n"
          << "#       term_buffer = 50 (Default)\n"
          << "#       window = 25 (Default)\n";
  }
  out << "#     algorithm = " << (hamiltonian ? "hmc (Default)" : sampler_name(s.kind)) << "\n";
  if (hamiltonian) {
    const bool nuts = s.kind == SamplerKind::nuts;
    out << "#       hmc\n"
        << "#         engine = " << (nuts ? "nuts (Default)" : "static") << "\n";
    if (nuts)
      out << "#           nuts\n#             max_depth = " << s.max_depth
          << defaulted(s.max_depth == 10) << "\n";
    else if (s.leapfrog_steps > 0)  // a fixed L: the integration time follows the step size
      out << "#           static\n#             leapfrog_steps = " << s.leapfrog_steps << "\n";
    else {
      out << "#           static\n#             int_time = " << number(s.integration_time) << "\n";
      // Tessera's bound on one transition's work; CmdStan has none, so only a changed one shows.
      if (s.max_leapfrog_steps != SamplerConfig{}.max_leapfrog_steps)
        out << "#             max_leapfrog_steps = " << s.max_leapfrog_steps << "\n";
    }
    // TFP's policy keeps the unit metric (Stan's unit_e).
    const std::string metric = simple ? "unit_e" : metric_name(s.metric);
    out << "#         metric = " << metric << defaulted(metric == "diag_e") << "\n"
        << "#         stepsize = " << number(s.step_size) << defaulted(s.step_size == 1.0) << "\n"
        << "#         stepsize_jitter = " << number(s.step_size_jitter)
        << defaulted(s.step_size_jitter == 0.0) << "\n";
  } else if (s.kind == SamplerKind::ensemble) {
    out << "#       ensemble\n#         stretch_scale = " << number(s.stretch_scale) << "\n";
  } else if (s.kind == SamplerKind::pt) {
    out << "#       pt\n#         temperatures = " << s.temperatures
        << "\n#         max_temperature = " << number(s.max_temperature) << "\n";
  }
  out << "#     num_chains = 1 (Default)\n"
      << "# id = " << chain + 1 << "\n"
      << "# data\n#   file = " << run.data_file << defaulted(run.data_file.empty()) << "\n"
      << "# init = "
      << (run.init_file.empty() ? number(s.init_radius) + defaulted(s.init_radius == 2.0)
                                : run.init_file)
      << "\n"
      << "# random\n#   seed = " << run.seed << "\n"
      << "# output\n#   sig_figs = -1 (shortest round-trip)\n"
      << "# stan_version_major = 2\n# stan_version_minor = 33\n# stan_version_patch = 0\n"
      << "# generator = tessera mcmc_ipu\n";
  for (std::size_t c = 0; c < draws.width(); ++c) out << (c ? "," : "") << dotted(draws.columns[c]);
  out << "\n";
  for (int d = 0; d < draws.warmup_draws; ++d) write_row(out, draws, true, chain, d);
  if (adapts) {
    const auto uc = static_cast<std::size_t>(chain);
    const std::vector<double>& metric = draws.inverse_metric[uc];
    out << "# Adaptation terminated\n# Step size = " << number(draws.step_size[uc]) << "\n";
    if (s.metric == Metric::dense_e && hamiltonian) {
      // CmdStan's dense layout: one comment row per matrix row (symmetric, so the
      // column-major storage reads the same).
      // d unconstrained coordinates (the CSV may hold more columns: transformed parameters).
      const auto d = static_cast<std::size_t>(std::lround(std::sqrt(metric.size())));
      out << "# Elements of inverse mass matrix:\n";
      for (std::size_t i = 0; i < d; ++i) {
        out << "# ";
        for (std::size_t j = 0; j < d; ++j) out << (j ? ", " : "") << number(metric[i * d + j]);
        out << "\n";
      }
    } else {
      out << "# Diagonal elements of inverse mass matrix:\n# ";
      for (std::size_t i = 0; i < metric.size(); ++i) out << (i ? ", " : "") << number(metric[i]);
      out << "\n";
    }
  }
  for (int d = 0; d < draws.draws; ++d) write_row(out, draws, false, chain, d);
  // Stan's trailer (mcmc_writer::write_timing); the total is the sum of the rounded phases.
  // The chains share the run's phases (see Draws::warmup_seconds).
  const std::string title = " Elapsed Time: ", indent(title.size(), ' ');
  const double warm = std::stod(elapsed(draws.warmup_seconds)),
               sampling = std::stod(elapsed(draws.sampling_seconds));
  std::ostringstream total;
  total << warm + sampling;
  // Stan's sample writer puts "# " before each message and before an empty one.
  out << "# \n"
      << "# " << title << elapsed(draws.warmup_seconds) << " seconds (Warm-up)\n"
      << "# " << indent << elapsed(draws.sampling_seconds) << " seconds (Sampling)\n"
      << "# " << indent << total.str() << " seconds (Total)\n"
      << "# \n";
  return out.str();
}

void write_cmdstan_csv(const std::string& path, const Draws& draws, int chain,
                       const RunDescription& run) {
  write_file_atomically(path, cmdstan_csv(draws, chain, run));
}

std::vector<std::string> output_paths(const std::string& prefix, int chains,
                                      const OutputFormats& formats) {
  std::vector<std::string> paths;
  if (formats.csv)
    for (int c = 1; c <= chains; ++c) paths.push_back(prefix + "_" + std::to_string(c) + ".csv");
  if (formats.netcdf) paths.push_back(prefix + ".nc");
  return paths;
}

void check_outputs(const std::string& prefix, int chains, const OutputFormats& formats) {
  for (const std::string& path : output_paths(prefix, chains, formats)) check_output_path(path);
}

std::vector<std::string> write_outputs(const std::string& prefix, const Draws& draws,
                                       const RunDescription& run, const OutputFormats& formats) {
  std::vector<std::unique_ptr<AtomicFile>> files;
  if (formats.csv)
    for (int c = 0; c < draws.chains; ++c) {
      files.push_back(std::make_unique<AtomicFile>(prefix + "_" + std::to_string(c + 1) + ".csv"));
      files.back()->write(cmdstan_csv(draws, c, run));
    }
  if (formats.netcdf) {
    files.push_back(AtomicFile::by_name(prefix + ".nc"));
    write_arviz_netcdf(*files.back(), draws, run);
  }
  std::vector<AtomicFile*> all;
  std::vector<std::string> paths;
  for (const auto& f : files) {
    all.push_back(f.get());
    paths.push_back(f->path());
  }
  AtomicFile::commit_together(all);
  return paths;
}

CmdStanCsv read_cmdstan_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw FormatError("cannot open CmdStan CSV file '" + path + "'");
  CmdStanCsv csv;
  std::string line;
  int number_of_line = 0;
  bool metric_next = false, metric_rows = false;
  auto fail = [&](const std::string& what) -> FormatError {
    return FormatError("CmdStan CSV file '" + path + "', line " + std::to_string(number_of_line) +
                       ": " + what);
  };
  auto parse = [&](const std::string& field) {
    const std::string f = field.find_first_not_of(' ') == std::string::npos
                              ? field
                              : field.substr(field.find_first_not_of(' '));
    if (f == "inf") return std::numeric_limits<double>::infinity();
    if (f == "-inf") return -std::numeric_limits<double>::infinity();
    double v = 0;
    const auto r = std::from_chars(f.data(), f.data() + f.size(), v);
    if (r.ec != std::errc() || r.ptr != f.data() + f.size())
      throw fail("'" + field + "' is not a number");
    return v;
  };
  // Stan's trailer: "#  Elapsed Time: X seconds (Warm-up)", "#   Y seconds (Sampling)".
  auto seconds = [&](const std::string& body, const std::string& phase) {
    std::string figure = body.substr(0, body.find(" seconds (" + phase + ")"));
    if (const std::size_t colon = figure.find(':'); colon != std::string::npos)
      figure.erase(0, colon + 1);
    return parse(figure);
  };
  bool adaptation_seen = false;
  std::size_t rows_before_adaptation = 0;
  while (std::getline(in, line)) {
    ++number_of_line;
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::string body = line.substr(1);
      if (body.find(" seconds (Warm-up)") != std::string::npos) {
        csv.warmup_seconds = seconds(body, "Warm-up");
        continue;
      }
      if (body.find(" seconds (Sampling)") != std::string::npos) {
        csv.sampling_seconds = seconds(body, "Sampling");
        continue;
      }
      if (body.find("Adaptation terminated") != std::string::npos) {
        adaptation_seen = true;
        rows_before_adaptation = csv.rows.size();
        continue;
      }
      if (metric_next) {
        for (const std::string& f : split(body)) csv.inverse_metric.push_back(parse(f));
        // The diagonal takes one row; a dense metric takes rows until the draws begin.
        metric_next = metric_rows;
        continue;
      }
      if (body.find("Diagonal elements of inverse mass matrix") != std::string::npos ||
          body.find("Elements of inverse mass matrix") != std::string::npos) {
        metric_next = true;
        metric_rows = body.find("Diagonal") == std::string::npos;
        continue;
      }
      const std::size_t eq = body.find(" = ");
      if (eq == std::string::npos) continue;
      std::string key = body.substr(0, eq);
      key.erase(0, key.find_first_not_of(' '));
      std::string value = body.substr(eq + 3);
      if (const std::size_t d = value.find(" (Default)"); d != std::string::npos) value.erase(d);
      if (key == "Step size")
        csv.step_size = parse(value);
      else
        csv.settings[key] = value;
      continue;
    }
    metric_next = false;
    if (csv.columns.empty()) {
      for (const std::string& name : split(line)) csv.columns.push_back(bracketed(name));
      if (csv.columns.empty() || csv.columns[0] != "lp__")
        throw fail("the header must start with lp__");
      continue;
    }
    std::vector<double> row;
    for (const std::string& f : split(line)) row.push_back(parse(f));
    if (row.size() != csv.columns.size())
      throw fail("a row of " + std::to_string(row.size()) + " values under a header of " +
                 std::to_string(csv.columns.size()) + " columns");
    csv.rows.push_back(std::move(row));
  }
  if (csv.columns.empty()) throw FormatError("CmdStan CSV file '" + path + "' has no header row");
  // The saved warm-up (save_warmup = 1) is the first 1 + (num_warmup - 1) / thin rows, before
  // the adaptation block where there is one.
  auto setting = [&](const std::string& key, int otherwise) {
    const auto it = csv.settings.find(key);
    if (it == csv.settings.end()) return otherwise;
    try {
      return std::stoi(it->second);
    } catch (const std::exception&) {
      throw FormatError("CmdStan CSV file '" + path + "': " + key + " = '" + it->second +
                        "' is not an integer");
    }
  };
  const int thin = setting("thin", 1);
  const std::size_t warmup_rows =
      setting("save_warmup", 0) == 1 && thin >= 1
          ? static_cast<std::size_t>(kept_iterations(setting("num_warmup", 0), thin))
          : 0;
  if (warmup_rows > csv.rows.size() || (adaptation_seen && rows_before_adaptation != warmup_rows))
    throw FormatError("CmdStan CSV file '" + path + "': " +
                      std::to_string(adaptation_seen ? rows_before_adaptation : csv.rows.size()) +
                      " rows before the draws, but num_warmup, save_warmup and thin ask for " +
                      std::to_string(warmup_rows) + " saved warm-up rows");
  csv.warmup_rows.assign(csv.rows.begin(),
                         csv.rows.begin() + static_cast<std::ptrdiff_t>(warmup_rows));
  csv.rows.erase(csv.rows.begin(), csv.rows.begin() + static_cast<std::ptrdiff_t>(warmup_rows));
  return csv;
}

}  // namespace tessera::mcmc
