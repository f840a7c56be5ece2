// LAMMPS's ComputeOrientOrderAtom (src/compute_orientorder_atom.cpp): the same spherical
// harmonics, Clebsch-Gordan coefficients and normalisations.
#include "tessera/md/compute_orientorder_atom.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

namespace {
// LAMMPS's: a neighbor closer than this is ignored (the atom gets zeros), a Q_l below QEPSILON
// gets no normalised W_l or components.
constexpr double too_close = 10.0 * 2.220446049250313e-16;
constexpr double q_epsilon = 1.0e-6;
constexpr double four_pi = 4.0 * std::numbers::pi;

double factorial(int n) {
  double f = 1.0;
  for (int k = 2; k <= n; ++k) f *= k;
  return f;
}

// The associated Legendre function P_l^m(x), m >= 0, with the Condon-Shortley phase
// (P_m^m = (2m - 1)!! (-sqrt(1 - x^2))^m), by the upward recurrence in l.
double associated_legendre(int l, int m, double x) {
  if (l < m) return 0.0;
  double p = 1.0, pm1 = 0.0, pm2 = 0.0;
  if (m != 0) {
    const double msqx = -std::sqrt(1.0 - x * x);
    for (int i = 1; i < m + 1; ++i) p *= static_cast<double>(2 * i - 1) * msqx;
  }
  for (int i = m + 1; i < l + 1; ++i) {
    pm2 = pm1;
    pm1 = p;
    p = (static_cast<double>(2 * i - 1) * x * pm1 - static_cast<double>(i + m - 1) * pm2) /
        static_cast<double>(i - m);
  }
  return p;
}

// Y_lm(theta, phi) = prefactor(l, m, cos theta) exp(i m phi).
double polar_prefactor(int l, int m, double costheta) {
  const int mabs = std::abs(m);
  double ratio = 1.0;  // (l + |m|)! / (l - |m|)!
  for (int i = l - mabs + 1; i < l + mabs + 1; ++i) ratio *= static_cast<double>(i);
  double prefactor = std::sqrt(static_cast<double>(2 * l + 1) / (four_pi * ratio)) *
                     associated_legendre(l, mabs, costheta);
  if (m < 0 && (m % 2)) prefactor = -prefactor;
  return prefactor;
}

// The m2 range summed for m1 (m = m1 + m2 - l within 0..2l), indices from 0 (m + l).
int m2_first(int l, int m1) { return std::max(0, l - m1); }
int m2_end(int l, int m1) { return std::min(2 * l + 1, 3 * l - m1 + 1); }
}  // namespace

ComputeOrientOrderAtom::ComputeOrientOrderAtom(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " orientorder/atom";
  const auto& w = a.args;
  for (std::size_t k = 0; k < w.size();) {
    const std::string& key = w[k];
    const auto value = [&](std::size_t n) {
      if (k + n >= w.size()) arguments::bad(what + ": " + key + " needs a value");
      return w[k + n];
    };
    if (key == "nnn") {
      nearest_ = value(1) == "NULL" ? 0
                                    : static_cast<int>(arguments::integer(what + " nnn", value(1),
                                                                          1, arguments::int_max));
      k += 2;
    } else if (key == "degrees") {
      const auto n =
          static_cast<std::size_t>(arguments::integer(what + " degrees", value(1), 1, 1000));
      if (k + 1 + n >= w.size())
        arguments::bad(what + ": degrees " + w[k + 1] + " needs that many degrees after it");
      degrees_.clear();
      for (std::size_t j = 0; j < n; ++j)
        degrees_.push_back(
            static_cast<int>(arguments::integer(what + " degrees", w[k + 2 + j], 0, 100)));
      k += 2 + n;
    } else if (key == "wl" || key == "wl/hat") {
      (key == "wl" ? wl_ : wl_hat_) = arguments::yes_no(what + " " + key, value(1));
      k += 2;
    } else if (key == "components") {
      const auto l = arguments::integer(what + " components", value(1), 0, 100);
      const auto it = std::find(degrees_.begin(), degrees_.end(), l);
      if (it == degrees_.end())
        arguments::bad(what + ": components " + w[k + 1] +
                       " must be one of the degrees (give degrees before it)");
      component_ = static_cast<int>(it - degrees_.begin());
      k += 2;
    } else if (key == "cutoff") {
      cutoff_ = arguments::number(what + " cutoff", value(1));
      if (!(cutoff_ > 0)) arguments::bad(what + ": the cutoff must be positive");
      k += 2;
    } else if (key == "chunksize") {
      arguments::integer(what + " chunksize", value(1), 1, arguments::int_max);
      k += 2;
    } else {
      arguments::bad(what + ": unknown keyword '" + key +
                     "'; use nnn, degrees, wl, wl/hat, components, cutoff or chunksize");
    }
  }
  const std::size_t n = degrees_.size();
  columns_ =
      n * (1 + (wl_ ? 1 : 0) + (wl_hat_ ? 1 : 0)) +
      (component_ >= 0
           ? 2 * (2 * static_cast<std::size_t>(degrees_[static_cast<std::size_t>(component_)]) + 1)
           : 0);
  // Clebsch-Gordan coefficients <l m1 l m2 | l m> by the quasi-binomial formula of Varshalovich,
  // Moskalev and Khersonskii, Quantum Theory of Angular Momentum (1988), 8.2.1(3), for j1 = j2
  // = j = l, times the factor that makes them the Wigner 3j symbols LAMMPS's W_l sums.
  if (wl_ || wl_hat_)
    for (const int l : degrees_)
      for (int m1 = 0; m1 < 2 * l + 1; ++m1) {
        const int aa2 = m1 - l;
        for (int m2 = m2_first(l, m1); m2 < m2_end(l, m1); ++m2) {
          const int bb2 = m2 - l;
          const int m = aa2 + bb2 + l;
          double sum = 0.0;
          for (int z = std::max(0, std::max(-aa2, bb2));
               z <= std::min(l, std::min(l - aa2, l + bb2)); ++z) {
            const int sign = z % 2 ? -1 : 1;
            sum += sign / (factorial(z) * factorial(l - z) * factorial(l - aa2 - z) *
                           factorial(l + bb2 - z) * factorial(aa2 + z) * factorial(-bb2 + z));
          }
          const int cc2 = m - l;
          const double sfaccg =
              std::sqrt(factorial(l + aa2) * factorial(l - aa2) * factorial(l + bb2) *
                        factorial(l - bb2) * factorial(l + cc2) * factorial(l - cc2) * (2 * l + 1));
          const double sfac1 = factorial(3 * l + 1), sfac2 = factorial(l);
          const double dcg = std::sqrt(sfac2 * sfac2 * sfac2 / sfac1);
          clebsch_gordan_.push_back(sum * dcg * sfaccg);
        }
      }
}

