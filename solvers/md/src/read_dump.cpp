#include "read_dump.hpp"

#include <mpi.h>

#include <algorithm>
#include <unordered_map>

#include "arguments.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/isolated_call.hpp"
#include "tessera/core/shared_input.hpp"

namespace tessera::md {
using namespace arguments;
using Field = ReadDumpSettings::Field;

namespace {

const std::vector<std::pair<std::string, Field>>& field_names() {
  static const std::vector<std::pair<std::string, Field>> names{
      {"x", Field::x},   {"y", Field::y},   {"z", Field::z},   {"vx", Field::vx}, {"vy", Field::vy},
      {"vz", Field::vz}, {"ix", Field::ix}, {"iy", Field::iy}, {"iz", Field::iz}, {"q", Field::q}};
  return names;
}

std::optional<Field> field_of(const std::string& word) {
  for (const auto& [name, field] : field_names())
    if (name == word) return field;
  return std::nullopt;
}

std::string name_of(Field f) {
  for (const auto& [name, field] : field_names())
    if (field == f) return name;
  return "?";
}

bool is_coordinate(Field f) { return f == Field::x || f == Field::y || f == Field::z; }

// How a coordinate column is read: scaled by the box or not, wrapped into it or not.
struct Reading {
  bool scaled = false, wrapped = true;
  bool operator==(const Reading&) const = default;
};

}  // namespace

ReadDumpSettings parse_read_dump(const std::string& what, const std::vector<std::string>& a,
                                 std::size_t at, int dimension) {
  ReadDumpSettings s;
  std::size_t k = at;
  for (; k < a.size(); ++k) {
    if (a[k] == "fx" || a[k] == "fy" || a[k] == "fz")
      bad(what + ": field " + a[k] +
          " is not read by md_ipu (it computes forces at each run's setup); read x y z vx vy vz "
          "ix iy iz q");
    const auto f = field_of(a[k]);
    if (!f) break;
    if (std::find(s.fields.begin(), s.fields.end(), *f) != s.fields.end())
      bad(what + ": field " + a[k] + " is given twice");
    if (dimension == 2 && (*f == Field::z || *f == Field::vz || *f == Field::iz))
      bad(what + ": field " + a[k] + " in a 2-d simulation");
    s.fields.push_back(*f);
  }
  if (s.fields.empty()) bad(what + ": give the fields to read (x y z vx vy vz ix iy iz q)");
  for (; k < a.size(); ++k) {
    const std::string& key = a[k];
    auto value = [&]() -> const std::string& {
      if (k + 1 >= a.size()) bad(what + ": keyword " + key + " needs a value");
      return a[++k];
    };
    if (key == "box") {
      s.box = yes_no(what + " box", value());
    } else if (key == "replace") {
      s.replace = yes_no(what + " replace", value());
    } else if (key == "purge") {
      s.purge = yes_no(what + " purge", value());
    } else if (key == "trim") {
      s.trim = yes_no(what + " trim", value());
    } else if (key == "add") {
      const std::string& v = value();
      if (v == "yes")
        s.add = ReadDumpSettings::Add::yes;
      else if (v == "keep")
        s.add = ReadDumpSettings::Add::keep;
      else if (v == "no")
        s.add = ReadDumpSettings::Add::no;
      else
        bad(what + ": add must be yes, keep or no");
    } else if (key == "label") {
      const std::string& field = value();
      const std::string& column = value();
      const auto f = field_of(field);
      if (!f || std::find(s.fields.begin(), s.fields.end(), *f) == s.fields.end())
        bad(what + ": label " + field + ": not one of the fields read");
      s.labels[*f] = column;
    } else if (key == "scaled") {
      s.scaled = yes_no(what + " scaled", value());
    } else if (key == "wrapped") {
      s.wrapped = yes_no(what + " wrapped", value());
    } else if (key == "format") {
      const std::string& v = value();
      if (v != "native")
        bad(what + ": format " + v + " is not supported; md_ipu reads native text dumps");
    } else if (key == "nfile") {
      bad(what + ": nfile (dumps written as one file per processor) is not supported");
    } else {
      bad(what + ": unknown keyword '" + key +
          "'; use box, replace, purge, trim, add, label, scaled, wrapped or format");
    }
  }
  if (s.purge && (s.replace || s.trim))
    bad(what + ": purge yes deletes every atom first, so it takes replace no and trim no");
  return s;
}

std::optional<std::int64_t> SharedDumpReader::seek(std::int64_t step, bool exact) {
  const std::string found = produce_on_root(sim_.runtime().comm(), [&] {
    const auto s = reader_.seek(step, exact);
    return s ? std::to_string(*s) : std::string();
  });
  if (found.empty()) return std::nullopt;
  return std::stoll(found);
}

std::optional<std::int64_t> SharedDumpReader::next(std::int64_t current, std::int64_t last,
                                                   int every, int skip) {
  const std::string found = produce_on_root(sim_.runtime().comm(), [&] {
    const auto s = reader_.next(current, last, every, skip);
    return s ? std::to_string(*s) : std::string();
  });
  if (found.empty()) return std::nullopt;
  return std::stoll(found);
}

ReadDumpCounts SharedDumpReader::apply(const ReadDumpSettings& settings) {
  if (!sim_.charged() &&
      std::find(settings.fields.begin(), settings.fields.end(), Field::q) != settings.fields.end())
    throw ConfigError("read_dump: field q: the atoms carry no charges; use atom_style charge");
  const bool with_type = settings.add != ReadDumpSettings::Add::no;
  const std::size_t first_field = with_type ? 2 : 1;  // columns: id, [type], fields
  const std::size_t width = first_field + settings.fields.size();
  // Rank 0: the header, the columns and the atoms' values.
  const std::string bytes = produce_on_root(sim_.runtime().comm(), [&] {
    const DumpHeader h = reader_.header();
    if (h.triclinic)
      throw ConfigError("read_dump: the snapshot at step " + std::to_string(h.step) +
                        " has a triclinic box; md_ipu's boxes are orthogonal");
    auto find = [&](const std::string& label) -> std::optional<std::size_t> {
      for (std::size_t c = 0; c < h.labels.size(); ++c)
        if (h.labels[c] == label) return c;
      return std::nullopt;
    };
    std::string present;
    for (const auto& l : h.labels) present += " " + l;
    auto missing = [&](const std::string& what) {
      return ConfigError("read_dump: the snapshot at step " + std::to_string(h.step) +
                         " has no column " + what + " (its columns:" + present + ")");
    };
    std::vector<std::size_t> columns;
    const auto id = find("id");
    if (!id) throw missing("id");
    columns.push_back(*id);
    if (with_type) {
      const auto type = find("type");
      if (!type) throw missing("type, which add needs");
      columns.push_back(*type);
    }
    std::optional<Reading> coordinates;
    for (Field f : settings.fields) {
      const std::string name = name_of(f);
      std::optional<std::size_t> column;
      Reading reading;
      if (auto label = settings.labels.find(f); label != settings.labels.end()) {
        column = find(label->second);
        reading = {settings.scaled, settings.wrapped};
        if (!column) throw missing(label->second + " (label " + name + ")");
      } else if (is_coordinate(f)) {
        // x, else the first of xs, xu, xsu, as LAMMPS's native reader looks for them.
        column = find(name);
        if (!column) {
          const std::pair<std::string, Reading> others[] = {{name + "s", {true, true}},
                                                            {name + "u", {false, false}},
                                                            {name + "su", {true, false}}};
          for (const auto& [label, how] : others)
            if (const auto c = find(label); c && (!column || *c < *column)) column = c, reading = how;
        }
        if (!column) throw missing(name + " (nor " + name + "s, " + name + "u or " + name + "su)");
      } else {
        column = find(name);
        if (!column) throw missing(name);
      }
      if (is_coordinate(f)) {
        if (coordinates && !(*coordinates == reading))
          throw ConfigError(
              "read_dump: the coordinates are not all scaled or wrapped alike in the dump's "
              "columns; read them alike (label, scaled, wrapped)");
        coordinates = reading;
      }
      columns.push_back(*column);
    }
    const Reading how = coordinates.value_or(Reading{false, true});
    ByteWriter out;
    out.put(static_cast<long long>(h.step));
    for (std::size_t d = 0; d < 3; ++d) out.put(h.lo[d]), out.put(h.hi[d]);
    out.put(static_cast<long long>(how.scaled));
    out.put(static_cast<long long>(how.wrapped));
    out.put(reader_.atoms(h, columns));
    return out.take();
  });
  ByteReader in(bytes);
  const std::int64_t step = in.get_integer();
  Box snapshot_box;
  for (std::size_t d = 0; d < 3; ++d) snapshot_box.lo[d] = in.get_double(), snapshot_box.hi[d] = in.get_double();
  const bool scaled = in.get_integer() != 0, wrapped = in.get_integer() != 0;
  const std::vector<double> values = in.get_vector();
  const std::size_t rows = values.size() / width;

  ReadDumpCounts counts;
  counts.before = sim_.natoms();
  counts.snapshot = static_cast<std::int64_t>(rows);
  sim_.set_step(step);
  if (settings.purge)
    counts.purged = sim_.delete_atoms([](const Simulation::GroupAtom&) { return true; }, false);
  if (settings.box) {
    Box box = sim_.box();
    for (std::size_t d = 0; d < static_cast<std::size_t>(sim_.dimension()); ++d)
      box.lo[d] = snapshot_box.lo[d], box.hi[d] = snapshot_box.hi[d];
    sim_.change_box(box);
  }
  // A coordinate as the box measures it.
  auto coordinate = [&](std::size_t d, double v) {
    return scaled ? snapshot_box.lo[d] + v * snapshot_box.length(static_cast<int>(d)) : v;
  };
  std::unordered_map<std::int64_t, std::size_t> row_of;
  row_of.reserve(rows);
  for (std::size_t r = 0; r < rows; ++r)
    row_of.emplace(static_cast<std::int64_t>(values[r * width]), r);
  std::vector<unsigned char> matched(rows, 0);
  const auto all = [](const Simulation::GroupAtom&) { return true; };
  const std::int64_t found = sim_.change_atoms(all, [&](Simulation::AtomChange& c) {
    const auto it = row_of.find(c.id);
    if (it == row_of.end()) return false;
    matched[it->second] = 1;  // one atom per id: tiles write different rows
    if (!settings.replace) return true;
    const double* row = &values[it->second * width];
    std::array<std::int32_t, 3> image{c.image[0], c.image[1], c.image[2]};
    for (std::size_t k = 0; k < settings.fields.size(); ++k) {
      const double v = row[first_field + k];
      switch (settings.fields[k]) {
        case Field::x: c.x[0] = coordinate(0, v); break;
        case Field::y: c.x[1] = coordinate(1, v); break;
        case Field::z: c.x[2] = coordinate(2, v); break;
        case Field::vx: c.v[0] = v; break;
        case Field::vy: c.v[1] = v; break;
        case Field::vz: c.v[2] = v; break;
        case Field::ix: image[0] = static_cast<std::int32_t>(v); break;
        case Field::iy: image[1] = static_cast<std::int32_t>(v); break;
        case Field::iz: image[2] = static_cast<std::int32_t>(v); break;
        case Field::q:
          c.q[0] = v;
          break;
      }
    }
    if (!wrapped) image = {0, 0, 0};
    for (std::size_t d = 0; d < 3; ++d) c.image[d] = image[d];
    return true;
  });
  counts.replaced = settings.replace ? found : 0;
  MPI_Allreduce(MPI_IN_PLACE, matched.data(), static_cast<int>(matched.size()), MPI_UNSIGNED_CHAR,
                MPI_MAX, sim_.runtime().comm());
  if (settings.trim)
    counts.trimmed = sim_.delete_atoms(
        [&](const Simulation::GroupAtom& a) { return row_of.find(a.id) == row_of.end(); }, false);
  if (settings.add != ReadDumpSettings::Add::no) {
    std::vector<AtomRecord> added;
    for (std::size_t r = 0; r < rows; ++r) {
      if (matched[r]) continue;
      const double* row = &values[r * width];
      AtomRecord atom;
      atom.id = settings.add == ReadDumpSettings::Add::keep ? static_cast<std::int64_t>(row[0]) : 0;
      atom.type = static_cast<std::int32_t>(row[1]);
      for (std::size_t k = 0; k < settings.fields.size(); ++k) {
        const double v = row[first_field + k];
        const auto f = settings.fields[k];
        const auto d = static_cast<std::size_t>(f) % 3;
        if (f == Field::q)
          atom.q = v;
        else if (is_coordinate(f))
          atom.x[d] = coordinate(d, v);
        else if (f == Field::vx || f == Field::vy || f == Field::vz)
          atom.v[d] = v;
        else if (wrapped)
          atom.image[d] = static_cast<std::int32_t>(v);
      }
      added.push_back(atom);
    }
    counts.added = static_cast<std::int64_t>(added.size());
    sim_.add_atoms(std::move(added));
  }
  // Every atom back into the periodic box, its images counted (LAMMPS's remap).
  const std::int64_t lost = sim_.change_atoms(all, [&](Simulation::AtomChange& c) {
    return !sim_.wrap_position(c.x, c.image);
  });
  if (lost > 0)
    throw ConfigError("read_dump: " + std::to_string(lost) +
                      " atoms are too far outside the box to map into it (or not finite) after "
                      "the snapshot at step " +
                      std::to_string(step) + "; check the dump's box and coordinates");
  counts.after = sim_.natoms();
  return counts;
}

}  // namespace tessera::md
