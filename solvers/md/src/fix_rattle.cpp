// fix rattle (fix_rattle.hpp): LAMMPS's FixRattle (src/RIGID/fix_rattle.cpp), its velocity
// corrections in its arithmetic order, on fix shake's clusters.
#include "tessera/md/fix_rattle.hpp"

#include "shake_geometry.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/kernel_work.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

using namespace shake;  // shake_geometry.hpp

// LAMMPS's FixRattle::init: fix shake's, and a warning when an integrating fix comes after it.
void FixRattle::init(Simulation& sim) {
  FixShake::init(sim);
  bool after = false, warn = false;
  for (const auto& fix : sim.fixes()) {
    if (fix.get() == this)
      after = true;
    else if (after && fix->integrates())
      warn = true;
  }
  if (warn && print_) print_("WARNING: Fix rattle should come after all other integration fixes\n");
}

// LAMMPS's update_v_half_nocons: v + dt/2 ftm2v f / m for atoms of clusters, else 0; with
// `correcting` (correct_velocities at setup) the velocities as they are.
void FixRattle::predict_velocities(const FixTile& t, bool correcting, std::span<double> out) const {
  const double dtfv = 0.5 * t.dt * t.units->ftm2v;
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
    if (!in_cluster(t, i)) continue;
    if (correcting) {
      for (std::size_t d = 0; d < 3; ++d) out[3 * i + d] = t.v[3 * i + d];
      continue;
    }
    const double dtfvinvm = dtfv / t.mass[static_cast<std::size_t>(t.type[i])];
    for (std::size_t d = 0; d < 3; ++d) out[3 * i + d] = t.v[3 * i + d] + dtfvinvm * t.f[3 * i + d];
  }
}

// LAMMPS's vrattle2, vrattle3, vrattle4 and vrattle3angle as one: constraint k joins atoms a_k
// and b_k, r_k = x_b - x_a and w_k the same of the predicted velocities; the multipliers l
// solve A l = c with A_kl the masses' share of r_k . r_l and c_k = -w_k . r_k, and each own
// atom's velocity moves by -(1/m) sum_k (+-) l_k r_k (+ for a_k, - for b_k).
void FixRattle::correct(const FixTile& t, const Cluster& c, std::span<double> v) const {
  const int n = cluster_atoms(c.flag);
  std::array<Constraint, 3> k{};
  const int nk = constraints_of(c.flag, k);
  const std::array<double, 4> imass = shake::inverse_masses(t, c.atom, n);
  double r[3][3], w[3][3];
  for (int m = 0; m < nk; ++m) {
    const auto ia = static_cast<std::size_t>(c.atom[static_cast<std::size_t>(k[m].a)]);
    const auto ib = static_cast<std::size_t>(c.atom[static_cast<std::size_t>(k[m].b)]);
    const double *xa = place(t.x, t.ghost_x, ia), *xb = place(t.x, t.ghost_x, ib);
    const double *va = place(t.predicted, t.ghost_predicted, ia),
                 *vb = place(t.predicted, t.ghost_predicted, ib);
    for (std::size_t d = 0; d < 3; ++d) r[m][d] = xb[d] - xa[d], w[m][d] = vb[d] - va[d];
  }
  // The sign of constraint m at the cluster's atom p: + at a_m, - at b_m, 0 elsewhere.
  const auto sign = [&](int m, int p) {
    return k[static_cast<std::size_t>(m)].a == p   ? 1.0
           : k[static_cast<std::size_t>(m)].b == p ? -1.0
                                                   : 0.0;
  };
  const auto own = [&](int p) { return c.own[static_cast<std::size_t>(p)]; };
  if (nk == 1) {
    // vrattle2: the multiplier exactly; each atom's term as LAMMPS groups it (m^-1 l) r.
    const double l = -dot(r[0], w[0]) / (dot(r[0], r[0]) * (imass[0] + imass[1]));
    for (int p = 0; p < 2; ++p) {
      if (own(p) < 0) continue;
      const double il = imass[static_cast<std::size_t>(p)] * (p == 0 ? l : -l);
      for (std::size_t d = 0; d < 3; ++d)
        v[3 * static_cast<std::size_t>(own(p)) + d] -= il * r[0][d];
    }
    return;
  }
  double a[3][3], rhs[3], l[3];
  for (int m = 0; m < nk; ++m) {
    for (int q = 0; q < nk; ++q) {
      double coefficient = 0;
      if (m == q) {
        coefficient =
            imass[static_cast<std::size_t>(k[m].a)] + imass[static_cast<std::size_t>(k[m].b)];
      } else {
        for (int p = 0; p < n; ++p)
          if (sign(m, p) != 0.0 && sign(q, p) != 0.0)
            coefficient = sign(m, p) * sign(q, p) * imass[static_cast<std::size_t>(p)];
      }
      a[m][q] = coefficient * dot(r[m], r[q]);
    }
    rhs[m] = -dot(w[m], r[m]);
  }
  // solve2x2exactly, solve3x3exactly.
  const double determ = shake::determinant(a, nk);
  if (determ == 0.0)
    throw Error("fix " + id() + " rattle: a cluster's determinant is 0 at step " +
                std::to_string(t.step) + " (LAMMPS: \"Rattle determinant = 0.0\")");
  const double determinv = 1.0 / determ;
  if (nk == 2) {
    l[0] = determinv * (a[1][1] * rhs[0] - a[0][1] * rhs[1]);
    l[1] = determinv * (-a[1][0] * rhs[0] + a[0][0] * rhs[1]);
  } else {
    double ai[3][3];
    shake::inverse3(a, determinv, ai);
    for (int i = 0; i < 3; ++i) {
      l[i] = 0;
      for (int j = 0; j < 3; ++j) l[i] += ai[i][j] * rhs[j];
    }
  }
  for (int p = 0; p < n; ++p) {
    if (own(p) < 0) continue;
    const auto i = static_cast<std::size_t>(own(p));
    for (std::size_t d = 0; d < 3; ++d) {
      double sum = 0;
      bool any = false;
      for (int m = 0; m < nk; ++m) {
        const double s = sign(m, p);
        if (s == 0.0) continue;
        const double term = (s * l[m]) * r[m][d];
        sum = any ? sum + term : term;
        any = true;
      }
      v[3 * i + d] -= imass[static_cast<std::size_t>(p)] * sum;
    }
  }
}

void FixRattle::correct_velocities(FixTile& t) {
  const TileClusters& c = clusters_of(t);
  for (const Cluster& cluster : c.clusters) correct(t, cluster, t.v);
  t.tile.charge(shake_cluster_work, c.clusters.size());
}

// LAMMPS's FixRattle::post_force: the velocities held (at setup, FixRattle::setup does all).
void FixRattle::post_force(FixTile& t) {
  if (!t.setup) correct_velocities(t);
}

// LAMMPS's FixShake::setup for fix rattle: at the fix's place among the fixes' setups.
void FixRattle::setup(Simulation& sim) {
  sim.setup_constraint(*this);
  FixShake::setup(sim);
}

// LAMMPS's FixRattle::final_integrate: fix shake's constraint forces, from the final velocities.
void FixRattle::constrain_positions(FixTile& t) { FixShake::post_force(t); }

void FixRattle::end_of_step(Simulation& sim) {
  sim.constrain_positions(*this);
  FixShake::end_of_step(sim);
}

}  // namespace tessera::md
