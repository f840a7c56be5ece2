#include "tessera/weather/checkpoint.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numbers>

#include "tessera/core/isolated_call.hpp"
#include "tessera/weather/same_input.hpp"

namespace tessera::weather {

namespace {

// Every variable a checkpoint may hold: the exact-state variables and their leapfrog levels.
const char* const kAll[] = {
    "h",           "u_face",     "v_face",          "tracer_mass",     "ps",
    "T",           "h_previous", "u_face_previous", "v_face_previous", "tracer_mass_previous",
    "ps_previous", "T_previous"};

std::string previous_of(const std::string& variable) { return variable + "_previous"; }

// The shortest of %.15g, %.16g and %.17g that gives v back.
std::string number(double v) {
  char text[32];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v || std::isnan(v)) break;
  }
  return text;
}

// A hash of the checkpoint's content (splitmix64 steps over every bit pattern).
class Hash {
 public:
  void add(std::uint64_t x) {
    h_ ^= x + 0x9e3779b97f4a7c15ULL + (h_ << 6) + (h_ >> 2);
    h_ = mix(h_);
  }
  void add(double v) { add(std::bit_cast<std::uint64_t>(v)); }
  void add(const std::string& s) {
    add(static_cast<std::uint64_t>(s.size()));
    for (unsigned char c : s) add(static_cast<std::uint64_t>(c));
  }
  void add(const std::vector<double>& values) {
    add(static_cast<std::uint64_t>(values.size()));
    for (double v : values) add(v);
  }
  std::string hex() const {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h_));
    return text;
  }

 private:
  static std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  std::uint64_t h_ = 0x243f6a8885a308d3ULL;
};

// The first cell of `values` that is not finite (or, for a depth, not positive), if any.
std::optional<std::size_t> first_bad(const std::vector<double>& values, bool positive) {
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k]) || (positive && !(values[k] > 0))) return k;
  return std::nullopt;
}

void check_values(const std::string& path, const CheckpointLayout& layout,
                  const std::string& variable, const std::vector<double>& values, bool positive,
                  int layers) {
  const Grid& g = layout.grid;
  const auto nx = static_cast<std::size_t>(g.nx), ny = static_cast<std::size_t>(g.ny);
  if (values.size() != nx * ny * static_cast<std::size_t>(layers))
    throw ConfigError("'" + path + "': " + variable + " has " +
                      std::to_string(values.size() / (nx * ny)) +
                      " model levels where this run has " + std::to_string(layers) +
                      "; use the output of weather_ipu for the same case");
  const std::optional<std::size_t> bad = first_bad(values, positive);
  if (!bad) return;
  const int i = static_cast<int>(*bad % nx), j = static_cast<int>(*bad / nx % ny);
  const std::string layer =
      layers > 1 ? " in layer " + std::to_string(*bad / (nx * ny)) : std::string();
  char value[32];
  std::snprintf(value, sizeof value, "%.6g", values[*bad]);
  throw ConfigError(
      "'" + path + "': " + variable + " is " + value + " at cell " +
      describe_cell(g, i, j, layout.geographic) + layer + " (its last record); " +
      (positive && std::isfinite(values[*bad])
           ? (variable.starts_with("h") ? std::string("the layer depth must be positive")
                                        : variable + " must be positive")
           : std::string("every value must be a finite number")) +
      ": the file is damaged or was not written by weather_ipu");
}

void check_coordinates(const std::string& path, const CheckpointLayout& layout, const CfRecord& r) {
  const Grid& g = layout.grid;
  const double scale = layout.geographic ? 180 / std::numbers::pi : 1;
  const char* units = layout.geographic ? " degrees" : " m";
  for (const bool along_x : {true, false}) {
    const std::string name = layout.geographic ? (along_x ? "lon" : "lat") : (along_x ? "x" : "y");
    const auto it = r.coordinates.find(name);
    if (it == r.coordinates.end()) continue;
    const double spacing = scale * (along_x ? g.dx : g.dy);
    for (std::size_t k = 0; k < it->second.size(); ++k) {
      const int c = static_cast<int>(k);
      const double expected = scale * (along_x ? g.x_center(c) : g.y_center(c));
      if (!(std::abs(it->second[k] - expected) <= 1e-6 * spacing))
        throw ConfigError("'" + path + "' has its cell " + std::to_string(k) + " at " + name +
                          " = " + number(it->second[k]) + units + " where this run's grid has " +
                          number(expected) + units +
                          "; use the output of weather_ipu for the same case and grid");
    }
  }
}

}  // namespace