void ComputeOrientOrderAtom::prepare_peratom(Simulation& sim) {
  const std::string what = "compute " + id() + " orientorder/atom";
  const double pair_cutoff = sim.force_cutoff();
  if (pair_cutoff <= 0)
    throw ConfigError(what +
                      ": there are no neighbors before a run; evaluate it during or after "
                      "one (run 0)");
  if (cutoff_ > pair_cutoff)
    throw ConfigError(what + ": the cutoff " + std::to_string(cutoff_) +
                      " is longer than the pair style's, " + std::to_string(pair_cutoff));
  const double rc = cutoff_ > 0 ? cutoff_ : pair_cutoff;
  cutsq_ = rc * rc;
  values_.resize(static_cast<std::size_t>(sim.runtime().target().total_tiles()));
  const std::uint32_t mask = group_mask();
  sim.reduce_pairs(
      "md.orientorder_atom", 1,
      [&](const Simulation::PairsView& v, std::span<double>) {
        const std::size_t nlocal = static_cast<std::size_t>(v.nlocal);
        std::vector<double>& out = values_[static_cast<std::size_t>(v.tile)];
        out.assign(nlocal * columns_, 0.0);
        struct Neighbor {
          double rsq;
          std::int64_t id;
          std::array<double, 3> r;
        };
        std::vector<Neighbor> near;
        std::vector<double> r;
        for (std::size_t i = 0; i < nlocal; ++i) {
          if (!(v.mask[i] & mask)) continue;
          near.clear();
          const auto consider = [&](std::size_t u) {
            // LAMMPS's r_ij points from the neighbor to the atom.
            const std::array<double, 3> d{v.x[3 * i] - v.x[3 * u], v.x[3 * i + 1] - v.x[3 * u + 1],
                                          v.x[3 * i + 2] - v.x[3 * u + 2]};
            const double rsq = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (rsq < cutsq_)
              near.push_back({rsq, u < nlocal ? v.id[u] : v.ghost_id[u - nlocal], d});
          };
          // Weighted special pairs are neighbors too (LAMMPS's full list holds them).
          v.for_each_neighbor(i, /*skip_zero_weights=*/false, consider);
          if (near.empty() || static_cast<int>(near.size()) < nearest_) continue;
          // The nnn nearest, ties by id, so that the same atoms count on any tiles.
          const auto closer = [](const Neighbor& p, const Neighbor& q) {
            return p.rsq < q.rsq || (p.rsq == q.rsq && p.id < q.id);
          };
          std::sort(near.begin(), near.end(), closer);
          if (nearest_ > 0) near.resize(static_cast<std::size_t>(nearest_));
          r.clear();
          for (const Neighbor& n : near) r.insert(r.end(), n.r.begin(), n.r.end());
          order_parameters(r, std::span<double>(out).subspan(i * columns_, columns_));
        }
      },
      rc);
}

