// PairPairwise<Potential>: a pair style of one pair potential with a cutoff per type pair, as
// LAMMPS writes most of its simple pair styles (morse, buck, soft, zero, and the short-range
// Coulomb styles): everything but the potential's formula is shared here, and each style is a
// small Potential type beside it (pair_morse.hpp, pair_buck.hpp, pair_soft.hpp, pair_zero.hpp,
// pair_coul.hpp).
//
//   pair_style NAME [P1 ... PM] RC [RC_COUL] [nocoeff]
//   pair_coeff I J C1 ... CN [RC_IJ [RC_COUL_IJ]]
// P1..PM are the style's parameters (coul/debye's KAPPA); RC_COUL only for styles with a
// Coulomb cutoff of its own (lj/cut/coul/cut: RC_COUL defaults to RC, and pair_coeff's one
// cutoff sets both, as LAMMPS's).
//   pair_modify shift yes|no (styles whose energy is shifted) mix geometric|arithmetic|sixthpower
//               (styles that mix) tail yes|no (styles with a tail correction)
// As LAMMPS's: pair_style with a new RC resets the cutoff of every pair already set; unlike pairs
// not set are mixed from the like ones by styles that mix (their cutoffs by the mix rule) and
// refused by the others ("All pair coeffs are not set"). A restart file keeps the settings and
// every pair_coeff; write_data writes the like pairs' coefficients when all are set.
//
// A Potential provides (deriving from pairwise::Plain gives the defaults of the first four):
//   static constexpr bool charged;             a Coulomb style (atom_style charge)
//   static constexpr bool long_range;          its Coulomb term is the real-space part of a kspace
//                                              style's sum: one global Coulomb cutoff, not set by
//                                              pair_coeff, and g_ewald from the kspace style
//   static constexpr std::size_t cutoffs;      1, or 2 with a Coulomb cutoff of its own
//   static constexpr std::size_t parameters;   M, named by parameter_usage ("KAPPA")
//   static constexpr const char* name;        the style's name
//   static constexpr std::size_t coefficients; N
//   static constexpr const char* usage;        the coefficients' names ("D0 ALPHA R0")
//   static constexpr bool shifts, mixes, has_tail, takes_nocoeff;
//   struct Derived;                           what the kernel needs per type pair
//   static Derived derive(const Coeffs& c, double cut, bool shift);   (LAMMPS's init_one)
//   static Derived derive(const Coeffs& c, const pairwise::Cutoffs& cut, bool shift,
//                         const Parameters& p);                        (charged styles)
//   static Coeffs mix(const Coeffs& ii, const Coeffs& jj, const std::string& rule);
//       (only styles that mix; rule: pair_modify mix's)
//   static void check(const Coeffs& c);        throws ConfigError for values LAMMPS refuses
//   template <bool Energy> static double force(const Derived& d, double rsq, double& energy);
//       returns fpair (the force on i is fpair * (x_i - x_j)), the energy when Energy
//   template <bool Energy> static double force(const Derived& d, double rsq, double qqi,
//                                              double qj, double& evdwl, double& ecoul);
//       (charged styles: qqi = qqrd2e q_i, so that q_i q_j terms multiply in LAMMPS's order;
//       the energy in its van der Waals and Coulomb parts, LAMMPS's eng_vdwl and eng_coul)
//   static std::array<double, 2> tail(const Coeffs& c, double cut);  (only has_tail styles:
//       etail and ptail per N_i N_j, as LAMMPS's init_one)
// and may provide (the CHARMM styles do):
//   static constexpr std::size_t required_coefficients;  fewer than N may be given: the others
//       then repeat the first ones (CHARMM's EPSILON14 SIGMA14 default to EPSILON SIGMA); such
//       styles take no cutoff in pair_coeff
//   static constexpr bool pair_cutoffs = false;  pair_coeff takes no cutoff (all are global)
//   static constexpr const char* default_mix;    the mixing rule before pair_modify mix
//   static std::array<double, 4> one_four(const Coeffs& c);   the 1-4 coefficients that
//       dihedral_style charmm reads (Pair::charmm_one_four)
//   static constexpr bool coulomb_switched;  Shape::coulomb_switched (lj/charmm/coul/charmm)
//   static constexpr bool force_switched;   they come with the cutoffs for dihedral charmmfsw
//       (INNER, the first parameter; RC; the Coulomb cutoff)
//   static std::optional<double> coulomb_constant(const PairContext& c);  the Coulomb constant
//       the style uses in place of the units' (Pair::coulomb_constant)
// The kernel walks a half list, the reaction to the other atom or to its ghost slot (returned to
// the owner), as LAMMPS's compute with newton on.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tessera/md/coulomb_table.hpp"
#include "tessera/md/pair.hpp"

