#include "tessera/md/thermo_output.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "arguments.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/compute_pressure.hpp"
#include "tessera/md/output_reference.hpp"

namespace tessera::md {
namespace {

// keyword -> (column name, extensive)
const std::map<std::string, std::pair<const char*, bool>>& keywords() {
  static const std::map<std::string, std::pair<const char*, bool>> k{
      {"step", {"Step", false}},
      {"atoms", {"Atoms", false}},
      {"time", {"Time", false}},
      {"dt", {"Dt", false}},
      {"temp", {"Temp", false}},
      {"press", {"Press", false}},
      {"pe", {"PotEng", true}},
      {"ke", {"KinEng", true}},
      {"etotal", {"TotEng", true}},
      {"evdwl", {"E_vdwl", true}},
      {"ecoul", {"E_coul", true}},
      {"epair", {"E_pair", true}},
      {"emol", {"E_mol", true}},
      {"elong", {"E_long", true}},
      {"vol", {"Volume", false}},
      {"density", {"Density", false}},
      {"cpu", {"CPU", false}},
      {"ebond", {"E_bond", true}},
      {"eangle", {"E_angle", true}},
      {"edihed", {"E_dihed", true}},
      {"eimp", {"E_impro", true}},
      {"lx", {"Lx", false}},
      {"ly", {"Ly", false}},
      {"lz", {"Lz", false}},
      {"xlat", {"Xlat", false}},
      {"ylat", {"Ylat", false}},
      {"zlat", {"Zlat", false}},
      {"xlo", {"Xlo", false}},
      {"xhi", {"Xhi", false}},
      {"ylo", {"Ylo", false}},
      {"yhi", {"Yhi", false}},
      {"zlo", {"Zlo", false}},
      {"zhi", {"Zhi", false}},
      {"pxx", {"Pxx", false}},
      {"pyy", {"Pyy", false}},
      {"pzz", {"Pzz", false}},
      {"pxy", {"Pxy", false}},
      {"pxz", {"Pxz", false}},
      {"pyz", {"Pyz", false}},
      {"nbuild", {"Nbuild", false}},
      {"ecouple", {"Ecouple", true}},
      {"econserve", {"Econserve", true}},
      {"xy", {"Xy", false}},
      {"xz", {"Xz", false}},
      {"yz", {"Yz", false}},
      {"cella", {"Cella", false}},
      {"cellb", {"Cellb", false}},
      {"cellc", {"Cellc", false}},
      {"cellalpha", {"CellAlpha", false}},
      {"cellbeta", {"CellBeta", false}},
      {"cellgamma", {"CellGamma", false}},
  };
  return k;
}

bool is_integer_keyword(const std::string& k) {
  return k == "step" || k == "atoms" || k == "nbuild";
}

}  // namespace

ThermoOutput::ThermoOutput(Console& console, Simulation& sim)
    : console_(console), keywords_{"step", "temp", "epair", "emol", "etotal", "press"} {
  const auto add = [&](const std::string& id, const std::string& style,
                       std::vector<std::string> args) {
    sim.add_compute(
        compute_styles().make(style, ComputeArguments{id, "all", std::move(args), &sim}));
  };
  add(temp_id_, "temp", {});
  add(press_id_, "pressure", {temp_id_});
  add(pe_id_, "pe", {});
}

bool ThermoOutput::is_keyword(const std::string& keyword) { return keywords().count(keyword) > 0; }

namespace {
bool is_variable(const std::string& k) { return k.size() > 2 && k.rfind("v_", 0) == 0; }
std::string column_name(const std::string& k) {
  return is_variable(k) || k.rfind("c_", 0) == 0 || k.rfind("f_", 0) == 0
             ? k
             : std::string(keywords().at(k).first);
}
}  // namespace

void ThermoOutput::set_style(Simulation& sim, const std::vector<std::string>& args) {
  if (args.empty()) throw ConfigError("thermo_style: give a style, one, multi or custom");
  norm_.reset();
  float_format_.reset();
  temp_id_ = "thermo_temp";
  press_id_ = "thermo_press";
  if (args[0] == "one" || args[0] == "multi") {
    if (args.size() != 1)
      throw ConfigError("thermo_style " + args[0] + " takes no further arguments");
    if (args[0] == "one") {
      keywords_ = {"step", "temp", "epair", "emol", "etotal", "press"};
      custom_ = false, multiline_ = false;
    } else {  // LAMMPS's MULTI
      keywords_ = {"etotal", "ke",   "temp",  "pe",    "ebond", "eangle",
                   "edihed", "eimp", "evdwl", "ecoul", "elong", "press"};
      custom_ = false, multiline_ = true;
    }
    return;
  }
  if (args[0] != "custom")
    throw ConfigError("thermo_style " + args[0] + ": Tessera supports one, multi and custom");
  if (args.size() < 2) throw ConfigError("thermo_style custom: list at least one keyword");
  std::vector<std::string> k;
  for (auto word = args.begin() + 1; word != args.end(); ++word) {
    if (is_keyword(*word) || is_variable(*word)) {
      k.push_back(*word);
      continue;
    }
    const auto ref = parse_output_reference(*word);
    if (!ref)
      throw ConfigError(
          "thermo_style custom: unknown keyword '" + *word +
          "'; supported: step atoms time dt temp press pe ke etotal evdwl ecoul epair ebond eangle "
          "edihed eimp emol "
          "elong vol lx ly lz xlo xhi ylo yhi zlo zhi xlat ylat zlat pxx pyy pzz pxy pxz pyz, "
          "v_NAME, c_ID, c_ID[N], c_ID[*], f_ID, f_ID[N] and f_ID[*]");
    if (!ref->every) {
      k.push_back(*word);
      continue;
    }
    // [*]: every element of the vector, as LAMMPS's utils::expand_args (which needs the compute
    // or fix to exist now).
    const std::string where = "thermo_style custom " + *word;
    const std::size_t n = output_vector_size(sim, *ref, where);
    if (n == 0)
      throw ConfigError(where + ": " + (ref->kind == 'c' ? "compute " : "fix ") + ref->id +
                        " has no global vector");
    for (std::size_t e = 1; e <= n; ++e) {
      OutputReference element = *ref;
      element.every = false;
      element.index = e;
      k.push_back(element.text());
    }
  }
  keywords_ = std::move(k);
  custom_ = true, multiline_ = false;
}

void ThermoOutput::set_temperature(Simulation& sim, const std::string& id) {
  Compute* c = sim.find_compute(id);
  if (!c) throw ConfigError("thermo_modify temp: there is no compute " + id);
  if (!c->is_temperature())
    throw ConfigError("thermo_modify temp: compute " + id + " (" + c->style() +
                      ") does not compute a temperature");
  temp_id_ = id;
  if (auto* press = dynamic_cast<ComputePressure*>(sim.find_compute(press_id_)))
    press->set_temperature(id);
  if (c->group() != "all")
    console_.print("WARNING: Temperature for thermo pressure is not for group all\n");
}

void ThermoOutput::set_pressure(Simulation& sim, const std::string& id) {
  Compute* c = sim.find_compute(id);
  if (!c) throw ConfigError("thermo_modify press: there is no compute " + id);
  if (!dynamic_cast<ComputePressure*>(c))
    throw ConfigError("thermo_modify press: compute " + id + " (" + c->style() +
                      ") does not compute a pressure");
  press_id_ = id;
}

void ThermoOutput::set_float_format(const std::string& format) {
  // One floating-point conversion and nothing else that printf would interpret.
  const int conversions = arguments::float_conversions(format);
  if (conversions < 0)
    throw ConfigError("thermo_modify format float '" + format +
                      "': use one %e, %f or %g conversion");
  if (conversions != 1)
    throw ConfigError("thermo_modify format float '" + format +
                      "': use exactly one %e, %f or %g conversion");
  float_format_ = format;
}

// Each compute a line needs, called once for it.
struct ThermoOutput::Line {
  std::optional<double> temp, dof, press, pe;
  bool first_of_run = false;   // LAMMPS's firststep 0: cpu is 0 on a run's first line
  std::optional<Thermo> sums;  // the pair style's energies (evdwl, ecoul)
  std::optional<std::vector<double>> press_tensor;
  std::map<std::string, std::vector<double>> vectors;  // c_ID[N], f_ID[N] (output_value)
};

namespace {
double ecouple(Simulation& sim) {
  double energy = 0;
  for (const auto& fix : sim.fixes())
    if (fix->couples_energy() && fix->has_scalar()) energy += fix->scalar(sim);
  return energy;
}
}  // namespace

double ThermoOutput::value_of(Simulation& sim, Line& line, const std::string& k) const {
  const double n = static_cast<double>(sim.natoms());
  const double scale = normalized(sim) && n > 0 ? 1.0 / n : 1.0;
  const Box& box = sim.box();
  auto compute = [&](const std::string& id) -> Compute& {
    Compute* c = sim.find_compute(id);
    if (!c) throw ConfigError("thermo: its compute " + id + " no longer exists");
    return *c;
  };
  auto temp = [&] {
    if (!line.temp) line.temp = compute(temp_id_).scalar(sim);
    return *line.temp;
  };
  auto ke = [&] {  // LAMMPS's Thermo::compute_ke: from the temperature and its dof
    if (!line.dof) line.dof = compute(temp_id_).dof(sim);
    return temp() * 0.5 * *line.dof * sim.units().boltz;
  };
  auto pe = [&] {
    if (!line.pe) line.pe = compute(pe_id_).scalar(sim);
    return *line.pe;
  };
  auto pressure_component = [&](std::size_t w) {
    if (!line.press_tensor) line.press_tensor = compute(press_id_).vector(sim);
    return (*line.press_tensor)[w];
  };
  if (is_variable(k)) {
    if (!variable_) throw ConfigError("thermo_style custom " + k + ": no variables here");
    return variable_(k.substr(2));
  }
  if (const auto ref = parse_output_reference(k))
    return output_value(sim, *ref, normalized(sim), "thermo_style custom " + k, &line.vectors);
  if (k == "step") return static_cast<double>(sim.step());
  if (k == "atoms") return n;
  if (k == "nbuild") return static_cast<double>(sim.neighbor_builds());
  if (k == "time") return static_cast<double>(sim.step()) * sim.timestep();
  if (k == "dt") return sim.timestep();
  if (k == "temp") return temp();
  if (k == "press") {
    if (!line.press) line.press = compute(press_id_).scalar(sim);
    return *line.press;
  }
  if (k == "pe") return pe() * scale;
  // LAMMPS's Thermo::compute_evdwl, compute_ecoul and compute_epair: the pair style's energies
  // only (not the fixes' that pe holds), the tail correction with the van der Waals part.
  // Thermo::compute_ebond, compute_eangle, compute_edihed, compute_eimp, compute_emol: the
  // bonded styles' energies.
  if (k == "evdwl" || k == "ecoul" || k == "elong" || k == "epair" || k == "ebond" ||
      k == "eangle" || k == "edihed" || k == "eimp" || k == "emol") {
    if (!line.sums) line.sums = sim.thermo();
    const Thermo& e = *line.sums;
    const auto& b = e.bonded_energy;
    const double value = k == "evdwl"    ? e.evdwl
                         : k == "ecoul"  ? e.ecoul
                         : k == "elong"  ? e.elong
                         : k == "ebond"  ? b[0]
                         : k == "eangle" ? b[1]
                         : k == "edihed" ? b[2]
                         : k == "eimp"   ? b[3]
                         : k == "emol"   ? e.bonded_energy_total()
                                         : e.evdwl + e.ecoul + e.elong;
    return value * scale;
  }
  if (k == "ke") return ke() * scale;
  if (k == "etotal") return (pe() + ke()) * scale;
  // LAMMPS's Thermo::compute_ecouple and compute_econserve: the thermostats' energy is not
  // normalized by the atom count even where etotal is (thermo_modify norm yes).
  if (k == "ecouple") return ecouple(sim);
  if (k == "econserve") return (pe() + ke()) * scale + ecouple(sim);
  if (k == "vol") return sim.volume();
  if (k == "density") {  // LAMMPS's Thermo::compute_density: the total mass over the volume
    const auto mass = sim.reduce_atoms("md.thermo_mass", ReduceOp::sum, 1,
                                       [](const AtomsView& a, std::span<double> out) {
                                         for (const std::int32_t type : a.type)
                                           out[0] += a.mass[static_cast<std::size_t>(type)];
                                       });
    return sim.units().mv2d * mass[0] / sim.volume();
  }
  if (k == "cpu")  // LAMMPS's: the wall time since the run began, 0 on its first line
    return line.first_of_run
               ? 0.0
               : std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start_)
                     .count();
  if (k == "lx") return box.length(0);
  if (k == "ly") return box.length(1);
  if (k == "lz") return box.length(2);
  if (k == "xlat") return lattice_[0];
  if (k == "ylat") return lattice_[1];
  if (k == "zlat") return lattice_[2];
  if (k == "xlo") return box.lo[0];
  if (k == "xhi") return box.hi[0];
  if (k == "ylo") return box.lo[1];
  if (k == "yhi") return box.hi[1];
  if (k == "zlo") return box.lo[2];
  if (k == "zhi") return box.hi[2];
  // The tilt factors and LAMMPS's cell lengths and angles (degrees) of its edge vectors.
  if (k == "xy") return box.xy;
  if (k == "xz") return box.xz;
  if (k == "yz") return box.yz;
  static const std::map<std::string, std::size_t> cell_keywords{
      {"cella", 0}, {"cellb", 1}, {"cellc", 2}, {"cellalpha", 3}, {"cellbeta", 4}, {"cellgamma", 5}};
  if (const auto it = cell_keywords.find(k); it != cell_keywords.end()) return box.cell()[it->second];
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
  if (!sim.has_box())
    throw ConfigError("thermo keyword " + keyword + ": there is no simulation box yet (LAMMPS: " +
                      "\"Variable evaluation before simulation box is defined\")");
  sim.thermo();  // the check that the energies are finite
  Line line;
  // Outside a run cpu is 0, as LAMMPS's; inside one each rank's clock differs, so a variable
  // takes the slowest rank's, the same on every rank.
  line.first_of_run = !sim.in_run();
  if (keyword == "cpu" && sim.in_run()) {
    const double seconds = value_of(sim, line, keyword);
    return sim.runtime().all_reduce<double>("md.thermo_cpu", ReduceOp::max,
                                            [&](Tile&) { return seconds; });
  }
  return value_of(sim, line, keyword);
}