// LAMMPS's calc_boop.
void ComputeOrientOrderAtom::order_parameters(const std::vector<double>& r,
                                              std::span<double> out) const {
  const std::size_t count = r.size() / 3;
  std::vector<std::vector<double>> qr(degrees_.size()), qi(degrees_.size());
  for (std::size_t il = 0; il < degrees_.size(); ++il)
    qr[il].assign(2 * static_cast<std::size_t>(degrees_[il]) + 1, 0.0),
        qi[il].assign(2 * static_cast<std::size_t>(degrees_[il]) + 1, 0.0);
  for (std::size_t n = 0; n < count; ++n) {
    const double* v = &r[3 * n];
    const double rmag = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (rmag <= too_close) return;  // LAMMPS leaves the atom's values zero
    const double costheta = v[2] / rmag;
    double ephi_r = v[0], ephi_i = v[1];
    const double rxy = std::sqrt(ephi_r * ephi_r + ephi_i * ephi_i);
    if (rxy <= too_close) {
      ephi_r = 1.0, ephi_i = 0.0;
    } else {
      ephi_r *= 1.0 / rxy, ephi_i *= 1.0 / rxy;
    }
    for (std::size_t il = 0; il < degrees_.size(); ++il) {
      const int l = degrees_[il];
      const auto at = [l](int m) { return static_cast<std::size_t>(m + l); };
      qr[il][at(0)] += polar_prefactor(l, 0, costheta);
      double em_r = ephi_r, em_i = ephi_i;
      for (int m = 1; m <= l; ++m) {
        const double prefactor = polar_prefactor(l, m, costheta);
        const double y_r = prefactor * em_r, y_i = prefactor * em_i;
        qr[il][at(m)] += y_r;
        qi[il][at(m)] += y_i;
        // Y_l,-m = (-1)^m conj(Y_lm).
        if (m & 1) {
          qr[il][at(-m)] -= y_r;
          qi[il][at(-m)] += y_i;
        } else {
          qr[il][at(-m)] += y_r;
          qi[il][at(-m)] -= y_i;
        }
        const double t_r = em_r * ephi_r - em_i * ephi_i;
        const double t_i = em_r * ephi_i + em_i * ephi_r;
        em_r = t_r, em_i = t_i;
      }
    }
  }
  const double facn = 1.0 / static_cast<double>(count);
  for (std::size_t il = 0; il < degrees_.size(); ++il)
    for (std::size_t m = 0; m < qr[il].size(); ++m) qr[il][m] *= facn, qi[il][m] *= facn;
  std::size_t jj = 0;
  for (std::size_t il = 0; il < degrees_.size(); ++il) {
    const int l = degrees_[il];
    double sum = 0.0;
    for (std::size_t m = 0; m < qr[il].size(); ++m)
      sum += qr[il][m] * qr[il][m] + qi[il][m] * qi[il][m];
    out[jj++] = std::sqrt(four_pi / (2 * l + 1)) * std::sqrt(sum);
  }
  const auto third_order = [&](std::size_t il, std::size_t& cg) {
    const int l = degrees_[il];
    double sum = 0.0;
    for (int m1 = 0; m1 < 2 * l + 1; ++m1)
      for (int m2 = m2_first(l, m1); m2 < m2_end(l, m1); ++m2) {
        const auto a = static_cast<std::size_t>(m1), b = static_cast<std::size_t>(m2),
                   c = static_cast<std::size_t>(m1 + m2 - l);
        const double p_r = qr[il][a] * qr[il][b] - qi[il][a] * qi[il][b];
        const double p_i = qr[il][a] * qi[il][b] + qi[il][a] * qr[il][b];
        sum += (p_r * qr[il][c] + p_i * qi[il][c]) * clebsch_gordan_[cg++];
      }
    return sum;
  };
  if (wl_) {
    std::size_t cg = 0;
    for (std::size_t il = 0; il < degrees_.size(); ++il)
      out[jj++] = third_order(il, cg) / std::sqrt(2 * degrees_[il] + 1);
  }
  if (wl_hat_) {
    std::size_t cg = 0;
    for (std::size_t il = 0; il < degrees_.size(); ++il) {
      const int l = degrees_[il];
      const double w = third_order(il, cg);
      if (out[il] < q_epsilon) {
        out[jj++] = 0.0;
      } else {
        const double qnfac = std::sqrt(four_pi / (2 * l + 1)) / out[il];
        out[jj++] = w / std::sqrt(2 * l + 1) * (qnfac * qnfac * qnfac);
      }
    }
  }
  if (component_ >= 0) {
    const auto il = static_cast<std::size_t>(component_);
    const int l = degrees_[il];
    const double qnfac = out[il] < q_epsilon ? 0.0 : std::sqrt(four_pi / (2 * l + 1)) / out[il];
    for (std::size_t m = 0; m < qr[il].size(); ++m) {
      out[jj++] = qr[il][m] * qnfac;
      out[jj++] = qi[il][m] * qnfac;
    }
  }
}

void ComputeOrientOrderAtom::peratom(const AtomsView& a, std::span<double> out) const {
  const auto tile = static_cast<std::size_t>(a.tile.id());
  const std::size_t n = a.id.size() * columns_;
  if (tile >= values_.size() || values_[tile].size() != n)
    throw std::logic_error("compute orientorder/atom read before prepare_peratom");
  std::copy(values_[tile].begin(), values_[tile].end(), out.begin());
}

}  // namespace tessera::md
