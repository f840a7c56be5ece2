#include "tessera/md/pair_lj_cut.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/simd.hpp"
#include "tessera/md/kernel_work.hpp"

namespace tessera::md {
using namespace arguments;

void PairLJCut::settings(double global_cutoff) {
  if (!(global_cutoff > 0)) throw ConfigError("pair_style lj/cut: the cutoff must be positive");
  global_cutoff_ = global_cutoff;
}

void PairLJCut::coeff(int ilo, int ihi, int jlo, int jhi, double epsilon, double sigma,
                      double cutoff) {
  if (!defined()) throw ConfigError("pair_coeff before pair_style: set pair_style lj/cut first");
  if (epsilon < 0 || !(sigma > 0))
    throw ConfigError("pair_coeff: epsilon must be >= 0 and sigma > 0");
  const int need = std::max(ihi, jhi);
  if (static_cast<int>(set_.size()) < need + 1) {
    set_.resize(static_cast<std::size_t>(need) + 1);
    for (auto& row : set_) row.resize(static_cast<std::size_t>(need) + 1);
  }
  for (int i = ilo; i <= ihi; ++i)
    for (int j = std::max(jlo, i); j <= jhi; ++j) {
      Setting s{epsilon, sigma, cutoff < 0 ? -1.0 : cutoff, true};
      set_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = s;
      set_[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = s;
    }
}

void PairLJCut::set_mix(const std::string& rule) {
  if (rule != "geometric" && rule != "arithmetic")
    throw ConfigError("pair_modify mix " + rule + ": use geometric or arithmetic");
  mix_ = rule;
}

void PairLJCut::build_tables(int types) {
  types_ = types;
  if (static_cast<int>(set_.size()) < types + 1) {
    set_.resize(static_cast<std::size_t>(types) + 1);
    for (auto& row : set_) row.resize(static_cast<std::size_t>(types) + 1);
  }
  table_.assign(static_cast<std::size_t>((types + 1) * (types + 1)), Coeff{});
  mixed_.assign(table_.size(), Setting{});
  max_cutoff_ = 0;
  for (int i = 1; i <= types; ++i)
    for (int j = i; j <= types; ++j) {
      if (!active(i, j, types)) continue;
      Setting s = set_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      if (!s.set) {
        const Setting& a = set_[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)];
        const Setting& b = set_[static_cast<std::size_t>(j)][static_cast<std::size_t>(j)];
        if (!a.set || !b.set)
          throw ConfigError("pair_coeff: no coefficients for atom types " + std::to_string(i) +
                            " " + std::to_string(j) +
                            " and none to mix them from; add pair_coeff " + std::to_string(i) +
                            " " + std::to_string(j) + " EPS SIGMA");
        s.epsilon = std::sqrt(a.epsilon * b.epsilon);
        s.sigma = mix_ == "geometric" ? std::sqrt(a.sigma * b.sigma) : 0.5 * (a.sigma + b.sigma);
        const double ca = a.cutoff < 0 ? global_cutoff_ : a.cutoff,
                     cb = b.cutoff < 0 ? global_cutoff_ : b.cutoff;
        s.cutoff = mix_ == "geometric" ? std::sqrt(ca * cb) : 0.5 * (ca + cb);
      }
      const double rc = s.cutoff < 0 ? global_cutoff_ : s.cutoff;
      mixed_[static_cast<std::size_t>(i * (types + 1) + j)] = {s.epsilon, s.sigma, rc, true};
      Coeff c;
      c.cutsq = rc * rc;
      c.lj1 = 48.0 * s.epsilon * std::pow(s.sigma, 12.0);
      c.lj2 = 24.0 * s.epsilon * std::pow(s.sigma, 6.0);
      c.lj3 = 4.0 * s.epsilon * std::pow(s.sigma, 12.0);
      c.lj4 = 4.0 * s.epsilon * std::pow(s.sigma, 6.0);
      if (shift_ && rc > 0) {
        const double ratio = s.sigma / rc;
        c.offset = 4.0 * s.epsilon * (std::pow(ratio, 12.0) - std::pow(ratio, 6.0));
      }
      table_[static_cast<std::size_t>(i * (types + 1) + j)] = c;
      table_[static_cast<std::size_t>(j * (types + 1) + i)] = c;
      max_cutoff_ = std::max(max_cutoff_, rc);
    }
}

void PairLJCut::settings(const std::vector<std::string>& args) {
  need(args, 1, "pair_style lj/cut RC");
  if (args.size() > 1) bad("pair_style lj/cut takes one cutoff; usage: pair_style lj/cut RC");
  settings(number("pair_style", args[0]));
}

void PairLJCut::coeff(const std::vector<std::string>& a, int types) {
  need(a, 4, "pair_coeff I J EPSILON SIGMA [RC]");
  if (a.size() > 5) bad("wrong number of arguments; usage: pair_coeff I J EPSILON SIGMA [RC]");
  const auto [ilo, ihi] = type_range("pair_coeff", a[0], types);
  const auto [jlo, jhi] = type_range("pair_coeff", a[1], types);
  const double cut = a.size() > 4 ? number("pair_coeff", a[4]) : -1.0;
  if (a.size() > 4 && !(cut > 0)) bad("the cutoff must be positive");
  coeff(ilo, ihi, jlo, jhi, number("pair_coeff", a[2]), number("pair_coeff", a[3]), cut);
}

void PairLJCut::modify(const std::vector<std::string>& a) {
  need(a, 2, "pair_modify shift yes|no mix geometric|arithmetic tail yes|no");
  for (std::size_t i = 0; i < a.size(); i += 2) {
    if (i + 1 >= a.size()) bad("keyword " + a[i] + " needs a value");
    if (a[i] == "shift")
      set_shift(yes_no("pair_modify", a[i + 1]));
    else if (a[i] == "mix")
      set_mix(a[i + 1]);
    else if (a[i] == "tail")
      tail_ = yes_no("pair_modify tail", a[i + 1]);
    else
      bad("unknown keyword '" + a[i] + "'; supported: shift, mix, tail");
  }
}

// LAMMPS's PairLJCut::init_one (tail_flag) summed as Pair::init sums it: for each type pair,
// with N_i, N_j atoms, etail_ij = 8 pi N_i N_j eps s^6 / (9 rc^9) (s^6 - 3 rc^6) and ptail_ij =
// twice that with (2 s^6 - 3 rc^6), counted twice for i != j.
std::optional<std::array<double, 2>> PairLJCut::tail_correction(
    std::span<const double> type_counts) const {
  if (!tail_) return std::nullopt;
  double etail = 0, ptail = 0;
  for (int i = 1; i <= types_; ++i)
    for (int j = i; j <= types_; ++j) {
      if (!active(i, j, types_)) continue;
      const Setting& s = mixed_[static_cast<std::size_t>(i * (types_ + 1) + j)];
      const double sig2 = s.sigma * s.sigma, sig6 = sig2 * sig2 * sig2;
      const double rc3 = s.cutoff * s.cutoff * s.cutoff, rc6 = rc3 * rc3, rc9 = rc3 * rc6;
      const double prefactor = 8.0 * M_PI * type_counts[static_cast<std::size_t>(i)] *
                               type_counts[static_cast<std::size_t>(j)] * s.epsilon * sig6 /
                               (9.0 * rc9);
      const double e = prefactor * (sig6 - 3.0 * rc6);
      const double p = 2.0 * prefactor * (2.0 * sig6 - 3.0 * rc6);
      etail += e, ptail += p;
      if (i != j) etail += e, ptail += p;
    }
  return std::array<double, 2>{etail, ptail};
}

bool PairLJCut::has_coeff(int i, int j) const {
  return static_cast<std::size_t>(j) < set_.size() &&
         set_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)].set;
}

