// What every PairPairwise style shares (pair_pairwise.hpp).
#include "tessera/md/pair_pairwise.hpp"

#include <algorithm>
#include <cstdio>
#include <span>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/kernel_work.hpp"

namespace tessera::md::pairwise {

using arguments::bad;
using arguments::number;

double mix_distance(const std::string& rule, double a, double b) {
  if (rule == "arithmetic") return 0.5 * (a + b);
  if (rule == "sixthpower") return std::pow(0.5 * (std::pow(a, 6.0) + std::pow(b, 6.0)), 1.0 / 6.0);
  return std::sqrt(a * b);
}

void parse_settings(const std::string& style, const Shape& shape,
                    const std::vector<std::string>& args, Globals& g) {
  const std::string usage = "pair_style " + style +
                            (shape.parameters > 0 ? std::string(" ") + shape.parameter_usage : "") +
                            " RC" +
                            (shape.coulomb_switched ? " [INNER_COUL RC_COUL]"
                             : shape.cutoffs == 2   ? " [RC_COUL]"
                                                    : "") +
                            (shape.takes_nocoeff ? " [nocoeff]" : "");
  const std::size_t least = shape.parameters + 1;
  const std::size_t coulomb_words = shape.coulomb_switched ? 2 : shape.cutoffs == 2 ? 1 : 0;
  const std::size_t most = least + coulomb_words + (shape.takes_nocoeff ? 1 : 0);
  if (args.size() < least || args.size() > most ||
      (shape.coulomb_switched && args.size() == least + 1))
    bad("wrong number of arguments; usage: " + usage);
  const std::string command = "pair_style " + style;
  std::vector<double> parameters;
  for (std::size_t k = 0; k < shape.parameters; ++k) parameters.push_back(number(command, args[k]));
  const double cut = number(command, args[shape.parameters]);
  if (!(cut > 0)) bad(command + ": the cutoff must be positive");
  double cut_coul = cut;
  double cut_coul_inner = shape.coulomb_switched ? parameters[0] : 0.0;
  bool nocoeff = false;
  for (std::size_t k = least; k < args.size(); ++k) {
    if (shape.takes_nocoeff && args[k] == "nocoeff") {
      nocoeff = true;
    } else if (shape.coulomb_switched && k == least) {
      cut_coul_inner = number(command, args[k]);
      cut_coul = number(command, args[++k]);
      if (!(cut_coul > 0)) bad(command + ": the Coulomb cutoff must be positive");
    } else if (shape.cutoffs == 2 && k == least) {
      cut_coul = number(command, args[k]);
      if (!(cut_coul > 0)) bad(command + ": the Coulomb cutoff must be positive");
    } else {
      bad(command + ": unknown keyword '" + args[k] + "'; usage: " + usage);
    }
  }
  g.parameters = parameters;
  g.cut = cut;
  g.cut_coul = shape.cutoffs == 2 ? cut_coul : 0.0;
  g.cut_coul_inner = cut_coul_inner;
  g.nocoeff = nocoeff;
}

void parse_modify(const std::string& style, const std::vector<std::string>& a, bool shifts,
                  bool has_tail, bool& shift, std::string& mix, bool& tail, Globals* table) {
  if (a.size() < 2 || a.size() % 2 != 0)
    bad("pair_modify KEYWORD VALUE ...; pair_style " + style + " takes" +
        (shifts ? " shift yes|no" : "") + " mix geometric|arithmetic|sixthpower" +
        (has_tail ? " tail yes|no" : ""));
  for (std::size_t k = 0; k < a.size(); k += 2) {
    if (a[k] == "shift" && shifts) {
      shift = arguments::yes_no("pair_modify shift", a[k + 1]);
    } else if (a[k] == "mix") {
      // LAMMPS accepts mix for every style and uses it where a style mixes.
      if (a[k + 1] != "geometric" && a[k + 1] != "arithmetic" && a[k + 1] != "sixthpower")
        bad("pair_modify mix " + a[k + 1] + ": use geometric, arithmetic or sixthpower");
      mix = a[k + 1];
    } else if (a[k] == "tail" && has_tail) {
      tail = arguments::yes_no("pair_modify tail", a[k + 1]);
    } else if (a[k] == "table" && table) {
      table->table_bits =
          static_cast<int>(arguments::integer("pair_modify table", a[k + 1], 0, 32));
    } else if (a[k] == "tabinner" && table) {
      const double inner = number("pair_modify tabinner", a[k + 1]);
      if (!(inner > 0)) bad("pair_modify tabinner " + a[k + 1] + ": give a positive distance");
      table->tabinner = inner;
    } else {
      bad("pair_modify " + a[k] + ": pair_style " + style + " takes" + (shifts ? " shift," : "") +
          " mix" + (has_tail ? ", tail" : "") + (table ? ", table, tabinner" : ""));
    }
  }
}

namespace {

void grow(std::vector<std::vector<Setting>>& set, int types) {
  const auto width = static_cast<std::size_t>(types) + 1;
  if (set.size() < width) set.resize(width);
  for (auto& row : set)
    if (row.size() < width) row.resize(width);
}

void put(std::vector<std::vector<Setting>>& set, int ilo, int ihi, int jlo, int jhi,
         const std::vector<double>& coeffs, double cut, double cut_coul) {
  for (int i = ilo; i <= ihi; ++i)
    for (int j = std::max(jlo, i); j <= jhi; ++j)
      set[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = {coeffs, cut, true, cut_coul};
}

// The coefficients in `words` (shape.required of them, up to shape.coefficients), those left
// out repeating the first ones.
std::vector<double> coefficients(const std::string& command, const Shape& shape,
                                 std::span<const std::string> words) {
  if (words.size() < shape.coefficients && words.size() != shape.required)
    bad(command + ": give " + std::to_string(shape.required) + " or " +
        std::to_string(shape.coefficients) + " coefficients (" + shape.usage + "), not " +
        std::to_string(words.size()));
  std::vector<double> c;
  for (const auto& word : words.first(std::min(words.size(), shape.coefficients)))
    c.push_back(number(command, word));
  for (std::size_t k = c.size(); k < shape.coefficients; ++k) c.push_back(c[k - shape.required]);
  return c;
}

}  // namespace

void parse_coeff(const std::string& style, const Shape& shape, const std::vector<std::string>& a,
                 int types, const Globals& g, std::vector<std::vector<Setting>>& set,
                 const std::function<void(const std::vector<double>&)>& check) {
  const std::string command = "pair_coeff";
  const std::size_t n = shape.coefficients;
  const std::string full = std::string("pair_coeff I J ") + shape.usage +
                           (shape.coeff_cutoffs == 2   ? " [RC [RC_COUL]]"
                            : shape.coeff_cutoffs == 1 ? " [RC]"
                                                       : "");
  if (!(g.cut > 0)) bad("pair_coeff before pair_style " + style + " RC");
  if (a.size() < 2) bad("wrong number of arguments; usage: " + full);
  std::vector<double> coeffs;
  double cut = g.cut, cut_coul = g.cut_coul;
  if (!g.nocoeff) {
    if (shape.required < n) {  // no cutoffs then: all words are coefficients
      if (a.size() != 2 + shape.required && a.size() != 2 + n)
        bad("wrong number of arguments; usage: " + full);
      coeffs = coefficients(command, shape, std::span<const std::string>(a).subspan(2));
    } else {
      if (a.size() < 2 + n || a.size() > 2 + n + shape.coeff_cutoffs)
        bad("wrong number of arguments; usage: " + full);
      for (std::size_t k = 0; k < n; ++k) coeffs.push_back(number(command, a[2 + k]));
      // As LAMMPS's lj/cut/coul/cut: one cutoff sets both, a second the Coulomb one.
      if (a.size() >= 3 + n)
        cut = number(command, a[2 + n]), cut_coul = shape.coeff_cutoffs == 2 ? cut : g.cut_coul;
      if (a.size() == 4 + n) cut_coul = number(command, a[3 + n]);
    }
    check(coeffs);
  }  // with nocoeff (pair_style zero) the words after I J are another style's: all ignored
  if (!(cut > 0)) bad("pair_coeff: the cutoff must be positive");
  if (shape.cutoffs == 2 && !(cut_coul > 0)) bad("pair_coeff: the Coulomb cutoff must be positive");
  const auto [ilo, ihi] = arguments::type_range(command, a[0], types);
  const auto [jlo, jhi] = arguments::type_range(command, a[1], types);
  if (ilo > jhi) bad("pair_coeff: " + a[0] + " " + a[1] + " names no pair with I <= J");
  grow(set, types);
  put(set, ilo, ihi, jlo, jhi, coeffs, cut, cut_coul);
}

void not_set(const std::string& style, int i, int j) {
  bad("pair_style " + style + ": no coefficients for atom types " + std::to_string(i) + " " +
      std::to_string(j) + "; add pair_coeff " + std::to_string(i) + " " + std::to_string(j) +
      " (LAMMPS: All pair coeffs are not set)");
}

// Each pair as [i, j, coefficients, cutoff], and its Coulomb cutoff fifth where the style has
// one; the parameters and the global Coulomb cutoff only where the style has them.
nlohmann::json restart_section(const std::string& style, const Shape& shape, const Globals& g,
                               bool shift, const std::string& mix, bool tail,
                               const std::vector<std::vector<Setting>>& set) {
  nlohmann::json coeffs = nlohmann::json::array();
  for (std::size_t i = 1; i < set.size(); ++i)
    for (std::size_t j = i; j < set[i].size(); ++j) {
      const Setting& s = set[i][j];
      if (!s.set) continue;
      coeffs.push_back({i, j, s.coeffs, s.cut});
      if (shape.cutoffs == 2) coeffs.back().push_back(s.cut_coul);
    }
  nlohmann::json section = {{"style", style},  {"cutoff", g.cut}, {"shift", shift},
                            {"mix", mix},      {"tail", tail},    {"nocoeff", g.nocoeff},
                            {"coeffs", coeffs}};
  if (shape.cutoffs == 2) section["cutoff_coul"] = g.cut_coul;
  if (shape.coulomb_switched) section["cutoff_coul_inner"] = g.cut_coul_inner;
  if (shape.parameters > 0) section["parameters"] = g.parameters;
  if (shape.long_range) {
    section["table"] = g.table_bits;
    section["tabinner"] = g.tabinner;
  }
  return section;
}

void restore(const nlohmann::json& p, const detail::RestartHeader& r, int types, const Shape& shape,
             Globals& g, bool& shift, std::string& mix, bool& tail,
             std::vector<std::vector<Setting>>& set,
             const std::function<void(const std::vector<double>&)>& check) {
  using Sign = detail::RestartHeader::Sign;
  const std::size_t n = shape.coefficients;
  g.cut = r.real(r.at(p, "cutoff", "pair.cutoff"), "pair.cutoff", Sign::positive, "pair_style");
  if (shape.cutoffs == 2)
    g.cut_coul = r.real(r.at(p, "cutoff_coul", "pair.cutoff_coul"), "pair.cutoff_coul",
                        Sign::positive, "pair_style");
  if (shape.coulomb_switched)
    g.cut_coul_inner = r.real(r.at(p, "cutoff_coul_inner", "pair.cutoff_coul_inner"),
                              "pair.cutoff_coul_inner", Sign::any, "pair_style");
  g.parameters.clear();
  if (shape.parameters > 0) {
    const auto& values = r.at(p, "parameters", "pair.parameters");
    if (!values.is_array() || values.size() != shape.parameters)
      r.fail("has pair.parameters = " + values.dump() + ", not " +
             std::to_string(shape.parameters) + " numbers (" + shape.parameter_usage + ")");
    for (std::size_t k = 0; k < values.size(); ++k)
      g.parameters.push_back(
          r.real(values[k], "pair.parameters[" + std::to_string(k) + "]", Sign::any, "pair_style"));
  }
  // Files written before the table have none: LAMMPS's default.
  if (shape.long_range && p.contains("table")) {
    g.table_bits = static_cast<int>(
        r.integer(r.at(p, "table", "pair.table"), "pair.table", 0, 32, "pair_modify table"));
    g.tabinner = r.real(r.at(p, "tabinner", "pair.tabinner"), "pair.tabinner", Sign::positive,
                        "pair_modify tabinner");
  }
  shift = r.boolean(r.at(p, "shift", "pair.shift"), "pair.shift");
  tail = r.boolean(r.at(p, "tail", "pair.tail"), "pair.tail");
  g.nocoeff = r.boolean(r.at(p, "nocoeff", "pair.nocoeff"), "pair.nocoeff");
  const bool nocoeff = g.nocoeff;
  mix = r.text(r.at(p, "mix", "pair.mix"), "pair.mix");
  if (mix != "geometric" && mix != "arithmetic" && mix != "sixthpower")
    r.fail("has pair.mix = '" + mix + "', which pair_modify mix refuses");
  const auto& coeffs = r.at(p, "coeffs", "pair.coeffs");
  if (!coeffs.is_array()) r.fail("has pair.coeffs that are not a list");
  grow(set, types);
  for (std::size_t k = 0; k < coeffs.size(); ++k) {
    const auto& c = coeffs[k];
    const std::string name = "pair.coeffs[" + std::to_string(k) + "]";
    if (!c.is_array() || c.size() != 3 + shape.cutoffs || !c[2].is_array() ||
        c[2].size() != (nocoeff ? 0 : n))
      r.fail("has " + name + " = " + c.dump() + ", not [i, j, [" + std::to_string(n) +
             " coefficients], cutoff" + (shape.cutoffs == 2 ? ", Coulomb cutoff]" : "]"));
    const int i = static_cast<int>(r.integer(c[0], name + "[0]", 1, types, "pair_coeff"));
    const int j = static_cast<int>(r.integer(c[1], name + "[1]", i, types, "pair_coeff"));
    std::vector<double> values;
    for (std::size_t m = 0; m < c[2].size(); ++m)
      values.push_back(
          r.real(c[2][m], name + "[2][" + std::to_string(m) + "]", Sign::any, "pair_coeff"));
    try {
      if (!nocoeff) check(values);
    } catch (const ConfigError& e) {
      r.fail("has " + name + ", which " + e.what());
    }
    const double cut = r.real(c[3], name + "[3]", Sign::positive, "pair_coeff");
    const double cut_coul =
        shape.cutoffs == 2 ? r.real(c[4], name + "[4]", Sign::positive, "pair_coeff") : 0.0;
    put(set, i, i, j, j, values, cut, cut_coul);
  }
}

void write_data_coeffs(std::ostream& out, const std::string& style, int types,
                       const std::vector<std::vector<Setting>>& set) {
  if (static_cast<int>(set.size()) <= types) return;
  for (int t = 1; t <= types; ++t)
    if (!set[static_cast<std::size_t>(t)][static_cast<std::size_t>(t)].set) return;
  out << "\nPair Coeffs # " << style << "\n\n";
  char buf[64];
  for (int t = 1; t <= types; ++t) {
    out << t;
    for (double c : set[static_cast<std::size_t>(t)][static_cast<std::size_t>(t)].coeffs) {
      std::snprintf(buf, sizeof buf, " %.17g", c);
      out << buf;
    }
    out << "\n";
  }
}

void data_coeff(const std::string& style, const Shape& shape, const std::vector<std::string>& w,
                int types, const Globals& g, std::vector<std::vector<Setting>>& set,
                const std::function<void(const std::vector<double>&)>& check) {
  const std::size_t n = shape.required;
  if (w.size() < 1 + n)
    bad("a Pair Coeffs line for " + style + " needs the type and " + std::to_string(n) +
        " coefficients");
  const int t = static_cast<int>(arguments::integer("Pair Coeffs", w[0], 1, types));
  const std::vector<double> coeffs =
      coefficients("Pair Coeffs", shape, std::span<const std::string>(w).subspan(1));
  check(coeffs);
  grow(set, types);
  put(set, t, t, t, t, coeffs, g.cut, g.cut_coul);
}

void charge_pairs(PairTile& t) {
  t.tile.charge(pairwise_work,
                static_cast<std::uint64_t>(t.begin[static_cast<std::size_t>(t.nlocal)]));
}

}  // namespace tessera::md::pairwise
