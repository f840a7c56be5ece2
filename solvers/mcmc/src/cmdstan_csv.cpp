#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

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

// theta[1,2] -> theta.1.2, and back.
std::string dotted(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '[' || c == ',')
      out += '.';
    else if (c != ']' && c != ' ')
      out += c;
  }
  return out;
}

std::string bracketed(const std::string& name) {
  const std::size_t dot = name.find('.');
  if (dot == std::string::npos) return name;
  std::string out = name.substr(0, dot) + "[";
  for (std::size_t i = dot + 1; i < name.size(); ++i) out += name[i] == '.' ? ',' : name[i];
  return out + "]";
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

}  // namespace

std::string cmdstan_csv(const Draws& draws, int chain, const RunDescription& run) {
  const SamplerConfig& s = run.sampler;
  const bool hamiltonian = s.kind == SamplerKind::nuts || s.kind == SamplerKind::hmc;
  std::ostringstream out;
  out << "# model = " << run.model << "\n"
      << "# method = sample (Default)\n"
      << "#   sample\n"
      << "#     num_samples = " << s.draws << "\n"
      << "#     num_warmup = " << s.warmup << "\n"
      << "#     save_warmup = 0 (Default)\n"
      << "#     thin = 1 (Default)\n"
      << "#     adapt\n"
      << "#       engaged = " << (s.warmup > 0 ? 1 : 0) << "\n"
      << "#       delta = " << number(s.delta) << "\n"
      << "#       init_buffer = 75 (Default)\n"
      << "#       term_buffer = 50 (Default)\n"
      << "#       window = 25 (Default)\n"
      << "#     algorithm = " << (hamiltonian ? "hmc" : sampler_name(s.kind)) << "\n";
  if (hamiltonian) {
    out << "#       hmc\n"
        << "#         engine = " << (s.kind == SamplerKind::nuts ? "nuts" : "static") << "\n";
    if (s.kind == SamplerKind::nuts)
      out << "#           nuts\n#             max_depth = " << s.max_depth << "\n";
    else
      out << "#           static\n#             int_time = " << number(s.integration_time) << "\n";
    out << "#         metric = " << metric_name(s.metric)
        << (s.metric == Metric::diag_e ? " (Default)" : "") << "\n"
        << "#         stepsize = " << number(s.step_size) << "\n";
  }
  out << "#     num_chains = 1 (Default)\n"
      << "# id = " << chain + 1 << "\n"
      << "# data\n#   file = " << run.data_file << "\n"
      << "# init = " << number(s.init_radius) << "\n"
      << "# random\n#   seed = " << run.seed << "\n"
      << "# output\n#   sig_figs = -1 (shortest round-trip)\n"
      << "# stan_version_major = 2\n# stan_version_minor = 33\n# stan_version_patch = 0\n"
      << "# generator = tessera mcmc_ipu\n";
  for (std::size_t c = 0; c < draws.width(); ++c) out << (c ? "," : "") << dotted(draws.columns[c]);
  out << "\n";
  if (s.kind != SamplerKind::ensemble) {
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
  for (int d = 0; d < draws.draws; ++d) {
    for (std::size_t c = 0; c < draws.width(); ++c)
      out << (c ? "," : "") << number(draws.at(chain, d, c));
    out << "\n";
  }
  out << "# \n#  Elapsed Time: " << number(run.elapsed_seconds)
      << " seconds (Total, all chains)\n# \n";
  return out.str();
}

void write_cmdstan_csv(const std::string& path, const Draws& draws, int chain,
                       const RunDescription& run) {
  write_file_atomically(path, cmdstan_csv(draws, chain, run));
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
  while (std::getline(in, line)) {
    ++number_of_line;
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::string body = line.substr(1);
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
  return csv;
}

}  // namespace tessera::mcmc
