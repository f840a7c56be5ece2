// The bond, angle, dihedral and improper styles: LAMMPS's BondHarmonic, AngleHarmonic,
// AngleCharmm, DihedralHarmonic, DihedralOPLS, DihedralCharmm and ImproperHarmonic (MOLECULE
// package), term by term, and their registries.
#include "tessera/md/bonded.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "arguments.hpp"
#include "restart_header.hpp"
#include "tessera/md/kernel_work.hpp"
#include "tessera/md/pair.hpp"

namespace tessera::md {

void BondedTile::tally(std::span<const int> atoms, double e, const std::array<double, 6>& v) {
  energy += e;
  for (std::size_t k = 0; k < 6; ++k) virial[k] += v[k];
  if (per_atom) share(atoms, e, v);
}

void BondedTile::tally_pair(int i, int j, double evdwl, double ecoul,
                            const std::array<double, 6>& v) {
  pair_vdwl += evdwl, pair_coul += ecoul;
  for (std::size_t k = 0; k < 6; ++k) pair_virial[k] += v[k];
  const int atoms[2] = {i, j};
  if (per_atom) share(atoms, evdwl + ecoul, v);
}

void BondedTile::share(std::span<const int> atoms, double e, const std::array<double, 6>& v) {
  const double fraction = 1.0 / static_cast<double>(atoms.size());
  const auto n = static_cast<std::size_t>(nlocal);
  for (const int a : atoms) {
    const auto u = static_cast<std::size_t>(a);
    if (u < n) {
      eatom[u] += fraction * e;
      for (std::size_t k = 0; k < 6; ++k) vatom[6 * u + k] += fraction * v[k];
    } else {
      double* g = &ghost_tally[7 * (u - n)];
      g[0] += fraction * e;
      for (std::size_t k = 0; k < 6; ++k) g[1 + k] += fraction * v[k];
    }
  }
}

template <std::size_t N>
void TypeCoefficients<N>::set(const std::vector<std::string>& args, int types) {
  const std::string family = info(kind_).name, command = family + "_coeff";
  if (args.size() != N + 1)
    arguments::bad(command + " needs: TYPE " + usage_ + " (got " + std::to_string(args.size()) +
                   " words)");
  const auto [lo, hi] =
      arguments::bounds(command, args[0], types, family + " type", family + " type range");
  std::array<double, N> v{};
  for (std::size_t k = 0; k < N; ++k) v[k] = arguments::number(command, args[k + 1]);
  if (problem_)
    if (const std::string why = problem_(v); !why.empty()) arguments::bad(command + ": " + why);
  values_.resize(static_cast<std::size_t>(types) + 1);
  set_.resize(static_cast<std::size_t>(types) + 1, false);
  for (long long t = lo; t <= hi; ++t)
    values_[static_cast<std::size_t>(t)] = v, set_[static_cast<std::size_t>(t)] = true;
}

template <std::size_t N>
void TypeCoefficients<N>::require_all(int types) const {
  for (int t = 1; t <= types; ++t)
    if (static_cast<std::size_t>(t) >= set_.size() || !set_[static_cast<std::size_t>(t)])
      arguments::bad("run: " + std::string(info(kind_).name) + " type " + std::to_string(t) +
                     " has no coefficients; give it " + info(kind_).name + "_coeff " +
                     std::to_string(t) + " " + usage_ + " (or a data file's " +
                     info(kind_).coeff_section + " section)");
}

template <std::size_t N>
nlohmann::json TypeCoefficients<N>::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t t = 1; t < set_.size(); ++t)
    if (set_[t]) {
      nlohmann::json row = {t};
      for (const double v : values_[t]) row.push_back(v);
      out.push_back(row);
    }
  return out;
}

template <std::size_t N>
void TypeCoefficients<N>::from_json(const nlohmann::json& coeffs, const detail::RestartHeader& r,
                                    int types) {
  const std::string family = info(kind_).name, where = family + ".coeffs";
  if (!coeffs.is_array()) r.fail("has " + where + " that is not a list");
  values_.assign(static_cast<std::size_t>(types) + 1, {});
  set_.assign(static_cast<std::size_t>(types) + 1, false);
  for (std::size_t k = 0; k < coeffs.size(); ++k) {
    const std::string name = where + "[" + std::to_string(k) + "]";
    if (!coeffs[k].is_array() || coeffs[k].size() != N + 1)
      r.fail("has " + name + " that is not a type and " + std::to_string(N) + " numbers");
    const auto t = static_cast<std::size_t>(
        r.integer(coeffs[k][0], name + "[0]", 1, types, family + "_coeff"));
    for (std::size_t c = 0; c < N; ++c)
      values_[t][c] = r.real(coeffs[k][c + 1], name + "[" + std::to_string(c + 1) + "]",
                             detail::RestartHeader::Sign::any, family + "_coeff");
    if (problem_)
      if (const std::string why = problem_(values_[t]); !why.empty())
        r.fail("has " + name + ": " + why);
    set_[t] = true;
  }
}