double PairLJCut::init(int types, std::size_t) {
  build_tables(types);
  return max_cutoff_;
}

namespace {

// Four neighbours' values, one per lane (GCC's and Clang's vector extensions: the baseline build
// runs them as SSE2 pairs, the AVX2 build as one register).
using Lanes = double __attribute__((vector_size(32)));
using LaneBits = std::int64_t __attribute__((vector_size(32)));

// The lanes' sum in the order both builds keep. (By reference: a vector passed by value would
// take another calling convention in each build.)
[[gnu::always_inline]] inline double lane_sum(const Lanes& v) {
  return (v[0] + v[1]) + (v[2] + v[3]);
}

// The pairs of owned atom i's list, four at a time: positions gathered into lanes, the force of
// every lane computed and the lanes beyond the cutoff (or past the list's end) masked to zero,
// with no branch to mispredict; then each lane's reaction stored to its atom or ghost slot, as
// LAMMPS's PairLJCut::compute with newton on. An atom's own force sums its lanes apart and then
// (l0 + l1) + (l2 + l3), so both builds give the same bits (simd.hpp). OneType: the system has one
// atom type, whose coefficients need no lookup per lane.
template <bool EnergyVirial, bool PerAtom, bool OneType>
[[gnu::always_inline]] inline void lj_cut_rows(const PairLJCut& style, PairTile& t) {
  using Coeff = PairLJCut::Coeff;
  const std::size_t nlocal = static_cast<std::size_t>(t.nlocal);
  const double* __restrict xp = t.x.data();
  double* __restrict f = t.f.data();
  double* __restrict gf = t.ghost_f.data();  // 3 per ghost, returned to owners
  const int* __restrict list = t.list.data();
  const int* __restrict first = t.begin.data();
  const std::int32_t* __restrict types = t.type.data();
  const LaneBits lane_index = {0, 1, 2, 3};
  const Lanes one = {1, 1, 1, 1};
  const Coeff& only = style(1, 1);
  Lanes pe{}, w0{}, w1{}, w2{}, w3{}, w4{}, w5{};
  for (std::size_t i = 0; i < nlocal; ++i) {
    const double x = xp[3 * i], y = xp[3 * i + 1], z = xp[3 * i + 2];
    const Lanes xi = {x, x, x, x}, yi = {y, y, y, y}, zi = {z, z, z, z};
    const Coeff* row = &style(types[i], 0);
    Lanes fxi{}, fyi{}, fzi{};
    const int end = first[i + 1];
    for (int m = first[i]; m < end; m += 4) {
      const int valid = end - m < 4 ? end - m : 4;
      std::size_t j[4];
      for (int k = 0; k < 4; ++k) j[k] = static_cast<std::size_t>(list[m + (k < valid ? k : 0)]);
      const Lanes dx = xi - Lanes{xp[3 * j[0]], xp[3 * j[1]], xp[3 * j[2]], xp[3 * j[3]]};
      const Lanes dy =
          yi - Lanes{xp[3 * j[0] + 1], xp[3 * j[1] + 1], xp[3 * j[2] + 1], xp[3 * j[3] + 1]};
      const Lanes dz =
          zi - Lanes{xp[3 * j[0] + 2], xp[3 * j[1] + 2], xp[3 * j[2] + 2], xp[3 * j[3] + 2]};
      const Lanes rsq = dx * dx + dy * dy + dz * dz;
      Lanes cutsq, lj1, lj2;
      const Coeff* c[4];
      if constexpr (OneType) {
        const double a = only.cutsq, b = only.lj1, d = only.lj2;
        cutsq = Lanes{a, a, a, a}, lj1 = Lanes{b, b, b, b}, lj2 = Lanes{d, d, d, d};
      } else {
        for (int k = 0; k < 4; ++k) c[k] = &row[types[j[k]]];
        cutsq = Lanes{c[0]->cutsq, c[1]->cutsq, c[2]->cutsq, c[3]->cutsq};
        lj1 = Lanes{c[0]->lj1, c[1]->lj1, c[2]->lj1, c[3]->lj1};
        lj2 = Lanes{c[0]->lj2, c[1]->lj2, c[2]->lj2, c[3]->lj2};
      }
      const LaneBits inside = (rsq < cutsq) & (lane_index < valid);
      const Lanes r2inv = one / rsq;
      const Lanes r6inv = r2inv * r2inv * r2inv;
      const Lanes fpair = (Lanes)((LaneBits)(r6inv * (lj1 * r6inv - lj2) * r2inv) & inside);
      const Lanes fx = dx * fpair, fy = dy * fpair, fz = dz * fpair;
      fxi += fx, fyi += fy, fzi += fz;
      // Every pair is listed once: the reaction goes to the owned atom, or to the ghost slot that
      // the reverse exchange returns to the ghost's owner.
      for (int k = 0; k < valid; ++k) {
        double* reacting = j[k] < nlocal ? f + 3 * j[k] : gf + 3 * (j[k] - nlocal);
        reacting[0] -= fx[k], reacting[1] -= fy[k], reacting[2] -= fz[k];
      }
      if constexpr (EnergyVirial) {
        Lanes lj3, lj4, offset;
        if constexpr (OneType) {
          const double a = only.lj3, b = only.lj4, d = only.offset;
          lj3 = Lanes{a, a, a, a}, lj4 = Lanes{b, b, b, b}, offset = Lanes{d, d, d, d};
        } else {
          lj3 = Lanes{c[0]->lj3, c[1]->lj3, c[2]->lj3, c[3]->lj3};
          lj4 = Lanes{c[0]->lj4, c[1]->lj4, c[2]->lj4, c[3]->lj4};
          offset = Lanes{c[0]->offset, c[1]->offset, c[2]->offset, c[3]->offset};
        }
        const Lanes evdwl = (Lanes)((LaneBits)(r6inv * (lj3 * r6inv - lj4) - offset) & inside);
        const Lanes vxx = fx * dx, vyy = fy * dy, vzz = fz * dz, vxy = fx * dy, vxz = fx * dz,
                    vyz = fy * dz;
        pe += evdwl, w0 += vxx, w1 += vyy, w2 += vzz, w3 += vxy, w4 += vxz, w5 += vyz;
        if constexpr (PerAtom) {
          // Half of each pair's energy and virial onto each atom (LAMMPS's ev_tally).
          for (int k = 0; k < valid; ++k)
            if (inside[k])
              tally_half_pair_onto_atoms(t, i, j[k], 0.5 * evdwl[k],
                                         {vxx[k], vyy[k], vzz[k], vxy[k], vxz[k], vyz[k]});
        }
      }
    }
    f[3 * i] += lane_sum(fxi), f[3 * i + 1] += lane_sum(fyi), f[3 * i + 2] += lane_sum(fzi);
  }
  if constexpr (EnergyVirial) {
    t.energy = lane_sum(pe);
    t.virial = {lane_sum(w0), lane_sum(w1), lane_sum(w2), lane_sum(w3), lane_sum(w4), lane_sum(w5)};
  }
}

template <bool EnergyVirial, bool PerAtom, bool OneType>
void lj_cut_rows_baseline(const PairLJCut& style, PairTile& t) {
  lj_cut_rows<EnergyVirial, PerAtom, OneType>(style, t);
}

#if defined(__x86_64__)
template <bool EnergyVirial, bool PerAtom, bool OneType>
[[gnu::target("avx2")]] void lj_cut_rows_avx2(const PairLJCut& style, PairTile& t) {
  lj_cut_rows<EnergyVirial, PerAtom, OneType>(style, t);
}
#endif

}  // namespace