CheckpointLayout planar_checkpoint(const Grid& grid, bool kinematic, bool tracer) {
  CheckpointLayout l;
  l.grid = grid;
  if (!kinematic) {
    l.entries.push_back({0, "h", "", "m", true, false, 1, true});
    l.entries.push_back(
        {1, "u_face", "x velocity on west cell faces at the last record (for restarts)", "m s-1"});
    l.entries.push_back(
        {2, "v_face", "y velocity on south cell faces at the last record (for restarts)", "m s-1"});
  }
  if (tracer)
    l.entries.push_back({3, "tracer_mass",
                         "layer depth times tracer concentration at the last record (for restarts)",
                         "m", false, !kinematic});
  return l;
}

CheckpointLayout sphere_checkpoint(const Grid& grid, bool kinematic) {
  CheckpointLayout l;
  l.grid = grid;
  l.geographic = true;
  // In test case 1, h is a cosine bell carried as a tracer: zero outside the bell.
  l.entries.push_back({0, "h", "", "m", !kinematic, false, 1, true});
  if (!kinematic) {
    l.entries.push_back({1, "u_face",
                         "eastward velocity on west cell faces at the last record (for restarts)",
                         "m s-1"});
    l.entries.push_back({2, "v_face",
                         "northward velocity on south cell faces at the last record (for restarts)",
                         "m s-1"});
  }
  return l;
}

CheckpointLayout atmosphere_checkpoint(const Grid& grid, int layers) {
  CheckpointLayout l;
  l.grid = grid;
  l.geographic = true;
  l.entries.push_back({0, "ps", "", "Pa", true, false, 1, true});
  l.entries.push_back({1, "u_face",
                       "eastward wind on west cell faces at the last record (for restarts)",
                       "m s-1", false, false, layers});
  l.entries.push_back({1 + layers, "v_face",
                       "northward wind on south cell faces at the last record (for restarts)",
                       "m s-1", false, false, layers});
  l.entries.push_back({1 + 2 * layers, "T", "", "K", true, false, layers, true});
  return l;
}

std::vector<CfVariable> checkpoint_variables(const CheckpointLayout& layout, bool leapfrog) {
  std::vector<CfVariable> variables;
  for (const auto& e : layout.entries)
    if (!e.in_record)
      variables.push_back(
          {e.variable, e.long_name, e.units, "", e.layers > 1 ? CfLevels::model : CfLevels::none});
  if (leapfrog)
    for (const auto& e : layout.entries)
      variables.push_back({previous_of(e.variable),
                           e.variable + " at the leapfrog's filtered previous time level (for "
                                        "restarts)",
                           e.units, "", e.layers > 1 ? CfLevels::model : CfLevels::none});
  return variables;
}

namespace {

// An entry's state, its layers one after another (top first).
std::vector<double> gather_entry(Model& model, const CheckpointLayout::Entry& e,
                                 const State* from = nullptr) {
  std::vector<double> all;
  for (int l = 0; l < e.layers; ++l) {
    const std::vector<double> layer = model.gather_state(e.field + l, from);
    all.insert(all.end(), layer.begin(), layer.end());
  }
  return all;
}

// Sets an entry's state fields from such an array.
void set_entry(Model& model, const CheckpointLayout& layout, const CheckpointLayout::Entry& e,
               const std::vector<double>& values, const State* into = nullptr) {
  const std::size_t cells =
      static_cast<std::size_t>(layout.grid.nx) * static_cast<std::size_t>(layout.grid.ny);
  for (int l = 0; l < e.layers; ++l) {
    const auto begin =
        values.begin() + static_cast<std::ptrdiff_t>(cells * static_cast<std::size_t>(l));
    model.set_state(e.field + l,
                    std::vector<double>(begin, begin + static_cast<std::ptrdiff_t>(cells)), into);
  }
}

}  // namespace

