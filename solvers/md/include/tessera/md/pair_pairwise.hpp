// PairPairwise<Potential>: a pair style of one pair potential with a cutoff per type pair, as
// LAMMPS writes most of its simple pair styles (morse, buck, soft, zero): everything but the
// potential's formula is shared here, and each style is a small Potential type beside it
// (pair_morse.hpp, pair_buck.hpp, pair_soft.hpp, pair_zero.hpp).
//
//   pair_style NAME RC [extra settings]      pair_coeff I J C1 ... CN [RC_IJ]
//   pair_modify shift yes|no (styles whose energy is shifted) mix geometric|arithmetic|sixthpower
//               (styles that mix) tail yes|no (styles with a tail correction)
// As LAMMPS's: pair_style with a new RC resets the cutoff of every pair already set; unlike pairs
// not set are mixed from the like ones by styles that mix (their cutoffs by the mix rule) and
// refused by the others ("All pair coeffs are not set"). A restart file keeps the settings and
// every pair_coeff; write_data writes the like pairs' coefficients when all are set.
//
// A Potential provides:
//   static constexpr const char* name;        the style's name
//   static constexpr std::size_t coefficients; N
//   static constexpr const char* usage;        the coefficients' names ("D0 ALPHA R0")
//   static constexpr bool shifts, mixes, has_tail, takes_nocoeff;
//   struct Derived;                           what the kernel needs per type pair
//   static Derived derive(const Coeffs& c, double cut, bool shift);   (LAMMPS's init_one)
//   static Coeffs mix(const Coeffs& ii, const Coeffs& jj);            (only styles that mix)
//   static void check(const Coeffs& c);        throws ConfigError for values LAMMPS refuses
//   template <bool Energy> static double force(const Derived& d, double rsq, double& energy);
//       returns fpair (the force on i is fpair * (x_i - x_j)), the energy when Energy
//   static std::array<double, 2> tail(const Coeffs& c, double cut);  (only has_tail styles:
//       etail and ptail per N_i N_j, as LAMMPS's init_one)
// The kernel walks a half list, the reaction to the other atom or to its ghost slot (returned to
// the owner), as LAMMPS's compute with newton on.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tessera/md/pair.hpp"

namespace tessera::md {

namespace pairwise {

// What every PairPairwise shares, compiled once (pair_pairwise.cpp).
struct Setting {
  std::vector<double> coeffs;
  double cut = 0;
  bool set = false;
};
// LAMMPS's Pair::mix_distance.
double mix_distance(const std::string& rule, double a, double b);
void parse_settings(const std::string& style, const std::vector<std::string>& args,
                    double& cut_global, bool& nocoeff, bool takes_nocoeff);
void parse_modify(const std::string& style, const std::vector<std::string>& args, bool shifts,
                  bool has_tail, bool& shift, std::string& mix, bool& tail);
// Reads pair_coeff I J C... [RC] into the settings of every pair it names (N coefficients;
// with nocoeff, words after I J are ignored but a cutoff may be the last).
void parse_coeff(const std::string& style, const std::vector<std::string>& args, int types,
                 std::size_t n, const char* usage, double cut_global, bool nocoeff,
                 std::vector<std::vector<Setting>>& set,
                 const std::function<void(const std::vector<double>&)>& check);
nlohmann::json restart_section(const std::string& style, double cut_global, bool shift,
                               const std::string& mix, bool tail, bool nocoeff,
                               const std::vector<std::vector<Setting>>& set);
void restore(const nlohmann::json& p, const detail::RestartHeader& r, int types, std::size_t n,
             double& cut_global, bool& shift, std::string& mix, bool& tail, bool& nocoeff,
             std::vector<std::vector<Setting>>& set,
             const std::function<void(const std::vector<double>&)>& check);
void write_data_coeffs(std::ostream& out, const std::string& style, int types,
                       const std::vector<std::vector<Setting>>& set);
void data_coeff(const std::string& style, const std::vector<std::string>& words, int types,
                std::size_t n, double cut_global, std::vector<std::vector<Setting>>& set,
                const std::function<void(const std::vector<double>&)>& check);
[[noreturn]] void not_set(const std::string& style, int i, int j);
void charge_pairs(PairTile& t);

}  // namespace pairwise

template <class Potential>
class PairPairwise final : public Pair {
 public:
  using Coeffs = std::array<double, Potential::coefficients>;

