// kspace_style ewald (kspace_ewald.hpp), following LAMMPS's KSPACE/ewald.cpp term by term.
#include "tessera/md/kspace_ewald.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "arguments.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/kernel_work.hpp"

namespace tessera::md {

namespace {
constexpr double pi = 3.14159265358979323846;
constexpr double sqrt_pi = 1.77245385090551602729;  // LAMMPS's MY_PIS
constexpr double half_pi = 1.57079632679489661923;  // LAMMPS's MY_PI2
}  // namespace

void KSpaceEwald::settings(const std::vector<std::string>& args) {
  accuracy_relative_ = kspace_accuracy("ewald", args);
}

void KSpaceEwald::modify(const std::vector<std::string>& a) {
  const char* usage = "kspace_modify gewald G | kmax/ewald KX KY KZ | compute yes";
  for (std::size_t k = 0; k < a.size();) {
    if (a[k] == "gewald") {
      gewald_ = kspace_gewald(a, k, usage);  // nullopt: from the accuracy
      k += 2;
    } else if (a[k] == "kmax/ewald") {
      if (k + 4 > a.size()) arguments::bad("kspace_modify kmax/ewald needs KX KY KZ");
      std::array<int, 3> n{};
      for (std::size_t d = 0; d < 3; ++d)
        n[d] = static_cast<int>(
            arguments::integer("kspace_modify kmax/ewald", a[k + 1 + d], 0, 100000));
      // LAMMPS: all zero means from the accuracy again.
      kmax_set_ =
          n[0] == 0 && n[1] == 0 && n[2] == 0 ? std::nullopt : std::optional<std::array<int, 3>>(n);
      if (kmax_set_ && (n[0] == 0 || n[1] == 0 || n[2] == 0))
        arguments::bad("kspace_modify kmax/ewald: KX KY KZ must all be positive (or all 0)");
      k += 4;
    } else if (a[k] == "compute" && k + 1 < a.size() && a[k + 1] == "yes") {
      k += 2;
    } else {
      arguments::bad("kspace_modify " + a[k] + " is not supported for ewald; " + usage);
    }
  }
}

// LAMMPS's Ewald::rms: the RMS force error of the reciprocal sum cut at km along an axis.
double KSpaceEwald::rms(int km, double prd) const {
  const double natoms = natoms_ == 0 ? 1.0 : natoms_;
  return 2.0 * q2_ * g_ewald_ / prd * std::sqrt(1.0 / (pi * km * natoms)) *
         std::exp(-pi * pi * km * km / (g_ewald_ * g_ewald_ * prd * prd));
}

double KSpaceEwald::init(const KSpaceSystem& s, std::string& log) {
  check_kspace_system(s, "ewald", "Ewald", "LAMMPS's triclinic k-vectors");
  log = "Ewald initialization ...\n" + kspace_charge_warnings(s);
  natoms_ = s.natoms;
  qsum_ = s.qsum;
  qsqsum_ = s.qsqsum;
  qqrd2e_ = s.qqrd2e;
  q2_ = qsqsum_ * qqrd2e_;
  // LAMMPS's two_charge_force: qqr2e qelectron^2 / angstrom^2, with qelectron and angstrom 1
  // in units lj, metal and real.
  accuracy_ = accuracy_relative_ * s.units.qqr2e;
  const double xprd = s.box.length(0), yprd = s.box.length(1), zprd = s.box.length(2);
  g_ewald_ = gewald_ ? *gewald_ : g_ewald_from_accuracy(s, accuracy_, q2_, "ewald");
  setup(s.box);
  tiles_.assign(s.tiles, {});
  const double lprx = rms(kmax_[0], xprd), lpry = rms(kmax_[1], yprd), lprz = rms(kmax_[2], zprd);
  const double lpr = std::sqrt(lprx * lprx + lpry * lpry + lprz * lprz) / std::sqrt(3.0);
  const double q2_over_sqrt = q2_ / std::sqrt(natoms_ * s.cutoff * xprd * yprd * zprd);
  const double spr = 2.0 * q2_over_sqrt * std::exp(-g_ewald_ * g_ewald_ * s.cutoff * s.cutoff);
  const double estimated = std::sqrt(lpr * lpr + spr * spr);
  const int kmax = std::max({kmax_[0], kmax_[1], kmax_[2]});
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "  G vector (1/distance) = %.8g\n  estimated absolute RMS force accuracy = %.8g\n"
                "  estimated relative force accuracy = %.8g\n"
                "  KSpace vectors: actual max1d max3d = %zu %d %d\n"
                "                  kxmax kymax kzmax  = %d %d %d\n",
                g_ewald_, estimated, estimated / s.units.qqr2e, kvectors_.size(), kmax,
                4 * kmax * kmax * kmax + 6 * kmax * kmax + 3 * kmax, kmax_[0], kmax_[1], kmax_[2]);
  log += buf;
  return g_ewald_;
}

