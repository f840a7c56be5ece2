#include "tessera/md/data_file.hpp"

#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "checked_integer.hpp"
#include "tessera/core/atomic_file.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/shared_input.hpp"

namespace tessera::md {
namespace {

constexpr const char* restart_magic = "TESSERA-MD-RESTART";
constexpr int restart_version = 1;

int rank_of(Simulation& sim) {
  int rank = 0;
  MPI_Comm_rank(sim.runtime().comm(), &rank);
  return rank;
}

// Reads the whole file on rank 0 and sends it to every rank (as LAMMPS reads data files), so
// that every rank parses the same bytes and meets the same errors (shared_input.hpp).
std::string slurp(Simulation& sim, const std::string& path, const char* what) {
  SharedFile f = read_on_root(sim.runtime().comm(), path);
  if (!f.ok)
    throw ConfigError("cannot open " + std::string(what) + " file '" + path + "': " + f.bytes +
                      "; check the file name");
  return std::move(f.bytes);
}

struct LineReader {
  std::istringstream in;
  std::string path;
  int line = 0;
  bool next(std::string& out) {
    if (!std::getline(in, out)) return false;
    ++line;
    const auto hash = out.find('#');
    if (hash != std::string::npos) out.erase(hash);
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError("read_data: " + path + ", line " + std::to_string(line) + ": " + what);
  }
};

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

double to_double(LineReader& r, const std::string& w) {
  char* end = nullptr;
  const double v = std::strtod(w.c_str(), &end);
  if (w.empty() || *end != '\0' || !std::isfinite(v)) r.fail("expected a number, got '" + w + "'");
  return v;
}

long long to_int(LineReader& r, const std::string& w, long long lo, long long hi) {
  long long v = 0;
  const std::string why = detail::integer_problem(w, lo, hi, &v);
  if (!why.empty()) r.fail(why);
  return v;
}

constexpr long long int_max = std::numeric_limits<int>::max();
constexpr long long int_min = std::numeric_limits<int>::min();
constexpr long long bigint_max = std::numeric_limits<std::int64_t>::max();
constexpr long long bigint_min = std::numeric_limits<std::int64_t>::min();

}  // namespace

void read_data(Simulation& sim, const std::string& path) {
  if (sim.has_box()) throw ConfigError("read_data: the simulation box is already defined");
  LineReader r{std::istringstream(slurp(sim, path, "data")), path};
  std::string line;
  r.next(line);  // the first line is a title
  long long natoms = -1;
  int types = -1;
  Box box;
  bool have[3] = {false, false, false};
  // Header: until the first section keyword.
  std::string section;
  int section_line = 0;  // the line of the section keyword
  while (r.next(line)) {
    const auto w = words(line);
    if (w.empty()) continue;
    if (w.size() >= 2 && w.back() == "atoms" && w.size() == 2) {
      natoms = to_int(r, w[0], 0, bigint_max);
    } else if (w.size() == 3 && w[1] == "atom" && w[2] == "types") {
      types = static_cast<int>(to_int(r, w[0], 1, int_max));
    } else if (w.size() == 4 && (w[2] == "xlo" || w[2] == "ylo" || w[2] == "zlo")) {
      const std::size_t d = static_cast<std::size_t>(w[2][0] - 'x');
      box.lo[d] = to_double(r, w[0]);
      box.hi[d] = to_double(r, w[1]);
      have[d] = true;
    } else if (w.size() >= 2 && (w.back() == "bonds" || w.back() == "angles" ||
                                 w.back() == "dihedrals" || w.back() == "impropers")) {
      if (to_int(r, w[0], bigint_min, bigint_max) != 0)
        r.fail("this file has " + w.back() + ", but atom_style atomic has none");
    } else if (w.size() == 6 && w[3] == "xy") {
      r.fail("triclinic boxes are not supported");
    } else if (w.size() >= 3 &&
               (w[1] == "bond" || w[1] == "angle" || w[1] == "dihedral" || w[1] == "improper")) {
      continue;  // "N bond types" and the like: fine when there are none of them
    } else if (std::isalpha(static_cast<unsigned char>(w[0][0]))) {
      section = line;
      section_line = r.line;
      break;
    } else {
      r.fail("unrecognised header line '" + line + "'");
    }
  }
  if (natoms < 0) r.fail("the header does not say how many atoms there are ('N atoms')");
  if (types < 1) r.fail("the header does not say how many atom types there are ('N atom types')");
  for (int d = 0; d < 3; ++d)
    if (!have[d])
      r.fail(std::string("the header has no ") + "xyz"[d] + "lo " + "xyz"[d] + "hi line");
  sim.create_box(types, box);

  std::map<std::int64_t, AtomRecord> atoms;
  std::map<std::int64_t, std::array<double, 3>> velocities;
  auto trim = [](std::string s) {
    const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  while (!section.empty()) {
    const std::string name = trim(section);
    const int name_line = section_line;
    section.clear();
    // A blank line follows the section name, then entries until a blank line or the next section.
    // Each row keeps its line number: errors in it are reported there, not where the reader
    // stopped.
    r.next(line);
    std::vector<std::pair<int, std::vector<std::string>>> rows;
    while (r.next(line)) {
      auto w = words(line);
      if (w.empty()) {
        if (!rows.empty()) break;
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(w[0][0]))) {
        section = line;
        section_line = r.line;
        break;
      }
      rows.emplace_back(r.line, std::move(w));
    }
    if (section.empty()) {
      while (r.next(line))
        if (!words(line).empty()) {
          section = line;
          section_line = r.line;
          break;
        }
    }
    const int resume = r.line;  // where the reader stands; rows set r.line to theirs
    if (name == "Masses") {
      for (const auto& [at, w] : rows) {
        r.line = at;
        if (w.size() != 2) r.fail("a Masses line needs: type mass");
        const int t = static_cast<int>(to_int(r, w[0], 1, types));
        const double m = to_double(r, w[1]);
        if (!(m > 0)) r.fail("the mass must be positive, not " + w[1]);
        sim.set_mass(t, m);
      }
    } else if (name == "Pair Coeffs") {
      if (!sim.pair().defined()) r.fail("Pair Coeffs need pair_style lj/cut before read_data");
      for (const auto& [at, w] : rows) {
        r.line = at;
        if (w.size() < 3) r.fail("a Pair Coeffs line for lj/cut needs: type epsilon sigma");
        const int t = static_cast<int>(to_int(r, w[0], 1, types));
        sim.pair().coeff(t, t, t, t, to_double(r, w[1]), to_double(r, w[2]), -1.0);
      }
    } else if (name == "Atoms") {
      for (const auto& [at, w] : rows) {
        r.line = at;
        if (w.size() != 5 && w.size() != 8)
          r.fail("an Atoms line (atomic) needs: id type x y z [ix iy iz]");
        AtomRecord a;
        a.id = to_int(r, w[0], 1, bigint_max);
        long long type = 0;
        if (!detail::integer_problem(w[1], 1, types, &type).empty()) {
          to_int(r, w[1], bigint_min, bigint_max);  // not an integer at all: say so
          r.fail("atom type " + w[1] + " is out of range 1.." + std::to_string(types));
        }
        a.type = static_cast<std::int32_t>(type);
        for (std::size_t d = 0; d < 3; ++d) a.x[d] = to_double(r, w[2 + d]);
        if (w.size() == 8)
          for (std::size_t d = 0; d < 3; ++d)
            a.image[d] = static_cast<std::int32_t>(to_int(r, w[5 + d], int_min, int_max));
        if (!atoms.emplace(a.id, a).second) r.fail("atom id " + w[0] + " appears twice");
      }
    } else if (name == "Velocities") {
      for (const auto& [at, w] : rows) {
        r.line = at;
        if (w.size() != 4) r.fail("a Velocities line needs: id vx vy vz");
        const std::int64_t id = to_int(r, w[0], 1, bigint_max);
        if (!atoms.count(id))
          r.fail("Velocities for atom id " + w[0] + ", which no Atoms line has");
        if (!velocities
                 .emplace(id, std::array<double, 3>{to_double(r, w[1]), to_double(r, w[2]),
                                                    to_double(r, w[3])})
                 .second)
          r.fail("atom id " + w[0] + " appears twice in Velocities");
      }
    } else {
      r.line = name_line;
      r.fail("unsupported section '" + name +
             "' (atom_style atomic files have Masses, Pair Coeffs, Atoms, Velocities)");
    }
    r.line = resume;
  }
  if (static_cast<long long>(atoms.size()) != natoms)
    throw FormatError("read_data: " + path + ": the header says " + std::to_string(natoms) +
                      " atoms but the Atoms section has " + std::to_string(atoms.size()));
  std::vector<AtomRecord> list;
  list.reserve(atoms.size());
  for (auto& [id, a] : atoms) {
    auto v = velocities.find(id);
    if (v != velocities.end()) a.v = v->second;
    // Atoms exactly on the upper box face belong to the lower one, as in LAMMPS.
    int image[3] = {a.image[0], a.image[1], a.image[2]};
    for (std::size_t d = 0; d < 3; ++d) {
      const double l = box.hi[d] - box.lo[d];
      if (a.x[d] >= box.hi[d] && a.x[d] < box.hi[d] + 1e-9 * l && image[d] < int_max)
        a.x[d] -= l, ++image[d];
    }
    for (std::size_t d = 0; d < 3; ++d) a.image[d] = image[d];
    list.push_back(a);
  }
  if (velocities.size() > atoms.size())
    throw FormatError("read_data: " + path + ": Velocities for unknown atom ids");
  sim.add_atoms(std::move(list));
}

void write_data(Simulation& sim, const std::string& path) {
  const std::vector<AtomRecord> atoms = sim.gather_atoms();
  if (rank_of(sim) != 0) return;
  std::ostringstream out;
  char buf[256];
  out << "LAMMPS data file via write_data, Tessera md_ipu, timestep = " << sim.step()
      << ", units = " << sim.units().style << "\n\n";
  out << sim.natoms() << " atoms\n" << sim.types() << " atom types\n\n";
  const Box& b = sim.box();
  for (std::size_t d = 0; d < 3; ++d) {
    std::snprintf(buf, sizeof buf, "%.17g %.17g %clo %chi\n", b.lo[d], b.hi[d],
                  static_cast<char>('x' + d), static_cast<char>('x' + d));
    out << buf;
  }
  out << "\nMasses\n\n";
  for (int t = 1; t <= sim.types(); ++t) {
    std::snprintf(buf, sizeof buf, "%d %.17g\n", t, sim.mass(t));
    out << buf;
  }
  const auto& table = sim.pair().settings_table();
  bool all_like = sim.pair().defined() && static_cast<int>(table.size()) > sim.types();
  for (int t = 1; all_like && t <= sim.types(); ++t)
    all_like = table[static_cast<std::size_t>(t)][static_cast<std::size_t>(t)].set;
  if (all_like) {
    out << "\nPair Coeffs # lj/cut\n\n";
    for (int t = 1; t <= sim.types(); ++t) {
      const auto& s = table[static_cast<std::size_t>(t)][static_cast<std::size_t>(t)];
      std::snprintf(buf, sizeof buf, "%d %.17g %.17g\n", t, s.epsilon, s.sigma);
      out << buf;
    }
  }
  out << "\nAtoms # atomic\n\n";
  for (const auto& a : atoms) {
    std::snprintf(buf, sizeof buf, "%lld %d %.17g %.17g %.17g %d %d %d\n",
                  static_cast<long long>(a.id), a.type, a.x[0], a.x[1], a.x[2], a.image[0],
                  a.image[1], a.image[2]);
    out << buf;
  }
  out << "\nVelocities\n\n";
  for (const auto& a : atoms) {
    std::snprintf(buf, sizeof buf, "%lld %.17g %.17g %.17g\n", static_cast<long long>(a.id), a.v[0],
                  a.v[1], a.v[2]);
    out << buf;
  }
  write_file_atomically(path, out.str());
}

void write_restart(Simulation& sim, const std::string& path) {
  const std::vector<AtomRecord> atoms = sim.gather_atoms();
  if (rank_of(sim) != 0) return;
  nlohmann::json h;
  h["units"] = sim.units().style;
  h["step"] = sim.step();
  h["timestep"] = sim.timestep();
  h["types"] = sim.types();
  h["box"] = {{"lo", sim.box().lo}, {"hi", sim.box().hi}};
  std::vector<double> masses;
  for (int t = 1; t <= sim.types(); ++t) masses.push_back(sim.mass(t));
  h["masses"] = masses;
  const PairLJCut& p = sim.pair();
  h["pair"] = {{"style", p.defined() ? "lj/cut" : "none"},
               {"cutoff", p.global_cutoff()},
               {"shift", p.shift()},
               {"mix", p.mix()}};
  nlohmann::json coeffs = nlohmann::json::array();
  const auto& table = p.settings_table();
  for (std::size_t i = 1; i < table.size(); ++i)
    for (std::size_t j = i; j < table.size(); ++j)
      if (table[i][j].set)
        coeffs.push_back({i, j, table[i][j].epsilon, table[i][j].sigma, table[i][j].cutoff});
  h["pair"]["coeffs"] = coeffs;
  if (const PairDeepMD* deepmd = sim.deepmd())
    h["pair"] = {{"style", "deepmd"},
                 {"models", deepmd->model_paths()},
                 {"out_file", deepmd->out_file()},
                 {"out_freq", deepmd->out_freq()},
                 {"elements", deepmd->type_elements()},
                 {"precision",
                  deepmd->precision() ? deepmd::precision_name(*deepmd->precision()) : "model"}};
  h["neighbor"] = {{"skin", sim.neighbor().skin},
                   {"every", sim.neighbor().every},
                   {"delay", sim.neighbor().delay},
                   {"check", sim.neighbor().check}};
  nlohmann::json fixes = nlohmann::json::object();
  if (sim.nve_fixed()) fixes["nve"] = {{"id", sim.nve_id()}};
  if (sim.nvt()) {
    const auto& c = sim.chain();
    fixes["nvt"] = {{"id", sim.nvt_id()},
                    {"t_start", sim.nvt()->t_start},
                    {"t_stop", sim.nvt()->t_stop},
                    {"t_damp", sim.nvt()->t_damp},
                    {"eta", c.eta},
                    {"eta_dot", c.eta_dot},
                    {"eta_dotdot", c.eta_dotdot}};
  }
  if (sim.langevin())
    fixes["langevin"] = {{"id", sim.langevin_id()},
                         {"t_start", sim.langevin()->t_start},
                         {"t_stop", sim.langevin()->t_stop},
                         {"damp", sim.langevin()->damp},
                         {"seed", sim.langevin()->seed}};
  h["fixes"] = fixes;
  h["atoms"] = atoms.size();
  h["atom_record_bytes"] = sizeof(AtomRecord);
  std::string out = std::string(restart_magic) + " " + std::to_string(restart_version) + "\n";
  const std::string header = h.dump();
  out += std::to_string(header.size()) + "\n" + header;
  out.append(reinterpret_cast<const char*>(atoms.data()), atoms.size() * sizeof(AtomRecord));
  write_file_atomically(path, out);
}

void read_restart(Simulation& sim, const std::string& path) {
  if (sim.has_box()) throw ConfigError("read_restart: the simulation box is already defined");
  const std::string data = slurp(sim, path, "restart");
  auto fail = [&](const std::string& what) -> void {
    throw FormatError("read_restart: '" + path + "' " + what);
  };
  std::istringstream in(data);
  std::string magic;
  int version = 0;
  in >> magic >> version;
  if (magic != restart_magic) fail("is not a Tessera md restart file");
  if (version != restart_version)
    fail("has version " + std::to_string(version) + "; this md_ipu reads version " +
         std::to_string(restart_version));
  std::size_t header_bytes = 0;
  in >> header_bytes;
  in.get();
  const std::size_t at = static_cast<std::size_t>(in.tellg());
  if (!in || at + header_bytes > data.size()) fail("is truncated (header)");
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(data.substr(at, header_bytes));
    const std::size_t natoms = h.at("atoms").get<std::size_t>();
    if (h.at("atom_record_bytes").get<std::size_t>() != sizeof(AtomRecord))
      fail("was written with another atom layout");
    if (at + header_bytes + natoms * sizeof(AtomRecord) != data.size())
      fail("is truncated or has trailing bytes");
    // The pair settings are checked before the simulation is changed at all.
    const auto& p = h.at("pair");
    const auto style = p.at("style").get<std::string>();
    if (style != "deepmd" && style != "lj/cut")
      fail("records pair style '" + style + "'; this md_ipu writes lj/cut or deepmd");
    std::optional<deepmd::Precision> override;  // "model" (none) or a precision name
    if (style == "deepmd") {
      const auto precision = p.at("precision").get<std::string>();
      override = deepmd::precision_named(precision);
      if (!override && precision != "model")
        fail("records deepmd precision '" + precision + "'; expected model, float32 or float64");
    }
    sim.set_units(Units::of(h.at("units").get<std::string>()));
    Box box;
    box.lo = h.at("box").at("lo").get<std::array<double, 3>>();
    box.hi = h.at("box").at("hi").get<std::array<double, 3>>();
    const int types = h.at("types").get<int>();
    sim.create_box(types, box);
    const auto masses = h.at("masses").get<std::vector<double>>();
    for (int t = 1; t <= types; ++t) sim.set_mass(t, masses.at(static_cast<std::size_t>(t - 1)));
    sim.set_timestep(h.at("timestep").get<double>());
    sim.set_step(h.at("step").get<std::int64_t>());
    if (style == "deepmd") {
      // The models are read again from their files, as LAMMPS's DeePMD plugin does.
      auto deepmd = std::make_unique<PairDeepMD>(p.at("models").get<std::vector<std::string>>(),
                                                 p.at("out_file").get<std::string>(),
                                                 p.at("out_freq").get<int>(), override);
      deepmd->coeff(p.at("elements").get<std::vector<std::string>>(), types);
      deepmd->append_to_out_file();
      sim.use_deepmd(std::move(deepmd));
    } else {
      sim.pair().settings(p.at("cutoff").get<double>());
      sim.pair().set_shift(p.at("shift").get<bool>());
      sim.pair().set_mix(p.at("mix").get<std::string>());
      for (const auto& c : p.at("coeffs")) {
        const int i = c.at(0).get<int>(), j = c.at(1).get<int>();
        sim.pair().coeff(i, i, j, j, c.at(2).get<double>(), c.at(3).get<double>(),
                         c.at(4).get<double>());
      }
    }
    const auto& n = h.at("neighbor");
    sim.neighbor() = {n.at("skin").get<double>(), n.at("every").get<int>(),
                      n.at("delay").get<int>(), n.at("check").get<bool>()};
    const auto& f = h.at("fixes");
    if (f.contains("nve")) sim.fix_nve(f["nve"].at("id").get<std::string>());
    if (f.contains("nvt")) {
      const auto& v = f["nvt"];
      sim.fix_nvt(v.at("id").get<std::string>(),
                  {v.at("t_start").get<double>(), v.at("t_stop").get<double>(),
                   v.at("t_damp").get<double>()});
      Simulation::ChainState c;
      c.eta = v.at("eta").get<std::array<double, 3>>();
      c.eta_dot = v.at("eta_dot").get<std::array<double, 3>>();
      c.eta_dotdot = v.at("eta_dotdot").get<std::array<double, 3>>();
      sim.set_chain(c);
    }
    std::vector<AtomRecord> atoms(natoms);
    std::memcpy(atoms.data(), data.data() + at + header_bytes, natoms * sizeof(AtomRecord));
    sim.add_atoms(std::move(atoms));
    if (f.contains("langevin")) {
      // The atoms carry their noise state; re-register the fix without reseeding them.
      const auto& v = f["langevin"];
      sim.restore_langevin(v.at("id").get<std::string>(),
                           {v.at("t_start").get<double>(), v.at("t_stop").get<double>(),
                            v.at("damp").get<double>(), v.at("seed").get<int>()});
    }
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("has a malformed header: ") + e.what());
  }
}

}  // namespace tessera::md
