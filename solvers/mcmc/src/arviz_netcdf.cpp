// Written with netCDF-C's API (not the C++4 bindings the md and weather writers use): the
// C library is then all that tessera::mcmc needs, so an MCMC-only code that installs
// Tessera needs no netCDF-C++4.
#include <netcdf.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <vector>

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

// A netCDF-C status: NC_NOERR, or NcFailure with nc_strerror's text.
struct NcFailure {
  int status;
};

void check(int status) {
  if (status != NC_NOERR) throw NcFailure{status};
}

void put_text(int group, int variable, const char* name, const std::string& value) {
  check(nc_put_att_text(group, variable, name, value.size(), value.c_str()));
}

int define_var(int group, const std::string& name, nc_type type, const std::vector<int>& dims) {
  int id = 0;
  check(nc_def_var(group, name.c_str(), type, static_cast<int>(dims.size()), dims.data(), &id));
  return id;
}

// One group of draws: the kept sampling draws, or (warmup) the saved warm-up draws.
void write_group(int group, const Draws& draws, const std::vector<Group>& vars, bool stats,
                 bool warmup) {
  const int n = warmup ? draws.warmup_draws : draws.draws;
  const auto at = [&](int c, int d, std::size_t col) {
    return warmup ? draws.warmup_at(c, d, col) : draws.at(c, d, col);
  };
  int chain = 0, draw = 0;
  check(nc_def_dim(group, "chain", static_cast<std::size_t>(draws.chains), &chain));
  check(nc_def_dim(group, "draw", static_cast<std::size_t>(n), &draw));
  std::vector<long long> index(static_cast<std::size_t>(std::max(draws.chains, n)));
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = static_cast<long long>(i);
  check(nc_put_var_longlong(group, define_var(group, "chain", NC_INT64, {chain}), index.data()));
  check(nc_put_var_longlong(group, define_var(group, "draw", NC_INT64, {draw}), index.data()));
  char created[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%S", std::gmtime(&now));
  put_text(group, NC_GLOBAL, "created_at", created);
  put_text(group, NC_GLOBAL, "inference_library", "tessera.mcmc");
  for (const Group& g : vars) {
    std::string name = g.name;
    if (stats) {
      const auto it = arviz_names().find(draws.columns[g.columns[0]]);
      if (it != arviz_names().end()) name = it->second;
    }
    std::vector<int> dims{chain, draw};
    const std::size_t k = g.columns.size();
    if (g.vector) {
      int dim = 0;
      check(nc_def_dim(group, (g.name + "_dim_0").c_str(), k, &dim));
      dims.push_back(dim);
    }
    std::vector<double> values(static_cast<std::size_t>(draws.chains) *
                               static_cast<std::size_t>(n) * k);
    std::size_t i = 0;
    for (int c = 0; c < draws.chains; ++c)
      for (int d = 0; d < n; ++d)
        for (std::size_t col : g.columns) values[i++] = at(c, d, col);
    if (stats && (name == "diverging")) {
      std::vector<signed char> flags(values.size());
      for (std::size_t j = 0; j < values.size(); ++j) flags[j] = values[j] != 0 ? 1 : 0;
      const int v = define_var(group, name, NC_BYTE, dims);
      put_text(group, v, "dtype", "bool");  // xarray decodes int8 with dtype=bool as booleans
      check(nc_put_var_schar(group, v, flags.data()));
    } else if (stats && (name == "tree_depth" || name == "n_steps")) {
      std::vector<long long> ints(values.size());
      for (std::size_t j = 0; j < values.size(); ++j) ints[j] = static_cast<long long>(values[j]);
      check(nc_put_var_longlong(group, define_var(group, name, NC_INT64, dims), ints.data()));
    } else {
      check(nc_put_var_double(group, define_var(group, name, NC_DOUBLE, dims), values.data()));
    }
  }
}

int define_group(int parent, const char* name) {
  int id = 0;
  check(nc_def_grp(parent, name, &id));
  return id;
}

}  // namespace

void write_arviz_netcdf(AtomicFile& out, const Draws& draws, const RunDescription& run) {
  int file = -1;
  try {
    check(nc_create(out.partial().c_str(), NC_CLOBBER | NC_NETCDF4, &file));
    put_text(file, NC_GLOBAL, "model", run.model);
    put_text(file, NC_GLOBAL, "sampler", sampler_name(run.sampler.kind));
    put_text(file, NC_GLOBAL, "seed", std::to_string(run.seed));
    const int thin = run.sampler.thin;
    check(nc_put_att_int(file, NC_GLOBAL, "thin", NC_INT, 1, &thin));
    const std::vector<Group> parameters =
        group_columns(draws, static_cast<std::size_t>(draws.sampler_columns), draws.width());
    std::vector<Group> stats;
    for (std::size_t c = 0; c < static_cast<std::size_t>(draws.sampler_columns); ++c)
      stats.push_back({draws.columns[c], {c}, false});
    write_group(define_group(file, "posterior"), draws, parameters, false, false);
    write_group(define_group(file, "sample_stats"), draws, stats, true, false);
    // ArviZ's groups of the saved warm-up (from_cmdstan(save_warmup=True)).
    if (draws.warmup_draws > 0) {
      write_group(define_group(file, "warmup_posterior"), draws, parameters, false, true);
      write_group(define_group(file, "warmup_sample_stats"), draws, stats, true, true);
    }
    const int closed = nc_close(file);
    file = -1;
    check(closed);
  } catch (const NcFailure& e) {
    if (file >= 0) nc_close(file);
    out.fail("cannot write NetCDF file '" + out.path() + "'",
             diagnose_write_failure(out.path(), nc_strerror(e.status)));
  }
}

void write_arviz_netcdf(const std::string& path, const Draws& draws, const RunDescription& run) {
  const auto out = AtomicFile::by_name(path);
  write_arviz_netcdf(*out, draws, run);
  out->commit();
}

}  // namespace tessera::mcmc