void KSpaceEwald::box_changed(const Box&) {
  throw ConfigError(
      "kspace_style ewald: the box changed during the run (a barostat or fix deform); md_ipu's "
      "ewald keeps its k-vectors for a fixed box");
}

// LAMMPS's Ewald::setup and coeffs for an orthogonal box.
void KSpaceEwald::setup(const Box& box) {
  const double xprd = box.length(0), yprd = box.length(1), zprd = box.length(2);
  volume_ = xprd * yprd * zprd;
  unitk_ = {2.0 * pi / xprd, 2.0 * pi / yprd, 2.0 * pi / zprd};
  if (kmax_set_) {
    kmax_ = *kmax_set_;
  } else {
    const std::array<double, 3> prd{xprd, yprd, zprd};
    for (std::size_t d = 0; d < 3; ++d) {
      int k = 1;
      while (rms(k, prd[d]) > accuracy_) ++k;
      kmax_[d] = k;
    }
  }
  gsqmx_ = 0;
  for (std::size_t d = 0; d < 3; ++d)
    gsqmx_ = std::max(gsqmx_, unitk_[d] * unitk_[d] * kmax_[d] * kmax_[d]);
  gsqmx_ *= 1.00001;

  // The k-vectors in LAMMPS's order: the axes (x, y, z for each length m), then the planes
  // (k,+-l,0), (0,l,+-m), (k,0,+-m), then (k,+-l,+-m); each with its ug, eg and vg.
  kvectors_.clear();
  const double g_ewald_sq_inv = 1.0 / (g_ewald_ * g_ewald_);
  const double preu = 4.0 * pi / volume_;
  const auto add = [&](int a, int b, int c) {
    const std::array<double, 3> kk{unitk_[0] * a, unitk_[1] * b, unitk_[2] * c};
    const double sqk = kk[0] * kk[0] + kk[1] * kk[1] + kk[2] * kk[2];
    if (sqk > gsqmx_) return false;
    KVector v;
    v.n = {a, b, c};
    v.ug = preu * std::exp(-0.25 * sqk * g_ewald_sq_inv) / sqk;
    const std::array<int, 3> n{a, b, c};
    for (std::size_t d = 0; d < 3; ++d) v.eg[d] = 2.0 * unitk_[d] * n[d] * v.ug;
    const double vterm = -2.0 * (1.0 / sqk + 0.25 * g_ewald_sq_inv);
    for (std::size_t d = 0; d < 3; ++d) v.vg[d] = 1.0 + vterm * kk[d] * kk[d];
    v.vg[3] = vterm * unitk_[0] * a * unitk_[1] * b;
    v.vg[4] = vterm * unitk_[0] * a * unitk_[2] * c;
    v.vg[5] = vterm * unitk_[1] * b * unitk_[2] * c;
    kvectors_.push_back(v);
    return true;
  };
  const int kmax = std::max({kmax_[0], kmax_[1], kmax_[2]});
  for (int m = 1; m <= kmax; ++m) add(m, 0, 0), add(0, m, 0), add(0, 0, m);
  // A plane's pair of signs is listed only when its first vector is (|k| is the same).
  for (int k = 1; k <= kmax_[0]; ++k)
    for (int l = 1; l <= kmax_[1]; ++l)
      if (add(k, l, 0)) add(k, -l, 0);
  for (int l = 1; l <= kmax_[1]; ++l)
    for (int m = 1; m <= kmax_[2]; ++m)
      if (add(0, l, m)) add(0, l, -m);
  for (int k = 1; k <= kmax_[0]; ++k)
    for (int m = 1; m <= kmax_[2]; ++m)
      if (add(k, 0, m)) add(k, 0, -m);
  for (int k = 1; k <= kmax_[0]; ++k)
    for (int l = 1; l <= kmax_[1]; ++l)
      for (int m = 1; m <= kmax_[2]; ++m)
        if (add(k, l, m)) add(k, -l, m), add(k, l, -m), add(k, -l, -m);
  // The axes' lists may reach past kmax_ of a shorter axis (LAMMPS's first loop runs to the
  // largest).
  reach_ = {0, 0, 0};
  for (const KVector& v : kvectors_)
    for (std::size_t d = 0; d < 3; ++d) reach_[d] = std::max(reach_[d], std::abs(v.n[d]));
}

