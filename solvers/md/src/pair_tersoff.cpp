// pair_style tersoff, tersoff/mod, tersoff/mod/c (pair_tersoff.hpp), following LAMMPS's
// MANYBODY/pair_tersoff.cpp and its mod and mod/c variants (the version Debian ships, 29 Sep
// 2021) step by step: the same functions in the same order of operations.
#include "tessera/md/pair_tersoff.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/kernel_work.hpp"
#include "tessera/md/pair_threebody.hpp"

namespace tessera::md {

using arguments::bad;
using Param = PairTersoff::Param;
using Variant = PairTersoff::Variant;

namespace {

constexpr double pi2 = std::numbers::pi / 2, pi4 = std::numbers::pi / 4;

// The cutoff function and its derivative: Tersoff's sine, Kumagai's sine of three terms.
template <Variant V>
double fc(double r, const Param& p) {
  if (r < p.bigr - p.bigd) return 1.0;
  if (r > p.bigr + p.bigd) return 0.0;
  if constexpr (V == Variant::tersoff)
    return 0.5 * (1.0 - std::sin(pi2 * (r - p.bigr) / p.bigd));
  else
    return 0.5 * (1.0 - 1.125 * std::sin(pi2 * (r - p.bigr) / p.bigd) -
                  0.125 * std::sin(3 * pi2 * (r - p.bigr) / p.bigd));
}

template <Variant V>
double fc_d(double r, const Param& p) {
  if (r < p.bigr - p.bigd) return 0.0;
  if (r > p.bigr + p.bigd) return 0.0;
  if constexpr (V == Variant::tersoff)
    return -(pi4 / p.bigd) * std::cos(pi2 * (r - p.bigr) / p.bigd);
  else
    return -(0.375 * pi4 / p.bigd) *
           (3 * std::cos(pi2 * (r - p.bigr) / p.bigd) + std::cos(3 * pi2 * (r - p.bigr) / p.bigd));
}

template <Variant V>
double fa(double r, const Param& p) {
  if (r > p.bigr + p.bigd) return 0.0;
  return -p.bigb * std::exp(-p.lam2 * r) * fc<V>(r, p);
}

template <Variant V>
double fa_d(double r, const Param& p) {
  if (r > p.bigr + p.bigd) return 0.0;
  return p.bigb * std::exp(-p.lam2 * r) * (p.lam2 * fc<V>(r, p) - fc_d<V>(r, p));
}

// The bond order b(zeta) and its derivative, with LAMMPS's asymptotic branches.
template <Variant V>
double bij(double zeta, const Param& p) {
  const double tmp = p.beta * zeta;
  if constexpr (V == Variant::tersoff) {
    if (tmp > p.c1) return 1.0 / std::sqrt(tmp);
    if (tmp > p.c2) return (1.0 - std::pow(tmp, -p.powern) / (2.0 * p.powern)) / std::sqrt(tmp);
    if (tmp < p.c4) return 1.0;
    if (tmp < p.c3) return 1.0 - std::pow(tmp, p.powern) / (2.0 * p.powern);
    return std::pow(1.0 + std::pow(tmp, p.powern), -1.0 / (2.0 * p.powern));
  } else {
    if (tmp > p.ca1) return std::pow(tmp, -p.powern / (2.0 * p.powern_del));
    if (tmp < p.ca4) return 1.0;
    return std::pow(1.0 + std::pow(tmp, p.powern), -1.0 / (2.0 * p.powern_del));
  }
}

template <Variant V>
double bij_d(double zeta, const Param& p) {
  const double tmp = p.beta * zeta;
  if constexpr (V == Variant::tersoff) {
    if (tmp > p.c1) return p.beta * -0.5 * std::pow(tmp, -1.5);
    if (tmp > p.c2)
      return p.beta * (-0.5 * std::pow(tmp, -1.5) *
                       (1.0 - (1.0 + 1.0 / (2.0 * p.powern)) * std::pow(tmp, -p.powern)));
    if (tmp < p.c4) return 0.0;
    if (tmp < p.c3) return -0.5 * p.beta * std::pow(tmp, p.powern - 1.0);
    const double tmp_n = std::pow(tmp, p.powern);
    return -0.5 * std::pow(1.0 + tmp_n, -1.0 - (1.0 / (2.0 * p.powern))) * tmp_n / zeta;
  } else {
    if (tmp > p.ca1)
      return -0.5 * (p.powern / p.powern_del) * std::pow(tmp, -0.5 * (p.powern / p.powern_del)) /
             zeta;
    if (tmp < p.ca4) return 0.0;
    const double tmp_n = std::pow(tmp, p.powern);
    return -0.5 * (p.powern / p.powern_del) *
           std::pow(1.0 + tmp_n, -1.0 - (1.0 / (2.0 * p.powern_del))) * tmp_n / zeta;
  }
}

// The angular function g(cos theta) and its derivative.
template <Variant V>
double gijk(double costheta, const Param& p) {
  if constexpr (V == Variant::tersoff) {
    const double c2 = p.c * p.c, d2 = p.d * p.d, hcth = p.h - costheta;
    return p.gamma * (1.0 + c2 / d2 - c2 / (d2 + hcth * hcth));
  } else {
    const double tmp_h = (p.h - costheta) * (p.h - costheta);
    return p.c1 + (p.c2 * tmp_h / (p.c3 + tmp_h)) * (1.0 + p.c4 * std::exp(-p.c5 * tmp_h));
  }
}

template <Variant V>
double gijk_d(double costheta, const Param& p) {
  if constexpr (V == Variant::tersoff) {
    const double c2 = p.c * p.c, d2 = p.d * p.d, hcth = p.h - costheta;
    const double numerator = -2.0 * c2 * hcth;
    const double denominator = 1.0 / (d2 + hcth * hcth);
    return p.gamma * numerator * denominator * denominator;
  } else {
    const double tmp_h = (p.h - costheta) * (p.h - costheta);
    const double g1 = (p.h - costheta) / (p.c3 + tmp_h);
    const double g2 = std::exp(-p.c5 * tmp_h);
    return -2.0 * p.c2 * g1 *
           ((1 + p.c4 * g2) * (1 + g1 * (costheta - p.h)) - tmp_h * p.c4 * p.c5 * g2);
  }
}

double cube(double x) { return x * x * x; }

// exp[(lam3 (rij - rik))^m], clamped as LAMMPS clamps it.
double exp_term(double rij, double rik, const Param& p) {
  const double arg = p.powermint == 3 ? cube(p.lam3 * (rij - rik)) : p.lam3 * (rij - rik);
  if (arg > 69.0776) return 1.e30;
  if (arg < -69.0776) return 0.0;
  return std::exp(arg);
}

// The repulsive pair: the force factor (force on i = del * fforce, del = x_i - x_j) and energy.
template <Variant V>
void repulsive(const Param& p, double rsq, double& fforce, double& eng) {
  const double r = std::sqrt(rsq);
  const double tmp_fc = fc<V>(r, p), tmp_fc_d = fc_d<V>(r, p);
  const double tmp_exp = std::exp(-p.lam1 * r);
  fforce = -p.biga * tmp_exp * (tmp_fc_d - tmp_fc * p.lam1) / r;
  eng = tmp_fc * p.biga * tmp_exp;
  if constexpr (V == Variant::mod_c) {
    fforce -= p.c0 * tmp_fc_d / r;
    eng += p.c0 * tmp_fc;
  }
}

template <Variant V>
double zeta(const Param& p, double rsqij, double rsqik, const double* rij_hat,
            const double* rik_hat) {
  const double rij = std::sqrt(rsqij), rik = std::sqrt(rsqik);
  const double costheta =
      rij_hat[0] * rik_hat[0] + rij_hat[1] * rik_hat[1] + rij_hat[2] * rik_hat[2];
  return fc<V>(rik, p) * gijk<V>(costheta, p) * exp_term(rij, rik, p);
}

// The derivatives of zeta's term (i, j, k) by r_i, r_j and r_k, times `prefactor`
// (LAMMPS's ters_zetaterm_d with costheta_d).
template <Variant V>
void zetaterm_d(double prefactor, const double* rij_hat, double rij, double rijinv,
                const double* rik_hat, double rik, double rikinv, double* dri, double* drj,
                double* drk, const Param& p) {
  const double f = fc<V>(rik, p), dfc = fc_d<V>(rik, p);
  const double ex = exp_term(rij, rik, p);
  const double ex_d =
      p.powermint == 3 ? 3.0 * cube(p.lam3) * (rij - rik) * (rij - rik) * ex : p.lam3 * ex;
  const double cos_theta =
      rij_hat[0] * rik_hat[0] + rij_hat[1] * rik_hat[1] + rij_hat[2] * rik_hat[2];
  const double g = gijk<V>(cos_theta, p), g_d = gijk_d<V>(cos_theta, p);
  double dcosdri[3], dcosdrj[3], dcosdrk[3];
  for (int a = 0; a < 3; ++a) {
    dcosdrj[a] = (-cos_theta * rij_hat[a] + rik_hat[a]) * rijinv;
    dcosdrk[a] = (-cos_theta * rik_hat[a] + rij_hat[a]) * rikinv;
    dcosdri[a] = -(dcosdrj[a] + dcosdrk[a]);
  }
  for (int a = 0; a < 3; ++a) {
    double di = -dfc * g * ex * rik_hat[a];
    di = f * g_d * ex * dcosdri[a] + di;
    di = f * g * ex_d * rik_hat[a] + di;
    di = -f * g * ex_d * rij_hat[a] + di;
    dri[a] = prefactor * di;
    double dj = f * g_d * ex * dcosdrj[a];
    dj = f * g * ex_d * rij_hat[a] + dj;
    drj[a] = prefactor * dj;
    double dk = dfc * g * ex * rik_hat[a];
    dk = f * g_d * ex * dcosdrk[a] + dk;
    dk = -f * g * ex_d * rik_hat[a] + dk;
    drk[a] = prefactor * dk;
  }
}

}  // namespace

PairTersoff::PairTersoff(const PairContext& context, Variant variant)
    : context_(context), variant_(variant) {}

std::string PairTersoff::style() const {
  switch (variant_) {
    case Variant::tersoff:
      return "tersoff";
    case Variant::mod:
      return "tersoff/mod";
    case Variant::mod_c:
      return "tersoff/mod/c";
  }
  return "tersoff";
}

void PairTersoff::settings(const std::vector<std::string>& args) {
  shift_on_ = false;
  shift_ = 0;
  for (std::size_t k = 0; k < args.size(); k += 2) {
    if (args[k] != "shift" || k + 1 >= args.size())
      bad("pair_style " + style() + " [shift DELTA]: unknown or incomplete keyword '" + args[k] +
          "'");
    shift_ = arguments::number("pair_style " + style() + " shift", args[k + 1]);
    shift_on_ = true;
  }
}

void PairTersoff::coeff(const std::vector<std::string>& args, int types) {
  const bool tersoff = variant_ == Variant::tersoff;
  // LAMMPS's checks ("Illegal Tersoff parameter"), after the metal<->real conversion of A and B
  // (and mod/c's c0); c, d and gamma only for tersoff, whose angular function has them.
  const auto check = [&](std::vector<double>& v, double conversion) -> std::string {
    for (const std::size_t k : tersoff                    ? std::vector<std::size_t>{9, 13}
                               : variant_ == Variant::mod ? std::vector<std::size_t>{6, 10}
                                                          : std::vector<std::size_t>{6, 10, 17})
      v[k] *= conversion;
    const Param p = make_param(v);
    const bool legal = !(tersoff && (p.c < 0.0 || p.d < 0.0 || p.gamma < 0.0)) && p.powern >= 0.0 &&
                       p.beta >= 0.0 && p.lam2 >= 0.0 && p.bigb >= 0.0 && p.bigr >= 0.0 &&
                       p.bigd >= 0.0 && p.bigd <= p.bigr && p.lam1 >= 0.0 && p.biga >= 0.0 &&
                       p.powerm - p.powermint == 0.0 && (p.powermint == 3 || p.powermint == 1);
    if (legal) return "";
    return std::string("LAMMPS requires m of 1 or 3, D <= R, and ") +
           (tersoff ? "c, d, gamma, " : "") + "n, beta, lambda1, lambda2, A, B, R, D >= 0";
  };
  const std::size_t words = tersoff ? 17 : variant_ == Variant::mod ? 20 : 21;
  threebody::Table table = threebody::read(
      context_, args, types, style(),
      tersoff ? "Tersoff potential file" : style() + " potential file", words, check);
  std::vector<Param> params;
  cutmax_ = 0;
  for (const auto& v : table.entries) {
    Param p = make_param(v);
    // Derived values (LAMMPS's setup_params).
    p.cut = p.bigr + p.bigd;
    p.cutsq = p.cut * p.cut;
    if (tersoff) {
      if (p.powern > 0.0) {
        p.c1 = std::pow(2.0 * p.powern * 1.0e-16, -1.0 / p.powern);
        p.c2 = std::pow(2.0 * p.powern * 1.0e-8, -1.0 / p.powern);
        p.c3 = 1.0 / p.c2;
        p.c4 = 1.0 / p.c1;
      } else {
        p.c1 = p.c2 = p.c3 = p.c4 = 0.0;
      }
    } else if (p.powern > 0.0) {
      p.ca1 = std::pow(2.0 * p.powern_del * 1.0e-16, -1.0 / p.powern);
      p.ca4 = 1.0 / p.ca1;
    } else {
      p.ca1 = p.ca4 = 0.0;
    }
    cutmax_ = std::max(cutmax_, p.cut);
    params.push_back(p);
  }
  params_ = std::move(params);
  elements_ = std::move(table.elements);
  coeff_call_ = args;
}

// An entry's numbers (after its three elements) in the variant's order.
PairTersoff::Param PairTersoff::make_param(const std::vector<double>& v) const {
  Param p;
  if (variant_ == Variant::tersoff) {
    p.powerm = v[0], p.gamma = v[1], p.lam3 = v[2], p.c = v[3], p.d = v[4], p.h = v[5];
    p.powern = v[6], p.beta = v[7], p.lam2 = v[8], p.bigb = v[9], p.bigr = v[10];
    p.bigd = v[11], p.lam1 = v[12], p.biga = v[13];
  } else {
    p.powerm = v[0], p.lam3 = v[1], p.h = v[2], p.powern = v[3], p.beta = v[4], p.lam2 = v[5];
    p.bigb = v[6], p.bigr = v[7], p.bigd = v[8], p.lam1 = v[9], p.biga = v[10];
    p.powern_del = v[11], p.c1 = v[12], p.c2 = v[13], p.c3 = v[14], p.c4 = v[15], p.c5 = v[16];
    if (variant_ == Variant::mod_c) p.c0 = v[17];
  }
  p.powermint = static_cast<int>(p.powerm);
  return p;
}

double PairTersoff::init(int types, std::size_t tiles) {
  if (params_.empty()) threebody::no_coeff(style(), types);
  threebody::check_elements(style(), elements_, types,
                            [&](int i) { return active_type(i, types); });
  short_.reset(tiles);
  return cutmax_;
}

void PairTersoff::compute(PairTile& t) {
  TileVector<int>& shortlist = short_.of(t);
  const auto run = [&]<Variant V>() {
    with_tally_flags(t, [&]<bool E, bool P>() {
      if (shift_on_)
        kernel<V, true, E, P>(t, shortlist);
      else
        kernel<V, false, E, P>(t, shortlist);
    });
  };
  switch (variant_) {
    case Variant::tersoff:
      run.template operator()<Variant::tersoff>();
      break;
    case Variant::mod:
      run.template operator()<Variant::mod>();
      break;
    case Variant::mod_c:
      run.template operator()<Variant::mod_c>();
      break;
  }
}

template <Variant V, bool Shift, bool EnergyVirial, bool PerAtom>
void PairTersoff::kernel(PairTile& t, TileVector<int>& shortlist) const {
  using threebody::atom_force, threebody::atom_id, threebody::computes_pair;
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const double* x = t.x.data();
  const std::int32_t* type = t.type.data();
  double* f = t.f.data();
  const double cutshortsq = cutmax_ * cutmax_;
  const double shift = shift_;
  double energy = 0;
  std::array<double, 6> w{};
  std::uint64_t pairs = 0, triplets = 0;

  const auto element = [&](std::size_t a) { return elements_.of_type(type[a]); };
  const auto param = [&](std::size_t i, std::size_t j, std::size_t k) -> const Param& {
    return params_[elements_.entry(i, j, k)];
  };

  for (std::size_t i = 0; i < nlocal; ++i) {
    if (!elements_.mapped(type[i])) continue;  // NULL under pair_style hybrid
    const std::int64_t itag = t.id[i];
    const std::size_t ie = element(i);
    const double* xi = x + 3 * i;
    double fi[3] = {0, 0, 0};
    shortlist.clear();

    // Two-body terms, each pair once.
    for (int n = t.begin[i]; n < t.begin[i + 1]; ++n) {
      const auto j = static_cast<std::size_t>(t.list[static_cast<std::size_t>(n)]);
      const double del[3] = {xi[0] - x[3 * j], xi[1] - x[3 * j + 1], xi[2] - x[3 * j + 2]};
      double rsq = del[0] * del[0] + del[1] * del[1] + del[2] * del[2];
      double forceshiftfac = 1;
      if constexpr (Shift) {
        const double rsqtmp = rsq + shift * shift + 2 * std::sqrt(rsq) * shift;
        forceshiftfac = std::sqrt(rsqtmp / rsq);
        rsq = rsqtmp;
      }
      if (rsq < cutshortsq) shortlist.push_back(static_cast<int>(j));
      if (!computes_pair(itag, atom_id(t, j), xi, x + 3 * j)) continue;
      const Param& p = param(ie, element(j), element(j));
      if (rsq >= p.cutsq) continue;
      double fpair, evdwl;
      repulsive<V>(p, rsq, fpair, evdwl);
      if constexpr (Shift) fpair *= forceshiftfac;
      ++pairs;
      threebody::add_pair<EnergyVirial, PerAtom>(t, i, j, del, fpair, evdwl, fi, atom_force(t, j),
                                                 energy, w);
    }

    // The leg from i to a neighbor: its vector, squared length (shifted) and unit vector; false
    // when beyond the cutoff of `p`.
    struct Leg {
      double del[3], rsq, inv, hat[3];
    };
    const auto leg = [&](std::size_t k, const Param& p, Leg& l) {
      for (int a = 0; a < 3; ++a) l.del[a] = x[3 * k + a] - xi[a];
      l.rsq = l.del[0] * l.del[0] + l.del[1] * l.del[1] + l.del[2] * l.del[2];
      if constexpr (Shift) l.rsq += shift * shift + 2 * std::sqrt(l.rsq) * shift;
      if (l.rsq >= p.cutsq) return false;
      l.inv = 1.0 / std::sqrt(l.del[0] * l.del[0] + l.del[1] * l.del[1] + l.del[2] * l.del[2]);
      for (int a = 0; a < 3; ++a) l.hat[a] = l.inv * l.del[a];
      return true;
    };

    // Three-body terms of each bond i-j within its cutoff.
    const std::size_t numshort = shortlist.size();
    for (std::size_t jj = 0; jj < numshort; ++jj) {
      const auto j = static_cast<std::size_t>(shortlist[jj]);
      const std::size_t je = element(j);
      const Param& pij = param(ie, je, je);
      Leg l1;
      if (!leg(j, pij, l1)) continue;

      // zeta_ij over the other neighbors k.
      double zeta_ij = 0;
      for (std::size_t kk = 0; kk < numshort; ++kk) {
        const auto k = static_cast<std::size_t>(shortlist[kk]);
        const Param& pijk = param(ie, je, element(k));
        Leg l2;
        if (jj == kk || !leg(k, pijk, l2)) continue;
        zeta_ij += zeta<V>(pijk, l1.rsq, l2.rsq, l1.hat, l2.hat);
      }

      // The bond's pair force through b(zeta) (LAMMPS's force_zeta), tallied as LAMMPS's
      // ev_tally(-fpair, -delr1).
      const double r1 = std::sqrt(l1.rsq);
      const double b = bij<V>(zeta_ij, pij);
      const double fpair = 0.5 * b * fa_d<V>(r1, pij) * l1.inv;
      const double prefactor = -0.5 * fa<V>(r1, pij) * bij_d<V>(zeta_ij, pij);
      const double evdwl = EnergyVirial ? 0.5 * b * fa<V>(r1, pij) : 0.0;
      const double minus_del[3] = {-l1.del[0], -l1.del[1], -l1.del[2]};
      double fj_sum[3] = {0, 0, 0};
      ++pairs;
      threebody::add_pair<EnergyVirial, PerAtom>(t, i, j, minus_del, -fpair, evdwl, fi, fj_sum,
                                                 energy, w);

      // The forces through zeta on i, j and each k (LAMMPS's attractive(): 1/r of the unshifted
      // distances).
      for (std::size_t kk = 0; kk < numshort; ++kk) {
        const auto k = static_cast<std::size_t>(shortlist[kk]);
        const Param& pijk = param(ie, je, element(k));
        Leg l2;
        if (jj == kk || !leg(k, pijk, l2)) continue;
        const double rij = std::sqrt(l1.rsq), rik = std::sqrt(l2.rsq);
        const double rijinv = Shift ? 1.0 / (rij - shift) : 1.0 / rij;
        const double rikinv = Shift ? 1.0 / (rik - shift) : 1.0 / rik;
        double dfi[3], dfj[3], dfk[3];
        zetaterm_d<V>(prefactor, l1.hat, rij, rijinv, l2.hat, rik, rikinv, dfi, dfj, dfk, pijk);
        ++triplets;
        double* fk = atom_force(t, k);
        for (int a = 0; a < 3; ++a) fi[a] += dfi[a], fj_sum[a] += dfj[a], fk[a] += dfk[a];
        if constexpr (EnergyVirial)
          threebody::tally_triplet<PerAtom>(t, i, j, k, l1.del, l2.del, dfj, dfk, 0.0, energy, w);
      }
      double* fj = atom_force(t, j);
      for (int a = 0; a < 3; ++a) fj[a] += fj_sum[a];
    }
    for (int a = 0; a < 3; ++a) f[3 * i + a] += fi[a];
  }
  if constexpr (EnergyVirial) {
    t.energy = energy;
    t.virial = w;
  }
  t.tile.charge(tersoff_list_work, static_cast<std::uint64_t>(t.begin[nlocal]));
  t.tile.charge(tersoff_pair_work, pairs);
  t.tile.charge(tersoff_triplet_work, triplets);
}

nlohmann::json PairTersoff::restart_section() const {
  nlohmann::json section = {{"style", style()}, {"coeff", coeff_call_}};
  if (shift_on_) section["shift"] = shift_;
  return section;
}

// The file is read again (LAMMPS keeps nothing of tersoff in a restart file: its users give
// pair_style and pair_coeff again, which md_ipu takes too).
void PairTersoff::restore(const nlohmann::json& p, const detail::RestartHeader& r, int types) {
  if (p.contains("shift")) {
    shift_on_ = true;
    shift_ = r.real(r.at(p, "shift", "pair.shift"), "pair.shift", detail::RestartHeader::Sign::any,
                    "pair_style " + style() + " shift");
  }
  coeff(threebody::restored_coeff(p, r), types);
}

}  // namespace tessera::md