namespace tessera::md {

namespace pairwise {

// What every PairPairwise shares, compiled once (pair_pairwise.cpp).
struct Setting {
  std::vector<double> coeffs;
  double cut = 0;
  bool set = false;
  double cut_coul = 0;  // styles with two cutoffs
};
struct Cutoffs {
  double lj, coul;  // the van der Waals and the Coulomb cutoff of a pair (distance units)
  double g_ewald;   // the kspace style's splitting parameter (1/distance; long-range styles)
  double coul_inner = 0;  // where a switched Coulomb term starts to switch off (coul/charmm)
  const CoulombTable* coul_table = nullptr;  // long-range styles' table (none with table 0)
};
// The defaults of a Potential that is not charged and has one cutoff and no parameters.
struct Plain {
  static constexpr bool charged = false, long_range = false;
  static constexpr std::size_t cutoffs = 1, parameters = 0;
  static constexpr const char* parameter_usage = "";
};
// What a style's pair_style command sets, and its shape.
struct Globals {
  std::vector<double> parameters;
  double cut = 0, cut_coul = 0;
  double cut_coul_inner = 0;  // styles whose Coulomb term is switched
  bool nocoeff = false;
  // Long-range styles: pair_modify table N and tabinner R (LAMMPS's defaults 12 and sqrt(2)).
  int table_bits = 12;
  double tabinner = 1.4142135623730951;
};
struct Shape {
  std::size_t coefficients, cutoffs, parameters;
  std::size_t coeff_cutoffs;  // how many pair_coeff may give: fewer when the Coulomb one is global
  std::size_t required;       // coefficients that must be given (the rest repeat the first ones)
  // The Coulomb term is switched off between an inner cutoff and RC_COUL: pair_style takes
  // INNER_COUL RC_COUL together after RC, defaulting to the first parameter and RC.
  bool coulomb_switched;
  const char* usage;            // the coefficients' names
  const char* parameter_usage;  // the parameters' names
  bool takes_nocoeff;
  bool long_range;  // a kspace style's real-space part (pair_modify table and tabinner)
};
// LAMMPS's Pair::mix_distance.
double mix_distance(const std::string& rule, double a, double b);
void parse_settings(const std::string& style, const Shape& shape,
                    const std::vector<std::string>& args, Globals& g);
// table: where pair_modify table N and tabinner R go (long-range styles; others refuse them).
void parse_modify(const std::string& style, const std::vector<std::string>& args, bool shifts,
                  bool has_tail, bool& shift, std::string& mix, bool& tail, Globals* table);
// Reads pair_coeff I J C... [RC [RC_COUL]] into the settings of every pair it names (with
// nocoeff, words after I J are ignored but a cutoff may be the last).
void parse_coeff(const std::string& style, const Shape& shape, const std::vector<std::string>& args,
                 int types, const Globals& g, std::vector<std::vector<Setting>>& set,
                 const std::function<void(const std::vector<double>&)>& check);
nlohmann::json restart_section(const std::string& style, const Shape& shape, const Globals& g,
                               bool shift, const std::string& mix, bool tail,
                               const std::vector<std::vector<Setting>>& set);
void restore(const nlohmann::json& p, const detail::RestartHeader& r, int types, const Shape& shape,
             Globals& g, bool& shift, std::string& mix, bool& tail,
             std::vector<std::vector<Setting>>& set,
             const std::function<void(const std::vector<double>&)>& check);
void write_data_coeffs(std::ostream& out, const std::string& style, int types,
                       const std::vector<std::vector<Setting>>& set);
void data_coeff(const std::string& style, const Shape& shape, const std::vector<std::string>& words,
                int types, const Globals& g, std::vector<std::vector<Setting>>& set,
                const std::function<void(const std::vector<double>&)>& check);

[[noreturn]] void not_set(const std::string& style, int i, int j);
void charge_pairs(PairTile& t);

// A Potential's optional members (above), or their defaults.
template <class P>
constexpr std::size_t required_coefficients() {
  if constexpr (requires { P::required_coefficients; })
    return P::required_coefficients;
  else
    return P::coefficients;
}
template <class P>
constexpr std::size_t coeff_cutoffs() {
  if constexpr (requires { P::pair_cutoffs; })
    if (!P::pair_cutoffs) return 0;
  return P::long_range ? P::cutoffs - 1 : P::cutoffs;
}
template <class P>
constexpr bool coulomb_switched() {
  if constexpr (requires { P::coulomb_switched; })
    return P::coulomb_switched;
  else
    return false;
}
template <class P>
constexpr const char* default_mix() {
  if constexpr (requires { P::default_mix; })
    return P::default_mix;
  else
    return "geometric";
}
template <class P>
constexpr bool has_one_four = requires(const std::array<double, P::coefficients>& c) {
  P::one_four(c);
};

}  // namespace pairwise

template <class Potential>
class PairPairwise final : public Pair {
 public:
  using Coeffs = std::array<double, Potential::coefficients>;