  PairPairwise() = default;
  explicit PairPairwise(const PairContext&) {}

  std::string style() const override { return Potential::name; }
  void settings(const std::vector<std::string>& args) override {
    pairwise::parse_settings(style(), args, cut_global_, nocoeff_, Potential::takes_nocoeff);
    for (auto& row : set_)
      for (auto& s : row)
        if (s.set) s.cut = cut_global_;
  }
  void coeff(const std::vector<std::string>& args, int types) override {
    pairwise::parse_coeff(style(), args, types, Potential::coefficients, Potential::usage,
                          cut_global_, nocoeff_, set_, check());
  }
  void modify(const std::vector<std::string>& args) override {
    pairwise::parse_modify(style(), args, Potential::shifts, Potential::has_tail, shift_, mix_,
                           tail_);
  }
  double init(int types, std::size_t) override;
  std::optional<std::array<double, 2>> tail_correction(
      std::span<const double> type_counts) const override;
  bool tallies_per_atom() const override { return true; }
  void compute(PairTile& t) override {
    with_tally_flags(t, [&]<bool E, bool P>() { kernel<E, P>(t); });
    pairwise::charge_pairs(t);
  }
  nlohmann::json restart_section() const override {
    return pairwise::restart_section(style(), cut_global_, shift_, mix_, tail_, nocoeff_, set_);
  }
  void restore(const nlohmann::json& p, const detail::RestartHeader& r, int types) override {
    pairwise::restore(p, r, types, Potential::coefficients, cut_global_, shift_, mix_, tail_,
                      nocoeff_, set_, check());
  }
  void write_data_coeffs(std::ostream& out, int types) const override {
    pairwise::write_data_coeffs(out, style(), types, set_);
  }
  void data_coeff(const std::vector<std::string>& words, int types) override {
    pairwise::data_coeff(style(), words, types, Potential::coefficients, cut_global_, set_,
                         check());
  }

 private:
  struct Entry {
    double cutsq = 0;
    typename Potential::Derived d{};
  };
  static Coeffs coeffs_of(const std::vector<double>& v) {
    Coeffs c{};
    for (std::size_t k = 0; k < c.size(); ++k) c[k] = v[k];
    return c;
  }
  static Coeffs coeffs_of(const pairwise::Setting& s) { return coeffs_of(s.coeffs); }
  static std::function<void(const std::vector<double>&)> check() {
    return [](const std::vector<double>& v) { Potential::check(coeffs_of(v)); };
  }
  template <bool EnergyVirial, bool PerAtom>
  void kernel(PairTile& t) const;

