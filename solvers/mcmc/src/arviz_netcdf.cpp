// Written with netCDF-C's API (not the C++4 bindings the md and weather writers use): the
// C library is then all that tessera::mcmc needs, so an MCMC-only code that installs
// Tessera needs no netCDF-C++4.
#include <netcdf.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <utility>
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

// A variable of the file: its name, its shape beyond (chain, draw), and the column of the
// draws that holds each element, in row-major order.
struct Variable {
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<std::size_t> columns;
};

// "theta[2,3]" -> ("theta", {2, 3}); "mu" -> ("mu", {}). Indices are 1-based.
std::pair<std::string, std::vector<std::size_t>> split_name(const std::string& full) {
  const std::size_t bracket = full.find('[');
  if (bracket == std::string::npos || full.back() != ']') return {full, {}};
  std::vector<std::size_t> indices;
  std::size_t at = bracket + 1;
  while (at < full.size() - 1) {
    std::size_t next = full.find(',', at);
    if (next == std::string::npos) next = full.size() - 1;
    try {
      indices.push_back(std::stoul(full.substr(at, next - at)));
    } catch (const std::exception&) {
      return {full, {}};  // not Stan's index form: a scalar of that name
    }
    at = next + 1;
  }
  return {full.substr(0, bracket), indices};
}