namespace {

// A style's coefficient lines in a data file: "TYPE V..." at full precision.
template <std::size_t N, class Value>
void write_coeff_lines(std::ostream& out, const char* section, const char* style, int types,
                       const Value& value) {
  out << "\n" << section << " # " << style << "\n\n";
  char buf[64];
  for (int t = 1; t <= types; ++t) {
    out << t;
    for (std::size_t k = 0; k < N; ++k) {
      std::snprintf(buf, sizeof buf, " %.17g", value(t, k));
      out << buf;
    }
    out << "\n";
  }
}

// What a style of N coefficients per type and no settings has around its compute: its
// coefficients through commands, restart files and data files.
template <class Entry, std::size_t N>
class CoefficientStyle : public BondedStyle<Entry> {
 public:
  CoefficientStyle(TermKind kind, const char* usage,
                   typename TypeCoefficients<N>::Check problem = nullptr)
      : kind_(kind), c_(kind, usage, problem) {}
  void settings(const std::vector<std::string>& args) override {
    if (!args.empty())
      arguments::bad(std::string(info(kind_).name) + "_style " + this->style() +
                     " takes no further arguments");
  }
  void coeff(const std::vector<std::string>& args, int types) override { c_.set(args, types); }
  void init(const BondedSetup& setup) override { c_.require_all(setup.types); }
  nlohmann::json restart_section() const override {
    return {{"style", this->style()}, {"coeffs", c_.to_json()}};
  }
  void restore(const nlohmann::json& section, const detail::RestartHeader& r, int types) override {
    c_.from_json(r.at(section, "coeffs", std::string(info(kind_).name) + ".coeffs"), r, types);
  }
  void write_data_coeffs(std::ostream& out, int types) const override {
    write_coeff_lines<N>(out, info(kind_).coeff_section, this->style().c_str(), types,
                         [&](int t, std::size_t k) { return c_[t][k]; });
  }
  void data_coeff(const std::vector<std::string>& words, int types) override {
    c_.set(words, types);
  }

 private:
  TermKind kind_;

