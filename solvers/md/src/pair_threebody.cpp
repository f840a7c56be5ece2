// What the many-body styles of element triplets share (pair_threebody.hpp): pair_coeff's
// elements (LAMMPS's Pair::map_element2type), the potential file's entries (its
// PotentialFileReader::next_line in a loop, entries of other elements skipped), the table from
// an element triplet to its entry (elem3param), and the kernels' per-atom helpers.
#include "tessera/md/pair_threebody.hpp"

#include <algorithm>

#include "arguments.hpp"
#include "potential_file.hpp"
#include "restart_header.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md::threebody {

Table read(const PairContext& context, const std::vector<std::string>& args, int types,
           const std::string& style, const std::string& file_kind, std::size_t words,
           const std::function<std::string(std::vector<double>&, double)>& check) {
  const std::string usage = "pair_coeff * * FILE ELEMENT... (one element per atom type)";
  if (args.size() < 3) arguments::bad("pair_style " + style + ": " + usage);
  if (args[0] != "*" || args[1] != "*")
    arguments::bad("pair_style " + style + " is set for all types at once: " + usage +
                   ", not pair_coeff " + args[0] + " " + args[1]);
  if (args.size() - 3 != static_cast<std::size_t>(types))
    arguments::bad("pair_coeff of pair_style " + style + " names " +
                   std::to_string(args.size() - 3) + " elements for " + std::to_string(types) +
                   " atom types: " + usage);
  Table table;
  std::vector<std::string> elements;  // in the order they first appear
  Elements& map = table.elements;
  map.type_element.assign(static_cast<std::size_t>(types) + 1, -1);
  for (int t = 1; t <= types; ++t) {
    const std::string& name = args[static_cast<std::size_t>(t) + 2];
    if (name == "NULL") continue;  // a type left to other styles of pair_style hybrid
    auto at = std::find(elements.begin(), elements.end(), name);
    if (at == elements.end()) at = elements.insert(elements.end(), name);
    map.type_element[static_cast<std::size_t>(t)] = static_cast<int>(at - elements.begin());
  }
  const std::size_t n = elements.size();
  if (n == 0)
    arguments::bad("pair_coeff of pair_style " + style + " maps no atom type to an element");
  map.count = n;

  PotentialFile file = open_potential(context, args[2], file_kind);
  const double conversion = energy_conversion(file, context.units.style);
  const auto index = [&](const std::string& name) {
    const auto at = std::find(elements.begin(), elements.end(), name);
    return at == elements.end() ? n : static_cast<std::size_t>(at - elements.begin());
  };
  map.elem3param.assign(n * n * n, -1);
  while (auto entry = file.next_values(words)) {
    const std::size_t i = index((*entry)[0]), j = index((*entry)[1]), k = index((*entry)[2]);
    if (i == n || j == n || k == n) continue;
    std::vector<double> values;
    for (std::size_t w = 3; w < words; ++w) values.push_back(file.number((*entry)[w]));
    const std::string triplet = elements[i] + " " + elements[j] + " " + elements[k];
    const std::string illegal = check(values, conversion);
    if (!illegal.empty()) file.fail("illegal parameters for " + triplet + " (" + illegal + ")");
    int& slot = map.elem3param[(i * n + j) * n + k];
    if (slot >= 0) file.fail("a second entry for " + triplet);
    slot = static_cast<int>(table.entries.size());
    table.entries.push_back(std::move(values));
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t k = 0; k < n; ++k)
        if (map.elem3param[(i * n + j) * n + k] < 0)
          throw FormatError(file_kind + " " + file.path() + " has no entry for " + elements[i] +
                            " " + elements[j] + " " + elements[k]);
  return table;
}

// LAMMPS's rule for full lists: by the parity of the ids' sum, and between periodic images of
// one atom by position.
bool computes_pair(std::int64_t itag, std::int64_t jtag, const double* xi, const double* xj) {
  if (itag > jtag) return (itag + jtag) % 2 != 0;
  if (itag < jtag) return (itag + jtag) % 2 != 1;
  if (xj[2] < xi[2]) return false;
  if (xj[2] == xi[2] && xj[1] < xi[1]) return false;
  if (xj[2] == xi[2] && xj[1] == xi[1] && xj[0] < xi[0]) return false;
  return true;
}

std::int64_t atom_id(const PairTile& t, std::size_t a) {
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  return a < nlocal ? t.id[a] : t.ghost_id[a - nlocal];
}

double* atom_force(PairTile& t, std::size_t a) {
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  return a < nlocal ? &t.f[3 * a] : &t.ghost_f[3 * (a - nlocal)];
}

void tally_atom(PairTile& t, std::size_t a, double e, const double* v, double share) {
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  if (a < nlocal) {
    t.eatom[a] += share * e;
    for (std::size_t c = 0; c < 6; ++c) t.vatom[6 * a + c] += share * v[c];
  } else {
    double* g = &t.ghost_tally[7 * (a - nlocal)];
    g[0] += share * e;
    for (std::size_t c = 0; c < 6; ++c) g[1 + c] += share * v[c];
  }
}

void check_elements(const std::string& style, const Elements& elements, int types,
                    const std::function<bool(int)>& active_type) {
  if (!elements.covers(types)) no_coeff(style, types);
  for (int i = 1; i <= types; ++i)
    if (elements.type_element[static_cast<std::size_t>(i)] < 0 && active_type(i))
      throw ConfigError("pair_style " + style + ": atom type " + std::to_string(i) +
                        " is NULL, which only pair_style hybrid allows for types whose pairs "
                        "other sub-styles compute");
}

void no_coeff(const std::string& style, int types) {
  throw ConfigError("pair_style " + style + " needs pair_coeff * * FILE with an element for " +
                    "each of the " + std::to_string(types) + " atom types before a run");
}

std::vector<std::string> restored_coeff(const nlohmann::json& p, const detail::RestartHeader& r) {
  return r.texts(r.at(p, "coeff", "pair.coeff"), "pair.coeff");
}

}  // namespace tessera::md::threebody