// LAMMPS's eik_dot_r: cos and sin of m unitk_d x_d by the angle-addition recurrence.
void KSpaceEwald::exponentials(const KSpaceTile& t) {
  TileExponentials& e = tiles_[t.slot];
  const std::size_t n = t.q.size();
  for (std::size_t d = 0; d < 3; ++d) {
    const auto m_max = static_cast<std::size_t>(reach_[d]);
    auto& cs = e.cs[d];
    auto& sn = e.sn[d];
    cs.assign((m_max + 1) * n, 0.0);
    sn.assign((m_max + 1) * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      cs[i] = 1.0;
      if (m_max >= 1) {
        cs[n + i] = std::cos(unitk_[d] * t.x[3 * i + d]);
        sn[n + i] = std::sin(unitk_[d] * t.x[3 * i + d]);
      }
    }
    for (std::size_t m = 2; m <= m_max; ++m)
      for (std::size_t i = 0; i < n; ++i) {
        cs[m * n + i] = cs[(m - 1) * n + i] * cs[n + i] - sn[(m - 1) * n + i] * sn[n + i];
        sn[m * n + i] = sn[(m - 1) * n + i] * cs[n + i] + cs[(m - 1) * n + i] * sn[n + i];
      }
    if (m_max > 1)
      t.tile.charge(ewald_recurrence_work, static_cast<std::uint64_t>(n * (m_max - 1)));
  }
  t.tile.charge(ewald_exponentials_work, static_cast<std::uint64_t>(n));
}

namespace {
// exp(i k.r) of the atoms for one k-vector (a, b, c), a >= 0: LAMMPS's exprl and expim from the
// exponentials of the three axes, a negative multiple's sine negated (exactly, as LAMMPS stores
// it). The rows are the atoms' values of each axis's multiple, contiguous over the atoms.
struct Rows {
  const double *c0, *s0, *c1, *s1, *c2, *s2;
  double sign1, sign2;
  void at(std::size_t i, double& re, double& im) const {
    const double cy = c1[i], sy = sign1 * s1[i], cz = c2[i], sz = sign2 * s2[i];
    const double cypz = cy * cz - sy * sz;
    const double sypz = sy * cz + cy * sz;
    re = c0[i] * cypz - s0[i] * sypz;
    im = s0[i] * cypz + c0[i] * sypz;
  }
};
Rows rows_of(const std::array<std::vector<double>, 3>& cs,
             const std::array<std::vector<double>, 3>& sn, std::size_t n,
             const std::array<int, 3>& k) {
  const auto row = [&](std::size_t d) { return static_cast<std::size_t>(std::abs(k[d])) * n; };
  return {cs[0].data() + row(0), sn[0].data() + row(0), cs[1].data() + row(1),
          sn[1].data() + row(1), cs[2].data() + row(2), sn[2].data() + row(2),
          k[1] < 0 ? -1.0 : 1.0, k[2] < 0 ? -1.0 : 1.0};
}
}  // namespace