 protected:
  TypeCoefficients<N> c_;
};

// bond_style harmonic: E = K (r - r0)^2 (LAMMPS's BondHarmonic; K in energy/distance^2 with the
// 1/2 folded in).
class BondHarmonic final : public CoefficientStyle<BondEntry, 2> {
 public:
  BondHarmonic() : CoefficientStyle(TermKind::bond, "K R0") {}
  std::string style() const override { return "harmonic"; }
  KernelWork work() const override { return bond_work; }
  std::optional<double> equilibrium(int type) const override { return c_[type][1]; }
  void compute(BondedTile& t, std::span<const BondEntry> bonds) const override {
    const auto& x = t.x;
    for (const BondEntry& b : bonds) {
      const auto i = static_cast<std::size_t>(b.i), j = static_cast<std::size_t>(b.j);
      const double dx = x[3 * i] - x[3 * j], dy = x[3 * i + 1] - x[3 * j + 1],
                   dz = x[3 * i + 2] - x[3 * j + 2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      const double r = std::sqrt(rsq);
      const auto& [k, r0] = c_[b.type];
      const double dr = r - r0;
      const double rk = k * dr;
      const double fbond = r > 0.0 ? -2.0 * rk / r : 0.0;
      t.add_force(b.i, dx * fbond, dy * fbond, dz * fbond);
      t.add_force(b.j, -dx * fbond, -dy * fbond, -dz * fbond);
      if (t.energy_virial) {
        const int atoms[2] = {b.i, b.j};
        t.tally(atoms, rk * dr,
                {dx * dx * fbond, dy * dy * fbond, dz * dz * fbond, dx * dy * fbond,
                 dx * dz * fbond, dy * dz * fbond});
      }
    }
  }
};

// The harmonic angle term K (theta - theta0)^2 of angle a (theta0 in degrees), and with
// UreyBradley a bond K_UB (r_13 - r_UB)^2 between its ends: its forces applied and its energy and
// virial tallied, term by term as LAMMPS's AngleHarmonic and AngleCharmm compute them.
template <bool UreyBradley>
void harmonic_angle(BondedTile& t, const AngleEntry& a, double k, double theta0_degrees,
                    double k_ub = 0.0, double r_ub = 0.0) {
  constexpr double small = 0.001;
  const auto& x = t.x;
  const auto i1 = static_cast<std::size_t>(a.i1), i2 = static_cast<std::size_t>(a.i2),
             i3 = static_cast<std::size_t>(a.i3);
  const double dx1 = x[3 * i1] - x[3 * i2], dy1 = x[3 * i1 + 1] - x[3 * i2 + 1],
               dz1 = x[3 * i1 + 2] - x[3 * i2 + 2];
  const double rsq1 = dx1 * dx1 + dy1 * dy1 + dz1 * dz1;
  const double r1 = std::sqrt(rsq1);
  const double dx2 = x[3 * i3] - x[3 * i2], dy2 = x[3 * i3 + 1] - x[3 * i2 + 1],
               dz2 = x[3 * i3 + 2] - x[3 * i2 + 2];
  const double rsq2 = dx2 * dx2 + dy2 * dy2 + dz2 * dz2;
  const double r2 = std::sqrt(rsq2);
  double ub[3] = {0, 0, 0}, force_ub = 0.0, energy = 0.0;
  if constexpr (UreyBradley) {
    for (std::size_t d = 0; d < 3; ++d) ub[d] = x[3 * i3 + d] - x[3 * i1 + d];
    const double rub = std::sqrt(ub[0] * ub[0] + ub[1] * ub[1] + ub[2] * ub[2]);
    const double dr = rub - r_ub;
    const double rk = k_ub * dr;
    force_ub = rub > 0.0 ? -2.0 * rk / rub : 0.0;
    energy = rk * dr;
  }
  double c = (dx1 * dx2 + dy1 * dy2 + dz1 * dz2) / (r1 * r2);
  c = std::clamp(c, -1.0, 1.0);
  double s = std::sqrt(1.0 - c * c);
  if (s < small) s = small;
  s = 1.0 / s;
  const double dtheta = std::acos(c) - theta0_degrees / 180.0 * M_PI;
  const double tk = k * dtheta;
  energy += tk * dtheta;
  const double g = -2.0 * tk * s;
  const double a11 = g * c / rsq1, a12 = -g / (r1 * r2), a22 = g * c / rsq2;
  double f1[3] = {a11 * dx1 + a12 * dx2, a11 * dy1 + a12 * dy2, a11 * dz1 + a12 * dz2};
  double f3[3] = {a22 * dx2 + a12 * dx1, a22 * dy2 + a12 * dy1, a22 * dz2 + a12 * dz1};
  if constexpr (UreyBradley)
    for (std::size_t d = 0; d < 3; ++d) f1[d] -= ub[d] * force_ub, f3[d] += ub[d] * force_ub;
  t.add_force(a.i1, f1[0], f1[1], f1[2]);
  t.add_force(a.i2, -f1[0] - f3[0], -f1[1] - f3[1], -f1[2] - f3[2]);
  t.add_force(a.i3, f3[0], f3[1], f3[2]);
  if (t.energy_virial) {
    const int atoms[3] = {a.i1, a.i2, a.i3};
    t.tally(atoms, energy,
            {dx1 * f1[0] + dx2 * f3[0], dy1 * f1[1] + dy2 * f3[1], dz1 * f1[2] + dz2 * f3[2],
             dx1 * f1[1] + dx2 * f3[1], dx1 * f1[2] + dx2 * f3[2], dy1 * f1[2] + dy2 * f3[2]});
  }
}

// angle_style harmonic: E = K (theta - theta0)^2 (LAMMPS's AngleHarmonic; theta0 given in
// degrees).
class AngleHarmonic final : public CoefficientStyle<AngleEntry, 2> {
 public:
  AngleHarmonic() : CoefficientStyle(TermKind::angle, "K THETA0") {}
  std::string style() const override { return "harmonic"; }
  KernelWork work() const override { return angle_work; }
  std::optional<double> equilibrium(int type) const override { return c_[type][1] / 180.0 * M_PI; }
  void compute(BondedTile& t, std::span<const AngleEntry> angles) const override {
    for (const AngleEntry& a : angles) {
      const auto& [k, theta0_degrees] = c_[a.type];
      harmonic_angle<false>(t, a, k, theta0_degrees);
    }
  }
};

// angle_style charmm: E = K (theta - theta0)^2 + K_UB (r_13 - r_UB)^2, the harmonic angle plus a
// Urey-Bradley bond between its end atoms (LAMMPS's AngleCharmm; theta0 in degrees).
class AngleCharmm final : public CoefficientStyle<AngleEntry, 4> {
 public:
  AngleCharmm() : CoefficientStyle(TermKind::angle, "K THETA0 K_UB R_UB") {}
  std::string style() const override { return "charmm"; }
  KernelWork work() const override { return angle_charmm_work; }
  std::optional<double> equilibrium(int type) const override { return c_[type][1] / 180.0 * M_PI; }
  void compute(BondedTile& t, std::span<const AngleEntry> angles) const override {
    for (const AngleEntry& a : angles) {
      const auto& [k, theta0_degrees, k_ub, r_ub] = c_[a.type];
      harmonic_angle<true>(t, a, k, theta0_degrees, k_ub, r_ub);
    }
  }
};

// A four-body term's forces (f2 = -f1 - f3 - f4 is left implied by LAMMPS's bond vectors vb1 =
// x1 - x2, vb2 = x3 - x2, vb3 = x4 - x3): applied to its atoms, and its energy and virial tallied
// as LAMMPS's Dihedral::ev_tally and Improper::ev_tally.
struct FourBody {
  double vb1[3], vb2[3], vb3[3];
  double f1[3], f2[3], f3[3], f4[3];
  template <class Entry>
  void apply(BondedTile& t, const Entry& d, double energy) const {
    t.add_force(d.i1, f1[0], f1[1], f1[2]);
    t.add_force(d.i2, f2[0], f2[1], f2[2]);
    t.add_force(d.i3, f3[0], f3[1], f3[2]);
    t.add_force(d.i4, f4[0], f4[1], f4[2]);
    if (!t.energy_virial) return;
    const auto v = [&](int a, int b) {
      const auto u = static_cast<std::size_t>(a), w = static_cast<std::size_t>(b);
      return vb1[u] * f1[w] + vb2[u] * f3[w] + (vb3[u] + vb2[u]) * f4[w];
    };
    const int atoms[4] = {d.i1, d.i2, d.i3, d.i4};
    t.tally(atoms, energy, {v(0, 0), v(1, 1), v(2, 2), v(0, 1), v(0, 2), v(1, 2)});
  }
};

template <class Entry>
FourBody bond_vectors(std::span<const double> x, const Entry& d) {
  FourBody g{};
  const auto i1 = static_cast<std::size_t>(d.i1), i2 = static_cast<std::size_t>(d.i2),
             i3 = static_cast<std::size_t>(d.i3), i4 = static_cast<std::size_t>(d.i4);
  for (std::size_t k = 0; k < 3; ++k) {
    g.vb1[k] = x[3 * i1 + k] - x[3 * i2 + k];
    g.vb2[k] = x[3 * i3 + k] - x[3 * i2 + k];
    g.vb3[k] = x[3 * i4 + k] - x[3 * i3 + k];
  }
  return g;
}

// The forces of a term whose energy depends on the angle between the planes (1,2,3) and (2,3,4)
// through its cosine c, as LAMMPS's DihedralOPLS and ImproperHarmonic both compute them: `a` is
// the derivative factor each gives, `c0` the cosine between vb1 and vb3, c1mag and c2mag the two
// bond angles' cosines with their inverse sines squared s1 and s2, sb1..3 the inverse squared bond
// lengths, r12c1 = 1/(|vb1||vb2|), r12c2 = 1/(|vb2||vb3|), rb1rb3 = 1/(|vb1||vb3|).
struct PlaneAngleTerms {
  double c0, c1mag, c2mag, s1, s2, s12, sb1, sb2, sb3, r12c1, r12c2, rb1rb3;
  void forces(FourBody& g, double c, double a) const {
    const double ca = c * a, s12a = s12 * a;
    const double a11 = ca * sb1 * s1;
    const double a22 = -sb2 * (2.0 * c0 * s12a - ca * (s1 + s2));
    const double a33 = ca * sb3 * s2;
    const double a12 = -r12c1 * (c1mag * ca * s1 + c2mag * s12a);
    const double a13 = -rb1rb3 * s12a;
    const double a23 = r12c2 * (c2mag * ca * s2 + c1mag * s12a);
    for (std::size_t k = 0; k < 3; ++k) {
      const double s2k = a12 * g.vb1[k] + a22 * g.vb2[k] + a23 * g.vb3[k];
      g.f1[k] = a11 * g.vb1[k] + a12 * g.vb2[k] + a13 * g.vb3[k];
      g.f2[k] = -s2k - g.f1[k];
      g.f4[k] = a13 * g.vb1[k] + a23 * g.vb2[k] + a33 * g.vb3[k];
      g.f3[k] = s2k - g.f4[k];
    }
  }
};

double dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// The dihedral E = K [1 + cos(n phi - d)] of dihedral d, its forces applied and its energy
// tallied, as LAMMPS's DihedralCharmm computes it (and DihedralHarmonic with d = 0 or 180
// degrees): cos(n phi) and sin(n phi) by recurrence, then shifted by d.
void cosine_dihedral(BondedTile& t, const DihedralEntry& d, double k, int m, double cos_shift,
                     double sin_shift) {
  FourBody g = bond_vectors(t.x, d);
  const double vb2m[3] = {-g.vb2[0], -g.vb2[1], -g.vb2[2]};
  const double ax = g.vb1[1] * vb2m[2] - g.vb1[2] * vb2m[1],
               ay = g.vb1[2] * vb2m[0] - g.vb1[0] * vb2m[2],
               az = g.vb1[0] * vb2m[1] - g.vb1[1] * vb2m[0];
  const double bx = g.vb3[1] * vb2m[2] - g.vb3[2] * vb2m[1],
               by = g.vb3[2] * vb2m[0] - g.vb3[0] * vb2m[2],
               bz = g.vb3[0] * vb2m[1] - g.vb3[1] * vb2m[0];
  const double rasq = ax * ax + ay * ay + az * az, rbsq = bx * bx + by * by + bz * bz;
  const double rg = std::sqrt(dot(vb2m, vb2m));
  const double rginv = rg > 0 ? 1.0 / rg : 0.0, ra2inv = rasq > 0 ? 1.0 / rasq : 0.0,
               rb2inv = rbsq > 0 ? 1.0 / rbsq : 0.0;
  const double rabinv = std::sqrt(ra2inv * rb2inv);
  const double c = std::clamp((ax * bx + ay * by + az * bz) * rabinv, -1.0, 1.0);
  const double s = rg * rabinv * (ax * g.vb3[0] + ay * g.vb3[1] + az * g.vb3[2]);
  double p = 1.0, df1 = 0.0, ddf1 = 0.0;
  for (int i = 0; i < m; ++i) {
    ddf1 = p * c - df1 * s;
    df1 = p * s + df1 * c;
    p = ddf1;
  }
  p = p * cos_shift + df1 * sin_shift;
  df1 = df1 * cos_shift - ddf1 * sin_shift;
  df1 *= -m;
  p += 1.0;
  if (m == 0) p = 1.0 + cos_shift, df1 = 0.0;
  const double fg = dot(g.vb1, vb2m), hg = dot(g.vb3, vb2m);
  const double fga = fg * ra2inv * rginv, hgb = hg * rb2inv * rginv;
  const double gaa = -ra2inv * rg, gbb = rb2inv * rg;
  const double a[3] = {ax, ay, az}, b[3] = {bx, by, bz};
  const double df = -k * df1;
  for (std::size_t q = 0; q < 3; ++q) {
    const double sq = df * (fga * a[q] - hgb * b[q]);
    g.f1[q] = df * gaa * a[q];
    g.f2[q] = sq - g.f1[q];
    g.f4[q] = df * gbb * b[q];
    g.f3[q] = -sq - g.f4[q];
  }
  g.apply(t, d, k * p);
}

// LAMMPS's check of a multiplicity, the same for harmonic and charmm dihedrals.
std::string multiplicity_problem(double n) {
  if (n < 0.0 || n != std::floor(n) || n > 1e6)
    return "N must be a whole number >= 0 (LAMMPS: Incorrect multiplicity arg for dihedral "
           "coefficients)";
  return {};
}

// dihedral_style harmonic: E = K [1 + d cos(n phi)], d = +1 or -1, n >= 0 (LAMMPS's
// DihedralHarmonic).
class DihedralHarmonic final : public CoefficientStyle<DihedralEntry, 3> {
 public:
  DihedralHarmonic() : CoefficientStyle(TermKind::dihedral, "K D N", &problem) {}
  std::string style() const override { return "harmonic"; }
  KernelWork work() const override { return dihedral_work; }
  static std::string problem(const std::array<double, 3>& v) {
    if (v[1] != 1.0 && v[1] != -1.0)
      return "D must be 1 or -1 (LAMMPS: Incorrect sign arg for dihedral coefficients)";
    return multiplicity_problem(v[2]);
  }
  void compute(BondedTile& t, std::span<const DihedralEntry> dihedrals) const override {
    for (const DihedralEntry& d : dihedrals) {
      const auto& [k, sign, n] = c_[d.type];
      cosine_dihedral(t, d, k, static_cast<int>(n), sign, 0.0);
    }
  }
};

// dihedral_style charmm: E = K [1 + cos(n phi - d)] (n >= 0 and d in degrees, both whole), plus
// the 1-4 pair of atoms I and L with weight W (0 to 1): W times the CHARMM pair style's 1-4
// Lennard-Jones (its eps14, sigma14) and Coulomb terms, unswitched and uncut, tallied as pair
// energy (E_vdwl, E_coul) and pair virial, as LAMMPS's DihedralCharmm. Such pairs need
// special_bonds' 1-4 weights 0 (the pair style leaves them to the dihedral; `special_bonds
// charmm`).
// dihedral_style charmmfsw: the same with the 1-4 pairs' Lennard-Jones energy shifted as
// lj/charmmfsw/coul/long shifts its energy below INNER (LAMMPS's DihedralCharmmfsw; the forces
// are charmm's), which needs that pair style.
class DihedralCharmm final : public CoefficientStyle<DihedralEntry, 4> {
 public:
  explicit DihedralCharmm(bool force_switched = false)
      : CoefficientStyle(TermKind::dihedral, "K N D W", &problem),
        force_switched_(force_switched) {}
  std::string style() const override { return force_switched_ ? "charmmfsw" : "charmm"; }
  KernelWork work() const override { return one_four_ ? dihedral_charmm_work : dihedral_work; }
  static std::string problem(const std::array<double, 4>& v) {
    if (const std::string why = multiplicity_problem(v[1]); !why.empty()) return why;
    if (v[2] != std::floor(v[2]) || std::fabs(v[2]) > 1e6)
      return "D must be a whole number of degrees (LAMMPS reads it as an integer)";
    if (v[3] < 0.0 || v[3] > 1.0)
      return "W must be between 0 and 1 (LAMMPS: Incorrect weight arg for dihedral "
             "coefficients)";
    return {};
  }
  void init(const BondedSetup& setup) override {
    c_.require_all(setup.types);
    bool weighted = false;
    cos_shift_.assign(static_cast<std::size_t>(setup.types) + 1, 0.0);
    sin_shift_ = cos_shift_;
    for (int type = 1; type <= setup.types; ++type) {
      weighted = weighted || c_[type][3] > 0.0;
      const double shift = M_PI * c_[type][2] / 180.0;
      cos_shift_[static_cast<std::size_t>(type)] = std::cos(shift);
      sin_shift_[static_cast<std::size_t>(type)] = std::sin(shift);
    }
    one_four_.reset();
    if (!weighted) return;
    if (setup.special.lj[3] != 0.0 || setup.special.coul[3] != 0.0)
      arguments::bad("dihedral_style " + style() +
                     " computes the 1-4 pairs of dihedrals with a weight W > 0, so special_bonds "
                     "must give them weight 0: use special_bonds charmm (LAMMPS: Must use "
                     "'special_bonds charmm' with dihedral style charmm for use with CHARMM pair "
                     "styles)");
    const CharmmOneFour* one_four = setup.pair ? setup.pair->charmm_one_four() : nullptr;
    if (!one_four || (force_switched_ && !one_four->force_switched))
      arguments::bad("dihedral_style " + style() + " with a weight W > 0 takes its 1-4 " +
                     "coefficients from a CHARMM pair style (" +
                     (force_switched_ ? "lj/charmmfsw/coul/long" : "lj/charmm/coul/long") +
                     "); pair style " + (setup.pair ? setup.pair->style() : std::string("none")) +
                     " has none (LAMMPS: Dihedral " + style() +
                     " is incompatible with Pair style)");
    one_four_ = *one_four;
    if (force_switched_) {  // LAMMPS's DihedralCharmmfsw::init_style
      const double inner = 1 / one_four->cut_lj_inner, outer = 1 / one_four->cut_lj;
      cut_lj_inner3inv_ = inner * inner * inner;
      cut_lj_inner6inv_ = cut_lj_inner3inv_ * cut_lj_inner3inv_;
      cut_lj3inv_ = outer * outer * outer;
      cut_lj6inv_ = cut_lj3inv_ * cut_lj3inv_;
      cut_coulinv_ = 1 / one_four->cut_coul;
    }
  }
  void compute(BondedTile& t, std::span<const DihedralEntry> dihedrals) const override {
    for (const DihedralEntry& d : dihedrals) {
      const auto& [k, n, shift_degrees, weight] = c_[d.type];
      const auto type = static_cast<std::size_t>(d.type);
      cosine_dihedral(t, d, k, static_cast<int>(n), cos_shift_[type], sin_shift_[type]);
      if (weight > 0.0) one_four(t, d.i1, d.i4, weight);
    }
  }