void write_checkpoint(Model& model, const TimeIntegrator& integrator,
                      const CheckpointLayout& layout, CfWriter* writer, double t,
                      const StepPlan& plan, long long n) {
  const bool root = model.runtime().rank() == 0;
  const double step = static_cast<double>(plan.grid_step(n));
  Hash hash;
  hash.add(t), hash.add(plan.dt), hash.add(plan.origin), hash.add(step);
  std::string hashed;
  auto put = [&](const std::string& name, const std::vector<double>& values, bool write) {
    if (!root) return;
    if (write) writer->write_static(name, values);
    hash.add(name), hash.add(values);
    hashed += (hashed.empty() ? "" : " ") + name;
  };
  for (const auto& e : layout.entries) put(e.variable, gather_entry(model, e), !e.in_record);
  if (integrator.name() == "leapfrog") {
    const State* previous = integrator.previous_level();
    const Grid& g = layout.grid;
    const std::size_t cells = static_cast<std::size_t>(g.nx) * static_cast<std::size_t>(g.ny);
    for (const auto& e : layout.entries)
      put(previous_of(e.variable),
          previous ? gather_entry(model, e, previous)
                   : std::vector<double>(cells * static_cast<std::size_t>(e.layers), NAN),
          true);
  }
  if (root)
    writer->set_attributes("checkpoint",
                           {{"time_step", plan.dt}, {"time_origin", plan.origin}, {"step", step}},
                           {{"checksum_variables", hashed}, {"state_checksum", hash.hex()}});
}

