#include "tessera/mcmc/init.hpp"

#include <algorithm>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "tessera/core/error.hpp"
#include "tessera/core/json_file.hpp"

namespace tessera::mcmc {

namespace {

// A parameter of the block: its entries (indices into parameter_block_names()) and, for
// each, its 1-based indices (theta[3] -> {3}, w1[2,5] -> {2, 5}; a scalar has none).
struct Parameter {
  std::vector<std::size_t> entries;
  std::vector<std::vector<std::size_t>> indices;
};

std::string base_name(const std::string& name) { return name.substr(0, name.find('[')); }

std::vector<std::size_t> indices_of(const std::string& name) {
  std::vector<std::size_t> out;
  const std::size_t open = name.find('[');
  if (open == std::string::npos) return out;
  std::size_t at = open + 1;
  while (at < name.size()) {
    std::size_t end = at;
    while (end < name.size() && name[end] != ',' && name[end] != ']') ++end;
    out.push_back(static_cast<std::size_t>(std::stoul(name.substr(at, end - at))));
    at = end + 1;
  }
  return out;
}

// The parameters in the order of their first entry.
std::vector<std::pair<std::string, Parameter>> block_parameters(const Model& model) {
  std::vector<std::pair<std::string, Parameter>> out;
  std::map<std::string, std::size_t> position;
  const std::vector<std::string> names = model.parameter_block_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string base = base_name(names[i]);
    auto [it, fresh] = position.emplace(base, out.size());
    if (fresh) out.push_back({base, {}});
    Parameter& p = out[it->second].second;
    p.entries.push_back(i);
    p.indices.push_back(indices_of(names[i]));
  }
  return out;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A JSON value as CmdStan's JSON reader takes a number: a number, or the strings NaN, Inf,
// -Inf, Infinity and -Infinity.
std::optional<double> number_of(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Inf" || s == "Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Inf" || s == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

}  // namespace

InitialValues parse_initial_values(const nlohmann::json& json, const Model& model,
                                   const std::string& source) {
  const std::string where = "init file '" + source + "': ";
  if (!json.is_object())
    throw ConfigError(where +
                      "it must be a JSON object of parameter values by name, as "
                      "CmdStan's init files are");
  const auto parameters = block_parameters(model);
  std::vector<std::string> parameter_names;
  for (const auto& [name, p] : parameters) parameter_names.push_back(name);
  std::vector<std::string> reported;
  for (const std::string& n : model.parameter_names()) reported.push_back(base_name(n));

  InitialValues init;
  init.source = source;
  init.values.resize(model.parameter_block_names().size());
  for (const auto& item : json.items()) {
    const std::string& name = item.key();
    const auto it = std::find_if(parameters.begin(), parameters.end(),
                                 [&](const auto& p) { return p.first == name; });
    if (it != parameters.end()) continue;
    if (std::find(reported.begin(), reported.end(), name) != reported.end())
      throw ConfigError(where + "'" + name + "' is a derived quantity of " + model.name() +
                        ", not a parameter, and cannot be initialised; the parameters are " +
                        join(parameter_names));
    throw ConfigError(where + "'" + name + "' is not a parameter of " + model.name() +
                      "; the parameters are " + join(parameter_names));
  }
  for (const auto& [name, p] : parameters) {
    if (!json.contains(name)) {
      init.missing.push_back(name);
      continue;
    }
    const nlohmann::json& value = json.at(name);
    // The shape the names imply: the largest index in each position.
    std::vector<std::size_t> shape(p.indices[0].size(), 0);
    for (const auto& index : p.indices)
      for (std::size_t k = 0; k < index.size(); ++k) shape[k] = std::max(shape[k], index[k]);
    // What the names ask for from index position k on: "an array of 22 arrays of 40 numbers".
    auto expected = [&](std::size_t k) {
      if (k == shape.size()) return std::string("a number");
      std::string text = "an array of " + std::to_string(shape[k]);
      for (std::size_t j = k + 1; j < shape.size(); ++j)
        text += " arrays of " + std::to_string(shape[j]);
      return text + " numbers";
    };
    for (std::size_t e = 0; e < p.entries.size(); ++e) {
      const nlohmann::json* v = &value;
      std::string element;  // "2,5": the position reached
      for (std::size_t k = 0; k < p.indices[e].size(); ++k) {
        if (!v->is_array() || v->size() != shape[k]) {
          const std::string have =
              v->is_array() ? "an array of " + std::to_string(v->size()) : v->dump();
          throw ConfigError(where + "parameter '" + name + "'" +
                            (k == 0 ? "" : " element [" + element.substr(1) + "]") + " must be " +
                            expected(k) + ", not " + have);
        }
        v = &(*v)[p.indices[e][k] - 1];
        element.push_back(',');  // not "," + to_string(): GCC 12's false -Wrestrict
        element += std::to_string(p.indices[e][k]);
      }
      const std::optional<double> x = number_of(*v);
      if (!x)
        throw ConfigError(where + "parameter '" + name + "'" +
                          (element.empty() ? "" : " element [" + element.substr(1) + "]") +
                          " is not a number (" + v->dump() + ")");
      init.values[p.entries[e]] = *x;
    }
  }
  return init;
}

namespace {
const char* const kInitHint =
    "; --init takes a radius (a number >= 0) or a JSON file of initial values";
}

InitialValues read_init_file(const std::string& path, const Model& model) {
  return parse_initial_values(read_json_file(path, "init file", kInitHint), model, path);
}

InitialValues read_init_file(MPI_Comm comm, const std::string& path, const Model& model) {
  const nlohmann::json json = read_json_file(comm, path, "init file", kInitHint);
  try {
    return parse_initial_values(json, model, path);
  } catch (Error& e) {  // every rank parsed the same text
    e.set_collective();
    throw;
  }
}

Vector initial_point(const Model& model, const InitialValues& init, double radius, RngEngine& rng) {
  const std::string where = "init file '" + init.source + "': ";
  const bool random = !init.missing.empty();
  const Eigen::Index d = model.dimension();
  boost::random::uniform_real_distribution<double> u(-radius, radius);
  std::string last;
  for (int attempt = 0; attempt < (random ? 100 : 1); ++attempt) {
    std::vector<double> values(init.values.size(), 0.0);
    if (random) {
      // The missing parameters from a random point, as Stan's random inits draw them.
      Vector x0(d);
      for (Eigen::Index i = 0; i < d; ++i) x0[i] = radius > 0 ? u(rng) : 0.0;
      values = model.parameter_block_values(x0);
    }
    for (std::size_t i = 0; i < values.size(); ++i)
      if (init.values[i]) values[i] = *init.values[i];
    Vector x, g;
    try {
      x = model.unconstrain(values);
    } catch (const SupportError& e) {
      last = e.what();
      continue;
    }
    const double lp = model.log_density_gradient(x, g);
    if (std::isfinite(lp) && g.allFinite()) return x;
    last = std::isfinite(lp)
               ? "the gradient of the log density of " + model.name() +
                     " is not finite at the initial values"
               : "the log density of " + model.name() + " is " + std::to_string(lp) +
                     " at the initial values; give values where the density is positive";
  }
  throw ConfigError(where + last +
                    (random ? " (in 100 attempts with random values of " + join(init.missing) +
                                  ", which the file leaves out)"
                            : ""));
}

std::string missing_parameters_note(const InitialValues& init, double radius) {
  char r[32];
  std::snprintf(r, sizeof r, "%g", radius);
  return "init file '" + init.source + "' gives no value of " + join(init.missing) +
         "; as in CmdStan, they start at random values, uniform in (-" + r + ", " + r +
         ") on the unconstrained scale";
}

}  // namespace tessera::mcmc