 private:
  void one_four(BondedTile& t, int a, int b, double weight) const {
    const auto i = static_cast<std::size_t>(a), j = static_cast<std::size_t>(b);
    const auto& x = t.x;
    const double dx = x[3 * i] - x[3 * j], dy = x[3 * i + 1] - x[3 * j + 1],
                 dz = x[3 * i + 2] - x[3 * j + 2];
    const double rsq = dx * dx + dy * dy + dz * dz;
    const double r2inv = 1.0 / rsq;
    const double r6inv = r2inv * r2inv * r2inv;
    const double qi = t.q.empty() ? 0.0 : t.q[i], qj = t.q.empty() ? 0.0 : t.q[j];
    const double qq = one_four_->qqrd2e * qi * qj;
    // lj/charmmfsw/coul/charmmfsh's 1-4 pairs are force-shifted as its pairs are (LAMMPS's
    // DihedralCharmmfsw with dihedflag 0).
    const bool shifted = force_switched_ && !one_four_->long_range;
    const double r = shifted ? std::sqrt(rsq) : 0.0;
    const double forcecoul = one_four_->implicit ? qq * r2inv
                             : shifted ? qq * (std::sqrt(r2inv) - r * cut_coulinv_ * cut_coulinv_)
                                       : qq * std::sqrt(r2inv);
    const auto& lj = one_four_->lj14[static_cast<std::size_t>(t.type[i]) * one_four_->width +
                                     static_cast<std::size_t>(t.type[j])];
    const double forcelj = r6inv * (lj[0] * r6inv - lj[1]);
    const double fpair = weight * (forcelj + forcecoul) * r2inv;
    t.add_force(a, dx * fpair, dy * fpair, dz * fpair);
    t.add_force(b, -dx * fpair, -dy * fpair, -dz * fpair);
    if (!t.energy_virial) return;
    // charmmfsw shifts the 1-4 Lennard-Jones energy as its pair style shifts it below INNER.
    const double evdwl = force_switched_
                             ? (r6inv * lj[2] * r6inv - lj[2] * cut_lj_inner6inv_ * cut_lj6inv_) +
                                   (-lj[3] * r6inv + lj[3] * cut_lj_inner3inv_ * cut_lj3inv_)
                             : r6inv * (lj[2] * r6inv - lj[3]);
    const double ecoul =
        shifted ? weight * one_four_->qqrd2e * qi * qj *
                      (std::sqrt(r2inv) + r * cut_coulinv_ * cut_coulinv_ - 2.0 * cut_coulinv_)
                : weight * forcecoul;
    t.tally_pair(a, b, evdwl * weight, ecoul,
                 {dx * dx * fpair, dy * dy * fpair, dz * dz * fpair, dx * dy * fpair,
                  dx * dz * fpair, dy * dz * fpair});
  }

