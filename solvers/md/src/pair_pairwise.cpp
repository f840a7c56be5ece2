// What every PairPairwise style shares (pair_pairwise.hpp).
#include "tessera/md/pair_pairwise.hpp"

#include <cstdio>

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

void parse_settings(const std::string& style, const std::vector<std::string>& args,
                    double& cut_global, bool& nocoeff, bool takes_nocoeff) {
  const std::string usage = "pair_style " + style + " RC" + (takes_nocoeff ? " [nocoeff]" : "");
  const std::size_t most = takes_nocoeff ? 2 : 1;
  if (args.empty() || args.size() > most) bad("wrong number of arguments; usage: " + usage);
  const double cut = number("pair_style " + style, args[0]);
  if (!(cut > 0)) bad("pair_style " + style + ": the cutoff must be positive");
  if (args.size() == 2 && args[1] != "nocoeff")
    bad("pair_style " + style + ": unknown keyword '" + args[1] + "'; usage: " + usage);
  cut_global = cut;
  nocoeff = args.size() == 2;
}

void parse_modify(const std::string& style, const std::vector<std::string>& a, bool shifts,
                  bool has_tail, bool& shift, std::string& mix, bool& tail) {
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
    } else {
      bad("pair_modify " + a[k] + ": pair_style " + style + " takes" + (shifts ? " shift," : "") +
          " mix" + (has_tail ? ", tail" : ""));
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
         const std::vector<double>& coeffs, double cut) {
  for (int i = ilo; i <= ihi; ++i)
    for (int j = std::max(jlo, i); j <= jhi; ++j)
      set[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = {coeffs, cut, true};
}

}  // namespace

void parse_coeff(const std::string& style, const std::vector<std::string>& a, int types,
                 std::size_t n, const char* usage, double cut_global, bool nocoeff,
                 std::vector<std::vector<Setting>>& set,
                 const std::function<void(const std::vector<double>&)>& check) {
  const std::string command = "pair_coeff";
  const std::string full = std::string("pair_coeff I J ") + usage + " [RC]";
  if (!(cut_global > 0)) bad("pair_coeff before pair_style " + style + " RC");
  if (a.size() < 2) bad("wrong number of arguments; usage: " + full);
  std::vector<double> coeffs;
  double cut = cut_global;
  if (!nocoeff) {
    if (a.size() < 2 + n || a.size() > 3 + n) bad("wrong number of arguments; usage: " + full);
    for (std::size_t k = 0; k < n; ++k) coeffs.push_back(number(command, a[2 + k]));
    if (a.size() == 3 + n) cut = number(command, a[2 + n]);
    check(coeffs);
  }  // with nocoeff (pair_style zero) the words after I J are another style's: all ignored
  if (!(cut > 0)) bad("pair_coeff: the cutoff must be positive");
  const auto [ilo, ihi] = arguments::type_range(command, a[0], types);
  const auto [jlo, jhi] = arguments::type_range(command, a[1], types);
  if (ilo > jhi) bad("pair_coeff: " + a[0] + " " + a[1] + " names no pair with I <= J");
  grow(set, types);
  put(set, ilo, ihi, jlo, jhi, coeffs, cut);
}

void not_set(const std::string& style, int i, int j) {
  bad("pair_style " + style + ": no coefficients for atom types " + std::to_string(i) + " " +
      std::to_string(j) + "; add pair_coeff " + std::to_string(i) + " " + std::to_string(j) +
      " (LAMMPS: All pair coeffs are not set)");
}

nlohmann::json restart_section(const std::string& style, double cut_global, bool shift,
                               const std::string& mix, bool tail, bool nocoeff,
                               const std::vector<std::vector<Setting>>& set) {
  nlohmann::json coeffs = nlohmann::json::array();
  for (std::size_t i = 1; i < set.size(); ++i)
    for (std::size_t j = i; j < set[i].size(); ++j)
      if (set[i][j].set) coeffs.push_back({i, j, set[i][j].coeffs, set[i][j].cut});
  return {{"style", style}, {"cutoff", cut_global}, {"shift", shift},  {"mix", mix},
          {"tail", tail},   {"nocoeff", nocoeff},   {"coeffs", coeffs}};
}

void restore(const nlohmann::json& p, const detail::RestartHeader& r, int types, std::size_t n,
             double& cut_global, bool& shift, std::string& mix, bool& tail, bool& nocoeff,
             std::vector<std::vector<Setting>>& set,
             const std::function<void(const std::vector<double>&)>& check) {
  using Sign = detail::RestartHeader::Sign;
  cut_global =
      r.real(r.at(p, "cutoff", "pair.cutoff"), "pair.cutoff", Sign::positive, "pair_style");
  shift = r.boolean(r.at(p, "shift", "pair.shift"), "pair.shift");
  tail = r.boolean(r.at(p, "tail", "pair.tail"), "pair.tail");
  nocoeff = r.boolean(r.at(p, "nocoeff", "pair.nocoeff"), "pair.nocoeff");
  mix = r.text(r.at(p, "mix", "pair.mix"), "pair.mix");
  if (mix != "geometric" && mix != "arithmetic" && mix != "sixthpower")
    r.fail("has pair.mix = '" + mix + "', which pair_modify mix refuses");
  const auto& coeffs = r.at(p, "coeffs", "pair.coeffs");
  if (!coeffs.is_array()) r.fail("has pair.coeffs that are not a list");
  grow(set, types);
  for (std::size_t k = 0; k < coeffs.size(); ++k) {
    const auto& c = coeffs[k];
    const std::string name = "pair.coeffs[" + std::to_string(k) + "]";
    if (!c.is_array() || c.size() != 4 || !c[2].is_array() || c[2].size() != (nocoeff ? 0 : n))
      r.fail("has " + name + " = " + c.dump() + ", not [i, j, [" + std::to_string(n) +
             " coefficients], cutoff]");
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
    put(set, i, i, j, j, values, cut);
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

void data_coeff(const std::string& style, const std::vector<std::string>& w, int types,
                std::size_t n, double cut_global, std::vector<std::vector<Setting>>& set,
                const std::function<void(const std::vector<double>&)>& check) {
  if (w.size() < 1 + n)
    bad("a Pair Coeffs line for " + style + " needs the type and " + std::to_string(n) +
        " coefficients");
  const int t = static_cast<int>(arguments::integer("Pair Coeffs", w[0], 1, types));
  std::vector<double> coeffs;
  for (std::size_t k = 0; k < n; ++k) coeffs.push_back(number("Pair Coeffs", w[1 + k]));
  check(coeffs);
  grow(set, types);
  put(set, t, t, t, t, coeffs, cut_global);
}

void charge_pairs(PairTile& t) {
  t.tile.charge(pairwise_work,
                static_cast<std::uint64_t>(t.begin[static_cast<std::size_t>(t.nlocal)]));
}

}  // namespace tessera::md::pairwise