void ThermoOutput::observe(Simulation& sim, bool first_of_run, bool) {
  sim.thermo();  // the check that the energies are finite
  Line line;
  if (first_of_run) run_start_ = std::chrono::steady_clock::now();
  line.first_of_run = first_of_run;
  // LAMMPS's thermo_style one adds the volume when the box may change (shrink-wrapped faces,
  // a fix).
  bool box_changes = sim.boundary().any_shrinks();
  for (const auto& fix : sim.fixes()) box_changes = box_changes || fix->changes_box();
  std::vector<std::string> shown = keywords_;
  if (!custom_ && box_changes) shown.push_back("vol");
  // LAMMPS's default formats for each layout, unless thermo_modify format float set one.
  const std::string float_format = float_format_.value_or(multiline_ ? "%14.4f" : "%12.8g");
  std::string text;
  char buf[128];
  if (first_of_run) {
    // LAMMPS's Thermo::init: a fix's outputs are read only at steps where they are current.
    for (const auto& k : keywords_) {
      const auto ref = parse_output_reference(k);
      if (!ref) continue;
      if (const Fix* fix = fix_not_current(sim, *ref, every_))
        throw ConfigError("thermo_style custom " + k + ": fix " + ref->id + " (" + fix->style() +
                          ") is current every " + std::to_string(fix->global_frequency()) +
                          " steps, thermo prints every " + std::to_string(every_) +
                          " (LAMMPS refuses this too: not computed at compatible times)");
    }
    if (!multiline_) {
      for (const auto& k : shown) text += column_name(k) + " ";
      text += "\n";
    }
  }
  if (multiline_) {  // LAMMPS's Thermo::compute with lineflag MULTILINE
    std::snprintf(buf, sizeof buf,
                  "---------------- Step %8lld ----- CPU = %11.4f (sec) ----------------",
                  static_cast<long long>(sim.step()), value_of(sim, line, "cpu"));
    text += buf;
    for (std::size_t n = 0; n < shown.size(); ++n) {
      if (n % 3 == 0) text += "\n";
      if (is_integer_keyword(shown[n]))
        std::snprintf(buf, sizeof buf, "%-8s = %14lld ", column_name(shown[n]).c_str(),
                      static_cast<long long>(value_of(sim, line, shown[n])));
      else
        std::snprintf(buf, sizeof buf, ("%-8s = " + float_format + " ").c_str(),
                      column_name(shown[n]).c_str(), value_of(sim, line, shown[n]));
      text += buf;
    }
    console_.print(text + "\n");
    return;
  }
  for (const auto& k : shown) {
    if (is_integer_keyword(k))
      std::snprintf(buf, sizeof buf, "%8lld ", static_cast<long long>(value_of(sim, line, k)));
    else
      std::snprintf(buf, sizeof buf, (float_format + " ").c_str(), value_of(sim, line, k));
    text += buf;
  }
  console_.print(text + "\n");
}

}  // namespace tessera::md