  bool force_switched_;
  std::vector<double> cos_shift_, sin_shift_;  // of each type's d
  std::optional<CharmmOneFour> one_four_;
  double cut_lj_inner3inv_ = 0, cut_lj_inner6inv_ = 0, cut_lj3inv_ = 0, cut_lj6inv_ = 0;
  double cut_coulinv_ = 0;
};

// dihedral_style opls: E = K1/2 [1 + cos phi] + K2/2 [1 - cos 2phi] + K3/2 [1 + cos 3phi] +
// K4/2 [1 - cos 4phi] (LAMMPS's DihedralOPLS).
class DihedralOPLS final : public CoefficientStyle<DihedralEntry, 4> {
 public:
  DihedralOPLS() : CoefficientStyle(TermKind::dihedral, "K1 K2 K3 K4") {}
  std::string style() const override { return "opls"; }
  KernelWork work() const override { return dihedral_work; }
  void compute(BondedTile& t, std::span<const DihedralEntry> dihedrals) const override {
    constexpr double small = 0.001, smaller = 0.00001;
    for (const DihedralEntry& d : dihedrals) {
      FourBody g = bond_vectors(t.x, d);
      PlaneAngleTerms p{};
      p.sb1 = 1.0 / dot(g.vb1, g.vb1), p.sb2 = 1.0 / dot(g.vb2, g.vb2);
      p.sb3 = 1.0 / dot(g.vb3, g.vb3);
      const double rb1 = std::sqrt(p.sb1), rb3 = std::sqrt(p.sb3);
      p.rb1rb3 = rb1 * rb3;
      p.c0 = dot(g.vb1, g.vb3) * rb1 * rb3;
      const double b1mag = std::sqrt(dot(g.vb1, g.vb1)), b2mag = std::sqrt(dot(g.vb2, g.vb2)),
                   b3mag = std::sqrt(dot(g.vb3, g.vb3));
      p.r12c1 = 1.0 / (b1mag * b2mag);
      p.c1mag = dot(g.vb1, g.vb2) * p.r12c1;
      p.r12c2 = 1.0 / (b2mag * b3mag);
      p.c2mag = -dot(g.vb2, g.vb3) * p.r12c2;
      const auto inverse_sine = [&](double cosine) {
        const double sine = std::sqrt(std::max(1.0 - cosine * cosine, 0.0));
        return 1.0 / std::max(sine, small);
      };
      const double sc1 = inverse_sine(p.c1mag), sc2 = inverse_sine(p.c2mag);
      p.s1 = sc1 * sc1, p.s2 = sc2 * sc2, p.s12 = sc1 * sc2;
      const double c = std::clamp((p.c0 + p.c1mag * p.c2mag) * p.s12, -1.0, 1.0);
      const double cx = g.vb1[1] * g.vb2[2] - g.vb1[2] * g.vb2[1],
                   cy = g.vb1[2] * g.vb2[0] - g.vb1[0] * g.vb2[2],
                   cz = g.vb1[0] * g.vb2[1] - g.vb1[1] * g.vb2[0];
      const double cmag = std::sqrt(cx * cx + cy * cy + cz * cz);
      const double dx = (cx * g.vb3[0] + cy * g.vb3[1] + cz * g.vb3[2]) / cmag / b3mag;
      double phi = std::acos(c);
      if (dx < 0.0) phi = -phi;
      double si = std::sin(phi);
      if (std::fabs(si) < smaller) si = smaller;
      const double siinv = 1.0 / si;
      const auto& kk = c_[d.type];
      const double k1 = 0.5 * kk[0], k2 = 0.5 * kk[1], k3 = 0.5 * kk[2], k4 = 0.5 * kk[3];
      const double energy = k1 * (1.0 + c) + k2 * (1.0 - std::cos(2.0 * phi)) +
                            k3 * (1.0 + std::cos(3.0 * phi)) + k4 * (1.0 - std::cos(4.0 * phi));
      const double pd = k1 - 2.0 * k2 * std::sin(2.0 * phi) * siinv +
                        3.0 * k3 * std::sin(3.0 * phi) * siinv -
                        4.0 * k4 * std::sin(4.0 * phi) * siinv;
      p.forces(g, c, pd);
      g.apply(t, d, energy);
    }
  }
};

// improper_style harmonic: E = K (chi - chi0)^2, chi the angle between the planes (I,J,K) and
// (J,K,L) of the improper's atoms I J K L (LAMMPS's ImproperHarmonic; chi0 given in degrees).
class ImproperHarmonic final : public CoefficientStyle<ImproperEntry, 2> {
 public:
  ImproperHarmonic() : CoefficientStyle(TermKind::improper, "K CHI0") {}
  std::string style() const override { return "harmonic"; }
  KernelWork work() const override { return improper_work; }
  void compute(BondedTile& t, std::span<const ImproperEntry> impropers) const override {
    constexpr double small = 0.001;
    for (const ImproperEntry& d : impropers) {
      FourBody g = bond_vectors(t.x, d);
      PlaneAngleTerms p{};
      p.sb1 = 1.0 / dot(g.vb1, g.vb1), p.sb2 = 1.0 / dot(g.vb2, g.vb2);
      p.sb3 = 1.0 / dot(g.vb3, g.vb3);
      const double r1 = std::sqrt(p.sb1), r2 = std::sqrt(p.sb2), r3 = std::sqrt(p.sb3);
      p.rb1rb3 = r1 * r3, p.r12c1 = r1 * r2, p.r12c2 = r2 * r3;
      p.c0 = dot(g.vb1, g.vb3) * r1 * r3;
      p.c1mag = dot(g.vb1, g.vb2) * r1 * r2;
      p.c2mag = -dot(g.vb3, g.vb2) * r3 * r2;
      p.s1 = 1.0 / std::max(1.0 - p.c1mag * p.c1mag, small);
      p.s2 = 1.0 / std::max(1.0 - p.c2mag * p.c2mag, small);
      p.s12 = std::sqrt(p.s1 * p.s2);
      const double c = std::clamp((p.c1mag * p.c2mag + p.c0) * p.s12, -1.0, 1.0);
      const double s = std::max(std::sqrt(1.0 - c * c), small);
      const auto& [k, chi0_degrees] = c_[d.type];
      const double domega = std::acos(c) - chi0_degrees / 180.0 * M_PI;
      const double a = k * domega;
      p.forces(g, c, -a * 2.0 / s);
      g.apply(t, d, a * domega);
    }
  }
};

}  // namespace

template class TypeCoefficients<2>;
template class TypeCoefficients<3>;
template class TypeCoefficients<4>;

const Registry<Bond>& bond_styles() {
  static const Registry<Bond> registry = [] {
    Registry<Bond> r("bond style");
    r.add<BondHarmonic>("harmonic");
    return r;
  }();
  return registry;
}

const Registry<Angle>& angle_styles() {
  static const Registry<Angle> registry = [] {
    Registry<Angle> r("angle style");
    r.add<AngleHarmonic>("harmonic");
    r.add<AngleCharmm>("charmm");
    return r;
  }();
  return registry;
}

const Registry<Dihedral>& dihedral_styles() {
  static const Registry<Dihedral> registry = [] {
    Registry<Dihedral> r("dihedral style");
    r.add<DihedralHarmonic>("harmonic");
    r.add<DihedralOPLS>("opls");
    r.add<DihedralCharmm>("charmm");
    r.add("charmmfsw",
          []() -> std::unique_ptr<Dihedral> { return std::make_unique<DihedralCharmm>(true); });
    return r;
  }();
  return registry;
}

const Registry<Improper>& improper_styles() {
  static const Registry<Improper> registry = [] {
    Registry<Improper> r("improper style");
    r.add<ImproperHarmonic>("harmonic");
    return r;
  }();
  return registry;
}

}  // namespace tessera::md