// Consecutive columns of one base name form a variable; its shape is the largest index in
// each position. Names that do not fill that shape exactly once each (a model's own names,
// never Stan's) make a vector in column order.
std::vector<Variable> variables_of(const Draws& draws, std::size_t first, std::size_t last) {
  std::vector<Variable> vars;
  std::size_t c = first;
  while (c < last) {
    const auto [base, head] = split_name(draws.columns[c]);
    std::vector<std::vector<std::size_t>> indices{head};
    std::size_t end = c + 1;
    while (!head.empty() && end < last) {
      auto [next_base, next] = split_name(draws.columns[end]);
      if (next_base != base || next.size() != head.size()) break;
      indices.push_back(std::move(next));
      ++end;
    }
    Variable v{base, std::vector<std::size_t>(head.size(), 0), {}};
    for (const auto& index : indices)
      for (std::size_t k = 0; k < index.size(); ++k) v.shape[k] = std::max(v.shape[k], index[k]);
    std::size_t elements = 1;
    for (std::size_t n : v.shape) elements *= n;
    constexpr std::size_t unset = static_cast<std::size_t>(-1);
    v.columns.assign(elements, unset);
    bool exact = elements == indices.size();
    for (std::size_t i = 0; exact && i < indices.size(); ++i) {
      std::size_t offset = 0;
      for (std::size_t k = 0; k < v.shape.size(); ++k) {
        exact = exact && indices[i][k] >= 1;
        offset = offset * v.shape[k] + (indices[i][k] - 1);
      }
      exact = exact && v.columns[offset] == unset;
      if (exact) v.columns[offset] = c + i;
    }
    if (!exact) {
      v.shape = {indices.size()};
      v.columns.resize(indices.size());
      for (std::size_t i = 0; i < indices.size(); ++i) v.columns[i] = c + i;
    }
    vars.push_back(std::move(v));
    c = end;
  }
  return vars;
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

void put_created(int group) {
  char created[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%S", std::gmtime(&now));
  put_text(group, NC_GLOBAL, "created_at", created);
  put_text(group, NC_GLOBAL, "inference_library", "tessera.mcmc");
}

// The dimensions name_dim_0, name_dim_1, ... of a variable of `shape`, after `leading`.
std::vector<int> define_dims(int group, const std::string& name,
                             const std::vector<std::size_t>& shape, std::vector<int> leading) {
  for (std::size_t k = 0; k < shape.size(); ++k) {
    int dim = 0;
    check(nc_def_dim(group, (name + "_dim_" + std::to_string(k)).c_str(), shape[k], &dim));
    leading.push_back(dim);
  }
  return leading;
}

// One group of draws: the kept sampling draws, or (warmup) the saved warm-up draws.
void write_group(int group, const Draws& draws, const std::vector<Variable>& vars, bool stats,
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
  put_created(group);
  for (const Variable& v : vars) {
    std::string name = v.name;
    if (stats) {
      const auto it = arviz_names().find(draws.columns[v.columns[0]]);
      if (it != arviz_names().end()) name = it->second;
    }
    const std::vector<int> dims = define_dims(group, name, v.shape, {chain, draw});
    std::vector<double> values(static_cast<std::size_t>(draws.chains) *
                               static_cast<std::size_t>(n) * v.columns.size());
    std::size_t i = 0;
    for (int c = 0; c < draws.chains; ++c)
      for (int d = 0; d < n; ++d)
        for (std::size_t col : v.columns) values[i++] = at(c, d, col);
    if (stats && (name == "diverging")) {
      std::vector<signed char> flags(values.size());
      for (std::size_t j = 0; j < values.size(); ++j) flags[j] = values[j] != 0 ? 1 : 0;
      const int id = define_var(group, name, NC_BYTE, dims);
      put_text(group, id, "dtype", "bool");  // xarray decodes int8 with dtype=bool as booleans
      check(nc_put_var_schar(group, id, flags.data()));
    } else if (stats && (name == "tree_depth" || name == "n_steps")) {
      std::vector<long long> ints(values.size());
      for (std::size_t j = 0; j < values.size(); ++j) ints[j] = static_cast<long long>(values[j]);
      check(nc_put_var_longlong(group, define_var(group, name, NC_INT64, dims), ints.data()));
    } else {
      check(nc_put_var_double(group, define_var(group, name, NC_DOUBLE, dims), values.data()));
    }
  }
}

void write_observed(int group, const std::map<std::string, ObservedArray>& observed) {
  put_created(group);
  for (const auto& [name, array] : observed) {
    const std::vector<int> dims = define_dims(group, name, array.shape, {});
    if (array.integer) {
      std::vector<long long> ints(array.values.begin(), array.values.end());
      check(nc_put_var_longlong(group, define_var(group, name, NC_INT64, dims), ints.data()));
    } else {
      check(
          nc_put_var_double(group, define_var(group, name, NC_DOUBLE, dims), array.values.data()));
    }
  }
}

int define_group(int parent, const char* name) {
  int id = 0;
  check(nc_def_grp(parent, name, &id));
  return id;
}

// The model's variables by group: those `groups` name (renamed) and the rest in posterior.
struct Placed {
  std::vector<Variable> posterior, posterior_predictive, log_likelihood;
};
Placed place(std::vector<Variable> vars, const ArvizGroups& groups) {
  Placed placed;
  std::vector<bool> taken(vars.size(), false);
  const auto take = [&](const std::vector<GroupedVariable>& wanted, std::vector<Variable>& into) {
    for (const GroupedVariable& g : wanted) {
      const auto it = std::find_if(vars.begin(), vars.end(),
                                   [&](const Variable& v) { return v.name == g.quantity; });
      if (it == vars.end())
        throw Error("the draws have no quantity '" + g.quantity + "' for the NetCDF group of '" +
                    g.name + "'");
      taken[static_cast<std::size_t>(it - vars.begin())] = true;
      into.push_back(*it);
      into.back().name = g.name;
    }
  };
  take(groups.posterior_predictive, placed.posterior_predictive);
  take(groups.log_likelihood, placed.log_likelihood);
  for (std::size_t i = 0; i < vars.size(); ++i)
    if (!taken[i]) placed.posterior.push_back(std::move(vars[i]));
  return placed;
}

// A number or a rectangular array of numbers from the data, row-major.
void flatten(const nlohmann::json& value, std::size_t depth, ObservedArray& out,
             const std::string& where) {
  if (value.is_number()) {
    if (depth != out.shape.size()) throw FormatError(where + " is not a rectangular array");
    out.integer = out.integer && value.is_number_integer();
    out.values.push_back(value.get<double>());
    return;
  }
  if (!value.is_array()) throw FormatError(where + " holds a value that is not a number");
  if (depth == out.shape.size()) {
    if (!out.values.empty()) throw FormatError(where + " is not a rectangular array");
    out.shape.push_back(value.size());
  } else if (depth > out.shape.size() || out.shape[depth] != value.size()) {
    throw FormatError(where + " is not a rectangular array");
  }
  for (const nlohmann::json& element : value) flatten(element, depth + 1, out, where);
}

}  // namespace

ArvizGroups arviz_groups(const std::vector<std::string>& posterior_predictive,
                         const std::vector<std::string>& log_likelihood,
                         const std::vector<std::string>& columns, const nlohmann::json& data,
                         const std::string& source) {
  std::vector<std::string> quantities;
  for (const std::string& column : columns) {
    const std::string base = split_name(column).first;
    if (quantities.empty() || quantities.back() != base) quantities.push_back(base);
  }
  const auto has = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  ArvizGroups groups;
  std::vector<std::string> used;
  const auto read = [&](const std::vector<std::string>& specs, const std::string& option,
                        std::vector<GroupedVariable>& into) {
    for (const std::string& spec : specs) {
      const std::size_t equals = spec.find('=');
      GroupedVariable v{spec.substr(0, equals),
                        equals == std::string::npos ? spec : spec.substr(equals + 1)};
      const std::string where = option + " " + spec;
      if (v.name.empty() || v.quantity.empty())
        throw ConfigError(where + ": give QUANTITY or OBSERVED=QUANTITY");
      if (!has(quantities, v.quantity)) {
        std::string known;
        for (const std::string& q : quantities) known += (known.empty() ? "" : ", ") + q;
        throw ConfigError(where + ": the model has no quantity '" + v.quantity + "' (it reports " +
                          known + ")");
      }
      if (has(used, v.quantity))
        throw ConfigError(where + ": '" + v.quantity + "' is already in a group");
      for (const GroupedVariable& earlier : into)
        if (earlier.name == v.name)
          throw ConfigError(where + ": the group already has a variable '" + v.name + "'");
      used.push_back(v.quantity);
      if (equals != std::string::npos && !groups.observed_data.count(v.name)) {
        if (!data.is_object() || !data.contains(v.name))
          throw FormatError(source + ": no '" + v.name + "' in the data, named by " + where);
        ObservedArray array;
        array.integer = true;
        flatten(data.at(v.name), 0, array, source + ": '" + v.name + "'");
        groups.observed_data.emplace(v.name, std::move(array));
      }
      into.push_back(std::move(v));
    }
  };
  read(posterior_predictive, "--posterior-predictive", groups.posterior_predictive);
  if (log_likelihood.empty() && has(quantities, "log_lik") && !has(used, "log_lik"))
    groups.log_likelihood.push_back({"log_lik", "log_lik"});
  else
    read(log_likelihood, "--log-likelihood", groups.log_likelihood);
  return groups;
}

void write_arviz_netcdf(AtomicFile& out, const Draws& draws, const RunDescription& run) {
  // Placed before the file is opened: a group naming a quantity the draws lack leaves no file.
  const Placed placed =
      place(variables_of(draws, static_cast<std::size_t>(draws.sampler_columns), draws.width()),
            run.groups);
  int file = -1;
  try {
    check(nc_create(out.partial().c_str(), NC_CLOBBER | NC_NETCDF4, &file));
    put_text(file, NC_GLOBAL, "model", run.model);
    put_text(file, NC_GLOBAL, "sampler", sampler_name(run.sampler.kind));
    put_text(file, NC_GLOBAL, "seed", std::to_string(run.seed));
    const int thin = run.sampler.thin;
    check(nc_put_att_int(file, NC_GLOBAL, "thin", NC_INT, 1, &thin));
    std::vector<Variable> stats;
    for (std::size_t c = 0; c < static_cast<std::size_t>(draws.sampler_columns); ++c)
      stats.push_back({draws.columns[c], {}, {c}});
    // ArviZ's group names, and those of the saved warm-up (from_cmdstan(save_warmup=True)).
    const std::vector<std::pair<std::string, const std::vector<Variable>*>> groups{
        {"posterior", &placed.posterior},
        {"posterior_predictive", &placed.posterior_predictive},
        {"log_likelihood", &placed.log_likelihood},
        {"sample_stats", &stats}};
    for (const bool warmup : {false, true}) {
      if (warmup && draws.warmup_draws == 0) continue;
      for (const auto& [name, vars] : groups)
        if (!vars->empty() || name == "posterior")
          write_group(define_group(file, ((warmup ? "warmup_" : "") + name).c_str()), draws, *vars,
                      name == "sample_stats", warmup);
    }
    if (!run.groups.observed_data.empty())
      write_observed(define_group(file, "observed_data"), run.groups.observed_data);
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
