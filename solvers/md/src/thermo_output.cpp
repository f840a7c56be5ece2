#include "tessera/md/thermo_output.hpp"

#include <cstdio>
#include <map>

#include "tessera/core/error.hpp"

namespace tessera::md {
namespace {

// keyword -> (column name, extensive)
const std::map<std::string, std::pair<const char*, bool>>& keywords() {
  static const std::map<std::string, std::pair<const char*, bool>> k{
      {"step", {"Step", false}},   {"atoms", {"Atoms", false}}, {"time", {"Time", false}},
      {"dt", {"Dt", false}},       {"temp", {"Temp", false}},   {"press", {"Press", false}},
      {"pe", {"PotEng", true}},    {"ke", {"KinEng", true}},    {"etotal", {"TotEng", true}},
      {"evdwl", {"E_vdwl", true}}, {"ecoul", {"E_coul", true}}, {"epair", {"E_pair", true}},
      {"emol", {"E_mol", true}},   {"elong", {"E_long", true}}, {"vol", {"Volume", false}},
      {"lx", {"Lx", false}},       {"ly", {"Ly", false}},       {"lz", {"Lz", false}},
      {"xlo", {"Xlo", false}},     {"xhi", {"Xhi", false}},     {"ylo", {"Ylo", false}},
      {"yhi", {"Yhi", false}},     {"zlo", {"Zlo", false}},     {"zhi", {"Zhi", false}},
      {"pxx", {"Pxx", false}},     {"pyy", {"Pyy", false}},     {"pzz", {"Pzz", false}},
      {"pxy", {"Pxy", false}},     {"pxz", {"Pxz", false}},     {"pyz", {"Pyz", false}},
  };
  return k;
}

bool is_integer_keyword(const std::string& k) { return k == "step" || k == "atoms"; }

}  // namespace

ThermoOutput::ThermoOutput(Console& console, const Units& units)
    : console_(console), norm_(units.style == "lj"), keywords_{"step", "temp",   "epair",
                                                               "emol", "etotal", "press"} {}

bool ThermoOutput::is_keyword(const std::string& keyword) { return keywords().count(keyword) > 0; }

namespace {
bool is_variable(const std::string& k) { return k.size() > 2 && k.rfind("v_", 0) == 0; }
std::string column_name(const std::string& k) {
  return is_variable(k) ? k : std::string(keywords().at(k).first);
}
}  // namespace

void ThermoOutput::set_style(const std::vector<std::string>& args) {
  if (args.empty()) throw ConfigError("thermo_style: give a style, one or custom");
  if (args[0] == "one") {
    if (args.size() != 1) throw ConfigError("thermo_style one takes no further arguments");
    keywords_ = {"step", "temp", "epair", "emol", "etotal", "press"};
    one_ = true;
    return;
  }
  if (args[0] != "custom")
    throw ConfigError("thermo_style " + args[0] + ": Tessera supports one and custom");
  if (args.size() < 2) throw ConfigError("thermo_style custom: list at least one keyword");
  std::vector<std::string> k(args.begin() + 1, args.end());
  for (const auto& word : k)
    if (!is_keyword(word) && !is_variable(word))
      throw ConfigError(
          "thermo_style custom: unknown keyword '" + word +
          "'; supported: step atoms time dt temp press pe ke etotal evdwl ecoul epair emol "
          "elong vol lx ly lz xlo xhi ylo yhi zlo zhi pxx pyy pzz pxy pxz pyz, and v_NAME");
  keywords_ = std::move(k);
  one_ = false;
}

void ThermoOutput::set_float_format(const std::string& format) {
  // One floating-point conversion and nothing else that printf would interpret.
  int conversions = 0;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    if (i + 1 < format.size() && format[i + 1] == '%') {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < format.size() && std::string("-+ #0123456789.").find(format[j]) != std::string::npos)
      ++j;
    if (j >= format.size() || std::string("eEfFgG").find(format[j]) == std::string::npos)
      throw ConfigError("thermo_modify format float '" + format +
                        "': use one %e, %f or %g conversion");
    ++conversions;
    i = j;
  }
  if (conversions != 1)
    throw ConfigError("thermo_modify format float '" + format +
                      "': use exactly one %e, %f or %g conversion");
  float_format_ = format;
}

double ThermoOutput::value_of(Simulation& sim, const Thermo& t, const std::string& k) const {
  const double n = static_cast<double>(t.natoms);
  const double scale = norm_ && n > 0 ? 1.0 / n : 1.0;
  const Box& box = sim.box();
  const double pv = sim.units().nktv2p / sim.volume();
  // In 2-d LAMMPS's pressure tensor has xx, yy and xy only.
  auto pressure_component = [&](std::size_t w) {
    if (sim.dimension() == 2 && (w == 2 || w == 4 || w == 5)) return 0.0;
    return (t.ke_tensor[w] + t.virial[w]) * pv;
  };
  if (is_variable(k)) {
    if (!variable_) throw ConfigError("thermo_style custom " + k + ": no variables here");
    return variable_(k.substr(2));
  }
  if (k == "step") return static_cast<double>(sim.step());
  if (k == "atoms") return n;
  if (k == "time") return static_cast<double>(sim.step()) * sim.timestep();
  if (k == "dt") return sim.timestep();
  if (k == "temp") return sim.temperature(t.ke);
  if (k == "press") return sim.pressure(t);
  if (k == "pe" || k == "evdwl" || k == "epair") return t.pe * scale;
  if (k == "ke") return t.ke * scale;
  if (k == "etotal") return (t.pe + t.ke) * scale;
  if (k == "ecoul" || k == "emol" || k == "elong") return 0.0;
  if (k == "vol") return sim.volume();
  if (k == "lx") return box.length(0);
  if (k == "ly") return box.length(1);
  if (k == "lz") return box.length(2);
  if (k == "xlo") return box.lo[0];
  if (k == "xhi") return box.hi[0];
  if (k == "ylo") return box.lo[1];
  if (k == "yhi") return box.hi[1];
  if (k == "zlo") return box.lo[2];
  if (k == "zhi") return box.hi[2];
  if (k == "pxx") return pressure_component(0);
  if (k == "pyy") return pressure_component(1);
  if (k == "pzz") return pressure_component(2);
  if (k == "pxy") return pressure_component(3);
  if (k == "pxz") return pressure_component(4);
  if (k == "pyz") return pressure_component(5);
  throw ConfigError("unknown thermo keyword '" + k + "'");
}

std::optional<double> ThermoOutput::value(Simulation& sim, const std::string& keyword) {
  if (!is_keyword(keyword)) return std::nullopt;
  const Thermo t = sim.thermo();
  return value_of(sim, t, keyword);
}

void ThermoOutput::observe(Simulation& sim, bool first_of_run, bool) {
  const Thermo t = sim.thermo();
  // LAMMPS's thermo_style one adds the volume when a fix may change the box.
  bool box_changes = false;
  for (const auto& fix : sim.fixes()) box_changes = box_changes || fix->changes_box();
  std::vector<std::string> shown = keywords_;
  if (one_ && box_changes) shown.push_back("vol");
  std::string text;
  if (first_of_run) {
    for (const auto& k : shown) text += column_name(k) + " ";
    text += "\n";
  }
  char buf[128];
  for (const auto& k : shown) {
    if (is_integer_keyword(k))
      std::snprintf(buf, sizeof buf, "%8lld ", static_cast<long long>(value_of(sim, t, k)));
    else
      std::snprintf(buf, sizeof buf, (float_format_ + " ").c_str(), value_of(sim, t, k));
    text += buf;
  }
  console_.print(text + "\n");
}

}  // namespace tessera::md