  double cut_global_ = 0;
  bool shift_ = false, tail_ = false, nocoeff_ = false;
  std::string mix_ = "geometric";
  std::vector<std::vector<pairwise::Setting>> set_;  // [i][j], 1-based, i <= j
  int types_ = 0;
  std::vector<Entry> table_;                 // [i * (types + 1) + j]
  std::vector<pairwise::Setting> resolved_;  // the pairs after mixing, for the tail
};

template <class Potential>
double PairPairwise<Potential>::init(int types, std::size_t) {
  if (!(cut_global_ > 0)) pairwise::not_set(style(), 1, 1);
  types_ = types;
  const auto width = static_cast<std::size_t>(types) + 1;
  if (set_.size() < width) set_.resize(width);
  for (auto& row : set_)
    if (row.size() < width) row.resize(width);
  table_.assign(width * width, Entry{});
  resolved_.assign(width * width, pairwise::Setting{});
  double max_cut = 0;
  for (std::size_t i = 1; i < width; ++i)
    for (std::size_t j = i; j < width; ++j) {
      pairwise::Setting s = set_[i][j];
      if (!s.set) {
        if constexpr (Potential::mixes) {
          const auto& a = set_[i][i];
          const auto& b = set_[j][j];
          if (!a.set || !b.set)
            pairwise::not_set(style(), static_cast<int>(i), static_cast<int>(j));
          const Coeffs mixed = Potential::mix(coeffs_of(a), coeffs_of(b));
          s.coeffs.assign(mixed.begin(), mixed.end());
          s.cut = pairwise::mix_distance(mix_, a.cut, b.cut);
          s.set = true;
        } else {
          pairwise::not_set(style(), static_cast<int>(i), static_cast<int>(j));
        }
      }
      Entry e;
      e.cutsq = s.cut * s.cut;
      e.d = Potential::derive(coeffs_of(s), s.cut, shift_);
      table_[i * width + j] = table_[j * width + i] = e;
      resolved_[i * width + j] = s;
      max_cut = std::max(max_cut, s.cut);
    }
  return max_cut;
}

// Pair::init's sum of init_one's etail_ij and ptail_ij, twice for unlike pairs.
template <class Potential>
std::optional<std::array<double, 2>> PairPairwise<Potential>::tail_correction(
    std::span<const double> type_counts) const {
  if constexpr (!Potential::has_tail) {
    return std::nullopt;
  } else {
    if (!tail_) return std::nullopt;
    const auto width = static_cast<std::size_t>(types_) + 1;
    double etail = 0, ptail = 0;
    for (std::size_t i = 1; i < width; ++i)
      for (std::size_t j = i; j < width; ++j) {
        const auto& s = resolved_[i * width + j];
        const auto [e, p] = Potential::tail(coeffs_of(s), s.cut);
        const double n = type_counts[i] * type_counts[j] * (i == j ? 1.0 : 2.0);
        etail += n * e, ptail += n * p;
      }
    return std::array<double, 2>{etail, ptail};
  }
}

template <class Potential>
template <bool EnergyVirial, bool PerAtom>
void PairPairwise<Potential>::kernel(PairTile& t) const {
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const auto width = static_cast<std::size_t>(types_) + 1;
  const double* __restrict x = t.x.data();
  double* __restrict f = t.f.data();
  double* __restrict gf = t.ghost_f.data();
  const std::int32_t* __restrict type = t.type.data();
  double pe = 0;
  std::array<double, 6> w{};
  for (std::size_t i = 0; i < nlocal; ++i) {
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    const Entry* row = &table_[static_cast<std::size_t>(type[i]) * width];
    double fx = 0, fy = 0, fz = 0;
    for (int n = t.begin[i]; n < t.begin[i + 1]; ++n) {
      const auto j = static_cast<std::size_t>(t.list[static_cast<std::size_t>(n)]);
      const double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      const Entry& e = row[type[j]];
      if (rsq >= e.cutsq) continue;
      double energy = 0;
      const double fpair = Potential::template force<EnergyVirial>(e.d, rsq, energy);
      fx += dx * fpair, fy += dy * fpair, fz += dz * fpair;
      double* reacting = j < nlocal ? f + 3 * j : gf + 3 * (j - nlocal);
      reacting[0] -= dx * fpair, reacting[1] -= dy * fpair, reacting[2] -= dz * fpair;
      if constexpr (EnergyVirial) {
        const std::array<double, 6> v = {fpair * dx * dx, fpair * dy * dy, fpair * dz * dz,
                                         fpair * dx * dy, fpair * dx * dz, fpair * dy * dz};
        pe += energy;
        for (std::size_t k = 0; k < 6; ++k) w[k] += v[k];
        if constexpr (PerAtom) {
          t.eatom[i] += 0.5 * energy;
          for (std::size_t k = 0; k < 6; ++k) t.vatom[6 * i + k] += 0.5 * v[k];
          if (j < nlocal) {
            t.eatom[j] += 0.5 * energy;
            for (std::size_t k = 0; k < 6; ++k) t.vatom[6 * j + k] += 0.5 * v[k];
          } else {
            double* g = &t.ghost_tally[7 * (j - nlocal)];
            g[0] += 0.5 * energy;
            for (std::size_t k = 0; k < 6; ++k) g[1 + k] += 0.5 * v[k];
          }
        }
      }
    }
    f[3 * i] += fx, f[3 * i + 1] += fy, f[3 * i + 2] += fz;
  }
  if constexpr (EnergyVirial) {
    t.energy = pe;
    t.virial = w;
  }
}

}  // namespace tessera::md