  PairPairwise() = default;
  explicit PairPairwise(const PairContext& c)
      : qqr2e_(own_coulomb_constant(c).value_or(c.units.qqr2e)), qqrd2e_(qqr2e_) {}

  std::string style() const override { return Potential::name; }
  void settings(const std::vector<std::string>& args) override {
    pairwise::parse_settings(style(), shape, args, globals_);
    for (auto& row : set_)
      for (auto& s : row)
        if (s.set) s.cut = globals_.cut, s.cut_coul = globals_.cut_coul;
  }
  void coeff(const std::vector<std::string>& args, int types) override {
    pairwise::parse_coeff(style(), shape, args, types, globals_, set_, check());
  }
  void modify(const std::vector<std::string>& args) override {
    pairwise::parse_modify(style(), args, Potential::shifts, Potential::has_tail, shift_, mix_,
                           tail_, Potential::long_range ? &globals_ : nullptr);
  }
  double init(int types, std::size_t) override;
  bool has_coeff(int i, int j) const override {
    return static_cast<std::size_t>(j) < set_.size() &&
           set_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)].set;
  }
  bool needs_charges() const override { return Potential::charged; }
  std::optional<double> long_range_cutoff() const override {
    if constexpr (Potential::long_range)
      return Potential::cutoffs == 2 ? globals_.cut_coul : globals_.cut;
    else
      return std::nullopt;
  }
  void set_g_ewald(double g) override { g_ewald_ = g; }
  void set_dielectric(double dielectric) override { qqrd2e_ = qqr2e_ / dielectric; }
  std::optional<double> coulomb_constant() const override {
    if constexpr (requires { Potential::coulomb_constant; })
      return qqr2e_;
    else
      return std::nullopt;
  }
  const CharmmOneFour* charmm_one_four() const override {
    return pairwise::has_one_four<Potential> ? &one_four_ : nullptr;
  }
  std::optional<std::array<double, 2>> tail_correction(
      std::span<const double> type_counts) const override;
  bool tallies_per_atom() const override { return true; }
  std::size_t replicated_bytes() const override { return coul_table_ ? coul_table_->bytes() : 0; }
  SpecialWeights special_weights() const override { return SpecialWeights::weighed; }
  void compute(PairTile& t) override {
    with_tally_flags(t, [&]<bool E, bool P>() { kernel<E, P>(t); });
    pairwise::charge_pairs(t);
  }
  nlohmann::json restart_section() const override {
    return pairwise::restart_section(style(), shape, globals_, shift_, mix_, tail_, set_);
  }
  void restore(const nlohmann::json& p, const detail::RestartHeader& r, int types) override {
    pairwise::restore(p, r, types, shape, globals_, shift_, mix_, tail_, set_, check());
  }
  void write_data_coeffs(std::ostream& out, int types) const override {
    pairwise::write_data_coeffs(out, style(), types, set_);
  }
  void data_coeff(const std::vector<std::string>& words, int types) override {
    pairwise::data_coeff(style(), shape, words, types, globals_, set_, check());
  }

 private:
  static constexpr pairwise::Shape shape{Potential::coefficients,
                                         Potential::cutoffs,
                                         Potential::parameters,
                                         pairwise::coeff_cutoffs<Potential>(),
                                         pairwise::required_coefficients<Potential>(),
                                         pairwise::coulomb_switched<Potential>(),
                                         Potential::usage,
                                         Potential::parameter_usage,
                                         Potential::takes_nocoeff,
                                         Potential::long_range};
  struct Entry {
    double cutsq = 0;
    typename Potential::Derived d{};
  };
  static std::optional<double> own_coulomb_constant(const PairContext& c) {
    if constexpr (requires { Potential::coulomb_constant; })
      return Potential::coulomb_constant(c);
    else
      return std::nullopt;
  }
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

  double qqr2e_ = 0;    // the units' Coulomb constant
  double qqrd2e_ = 0;   // LAMMPS's qqrd2e: qqr2e over the dielectric constant
  double g_ewald_ = 0;  // from the kspace style (long-range styles)
  std::shared_ptr<const CoulombTable> coul_table_;  // built at init (long-range styles)
  pairwise::Globals globals_;
  bool shift_ = false, tail_ = false;
  std::string mix_ = pairwise::default_mix<Potential>();
  std::vector<std::vector<pairwise::Setting>> set_;  // [i][j], 1-based, i <= j
  int types_ = 0;
  std::vector<Entry> table_;                 // [i * (types + 1) + j]
  std::vector<pairwise::Setting> resolved_;  // the pairs after mixing, for the tail
  CharmmOneFour one_four_;                   // (styles with one_four)
};

