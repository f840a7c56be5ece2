#include <cstdio>
#include <ctime>
#include <map>
#include <netcdf>

#include "tessera/core/atomic_file.hpp"
#include "tessera/core/error.hpp"
#include "tessera/mcmc/output.hpp"

namespace tessera::mcmc {

namespace {

// ArviZ's names for Stan's sampler columns (arviz/data/io_cmdstan.py).
const std::map<std::string, std::string>& arviz_names() {
  static const std::map<std::string, std::string> names{{"lp__", "lp"},
                                                        {"accept_stat__", "acceptance_rate"},
                                                        {"stepsize__", "step_size"},
                                                        {"treedepth__", "tree_depth"},
                                                        {"n_leapfrog__", "n_steps"},
                                                        {"divergent__", "diverging"},
                                                        {"energy__", "energy"},
                                                        {"int_time__", "int_time"}};
  return names;
}

// A variable of the file: its name, its columns in the draws (in index order), and
// whether it is a vector (theta[1], theta[2], ...) or a scalar.
struct Group {
  std::string name;
  std::vector<std::size_t> columns;
  bool vector = false;
};

std::vector<Group> group_columns(const Draws& draws, std::size_t first, std::size_t last) {
  std::vector<Group> groups;
  for (std::size_t c = first; c < last; ++c) {
    const std::string& full = draws.columns[c];
    const std::size_t bracket = full.find('[');
    const std::string base = bracket == std::string::npos ? full : full.substr(0, bracket);
    if (!groups.empty() && groups.back().vector && bracket != std::string::npos &&
        groups.back().name == base) {
      groups.back().columns.push_back(c);
      continue;
    }
    groups.push_back({base, {c}, bracket != std::string::npos});
  }
  return groups;
}

// One group of draws: the kept sampling draws, or (warmup) the saved warm-up draws.
void write_group(netCDF::NcGroup group, const Draws& draws, const std::vector<Group>& vars,
                 bool stats, bool warmup) {
  using namespace netCDF;
  const int n = warmup ? draws.warmup_draws : draws.draws;
  const auto at = [&](int c, int d, std::size_t col) {
    return warmup ? draws.warmup_at(c, d, col) : draws.at(c, d, col);
  };
  const NcDim chain = group.addDim("chain", static_cast<std::size_t>(draws.chains));
  const NcDim draw = group.addDim("draw", static_cast<std::size_t>(n));
  std::vector<long long> index(static_cast<std::size_t>(std::max(draws.chains, n)));
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = static_cast<long long>(i);
  group.addVar("chain", ncInt64, chain).putVar(index.data());
  group.addVar("draw", ncInt64, draw).putVar(index.data());
  char created[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%S", std::gmtime(&now));
  group.putAtt("created_at", created);
  group.putAtt("inference_library", "tessera.mcmc");
  for (const Group& g : vars) {
    std::string name = g.name;
    if (stats) {
      const auto it = arviz_names().find(draws.columns[g.columns[0]]);
      if (it != arviz_names().end()) name = it->second;
    }
    std::vector<NcDim> dims{chain, draw};
    const std::size_t k = g.columns.size();
    if (g.vector) dims.push_back(group.addDim(g.name + "_dim_0", k));
    std::vector<double> values(static_cast<std::size_t>(draws.chains) *
                               static_cast<std::size_t>(n) * k);
    std::size_t i = 0;
    for (int c = 0; c < draws.chains; ++c)
      for (int d = 0; d < n; ++d)
        for (std::size_t col : g.columns) values[i++] = at(c, d, col);
    if (stats && (name == "diverging")) {
      std::vector<signed char> flags(values.size());
      for (std::size_t j = 0; j < values.size(); ++j) flags[j] = values[j] != 0 ? 1 : 0;
      NcVar v = group.addVar(name, ncByte, dims);
      v.putAtt("dtype", "bool");  // xarray decodes int8 with dtype=bool as booleans
      v.putVar(flags.data());
    } else if (stats && (name == "tree_depth" || name == "n_steps")) {
      std::vector<long long> ints(values.size());
      for (std::size_t j = 0; j < values.size(); ++j) ints[j] = static_cast<long long>(values[j]);
      group.addVar(name, ncInt64, dims).putVar(ints.data());
    } else {
      group.addVar(name, ncDouble, dims).putVar(values.data());
    }
  }
}

}  // namespace

void write_arviz_netcdf(const std::string& path, const Draws& draws, const RunDescription& run) {
  const std::string temporary = partial_path(path);
  try {
    netCDF::NcFile file(temporary, netCDF::NcFile::replace, netCDF::NcFile::nc4);
    file.putAtt("model", run.model);
    file.putAtt("sampler", sampler_name(run.sampler.kind));
    file.putAtt("seed", std::to_string(run.seed));
    file.putAtt("thin", netCDF::ncInt, run.sampler.thin);
    const std::vector<Group> parameters =
        group_columns(draws, static_cast<std::size_t>(draws.sampler_columns), draws.width());
    std::vector<Group> stats;
    for (std::size_t c = 0; c < static_cast<std::size_t>(draws.sampler_columns); ++c)
      stats.push_back({draws.columns[c], {c}, false});
    write_group(file.addGroup("posterior"), draws, parameters, false, false);
    write_group(file.addGroup("sample_stats"), draws, stats, true, false);
    // ArviZ's groups of the saved warm-up (from_cmdstan(save_warmup=True)).
    if (draws.warmup_draws > 0) {
      write_group(file.addGroup("warmup_posterior"), draws, parameters, false, true);
      write_group(file.addGroup("warmup_sample_stats"), draws, stats, true, true);
    }
  } catch (const netCDF::exceptions::NcException& e) {
    std::remove(temporary.c_str());
    throw Error("cannot write NetCDF file '" + path + "': " + e.what());
  }
  try {
    publish(path);
  } catch (const Error&) {
    std::remove(temporary.c_str());
    throw;
  }
}

}  // namespace tessera::mcmc