void KSpaceEwald::partial(const KSpaceTile& t, std::span<double> out) {
  exponentials(t);
  const TileExponentials& e = tiles_[t.slot];
  const std::size_t n = t.q.size();
  for (std::size_t k = 0; k < kvectors_.size(); ++k) {
    const Rows rows = rows_of(e.cs, e.sn, n, kvectors_[k].n);
    double sum_re = 0, sum_im = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double re, im;
      rows.at(i, re, im);
      sum_re += t.q[i] * re;
      sum_im += t.q[i] * im;
    }
    out[2 * k] = sum_re;
    out[2 * k + 1] = sum_im;
  }
  t.tile.charge(ewald_structure_work, static_cast<std::uint64_t>(n * kvectors_.size()));
}

// As LAMMPS's Ewald::compute: k-vectors outer, atoms inner, each atom's sums over k in k order.
void KSpaceEwald::forces(KSpaceTile& t, std::span<const double> total) {
  const TileExponentials& e = tiles_[t.slot];
  const std::size_t n = t.q.size();
  const double qscale = qqrd2e_;
  std::vector<double> ek(3 * n, 0.0), energy(t.per_atom ? n : 0, 0.0),
      virial(t.per_atom ? 6 * n : 0, 0.0);
  for (std::size_t k = 0; k < kvectors_.size(); ++k) {
    const KVector& v = kvectors_[k];
    const Rows rows = rows_of(e.cs, e.sn, n, v.n);
    const double sre = total[2 * k], sim = total[2 * k + 1];
    for (std::size_t i = 0; i < n; ++i) {
      double re, im;
      rows.at(i, re, im);
      const double partial = im * sre - re * sim;
      ek[3 * i] += partial * v.eg[0];
      ek[3 * i + 1] += partial * v.eg[1];
      ek[3 * i + 2] += partial * v.eg[2];
      if (t.per_atom) {
        const double partial_peratom = re * sre + im * sim;
        energy[i] += t.q[i] * v.ug * partial_peratom;
        for (std::size_t j = 0; j < 6; ++j) virial[6 * i + j] += v.ug * v.vg[j] * partial_peratom;
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t d = 0; d < 3; ++d) t.f[3 * i + d] += qscale * t.q[i] * ek[3 * i + d];
    if (t.per_atom) {
      energy[i] -= g_ewald_ * t.q[i] * t.q[i] / sqrt_pi +
                   half_pi * t.q[i] * qsum_ / (g_ewald_ * g_ewald_ * volume_);
      t.eatom[i] += energy[i] * qscale;
      for (std::size_t j = 0; j < 6; ++j)
        t.vatom[6 * i + j] += virial[6 * i + j] * (t.q[i] * qscale);
    }
  }
  t.tile.charge(ewald_force_work, static_cast<std::uint64_t>(n * kvectors_.size()));
}

void KSpaceEwald::compute(Runtime& runtime, const std::function<KSpaceTile(Tile&)>& view,
                          bool energy_virial_wanted, bool /*per_atom: each tile's view says*/,
                          double& energy, std::array<double, 6>& virial) {
  const auto total = runtime.all_reduce<double>(
      "md.kspace_sums", ReduceOp::sum, 2 * kvectors_.size(), [&](Tile& t, std::span<double> out) {
        std::fill(out.begin(), out.end(), 0.0);
        partial(view(t), out);
      });
  runtime.superstep("md.kspace_forces", [&](Tile& t) {
    KSpaceTile k = view(t);
    forces(k, total);
  });
  if (energy_virial_wanted) energy_virial(total, energy, virial);
}

void KSpaceEwald::energy_virial(std::span<const double> total, double& energy,
                                std::array<double, 6>& virial) const {
  const double qscale = qqrd2e_;
  energy = 0;
  virial = {};
  for (std::size_t k = 0; k < kvectors_.size(); ++k) {
    const double s2 = total[2 * k] * total[2 * k] + total[2 * k + 1] * total[2 * k + 1];
    energy += kvectors_[k].ug * s2;
    const double uk = kvectors_[k].ug * s2;
    for (std::size_t j = 0; j < 6; ++j) virial[j] += uk * kvectors_[k].vg[j];
  }
  energy -=
      g_ewald_ * qsqsum_ / sqrt_pi + half_pi * qsum_ * qsum_ / (g_ewald_ * g_ewald_ * volume_);
  energy *= qscale;
  for (auto& w : virial) w *= qscale;
}

}  // namespace tessera::md