template <class Potential>
double PairPairwise<Potential>::init(int types, std::size_t) {
  if (!(globals_.cut > 0)) pairwise::not_set(style(), 1, 1);
  if (Potential::long_range && !(g_ewald_ > 0))
    throw ConfigError("pair style " + style() +
                      " requires a kspace style for its long-range part (kspace_style ewald)");
  types_ = types;
  const auto width = static_cast<std::size_t>(types) + 1;
  if (set_.size() < width) set_.resize(width);
  for (auto& row : set_)
    if (row.size() < width) row.resize(width);
  table_.assign(width * width, Entry{});
  resolved_.assign(width * width, pairwise::Setting{});
  coul_table_.reset();
  if (Potential::long_range && globals_.table_bits > 0)
    coul_table_ = std::make_shared<const CoulombTable>(globals_.table_bits, globals_.tabinner,
                                                       *long_range_cutoff(), g_ewald_, qqrd2e_);
  if constexpr (pairwise::has_one_four<Potential>) {
    one_four_ = {width, std::vector<std::array<double, 4>>(width * width), Potential::implicit,
                 qqrd2e_};
  }
  if constexpr (requires { Potential::force_switched; }) {
    one_four_.force_switched = Potential::force_switched;
    one_four_.cut_lj_inner = globals_.parameters[0];
    one_four_.cut_lj = globals_.cut;
    one_four_.long_range = Potential::long_range;
    one_four_.cut_coul = Potential::long_range ? *long_range_cutoff() : globals_.cut_coul;
  }
  double max_cut = 0;
  for (std::size_t i = 1; i < width; ++i)
    for (std::size_t j = i; j < width; ++j) {
      if (!active(static_cast<int>(i), static_cast<int>(j), types)) continue;
      pairwise::Setting s = set_[i][j];
      if (!s.set) {
        if constexpr (Potential::mixes) {
          const auto& a = set_[i][i];
          const auto& b = set_[j][j];
          if (!a.set || !b.set)
            pairwise::not_set(style(), static_cast<int>(i), static_cast<int>(j));
          const Coeffs mixed = Potential::mix(coeffs_of(a), coeffs_of(b), mix_);
          s.coeffs.assign(mixed.begin(), mixed.end());
          s.cut = pairwise::mix_distance(mix_, a.cut, b.cut);
          s.cut_coul = pairwise::mix_distance(mix_, a.cut_coul, b.cut_coul);
          s.set = true;
        } else {
          pairwise::not_set(style(), static_cast<int>(i), static_cast<int>(j));
        }
      }
      Entry e;
      double cut = s.cut;
      if constexpr (Potential::charged) {
        const double coul = Potential::long_range     ? *long_range_cutoff()
                            : Potential::cutoffs == 2 ? s.cut_coul
                                                      : s.cut;
        cut = std::max(s.cut, coul);
        typename Potential::Parameters p{};
        for (std::size_t k = 0; k < p.size(); ++k) p[k] = globals_.parameters[k];
        e.d = Potential::derive(
            coeffs_of(s),
            pairwise::Cutoffs{s.cut, coul, g_ewald_, globals_.cut_coul_inner, coul_table_.get()},
            shift_, p);
      } else {
        e.d = Potential::derive(coeffs_of(s), s.cut, shift_);
      }
      e.cutsq = cut * cut;
      table_[i * width + j] = table_[j * width + i] = e;
      resolved_[i * width + j] = s;
      if constexpr (pairwise::has_one_four<Potential>)
        one_four_.lj14[i * width + j] = one_four_.lj14[j * width + i] =
            Potential::one_four(coeffs_of(s));
      max_cut = std::max(max_cut, cut);
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
        if (!active(static_cast<int>(i), static_cast<int>(j), types_)) continue;
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
  [[maybe_unused]] const double* __restrict q = t.q.data();
  [[maybe_unused]] const double qqrd2e = qqrd2e_;
  double pe = 0, pe_coul = 0;
  std::array<double, 6> w{};
  for (std::size_t i = 0; i < nlocal; ++i) {
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    [[maybe_unused]] double qqi = 0;
    if constexpr (Potential::charged) qqi = qqrd2e * q[i];
    const Entry* row = &table_[static_cast<std::size_t>(type[i]) * width];
    double fx = 0, fy = 0, fz = 0;
    for (int n = t.begin[i]; n < t.begin[i + 1]; ++n) {
      const auto j = static_cast<std::size_t>(t.list[static_cast<std::size_t>(n)]);
      const double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      const Entry& e = row[type[j]];
      if (rsq >= e.cutsq) continue;
      double energy = 0, ecoul = 0;
      double fpair;
      if constexpr (Potential::charged)
        fpair = Potential::template force<EnergyVirial>(e.d, rsq, qqi, q[i], q[j], energy, ecoul);
      else
        fpair = Potential::template force<EnergyVirial>(e.d, rsq, energy);
      fx += dx * fpair, fy += dy * fpair, fz += dz * fpair;
      double* reacting = j < nlocal ? f + 3 * j : gf + 3 * (j - nlocal);
      reacting[0] -= dx * fpair, reacting[1] -= dy * fpair, reacting[2] -= dz * fpair;
      if constexpr (EnergyVirial) {
        pe += energy;
        if constexpr (Potential::charged) pe_coul += ecoul;
        // LAMMPS's ev_tally: half of each part onto each atom.
        const double half = Potential::charged ? 0.5 * energy + 0.5 * ecoul : 0.5 * energy;
        tally_half_pair<PerAtom>(t, i, j, dx, dy, dz, fpair, half, w);
      }
    }
    f[3 * i] += fx, f[3 * i + 1] += fy, f[3 * i + 2] += fz;
  }
  if constexpr (EnergyVirial) {
    t.energy = pe;
    t.energy_coul = pe_coul;
    t.virial = w;
  }
  // special_bonds, as LAMMPS's styles weigh their terms (pair_coul.hpp; a factor on the plain
  // styles' force and energy).
  weighted_special_pairs<EnergyVirial, PerAtom>(
      t, [&](std::size_t i, std::size_t j, double rsq, double lj, double coul, double& evdwl,
             double& ecoul, double& fpair) {
        const Entry& e =
            table_[static_cast<std::size_t>(type[i]) * width + static_cast<std::size_t>(type[j])];
        if (rsq >= e.cutsq) return false;
        if constexpr (Potential::charged) {
          fpair = Potential::template force<EnergyVirial, true>(e.d, rsq, qqrd2e * q[i], q[i], q[j],
                                                                evdwl, ecoul, lj, coul);
        } else {
          fpair = lj * Potential::template force<EnergyVirial>(e.d, rsq, evdwl);
          evdwl *= lj;
        }
        return true;
      });
}

}  // namespace tessera::md