void PairLJCut::compute(PairTile& t) {
  with_tally_flags(t, [&]<bool E, bool P>() { kernel<E, P>(t); });
  t.tile.charge(pair_work, static_cast<std::uint64_t>(t.begin[static_cast<std::size_t>(t.nlocal)]));
}

// Energy and virial, which only thermo output needs, are summed only when asked for (LAMMPS's
// eflag/vflag), and split onto the atoms only when per-atom values are wanted (eflag_atom,
// vflag_atom: half of each pair's to each atom, as LAMMPS's ev_tally).
template <bool EnergyVirial, bool PerAtom>
void PairLJCut::kernel(PairTile& t) const {
  const auto rows = [&]<bool OneType>() {
#if defined(__x86_64__)
    if (simd_level() == SimdLevel::avx2)
      return lj_cut_rows_avx2<EnergyVirial, PerAtom, OneType>(*this, t);
#endif
    lj_cut_rows_baseline<EnergyVirial, PerAtom, OneType>(*this, t);
  };
  if (types_ == 1)
    rows.template operator()<true>();
  else
    rows.template operator()<false>();
  const std::int32_t* types = t.type.data();
  // special_bonds: LAMMPS's factor_lj on the force and the energy.
  weighted_special_pairs<EnergyVirial, PerAtom>(
      t, [&](std::size_t i, std::size_t j, double rsq, double lj, double, double& evdwl, double&,
             double& fpair) {
        const Coeff& c = (*this)(types[i], types[j]);
        if (rsq >= c.cutsq) return false;
        const double r2inv = 1.0 / rsq;
        const double r6inv = r2inv * r2inv * r2inv;
        const double forcelj = r6inv * (c.lj1 * r6inv - c.lj2);
        fpair = lj * forcelj * r2inv;
        if constexpr (EnergyVirial) evdwl = lj * (r6inv * (c.lj3 * r6inv - c.lj4) - c.offset);
        return true;
      });
}

