#include "tessera/md/data_file.hpp"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "checked_integer.hpp"
#include "restart_header.hpp"
#include "tessera/core/atomic_file.hpp"
#include "tessera/core/checksum.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/shared_input.hpp"

namespace tessera::md {
namespace {

constexpr const char* restart_magic = "TESSERA-MD-RESTART";
// Version 2 added the CRC-32 trailer.
// Version 3 added the atoms' group masks (version 2 files are read with every atom in all).
// Version 4 lists the fixes in their order (any number of each style), and the boundary.
// Version 5 added the atom style and each atom's charge (AtomRecord::q, after mask); older
// records, without it, are read as charges of 0.
constexpr int restart_version = 5;
constexpr std::size_t record_bytes_before_charge = offsetof(AtomRecord, q);
constexpr std::size_t record_bytes_without_charge = sizeof(AtomRecord) - sizeof(double);
static_assert(offsetof(AtomRecord, x) == record_bytes_before_charge + sizeof(double));
// The trailer: "crc32 ", the CRC-32 of every byte before it in 8 hex digits, a newline.
constexpr std::size_t restart_trailer_bytes = 15;

// Appends the trailer that read_restart checks to the serialised restart file.
void seal_restart(std::string& bytes) {
  char trailer[restart_trailer_bytes + 1];
  std::snprintf(trailer, sizeof trailer, "crc32 %08x\n", static_cast<unsigned>(crc32(bytes)));
  bytes += trailer;
}

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

}  // namespace

PairContext pair_context(Simulation& sim) {
  return {sim.units(),
          [&sim](const std::string& path, const std::string& kind, const std::string& hint) {
            SharedFile f = read_on_root(sim.runtime().comm(), path);
            if (!f.ok)
              throw ConfigError("cannot open " + kind + " '" + path + "': " + f.bytes + hint);
            return std::move(f.bytes);
          },
          [&sim](int type, double mass) { sim.set_mass(type, mass); },
          [&sim](const std::string& text) { sim.log(text); }};
}

namespace {

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

void read_data(Simulation& sim, const std::string& path,
               const std::vector<DataFixSection>& fix_sections, bool coefficients) {
  if (sim.has_box()) throw ConfigError("read_data: the simulation box is already defined");
  LineReader r{std::istringstream(slurp(sim, path, "data")), path};
  std::string line;
  r.next(line);  // the first line is a title
  long long natoms = -1;
  int types = -1;
  // Per kind of bonded term (TermKind): how many the header says there are, and their types.
  std::array<long long, term_kinds> nterms{};
  std::array<int, term_kinds> term_types{};
  // The kind a header or section word names ("bonds" / "bond" / "Bonds" / "Bond Coeffs").
  const auto kind_named = [](const std::string& word, auto field) -> std::optional<TermKind> {
    for (const TermKind kind : all_term_kinds)
      if (word == field(info(kind))) return kind;
    return std::nullopt;
  };
  const auto plural = [](const TermKindInfo& k) { return std::string(k.name) + "s"; };
  const auto singular = [](const TermKindInfo& k) { return std::string(k.name); };
  const auto term_sections = [&] {
    std::string out;
    for (const TermKind kind : all_term_kinds)
      if (has_terms(sim.atom_style(), kind))
        out += std::string(", ") + info(kind).section + ", " + info(kind).coeff_section;
    return out;
  };
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
    } else if (const auto kind = w.size() == 2 ? kind_named(w[1], plural) : std::nullopt) {
      const long long count = to_int(r, w[0], 0, bigint_max);
      if (count != 0 && !has_terms(sim.atom_style(), *kind))
        r.fail("this file has " + w[1] + ", but atom_style " + atom_style_name(sim.atom_style()) +
               " has none");
      nterms[static_cast<std::size_t>(*kind)] = count;
    } else if (w.size() == 6 && w[3] == "xy" && w[4] == "xz" && w[5] == "yz") {
      box.xy = to_double(r, w[0]), box.xz = to_double(r, w[1]), box.yz = to_double(r, w[2]);
      box.triclinic = true;
    } else if (const auto kind =
                   w.size() == 3 && w[2] == "types" ? kind_named(w[1], singular) : std::nullopt) {
      const long long count = to_int(r, w[0], 0, int_max);
      if (count != 0 && !has_terms(sim.atom_style(), *kind))
        r.fail("this file has " + w[1] + " types, but atom_style " +
               atom_style_name(sim.atom_style()) + " has no " + w[1] + "s");
      term_types[static_cast<std::size_t>(*kind)] = static_cast<int>(count);
    } else if (w.size() == 5 && w[1] == "extra" && w[3] == "per" && w[4] == "atom" &&
               (w[2] == "bond" || w[2] == "angle" || w[2] == "dihedral" || w[2] == "improper" ||
                w[2] == "special")) {
      to_int(r, w[0], 0, int_max);  // room for topology added later: md_ipu sizes its own
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
  if (sim.molecular()) sim.set_topology_types(term_types);

  std::map<std::int64_t, AtomRecord> atoms;
  std::map<std::int64_t, AtomTopology> topology;  // molecular styles: every atom's
  std::array<long long, term_kinds> terms_read{};
  std::map<std::int64_t, std::array<double, 3>> velocities;
  // Per fix section: each atom's values, all its properties' columns in order.
  std::vector<std::map<std::int64_t, std::vector<double>>> fix_values(fix_sections.size());
  std::vector<std::size_t> fix_columns(fix_sections.size(), 0);
  for (std::size_t k = 0; k < fix_sections.size(); ++k)
    for (const auto& name : fix_sections[k].properties)
      fix_columns[k] += sim.custom_property(name)->columns;
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
    } else if (!coefficients &&
               (name == "Pair Coeffs" || name == "PairIJ Coeffs" ||
                kind_named(name, [](const TermKindInfo& k) { return k.coeff_section; }))) {
      // nocoeff: the force field comes from the input's commands.
    } else if (name == "Pair Coeffs") {
      Pair* pair = sim.pair();
      if (!pair)
        r.fail("Pair Coeffs need a pair_style (e.g. pair_style lj/cut RC) before read_data");
      for (const auto& [at, w] : rows) {
        r.line = at;
        to_int(r, w[0], 1, types);
        try {
          pair->data_coeff(w, types);
        } catch (const ConfigError& e) {
          r.fail(e.what());
        }
      }
    } else if (name == "Atoms") {
      // LAMMPS's columns: id type x y z (atomic), id type q x y z (charge), id molecule type x y z
      // (bond, angle, molecular), id molecule type q x y z (full); image flags may follow.
      const std::size_t at_type = sim.molecular() ? 2 : 1;
      const std::size_t first_x = at_type + (sim.charged() ? 2 : 1);
      for (const auto& [at, w] : rows) {
        r.line = at;
        if (w.size() != first_x + 3 && w.size() != first_x + 6)
          r.fail(std::string("an Atoms line (") + atom_style_name(sim.atom_style()) +
                 ") needs: id " + (sim.molecular() ? "molecule " : "") + "type " +
                 (sim.charged() ? "q " : "") + "x y z [ix iy iz]");
        AtomRecord a;
        a.id = to_int(r, w[0], 1, bigint_max);
        long long type = 0;
        if (!detail::integer_problem(w[at_type], 1, types, &type).empty()) {
          to_int(r, w[at_type], bigint_min, bigint_max);  // not an integer at all: say so
          r.fail("atom type " + w[at_type] + " is out of range 1.." + std::to_string(types));
        }
        a.type = static_cast<std::int32_t>(type);
        if (sim.charged()) a.q = to_double(r, w[at_type + 1]);
        if (sim.molecular()) topology[a.id].molecule = to_int(r, w[1], 0, bigint_max);
        for (std::size_t d = 0; d < 3; ++d) a.x[d] = to_double(r, w[first_x + d]);
        if (w.size() == first_x + 6)
          for (std::size_t d = 0; d < 3; ++d)
            a.image[d] = static_cast<std::int32_t>(to_int(r, w[first_x + 3 + d], int_min, int_max));
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
    } else if (const auto kind = kind_named(name, [](const TermKindInfo& k) { return k.section; });
               kind && has_terms(sim.atom_style(), *kind)) {
      // id type atom1 atom2 ..., kept with the kind's owner atom (LAMMPS's newton_bond on).
      const TermKindInfo& k = info(*kind);
      const int ntypes = sim.topology_types(*kind);
      for (const auto& [at, w] : rows) {
        r.line = at;
        if (w.size() != k.atoms + 2) {
          std::string usage = "id type";
          for (std::size_t n = 1; n <= k.atoms; ++n) usage += " atom" + std::to_string(n);
          r.fail("a " + name + " line needs: " + usage);
        }
        to_int(r, w[0], 1, bigint_max);
        long long type = 0;
        if (!detail::integer_problem(w[1], 1, ntypes, &type).empty()) {
          to_int(r, w[1], bigint_min, bigint_max);
          r.fail(std::string(k.name) + " type " + w[1] + " is out of range 1.." +
                 std::to_string(ntypes) + " (the header's '" + std::to_string(ntypes) + " " +
                 k.name + " types')");
        }
        AtomTopology::Term term;
        term.type = static_cast<int>(type);
        for (std::size_t n = 0; n < k.atoms; ++n) {
          term.atoms[n] = to_int(r, w[n + 2], 1, bigint_max);
          if (!atoms.count(term.atoms[n]))
            r.fail(std::string(k.name) + " atom " + w[n + 2] +
                   " is not in the Atoms section (LAMMPS: \"Invalid atom ID in " + name +
                   " section of data file\")");
        }
        topology[term.atoms[k.owner]].of(*kind).push_back(term);
        ++terms_read[static_cast<std::size_t>(*kind)];
      }
    } else if (const auto kind =
                   kind_named(name, [](const TermKindInfo& k) { return k.coeff_section; });
               kind && has_terms(sim.atom_style(), *kind)) {
      const auto with = [&](auto* style) {
        if (!style)
          r.fail(name + " need a " + info(*kind).name + "_style (e.g. harmonic) before read_data");
        for (const auto& [at, w] : rows) {
          r.line = at;
          try {
            style->data_coeff(w, sim.topology_types(*kind));
          } catch (const ConfigError& e) {
            r.fail(e.what());
          }
        }
      };
      sim.for_each_bonded_style([&](auto* style, TermKind k) {
        if (k == *kind) with(style);
      });
    } else if (const auto fix =
                   std::find_if(fix_sections.begin(), fix_sections.end(),
                                [&](const DataFixSection& f) { return f.section == name; });
               fix != fix_sections.end()) {
      const auto k = static_cast<std::size_t>(fix - fix_sections.begin());
      for (const auto& [at, w] : rows) {
        r.line = at;
        if (w.size() != fix_columns[k] + 1)
          r.fail("a " + name + " line (fix " + fix->fix_id + ") needs: id and " +
                 std::to_string(fix_columns[k]) + " value(s)");
        const std::int64_t id = to_int(r, w[0], 1, bigint_max);
        std::vector<double> values;
        std::size_t column = 1;
        for (const auto& property : fix->properties) {
          const Simulation::CustomProperty& p = *sim.custom_property(property);
          for (std::size_t c = 0; c < p.columns; ++c, ++column)
            values.push_back(p.integer ? static_cast<double>(to_int(r, w[column], int_min, int_max))
                                       : to_double(r, w[column]));
        }
        if (!fix_values[k].emplace(id, std::move(values)).second)
          r.fail("atom id " + w[0] + " appears twice in " + name);
      }
    } else {
      r.line = name_line;
      r.fail("unsupported section '" + name + "' (atom_style " + atom_style_name(sim.atom_style()) +
             " files have Masses, Pair Coeffs, Atoms, Velocities" + term_sections() + ")");
    }
    r.line = resume;
  }
  if (static_cast<long long>(atoms.size()) != natoms)
    throw FormatError("read_data: " + path + ": the header says " + std::to_string(natoms) +
                      " atoms but the Atoms section has " + std::to_string(atoms.size()));
  std::vector<AtomRecord> list;
  list.reserve(atoms.size());
  const BoxMatrix matrix(box);
  for (auto& [id, a] : atoms) {
    auto v = velocities.find(id);
    if (v != velocities.end()) a.v = v->second;
    // LAMMPS's read_data remaps every atom, through fractional coordinates in a triclinic box.
    if (box.triclinic)
      matrix.to_fraction(a.x.data(), a.x.data()), matrix.to_cartesian(a.x.data(), a.x.data());
    // Atoms exactly on the upper box face belong to the lower one, as in LAMMPS.
    int image[3] = {a.image[0], a.image[1], a.image[2]};
    for (std::size_t d = 0; d < 3 && !box.triclinic; ++d) {
      const double l = box.hi[d] - box.lo[d];
      if (a.x[d] >= box.hi[d] && a.x[d] < box.hi[d] + 1e-9 * l && image[d] < int_max)
        a.x[d] -= l, ++image[d];
    }
    for (std::size_t d = 0; d < 3; ++d) a.image[d] = image[d];
    list.push_back(a);
  }
  if (velocities.size() > atoms.size())
    throw FormatError("read_data: " + path + ": Velocities for unknown atom ids");
  for (std::size_t k = 0; k < fix_sections.size(); ++k)
    for (const auto& [id, values] : fix_values[k])
      if (!atoms.count(id))
        throw FormatError("read_data: " + path + ": " + fix_sections[k].section +
                          " gives values for atom id " + std::to_string(id) +
                          ", which no Atoms line has");
  for (const TermKind kind : all_term_kinds) {
    const auto k = static_cast<std::size_t>(kind);
    if (terms_read[k] != nterms[k])
      throw FormatError("read_data: " + path + ": the header says " + std::to_string(nterms[k]) +
                        " " + info(kind).name + "s but the " + info(kind).section +
                        " section has " + std::to_string(terms_read[k]));
  }
  sim.add_atoms(std::move(list));
  if (sim.molecular()) {
    build_special(topology, sim.special_bonds());
    sim.set_topology(topology);
  }
  for (std::size_t k = 0; k < fix_sections.size(); ++k) {
    std::size_t column = 0;
    for (const auto& property : fix_sections[k].properties) {
      const Simulation::CustomProperty& p = *sim.custom_property(property);
      for (std::size_t c = 0; c < p.columns; ++c, ++column) {
        const std::size_t at = sim.per_atom_offset(p.handle) + p.offset + c;
        sim.store_per_atom("md.read_data_fix", at, [&](const AtomsView& a, std::span<double> out) {
          for (std::size_t i = 0; i < out.size(); ++i) {
            const auto it = fix_values[k].find(a.id[i]);
            out[i] = it == fix_values[k].end() ? 0.0 : it->second[column];
          }
        });
      }
    }
  }
}

void write_data(Simulation& sim, const std::string& path, bool coefficients) {
  const std::vector<AtomRecord> atoms = sim.gather_atoms();
  const std::map<std::int64_t, AtomTopology> topology = sim.gather_topology();
  if (rank_of(sim) != 0) return;
  std::ostringstream out;
  char buf[256];
  out << "LAMMPS data file via write_data, Tessera md_ipu, timestep = " << sim.step()
      << ", units = " << sim.units().style << "\n\n";
  out << sim.natoms() << " atoms\n" << sim.types() << " atom types\n";
  std::array<std::size_t, term_kinds> nterms{};
  for (const auto& [id, a] : topology)
    for (std::size_t k = 0; k < term_kinds; ++k) nterms[k] += a.terms[k].size();
  for (const TermKind kind : all_term_kinds)
    if (has_terms(sim.atom_style(), kind))
      out << nterms[static_cast<std::size_t>(kind)] << " " << info(kind).name << "s\n"
          << sim.topology_types(kind) << " " << info(kind).name << " types\n";
  out << "\n";
  const Box& b = sim.box();
  for (std::size_t d = 0; d < 3; ++d) {
    std::snprintf(buf, sizeof buf, "%.17g %.17g %clo %chi\n", b.lo[d], b.hi[d],
                  static_cast<char>('x' + d), static_cast<char>('x' + d));
    out << buf;
  }
  if (b.triclinic) {
    std::snprintf(buf, sizeof buf, "%.17g %.17g %.17g xy xz yz\n", b.xy, b.xz, b.yz);
    out << buf;
  }
  out << "\nMasses\n\n";
  for (int t = 1; t <= sim.types(); ++t) {
    std::snprintf(buf, sizeof buf, "%d %.17g\n", t, sim.mass(t));
    out << buf;
  }
  if (const Pair* pair = sim.pair(); pair && coefficients)
    pair->write_data_coeffs(out, sim.types());
  if (coefficients) {
    std::as_const(sim).for_each_bonded_style([&](const auto* style, TermKind kind) {
      if (style) style->write_data_coeffs(out, sim.topology_types(kind));
    });
  }
  out << "\nAtoms # " << atom_style_name(sim.atom_style()) << "\n\n";
  for (const auto& a : atoms) {
    if (sim.molecular()) {
      const auto it = topology.find(a.id);
      const long long molecule = it == topology.end() ? 0 : it->second.molecule;
      if (sim.charged())
        std::snprintf(buf, sizeof buf, "%lld %lld %d %.17g %.17g %.17g %.17g %d %d %d\n",
                      static_cast<long long>(a.id), molecule, a.type, a.q, a.x[0], a.x[1], a.x[2],
                      a.image[0], a.image[1], a.image[2]);
      else
        std::snprintf(buf, sizeof buf, "%lld %lld %d %.17g %.17g %.17g %d %d %d\n",
                      static_cast<long long>(a.id), molecule, a.type, a.x[0], a.x[1], a.x[2],
                      a.image[0], a.image[1], a.image[2]);
    } else if (sim.charged())
      std::snprintf(buf, sizeof buf, "%lld %d %.17g %.17g %.17g %.17g %d %d %d\n",
                    static_cast<long long>(a.id), a.type, a.q, a.x[0], a.x[1], a.x[2], a.image[0],
                    a.image[1], a.image[2]);
    else
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
  // Numbered in the order of their owner atoms' ids, each with its atoms in LAMMPS's order.
  for (const TermKind kind : all_term_kinds) {
    if (nterms[static_cast<std::size_t>(kind)] == 0) continue;
    out << "\n" << info(kind).section << "\n\n";
    std::size_t n = 0;
    for (const auto& [id, a] : topology)
      for (const auto& term : a.of(kind)) {
        out << ++n << " " << term.type;
        for (std::size_t k = 0; k < info(kind).atoms; ++k) out << " " << term.atoms[k];
        out << "\n";
      }
  }
  write_file_atomically(path, out.str());
}

void write_restart(Simulation& sim, const std::string& path) {
  for (const auto& fix : sim.fixes())
    if (const std::string why = fix->restart_refusal(); !why.empty())
      throw ConfigError("write_restart: fix " + fix->id() + " " + fix->style() + ": " + why);
  // On every rank: the run after this one sets up anew, as the run continued from the file will.
  sim.require_setup();
  const std::vector<AtomRecord> atoms = sim.gather_atoms();
  const std::map<std::int64_t, AtomTopology> topology = sim.gather_topology();
  if (rank_of(sim) != 0) return;
  nlohmann::json h;
  h["units"] = sim.units().style;
  h["atom_style"] = atom_style_name(sim.atom_style());
  h["dimension"] = sim.dimension();
  h["groups"] = sim.groups();
  h["step"] = sim.step();
  h["timestep"] = sim.timestep();
  h["types"] = sim.types();
  h["box"] = {{"lo", sim.box().lo}, {"hi", sim.box().hi}};
  if (sim.box().triclinic)
    h["box"]["tilt"] = std::array<double, 3>{sim.box().xy, sim.box().xz, sim.box().yz};
  const Boundary& bc = sim.boundary();
  const auto& shrink = sim.shrink_state();
  h["boundary"] = {{"faces", {bc.letters(0), bc.letters(1), bc.letters(2)}},
                   {"small", shrink.small},
                   {"min_lo", shrink.min_lo},
                   {"min_hi", shrink.min_hi}};
  std::vector<double> masses;
  for (int t = 1; t <= sim.types(); ++t) masses.push_back(sim.mass(t));
  h["masses"] = masses;
  const Pair* pair = sim.pair();
  h["pair"] = pair ? pair->restart_section() : nlohmann::json{{"style", "none"}};
  h["neighbor"] = {{"skin", sim.neighbor().skin},
                   {"every", sim.neighbor().every},
                   {"delay", sim.neighbor().delay},
                   {"check", sim.neighbor().check},
                   {"once", sim.neighbor().once},
                   {"exclude_types", sim.neighbor().exclude_types},
                   {"exclude_groups", sim.neighbor().exclude_groups}};
  // In the order they were defined: the order each step applies them in.
  nlohmann::json fixes = nlohmann::json::array();
  for (const auto& fix : sim.fixes()) {
    if (!fix->restartable()) continue;
    nlohmann::json section = fix->restart_section();
    section["style"] = fix->style();
    section["id"] = fix->id();
    section["group"] = fix->group();
    fixes.push_back(section);
  }
  h["fixes"] = fixes;
  // What the script's own definitions of the other fixes continue from (LAMMPS's
  // restart_global).
  nlohmann::json states = nlohmann::json::array();
  for (const auto& fix : sim.fixes())
    if (!fix->restartable())
      if (nlohmann::json state = fix->global_state(); !state.is_null())
        states.push_back({{"id", fix->id()}, {"style", fix->style()}, {"state", state}});
  h["fix_states"] = states;
  h["atoms"] = atoms.size();
  h["atom_record_bytes"] = sizeof(AtomRecord);
  // Molecular topology: the styles and weights here, each atom's row (in id order, as the atoms)
  // after the atoms.
  std::vector<double> rows;
  if (sim.molecular()) {
    const TopologyLayout layout = TopologyLayout::fitting(topology);
    nlohmann::json t = {{"special_lj", sim.special_bonds().lj},
                        {"special_coul", sim.special_bonds().coul},
                        {"special_angle", sim.special_bonds().angle},
                        {"special_dihedral", sim.special_bonds().dihedral}};
    nlohmann::json most = nlohmann::json::array();
    for (const TermKind kind : all_term_kinds) {
      t[std::string(info(kind).name) + "_types"] = sim.topology_types(kind);
      most.push_back(layout.most[static_cast<std::size_t>(kind)]);
    }
    most.push_back(layout.specials);
    t["layout"] = most;
    std::as_const(sim).for_each_bonded_style([&](const auto* style, TermKind kind) {
      if (style) t[info(kind).name] = style->restart_section();
    });
    h["topology"] = t;
    rows.assign(atoms.size() * layout.width(), 0.0);
    for (std::size_t k = 0; k < atoms.size(); ++k)
      if (const auto it = topology.find(atoms[k].id); it != topology.end())
        layout.encode(it->second, std::span<double>(&rows[k * layout.width()], layout.width()));
  }
  std::string out = std::string(restart_magic) + " " + std::to_string(restart_version) + "\n";
  const std::string header = h.dump();
  out += std::to_string(header.size()) + "\n" + header;
  out.append(reinterpret_cast<const char*>(atoms.data()), atoms.size() * sizeof(AtomRecord));
  out.append(reinterpret_cast<const char*>(rows.data()), rows.size() * sizeof(double));
  seal_restart(out);
  write_file_atomically(path, out);
}

namespace {

// The decimal number that ends at the next newline from `at`, which moves past the newline.
std::optional<unsigned long long> line_number(const std::string& data, std::size_t& at) {
  const std::size_t end = data.find('\n', at);
  if (end == std::string::npos || end == at || end - at > 19) return std::nullopt;
  unsigned long long v = 0;
  for (std::size_t k = at; k < end; ++k) {
    if (data[k] < '0' || data[k] > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned long long>(data[k] - '0');
  }
  at = end + 1;
  return v;
}

}  // namespace

void read_restart(Simulation& sim, const std::string& path) {
  if (sim.has_box()) throw ConfigError("read_restart: the simulation box is already defined");
  const std::string data = slurp(sim, path, "restart");
  const detail::RestartHeader r(path);
  using Sign = detail::RestartHeader::Sign;

  // The first line, then the checksum over everything before the trailer, then the rest.
  const std::string magic = std::string(restart_magic) + " ";
  if (data.compare(0, magic.size(), magic) != 0) r.fail("is not a Tessera md restart file");
  std::size_t at = magic.size();
  const auto version = line_number(data, at);
  if (!version) r.fail("is not a Tessera md restart file (its first line is damaged)");
  if (*version < 2 || *version > static_cast<unsigned long long>(restart_version))
    r.fail("has version " + std::to_string(*version) + "; this md_ipu reads versions 2 to " +
           std::to_string(restart_version) +
           (*version == 1 ? " (version 1 files carry no checksum; write the restart again)" : ""));
  const bool has_masks = *version >= 3;
  if (data.size() < at + restart_trailer_bytes) r.fail("is truncated (it has no checksum)");
  const std::size_t body = data.size() - restart_trailer_bytes;
  unsigned stored = 0;
  char newline = 0;
  if (data.compare(body, 6, "crc32 ") != 0 ||
      std::sscanf(data.c_str() + body + 6, "%8x%c", &stored, &newline) != 2 || newline != '\n' ||
      data.find_first_not_of("0123456789abcdef", body + 6) != data.size() - 1)
    r.fail(
        "is truncated or damaged: it does not end with its checksum line (crc32 and 8 hex "
        "digits)");
  const std::uint32_t computed = crc32(std::string_view(data).substr(0, body));
  if (computed != stored) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "is damaged: its CRC-32 is %08x but it records %08x; use another restart file",
                  static_cast<unsigned>(computed), stored);
    r.fail(buf);
  }
  const auto header_bytes = line_number(data, at);
  if (!header_bytes || *header_bytes > body - at) r.fail("is truncated (header)");

  nlohmann::json h;
  try {
    h = nlohmann::json::parse(data.substr(at, static_cast<std::size_t>(*header_bytes)));
  } catch (const nlohmann::json::exception& e) {
    r.fail(std::string("has a malformed header: ") + e.what());
  }
  at += static_cast<std::size_t>(*header_bytes);
  if (!h.is_object()) r.fail("has a malformed header: not a JSON object");

  // Sizes and layout.
  const std::size_t record_bytes = *version >= 5 ? sizeof(AtomRecord) : record_bytes_without_charge;
  if (r.integer(r.at(h, "atom_record_bytes", "atom_record_bytes"), "atom_record_bytes", 0,
                bigint_max, "this md_ipu") != static_cast<long long>(record_bytes))
    r.fail("was written with another atom layout");
  const auto natoms = static_cast<std::size_t>(
      r.integer(r.at(h, "atoms", "atoms"), "atoms", 0, bigint_max, "Tessera"));

  // Units, step, timestep, box, types and masses (units, reset_timestep, timestep, create_box,
  // mass).
  const std::string units_name = r.text(r.at(h, "units", "units"), "units");
  Units units = sim.units();
  try {
    units = Units::of(units_name);
  } catch (const ConfigError& e) {
    r.fail(std::string("records ") + e.what());
  }
  const std::int64_t step =
      r.integer(r.at(h, "step", "step"), "step", 0, bigint_max, "reset_timestep");
  const double dt = r.real(r.at(h, "timestep", "timestep"), "timestep", Sign::positive, "timestep");
  const int types =
      static_cast<int>(r.integer(r.at(h, "types", "types"), "types", 1, int_max, "create_box"));
  // Files of version 2 written before dimension 2 existed are 3-d.
  const int dimension =
      h.contains("dimension")
          ? static_cast<int>(r.integer(h["dimension"], "dimension", 2, 3, "dimension"))
          : 3;
  // Files written before atom_style charge existed are atomic.
  AtomStyle atom_style = AtomStyle::atomic;
  if (h.contains("atom_style")) {
    const std::string name = r.text(h["atom_style"], "atom_style");
    bool known = false;
    for (const AtomStyle style : {AtomStyle::atomic, AtomStyle::charge, AtomStyle::bond,
                                  AtomStyle::angle, AtomStyle::molecular, AtomStyle::full})
      if (name == atom_style_name(style)) atom_style = style, known = true;
    if (!known)
      r.fail("records atom_style '" + name +
             "'; this md_ipu has atomic, charge, bond, angle, molecular and full");
  }
  // Molecular topology (atom_style bond and the like): types, styles, weights, and the rows'
  // layout; the rows follow the atoms.
  std::array<int, term_kinds> term_types{};
  TopologyLayout layout;
  // Files written before dihedrals and impropers existed lay out bonds, angles and specials only:
  // their rows lack the dihedral and improper counts (two zeros put back on reading).
  bool rows_before_dihedrals = false;
  SpecialBonds special;
  std::unique_ptr<Bond> bond;
  std::unique_ptr<Angle> angle;
  std::unique_ptr<Dihedral> dihedral;
  std::unique_ptr<Improper> improper;
  if (has_bonds(atom_style)) {
    const auto& t = r.at(h, "topology", "topology");
    const auto& l = r.at(t, "layout", "topology.layout");
    if (!l.is_array() || (l.size() != term_kinds + 1 && l.size() != 3))
      r.fail("has topology.layout that is not " + std::to_string(term_kinds + 1) + " counts");
    rows_before_dihedrals = l.size() == 3;
    const auto most = [&](std::size_t k) {
      return static_cast<std::size_t>(
          r.integer(l[k], "topology.layout[" + std::to_string(k) + "]", 0, 1 << 20, "a topology"));
    };
    for (const TermKind kind : all_term_kinds) {
      const auto k = static_cast<std::size_t>(kind);
      const std::string key = std::string(info(kind).name) + "_types";
      if (rows_before_dihedrals && k >= 2) continue;
      term_types[k] =
          static_cast<int>(r.integer(r.at(t, key, "topology." + key), "topology." + key, 0,
                                     has_terms(atom_style, kind) ? int_max : 0,
                                     std::string("read_data's ") + info(kind).name + " types"));
      layout.most[k] = most(k);
    }
    layout.specials = most(l.size() - 1);
    for (const char* key : {"special_lj", "special_coul"}) {
      const auto& w = r.at(t, key, std::string("topology.") + key);
      if (!w.is_array() || w.size() != 4)
        r.fail(std::string("has topology.") + key + " that is not 4 weights");
      auto& to = key[8] == 'l' ? special.lj : special.coul;
      for (std::size_t k = 0; k < 4; ++k) {
        to[k] = r.real(w[k], std::string("topology.") + key, Sign::non_negative, "special_bonds");
        if (to[k] > 1.0 || (k == 0 && to[k] != 1.0))
          r.fail(std::string("has topology.") + key + " weights outside 0..1");
      }
    }
    // Files before the trims have neither: off.
    for (const char* key : {"special_angle", "special_dihedral"})
      if (t.contains(key)) {
        if (!t.at(key).is_boolean())
          r.fail(std::string("has topology.") + key + " that is not true or false");
        (key[8] == 'a' ? special.angle : special.dihedral) = t.at(key).get<bool>();
      }
    // The bonded styles, each made by its registry and restored from its section.
    const auto restore_style = [&](const std::string& family, const auto& registry, auto& style,
                                   int types) {
      if (!t.contains(family)) return;
      const std::string where = "topology." + family + ".style";
      const std::string name = r.text(r.at(t[family], "style", where), where);
      if (!registry.has(name))
        r.fail("records " + family + " style '" + name + "'; this md_ipu has " +
               registry.listing());
      style = registry.make(name);
      style->restore(t[family], r, types);
    };
    restore_style("bond", bond_styles(), bond, term_types[0]);
    restore_style("angle", angle_styles(), angle, term_types[1]);
    restore_style("dihedral", dihedral_styles(), dihedral, term_types[2]);
    restore_style("improper", improper_styles(), improper, term_types[3]);
  }
  const std::size_t row_bytes =
      has_bonds(atom_style) ? (layout.width() - (rows_before_dihedrals ? 2 : 0)) * sizeof(double)
                            : 0;
  if (natoms > (body - at) / (record_bytes + row_bytes) ||
      at + natoms * (record_bytes + row_bytes) != body)
    r.fail("is truncated or has trailing bytes");
  std::vector<std::string> groups{"all"};
  if (h.contains("groups")) {
    groups = r.texts_or_empty(h["groups"], "groups");
    if (groups.empty() || groups[0] != "all" || groups.size() > 32)
      r.fail("has groups = " + h["groups"].dump() + "; expected all and at most 31 more names");
  }
  Box box;
  const auto& hb = r.at(h, "box", "box");
  box.lo = r.triple(r.at(hb, "lo", "box.lo"), "box.lo");
  box.hi = r.triple(r.at(hb, "hi", "box.hi"), "box.hi");
  if (hb.contains("tilt")) {
    const auto tilt = r.triple(hb["tilt"], "box.tilt");
    box.xy = tilt[0], box.xz = tilt[1], box.yz = tilt[2], box.triclinic = true;
  }
  double volume = 1;
  for (int d = 0; d < 3; ++d) {
    if (!(box.length(d) > 0) || !std::isfinite(box.length(d)))
      r.fail("has a box of extent " + std::to_string(box.length(d)) + " in " + "xyz"[d] +
             ", which create_box refuses: hi must exceed lo by a finite length");
    volume *= box.length(d);
  }
  if (!std::isfinite(volume)) r.fail("has a box whose volume is not finite");
  // Files written before non-periodic boundaries existed are periodic.
  Boundary boundary;
  Simulation::ShrinkState shrink;
  if (h.contains("boundary")) {
    const auto& hbc = h["boundary"];
    const auto faces = r.texts_or_empty(r.at(hbc, "faces", "boundary.faces"), "boundary.faces");
    if (faces.size() != 3)
      r.fail("has boundary.faces of " + std::to_string(faces.size()) + " dimensions; expected 3");
    for (std::size_t d = 0; d < 3; ++d) {
      const std::string& f = faces[d];
      if (f.size() != 2 || f.find_first_not_of("pfsm") != std::string::npos ||
          (f[0] == 'p') != (f[1] == 'p'))
        r.fail("has boundary faces '" + f + "' in " + "xyz"[d] +
               ", which boundary refuses: pp, or two of f, s and m");
      boundary.face[d] = {f[0], f[1]};
    }
    if (dimension == 2 && !boundary.periodic(2))
      r.fail("has a 2-d box that is not periodic in z, which boundary refuses");
    shrink.small = r.triple(r.at(hbc, "small", "boundary.small"), "boundary.small");
    shrink.min_lo = r.triple(r.at(hbc, "min_lo", "boundary.min_lo"), "boundary.min_lo");
    shrink.min_hi = r.triple(r.at(hbc, "min_hi", "boundary.min_hi"), "boundary.min_hi");
  }
  const auto& hm = r.at(h, "masses", "masses");
  if (!hm.is_array() || hm.size() != static_cast<std::size_t>(types))
    r.fail("records " + std::to_string(hm.is_array() ? hm.size() : 0) + " masses for " +
           std::to_string(types) + " atom types");
  std::vector<double> masses;
  for (std::size_t t = 0; t < hm.size(); ++t)
    masses.push_back(r.real(hm[t], "masses[" + std::to_string(t) + "]", Sign::positive, "mass"));

  // The pair style (pair_style, pair_coeff, pair_modify).
  const auto& p = r.at(h, "pair", "pair");
  const std::string style = r.text(r.at(p, "style", "pair.style"), "pair.style");
  std::unique_ptr<Pair> pair;
  if (style != "none") {
    if (!pair_styles().has(style))
      r.fail("records pair style '" + style + "'; this md_ipu has " + pair_styles().listing());
    PairContext context = pair_context(sim);
    context.units = units;  // the file's, which the simulation takes below
    pair = pair_styles().make(style, context);
    pair->restore(p, r, types);
  }

  // neighbor and neigh_modify.
  const auto& n = r.at(h, "neighbor", "neighbor");
  NeighborSettings neighbor;
  neighbor.skin =
      r.real(r.at(n, "skin", "neighbor.skin"), "neighbor.skin", Sign::non_negative, "neighbor");
  neighbor.every = static_cast<int>(r.integer(r.at(n, "every", "neighbor.every"), "neighbor.every",
                                              1, int_max, "neigh_modify every"));
  neighbor.delay = static_cast<int>(r.integer(r.at(n, "delay", "neighbor.delay"), "neighbor.delay",
                                              0, int_max, "neigh_modify delay"));
  neighbor.check = r.boolean(r.at(n, "check", "neighbor.check"), "neighbor.check");
  if (n.contains("once")) neighbor.once = r.boolean(n["once"], "neighbor.once");
  // neigh_modify exclude's pairs: of types (1..types), and of group bits (0..31; version 4 files
  // written before groups were excluded lack them).
  const auto exclusions = [&](const char* key, const std::string& list, const std::string& pair,
                              long long lo, long long hi) {
    std::vector<std::pair<int, int>> pairs;
    if (!n.contains(key)) return pairs;
    const std::string where = std::string("neighbor.") + key;
    const auto& ex = n[key];
    if (!ex.is_array()) r.fail("has " + where + " that is not a list of " + list);
    for (std::size_t k = 0; k < ex.size(); ++k) {
      const std::string name = where + "[" + std::to_string(k) + "]";
      if (!ex[k].is_array() || ex[k].size() != 2) r.fail("has " + name + " that is not " + pair);
      pairs.emplace_back(
          static_cast<int>(r.integer(ex[k][0], name + "[0]", lo, hi, "neigh_modify exclude")),
          static_cast<int>(r.integer(ex[k][1], name + "[1]", lo, hi, "neigh_modify exclude")));
    }
    return pairs;
  };
  neighbor.exclude_types = exclusions("exclude_types", "type pairs", "a type pair", 1, types);
  neighbor.exclude_groups =
      exclusions("exclude_groups", "group pairs", "a pair of group bits", 0, 31);

  // Fixes, each restored by its style from its section (the thermostat's state included), in
  // the order they were defined (version 4; versions 2 and 3 kept one fix per style, by style).
  const auto& f = r.at(h, "fixes", "fixes");
  if (*version >= 4 ? !f.is_array() : !f.is_object())
    r.fail(std::string("has fixes that are not a JSON ") + (*version >= 4 ? "array" : "object"));
  std::vector<std::pair<std::string, nlohmann::json>> listed;
  if (f.is_array()) {
    for (std::size_t k = 0; k < f.size(); ++k) {
      const std::string where = "fixes[" + std::to_string(k) + "]";
      if (!f[k].is_object()) r.fail("has " + where + " that is not a JSON object");
      listed.emplace_back(r.text(r.at(f[k], "style", where + ".style"), where + ".style"), f[k]);
    }
  } else {
    for (const auto& [style, section] : f.items()) listed.emplace_back(style, section);
  }
  std::vector<std::unique_ptr<Fix>> fixes;
  for (std::size_t k = 0; k < listed.size(); ++k) {
    const std::string& style = listed[k].first;
    const nlohmann::json& section = listed[k].second;
    if (!fix_styles().has(style))
      r.fail("records fix style '" + style + "'; this md_ipu has " + fix_styles().listing());
    const std::string where = f.is_array() ? "fixes[" + std::to_string(k) + "]" : "fixes." + style;
    const std::string id = r.text(r.at(section, "id", where + ".id"), where + ".id");
    const std::string group = section.is_object() && section.contains("group")
                                  ? r.text(section["group"], where + ".group")
                                  : std::string("all");
    FixArguments from_restart;
    from_restart.id = id;
    from_restart.group = group;
    from_restart.units = units;
    from_restart.from_restart = true;
    auto fix = fix_styles().make(style, from_restart);
    fix->restore(section, r, where);
    for (const auto& other : fixes)
      if (other->integrates() && fix->integrates() && other->group() == fix->group())
        r.fail("records both fix " + other->style() + " and fix " + style + " integrating group " +
               group);
    fixes.push_back(std::move(fix));
  }

  // The states the script's own fix definitions continue from (absent from older files), and
  // those of the restored fixes themselves: a script that defines such a fix again, as LAMMPS's
  // scripts do after read_restart, continues from its state (LAMMPS's restart_global).
  std::map<std::string, Simulation::FixState> fix_states;
  for (const auto& fix : fixes)
    if (nlohmann::json state = fix->global_state(); !state.is_null())
      fix_states[fix->id()] = {fix->style(), std::move(state)};
  if (h.contains("fix_states")) {
    const auto& states = h["fix_states"];
    if (!states.is_array()) r.fail("has fix_states that are not a JSON array");
    for (std::size_t k = 0; k < states.size(); ++k) {
      const std::string where = "fix_states[" + std::to_string(k) + "]";
      const std::string id = r.text(r.at(states[k], "id", where + ".id"), where + ".id");
      const std::string style =
          r.text(r.at(states[k], "style", where + ".style"), where + ".style");
      fix_states[id] = {style, r.at(states[k], "state", where + ".state")};
    }
  }

  // The atoms, as read_data checks them, and their noise state.
  std::vector<AtomRecord> atoms(natoms);
  if (record_bytes == sizeof(AtomRecord)) {
    if (natoms > 0) std::memcpy(atoms.data(), data.data() + at, natoms * sizeof(AtomRecord));
  } else {
    for (std::size_t k = 0; k < natoms; ++k) {
      const char* from = data.data() + at + k * record_bytes;
      auto* to = reinterpret_cast<char*>(&atoms[k]);
      std::memcpy(to, from, record_bytes_before_charge);
      std::memcpy(to + offsetof(AtomRecord, x), from + record_bytes_before_charge,
                  record_bytes - record_bytes_before_charge);
    }
  }
  for (std::size_t k = 0; k < natoms; ++k) {
    const AtomRecord& a = atoms[k];
    const std::string which =
        "atom record " + std::to_string(k) + " (id " + std::to_string(a.id) + ")";
    if (a.id < 1) r.fail("has " + which + ": atom ids must be positive");
    if (k > 0 && a.id <= atoms[k - 1].id)
      r.fail("has " + which + ": the atoms are not in increasing id order as written");
    if (a.type < 1 || a.type > types)
      r.fail("has " + which + ": type " + std::to_string(a.type) + " is out of range 1.." +
             std::to_string(types));
    for (std::size_t d = 0; d < 3; ++d)
      if (!std::isfinite(a.x[d]) || !std::isfinite(a.v[d]))
        r.fail("has " + which + ": a position or velocity that is not finite");
    if (!std::isfinite(a.q) || (atom_style == AtomStyle::atomic && a.q != 0))
      r.fail("has " + which + ": a charge of " + std::to_string(a.q) +
             (atom_style == AtomStyle::atomic ? " in a file of atom_style atomic"
                                              : ", which is not finite"));
    const auto [c, c_lo, c_hi] = face_coordinates(box, a.x);
    for (std::size_t i = 0; i < 3; ++i) {
      const double l = c_hi[i] - c_lo[i];
      if (c[i] < c_lo[i] - l || c[i] >= c_hi[i] + l)
        r.fail("has " + which + " outside the box by more than a box length");
    }
    if (!has_masks) atoms[k].mask = 1;  // version 2: every atom is in all only
    if (!(atoms[k].mask & 1u) || (groups.size() < 32 && (atoms[k].mask >> groups.size()) != 0))
      r.fail("has " + which + ": its group mask " + std::to_string(atoms[k].mask) +
             " names groups the file does not have");
    if (a.noise < 1 || a.noise > 2147483646u)
      r.fail("has " + which + ": its Langevin random state " + std::to_string(a.noise) +
             " is outside 1..2147483646");
  }

  // Each atom's topology row, checked as read_data checks its sections.
  std::map<std::int64_t, AtomTopology> topology;
  if (has_bonds(atom_style)) {
    std::set<std::int64_t> ids;
    for (const AtomRecord& a : atoms) ids.insert(a.id);
    const char* rows = data.data() + at + natoms * record_bytes;
    std::vector<double> row(layout.width(), 0.0);
    const std::size_t before_specials = layout.specials_at() - (rows_before_dihedrals ? 2 : 0);
    for (std::size_t k = 0; k < natoms; ++k) {
      const char* from = rows + k * row_bytes;
      std::memcpy(row.data(), from, before_specials * sizeof(double));
      std::memcpy(row.data() + layout.specials_at(), from + before_specials * sizeof(double),
                  row_bytes - before_specials * sizeof(double));
      const std::string which = "the topology of atom " + std::to_string(atoms[k].id);
      if (!layout.holds(row)) r.fail("has " + which + " with counts outside its layout");
      AtomTopology t = layout.decode(row, atoms[k].id);
      for (const TermKind kind : all_term_kinds)
        for (const auto& term : t.of(kind)) {
          const int types = term_types[static_cast<std::size_t>(kind)];
          bool known = true;
          std::string partners;
          for (std::size_t n = 0; n < info(kind).atoms; ++n) {
            known = known && ids.count(term.atoms[n]);
            partners.append(" ").append(std::to_string(term.atoms[n]));
          }
          if (term.type < 1 || term.type > types || !known)
            r.fail("has " + which + ": a " + info(kind).name + " of type " +
                   std::to_string(term.type) + " with atoms" + partners + " (types 1.." +
                   std::to_string(types) + ", atoms of the file)");
        }
      for (const auto& level : t.special)
        for (const std::int64_t id : level)
          if (!ids.count(id))
            r.fail("has " + which + ": special neighbor " + std::to_string(id) +
                   " is not an atom of the file");
      topology.emplace(atoms[k].id, std::move(t));
    }
  }

  // Everything has passed: the simulation changes only now.
  sim.set_units(units);
  sim.set_atom_style(atom_style);
  sim.set_dimension(dimension);
  sim.set_boundary(boundary);
  // The box as the run left it (LAMMPS's read_restart does not expand it again).
  sim.create_box(types, box, /*expand=*/false);
  if (h.contains("boundary")) sim.set_shrink_state(shrink);
  for (int t = 1; t <= types; ++t) sim.set_mass(t, masses[static_cast<std::size_t>(t - 1)]);
  sim.set_timestep(dt);
  sim.set_step(step);
  if (pair) sim.set_pair(std::move(pair));
  sim.neighbor() = neighbor;
  sim.set_groups(groups);
  sim.add_atoms(std::move(atoms));
  if (has_bonds(atom_style)) {
    sim.set_topology_types(term_types);
    sim.set_special_bonds(special);
    if (bond) sim.set_bond(std::move(bond));
    if (angle) sim.set_angle(std::move(angle));
    if (dihedral) sim.set_dihedral(std::move(dihedral));
    if (improper) sim.set_improper(std::move(improper));
    sim.set_topology(topology);
  }
  // The atoms carry the fixes' per-atom state (fix langevin's noise streams).
  for (auto& fix : fixes) sim.add_fix(std::move(fix), /*start_atoms=*/false);
  sim.set_fix_states(std::move(fix_states));
}

}  // namespace tessera::md