Checkpoint start_from_file(Model& model, TimeIntegrator& integrator, const CheckpointLayout& layout,
                           const std::string& path, bool restart, bool root) {
  const Grid& g = layout.grid;
  std::vector<std::string> names, optional;
  for (const auto& e : layout.entries)
    (e.optional && !restart ? optional : names).push_back(e.variable);
  for (const char* name : kAll) optional.push_back(name);
  const std::vector<std::string> coordinates = layout.geographic
                                                   ? std::vector<std::string>{"lon", "lat"}
                                                   : std::vector<std::string>{"x", "y"};
  int levels = 0;  // the layered entries' (one count for all of them)
  for (const auto& e : layout.entries)
    if (e.layers > 1) levels = e.layers;
  const CfRecord r =
      read_last_record(path, g.nx, g.ny, names, optional, coordinates, "checkpoint", levels);
  {
    ByteWriter read;
    read.put(r.time), read.put(static_cast<long long>(r.records));
    for (const auto* map : {&r.fields, &r.coordinates})
      for (const auto& [name, values] : *map) read.put(name), read.put(values);
    for (const auto& [name, value] : r.numbers) read.put(name), read.put(value);
    for (const auto& [name, value] : r.texts) read.put(name), read.put(value);
    require_same_input(model.runtime().comm(), read.take(),
                       "the start file '" + path + "' (as rank 0 names it)");
  }

  // The time and the step grid, checked like the options they stand for.
  if (!std::isfinite(r.time) || r.time < 0)
    throw ConfigError("'" + path + "': the time of its last record is " + number(r.time) +
                      " s; a run continues only from a finite time >= 0 (the file is damaged " +
                      "or was not written by weather_ipu)");
  Checkpoint c;
  c.time = r.time, c.records = r.records;
  const bool has_grid = r.numbers.contains("time_step") || r.numbers.contains("time_origin") ||
                        r.numbers.contains("step") || r.texts.contains("state_checksum");
  if (has_grid) {
    auto need = [&](const std::string& name) {
      const auto it = r.numbers.find(name);
      if (it == r.numbers.end())
        throw ConfigError("'" + path + "': its checkpoint has no " + name +
                          ": the file is damaged");
      return it->second;
    };
    const double dt = need("time_step"), origin = need("time_origin"), step = need("step");
    if (!std::isfinite(dt) || !(dt > 0))
      throw ConfigError("'" + path + "': its checkpoint's time_step is " + number(dt) +
                        " s; a time step must be positive and finite (the file is damaged)");
    if (!std::isfinite(origin) || origin < 0 || origin > r.time)
      throw ConfigError("'" + path + "': its checkpoint's time_origin is " + number(origin) +
                        " s; it must be finite, >= 0 and not after the last record (" +
                        number(r.time) + " s): the file is damaged");
    if (!(step >= 0 && step < 9007199254740992.0) || step != std::floor(step))
      throw ConfigError("'" + path + "': its checkpoint's step is " + number(step) +
                        "; a step count must be a whole number >= 0 (the file is damaged)");
    const double on_grid = origin + step * dt;
    if (!(std::abs(r.time - on_grid) <= dt * (1 + 1e-9)))
      throw ConfigError("'" + path + "': the time of its last record, " + number(r.time) +
                        " s, is not that of its step " + number(step) + " (" + number(on_grid) +
                        " s, steps of " + number(dt) + " s from " + number(origin) +
                        " s): the file is damaged");
    c.dt = dt, c.origin = origin, c.step = static_cast<long long>(step);
    c.on_grid = r.time == on_grid;
    // The checksum over what the writer hashed, in its order.
    const auto sum = r.texts.find("state_checksum");
    const auto list = r.texts.find("checksum_variables");
    if (sum == r.texts.end() || list == r.texts.end())
      throw ConfigError("'" + path + "': its checkpoint has no state_checksum: the file is " +
                        "damaged");
    Hash hash;
    hash.add(r.time), hash.add(dt), hash.add(origin), hash.add(step);
    std::size_t at = 0;
    const std::string& names_hashed = list->second;
    while (at < names_hashed.size()) {
      std::size_t end = names_hashed.find(' ', at);
      if (end == std::string::npos) end = names_hashed.size();
      const std::string name = names_hashed.substr(at, end - at);
      at = end + 1;
      const auto field = r.fields.find(name);
      if (field == r.fields.end())
        throw ConfigError("'" + path + "': its checkpoint covers '" + name +
                          "', which it does not hold: the file is damaged");
      hash.add(name), hash.add(field->second);
    }
    if (hash.hex() != sum->second)
      throw ConfigError("'" + path + "': its last record does not match the state_checksum " +
                        "written with it (" + sum->second + ", the content gives " + hash.hex() +
                        "): the file is damaged; restart from an intact copy");
  }

  check_coordinates(path, layout, r);
  for (const auto& e : layout.entries)
    if (const auto it = r.fields.find(e.variable); it != r.fields.end())
      check_values(path, layout, e.variable, it->second, e.positive, e.layers);

  // The integrator's second level: every entry's previous level, all NaN (not started yet) or
  // all valid.
  const bool leapfrog = integrator.name() == "leapfrog";
  const std::string marker = previous_of(layout.entries.front().variable);
  const bool saved = r.fields.contains(marker);
  if (restart && saved && !leapfrog)
    throw ConfigError("'" + path + "' was written by a leapfrog run (it holds " + marker +
                      "); restart it with --integrator leapfrog");
  if (restart && !saved && leapfrog)
    throw ConfigError("'" + path + "' holds no leapfrog time level (" + marker +
                      "): it was written by a one-level integrator; restart it with that " +
                      "--integrator (rk3 or rk4)");
  bool started = false;
  if (leapfrog && saved) {
    started = std::isfinite(r.fields.at(marker).front());
    for (const auto& e : layout.entries) {
      const auto it = r.fields.find(previous_of(e.variable));
      if (it == r.fields.end())
        throw ConfigError("'" + path + "' holds " + marker + " but not " + previous_of(e.variable) +
                          "; use the output of weather_ipu for the " + "same case");
      if (!started) {
        for (double v : it->second)
          if (!std::isnan(v))
            throw ConfigError("'" + path + "': " + previous_of(e.variable) + " mixes NaN (" +
                              "not started) and numbers: the file is damaged");
      } else {
        check_values(path, layout, previous_of(e.variable), it->second, e.positive, e.layers);
      }
    }
  }

  // Only now, with everything checked, the state changes.
  for (const auto& e : layout.entries)
    if (const auto it = r.fields.find(e.variable); it != r.fields.end())
      set_entry(model, layout, e, it->second);
  if (leapfrog && !saved && root)
    std::printf(
        "note: '%s' holds no leapfrog time level: leapfrog starts with a forward-Euler "
        "step\n",
        path.c_str());
  if (started) {
    State* previous = integrator.restore_previous_level();
    // Copy the whole state first (halos included: in kinematic mode the prescribed
    // velocities' halos are never refreshed), then the saved interiors.
    combine(model.runtime(), *previous, 1, model.state(), 0, model.state());
    for (const auto& e : layout.entries)
      set_entry(model, layout, e, r.fields.at(previous_of(e.variable)), previous);
  }
  return c;
}

}  // namespace tessera::weather
