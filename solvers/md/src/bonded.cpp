// The bond and angle styles: LAMMPS's BondHarmonic and AngleHarmonic (MOLECULE package),
// term by term, and their registries.
#include "tessera/md/bonded.hpp"

#include <cmath>
#include <cstdio>

#include "arguments.hpp"
#include "restart_header.hpp"

namespace tessera::md {

void BondedTile::tally(std::span<const int> atoms, double e, const std::array<double, 6>& v) {
  energy += e;
  for (std::size_t k = 0; k < 6; ++k) virial[k] += v[k];
  if (!per_atom) return;
  const double share = 1.0 / static_cast<double>(atoms.size());
  const auto n = static_cast<std::size_t>(nlocal);
  for (const int a : atoms) {
    const auto u = static_cast<std::size_t>(a);
    if (u < n) {
      eatom[u] += share * e;
      for (std::size_t k = 0; k < 6; ++k) vatom[6 * u + k] += share * v[k];
    } else {
      double* g = &ghost_tally[7 * (u - n)];
      g[0] += share * e;
      for (std::size_t k = 0; k < 6; ++k) g[1 + k] += share * v[k];
    }
  }
}

template <std::size_t N>
void TypeCoefficients<N>::set(const std::vector<std::string>& args, int types) {
  const std::string command = std::string(family_) + "_coeff";
  if (args.size() != N + 1)
    arguments::bad(command + " needs: TYPE " + usage_ + " (got " + std::to_string(args.size()) +
                   " words)");
  const auto [lo, hi] = arguments::bounds(command, args[0], types, std::string(family_) + " type",
                                          std::string(family_) + " type range");
  std::array<double, N> v{};
  for (std::size_t k = 0; k < N; ++k) v[k] = arguments::number(command, args[k + 1]);
  values_.resize(static_cast<std::size_t>(types) + 1);
  set_.resize(static_cast<std::size_t>(types) + 1, false);
  for (long long t = lo; t <= hi; ++t)
    values_[static_cast<std::size_t>(t)] = v, set_[static_cast<std::size_t>(t)] = true;
}

template <std::size_t N>
void TypeCoefficients<N>::require_all(int types) const {
  for (int t = 1; t <= types; ++t)
    if (static_cast<std::size_t>(t) >= set_.size() || !set_[static_cast<std::size_t>(t)])
      arguments::bad("run: " + std::string(family_) + " type " + std::to_string(t) +
                     " has no coefficients; give it " + family_ + "_coeff " + std::to_string(t) +
                     " " + usage_ + " (or " + (family_[0] == 'b' ? "a Bond" : "an Angle") +
                     " Coeffs section)");
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
  const std::string where = std::string(family_) + ".coeffs";
  if (!coeffs.is_array()) r.fail("has " + where + " that is not a list");
  values_.assign(static_cast<std::size_t>(types) + 1, {});
  set_.assign(static_cast<std::size_t>(types) + 1, false);
  for (std::size_t k = 0; k < coeffs.size(); ++k) {
    const std::string name = where + "[" + std::to_string(k) + "]";
    if (!coeffs[k].is_array() || coeffs[k].size() != N + 1)
      r.fail("has " + name + " that is not a type and " + std::to_string(N) + " numbers");
    const auto t = static_cast<std::size_t>(
        r.integer(coeffs[k][0], name + "[0]", 1, types, std::string(family_) + "_coeff"));
    for (std::size_t c = 0; c < N; ++c)
      values_[t][c] = r.real(coeffs[k][c + 1], name + "[" + std::to_string(c + 1) + "]",
                             detail::RestartHeader::Sign::any, std::string(family_) + "_coeff");
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
// coefficients through commands, restart files and data files. `family` is "bond" or "angle".
template <class Entry, std::size_t N>
class CoefficientStyle : public BondedStyle<Entry> {
 public:
  CoefficientStyle(const char* family, const char* section, const char* usage)
      : family_(family), section_(section), c_(family, usage) {}
  void settings(const std::vector<std::string>& args) override {
    if (!args.empty())
      arguments::bad(std::string(family_) + "_style " + this->style() +
                     " takes no further arguments");
  }
  void coeff(const std::vector<std::string>& args, int types) override { c_.set(args, types); }
  void init(int types) override { c_.require_all(types); }
  nlohmann::json restart_section() const override {
    return {{"style", this->style()}, {"coeffs", c_.to_json()}};
  }
  void restore(const nlohmann::json& section, const detail::RestartHeader& r, int types) override {
    c_.from_json(r.at(section, "coeffs", std::string(family_) + ".coeffs"), r, types);
  }
  void write_data_coeffs(std::ostream& out, int types) const override {
    write_coeff_lines<N>(out, section_, this->style().c_str(), types,
                         [&](int t, std::size_t k) { return c_[t][k]; });
  }
  void data_coeff(const std::vector<std::string>& words, int types) override {
    c_.set(words, types);
  }

 private:
  const char* family_;
  const char* section_;

 protected:
  TypeCoefficients<N> c_;
};

// bond_style harmonic: E = K (r - r0)^2 (LAMMPS's BondHarmonic; K in energy/distance^2 with the
// 1/2 folded in).
class BondHarmonic final : public CoefficientStyle<BondEntry, 2> {
 public:
  BondHarmonic() : CoefficientStyle("bond", "Bond Coeffs", "K R0") {}
  std::string style() const override { return "harmonic"; }
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

// angle_style harmonic: E = K (theta - theta0)^2 (LAMMPS's AngleHarmonic; theta0 given in
// degrees).
class AngleHarmonic final : public CoefficientStyle<AngleEntry, 2> {
 public:
  AngleHarmonic() : CoefficientStyle("angle", "Angle Coeffs", "K THETA0") {}
  std::string style() const override { return "harmonic"; }
  void compute(BondedTile& t, std::span<const AngleEntry> angles) const override {
    constexpr double small = 0.001;
    const auto& x = t.x;
    for (const AngleEntry& a : angles) {
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
      double c = (dx1 * dx2 + dy1 * dy2 + dz1 * dz2) / (r1 * r2);
      c = std::clamp(c, -1.0, 1.0);
      double s = std::sqrt(1.0 - c * c);
      if (s < small) s = small;
      s = 1.0 / s;
      const auto& [k, theta0_degrees] = c_[a.type];
      const double dtheta = std::acos(c) - theta0_degrees / 180.0 * M_PI;
      const double tk = k * dtheta;
      const double g = -2.0 * tk * s;
      const double a11 = g * c / rsq1, a12 = -g / (r1 * r2), a22 = g * c / rsq2;
      const double f1[3] = {a11 * dx1 + a12 * dx2, a11 * dy1 + a12 * dy2, a11 * dz1 + a12 * dz2};
      const double f3[3] = {a22 * dx2 + a12 * dx1, a22 * dy2 + a12 * dy1, a22 * dz2 + a12 * dz1};
      t.add_force(a.i1, f1[0], f1[1], f1[2]);
      t.add_force(a.i2, -f1[0] - f3[0], -f1[1] - f3[1], -f1[2] - f3[2]);
      t.add_force(a.i3, f3[0], f3[1], f3[2]);
      if (t.energy_virial) {
        const int atoms[3] = {a.i1, a.i2, a.i3};
        t.tally(atoms, tk * dtheta,
                {dx1 * f1[0] + dx2 * f3[0], dy1 * f1[1] + dy2 * f3[1], dz1 * f1[2] + dz2 * f3[2],
                 dx1 * f1[1] + dx2 * f3[1], dx1 * f1[2] + dx2 * f3[2], dy1 * f1[2] + dy2 * f3[2]});
      }
    }
  }
};

}  // namespace

template class TypeCoefficients<2>;

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
    return r;
  }();
  return registry;
}

}  // namespace tessera::md