nlohmann::json PairLJCut::restart_section() const {
  nlohmann::json section = {{"style", style()},
                            {"cutoff", global_cutoff_},
                            {"shift", shift_},
                            {"mix", mix_},
                            {"tail", tail_}};
  nlohmann::json coeffs = nlohmann::json::array();
  for (std::size_t i = 1; i < set_.size(); ++i)
    for (std::size_t j = i; j < set_.size(); ++j)
      if (set_[i][j].set)
        coeffs.push_back({i, j, set_[i][j].epsilon, set_[i][j].sigma, set_[i][j].cutoff});
  section["coeffs"] = coeffs;
  return section;
}

void PairLJCut::restore(const nlohmann::json& p, const detail::RestartHeader& r, int types) {
  using Sign = detail::RestartHeader::Sign;
  settings(
      r.real(r.at(p, "cutoff", "pair.cutoff"), "pair.cutoff", Sign::positive, "pair_style lj/cut"));
  set_shift(r.boolean(r.at(p, "shift", "pair.shift"), "pair.shift"));
  // Files written before pair_modify tail have no "tail": off, as it was then.
  tail_ = p.contains("tail") && r.boolean(p.at("tail"), "pair.tail");
  const std::string mix = r.text(r.at(p, "mix", "pair.mix"), "pair.mix");
  if (mix != "geometric" && mix != "arithmetic")
    r.fail("has pair.mix = '" + mix + "', which pair_modify mix refuses");
  set_mix(mix);
  const auto& coeffs = r.at(p, "coeffs", "pair.coeffs");
  if (!coeffs.is_array()) r.fail("has pair.coeffs that are not a list");
  for (std::size_t k = 0; k < coeffs.size(); ++k) {
    const auto& c = coeffs[k];
    const std::string name = "pair.coeffs[" + std::to_string(k) + "]";
    if (!c.is_array() || c.size() != 5)
      r.fail("has " + name + " = " + c.dump() + ", not [i, j, epsilon, sigma, cutoff]");
    const int i = static_cast<int>(r.integer(c[0], name + "[0]", 1, types, "pair_coeff"));
    const int j = static_cast<int>(r.integer(c[1], name + "[1]", i, types, "pair_coeff"));
    const double eps = r.real(c[2], name + "[2]", Sign::non_negative, "pair_coeff");
    const double sigma = r.real(c[3], name + "[3]", Sign::positive, "pair_coeff");
    const double cut = r.real(c[4], name + "[4]", Sign::any, "pair_coeff");
    if (!(cut > 0) && cut != -1.0)
      r.fail("has " + name + "[4] = " + c[4].dump() +
             ", which pair_coeff refuses: it must be positive");
    coeff(i, i, j, j, eps, sigma, cut);
  }
}

// LAMMPS's write_data writes Pair Coeffs when every type has its own (like) coefficients.
void PairLJCut::write_data_coeffs(std::ostream& out, int types) const {
  if (static_cast<int>(set_.size()) <= types) return;
  for (int t = 1; t <= types; ++t)
    if (!set_[static_cast<std::size_t>(t)][static_cast<std::size_t>(t)].set) return;
  out << "\nPair Coeffs # lj/cut\n\n";
  char buf[128];
  for (int t = 1; t <= types; ++t) {
    const auto& s = set_[static_cast<std::size_t>(t)][static_cast<std::size_t>(t)];
    std::snprintf(buf, sizeof buf, "%d %.17g %.17g\n", t, s.epsilon, s.sigma);
    out << buf;
  }
}

void PairLJCut::data_coeff(const std::vector<std::string>& w, int) {
  if (w.size() < 3) bad("a Pair Coeffs line for lj/cut needs: type epsilon sigma");
  const int t = std::stoi(w[0]);
  coeff(t, t, t, t, number("Pair Coeffs", w[1]), number("Pair Coeffs", w[2]), -1.0);
}

}  // namespace tessera::md
