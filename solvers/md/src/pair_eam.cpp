// pair_style eam, eam/alloy, eam/fs (pair_eam.hpp), following LAMMPS's MANYBODY/pair_eam.cpp,
// pair_eam_alloy.cpp and pair_eam_fs.cpp (the version Debian ships, 29 Sep 2021) step by step.
#include "tessera/md/pair_eam.hpp"

#include <algorithm>
#include <cmath>

#include "arguments.hpp"
#include "potential_file.hpp"
#include "restart_header.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/kernel_work.hpp"

namespace tessera::md {

using arguments::bad;

namespace {

constexpr const char* kind = "EAM potential file";

// LAMMPS's file2array for funcfl files: the value at x of a table with spacing `delta` (entries
// 1..n), from the 4-point Lagrange polynomial through the points around it.
double lagrange(const std::vector<double>& table, int n, double delta, double x) {
  constexpr double sixth = 1.0 / 6.0;
  double p = x / delta + 1.0;
  int k = static_cast<int>(p);
  k = std::max(std::min(k, n - 2), 2);
  p -= k;
  p = std::min(p, 2.0);
  const double c1 = -sixth * p * (p - 1.0) * (p - 2.0);
  const double c2 = 0.5 * (p * p - 1.0) * (p - 2.0);
  const double c3 = -0.5 * p * (p + 1.0) * (p - 2.0);
  const double c4 = sixth * p * (p * p - 1.0);
  const auto at = [&](int m) { return table[static_cast<std::size_t>(m)]; };
  return c1 * at(k - 1) + c2 * at(k) + c3 * at(k + 1) + c4 * at(k + 2);
}

// The table interval of a value scaled to grid units (p = value / delta + 1) and the fraction
// past it, clamped as LAMMPS clamps them (m in [lowest, n - 1], fraction at most 1). The
// comparisons come before the conversion so that an extreme value stays defined.
struct Interval {
  std::size_t m;
  double p;
};
inline Interval interval(double p, int lowest, int n) {
  int m = lowest;
  if (p >= n - 1)
    m = n - 1;
  else if (p >= lowest)
    m = std::max(static_cast<int>(p), lowest);
  return {static_cast<std::size_t>(m), std::min(p - m, 1.0)};
}

inline double value(const double* c, double p) { return ((c[3] * p + c[4]) * p + c[5]) * p + c[6]; }
inline double slope(const double* c, double p) { return (c[0] * p + c[1]) * p + c[2]; }

// A file's grid line "Nrho drho Nr dr cutoff" (funcfl and setfl alike). LAMMPS refuses only
// non-positive counts and dr; the interpolation needs at least 4 points of each table.
struct Grid {
  int nrho = 0, nr = 0;
  double drho = 0, dr = 0, cut = 0;
};
Grid read_grid(PotentialFile& in) {
  const auto words = in.values(5);
  Grid g{in.integer(words[0]), in.integer(words[2]), in.number(words[1]), in.number(words[3]),
         in.number(words[4])};
  if (g.nrho < 4 || g.nr < 4 || !(g.dr > 0) || !(g.drho > 0) || !(g.cut > 0))
    in.fail("Nrho drho Nr dr cutoff must give at least 4 points of each table, positive " +
            std::string("spacings and cutoff: ") + words[0] + " " + words[1] + " " + words[2] +
            " " + words[3] + " " + words[4]);
  return g;
}

// The next n values of a table, 1-based as LAMMPS indexes them ([0] unused).
std::vector<double> read_table(PotentialFile& in, int n) {
  std::vector<double> v = in.doubles(static_cast<std::size_t>(n));
  v.insert(v.begin(), 0.0);
  return v;
}

// Index of the element pair (i, j) among the lower triangle i >= j, row by row (LAMMPS's
// type2z2r).
int triangle(int i, int j) {
  if (i < j) std::swap(i, j);
  return i * (i + 1) / 2 + j;
}

}  // namespace

PairEAM::PairEAM(const PairContext& context, Format format) : context_(context), format_(format) {}

std::string PairEAM::style() const {
  switch (format_) {
    case Format::funcfl:
      return "eam";
    case Format::setfl:
      return "eam/alloy";
    case Format::fs:
      return "eam/fs";
  }
  return "eam";
}

void PairEAM::settings(const std::vector<std::string>& args) {
  if (!args.empty()) bad("pair_style " + style() + " takes no arguments");
}

void PairEAM::coeff(const std::vector<std::string>& args, int types) {
  const std::string command = "pair_coeff";
  if (static_cast<int>(map_.size()) != types + 1)
    map_.assign(static_cast<std::size_t>(types) + 1, -1);
  if (format_ == Format::funcfl) {
    if (args.size() != 3) bad("pair_coeff for pair_style eam: I J FILE (one DYNAMO funcfl file)");
    const auto [ilo, ihi] = arguments::type_range(command, args[0], types);
    const auto [jlo, jhi] = arguments::type_range(command, args[1], types);
    auto file = std::find_if(funcfl_.begin(), funcfl_.end(),
                             [&](const Funcfl& f) { return f.path == args[2]; });
    if (file == funcfl_.end()) {
      read_funcfl(args[2]);
      file = funcfl_.end() - 1;
    }
    const int index = static_cast<int>(file - funcfl_.begin());
    int count = 0;
    for (int i = ilo; i <= ihi; ++i)
      if (i >= jlo && i <= jhi) {
        map_[static_cast<std::size_t>(i)] = index;
        if (context_.set_mass) context_.set_mass(i, file->mass);
        ++count;
      }
    if (count == 0)
      bad("pair_coeff for pair_style eam sets like pairs only (I I FILE): " + args[0] + " " +
          args[1] + " has none");
    coeff_calls_.push_back(args);
    return;
  }
  if (static_cast<int>(args.size()) != 3 + types)
    bad("pair_coeff for pair_style " + style() +
        ": * * FILE and one element (or NULL) for each of the " + std::to_string(types) +
        " atom types");
  if (args[0] != "*" || args[1] != "*")
    bad("pair_coeff for pair_style " + style() + " starts with * * (one file for all types)");
  read_setfl(args[2]);
  for (int i = 1; i <= types; ++i) {
    const std::string& name = args[static_cast<std::size_t>(2 + i)];
    int element = -1;
    if (name != "NULL") {
      const auto it = std::find(setfl_.elements.begin(), setfl_.elements.end(), name);
      if (it == setfl_.elements.end()) {
        std::string known;
        for (const auto& e : setfl_.elements) known += " " + e;
        bad("pair_coeff: element " + name + " is not in " + args[2] + " (it has" + known + ")");
      }
      element = static_cast<int>(it - setfl_.elements.begin());
    }
    map_[static_cast<std::size_t>(i)] = element;
  }
  int count = 0;
  for (int i = 1; i <= types; ++i) {
    const int e = map_[static_cast<std::size_t>(i)];
    if (e < 0) continue;
    ++count;
    if (context_.set_mass) context_.set_mass(i, setfl_.mass[static_cast<std::size_t>(e)]);
  }
  if (count == 0) bad("pair_coeff maps no atom type to an element of " + args[2]);
  coeff_calls_.assign(1, args);
}

void PairEAM::read_funcfl(const std::string& path) {
  PotentialFile in = open_potential(context_, path, kind);
  const double conversion = energy_conversion(in, context_.units.style);
  Funcfl f;
  f.path = path;
  in.skip_line();
  auto words = in.values(2);
  f.mass = in.number(words[1]);
  if (!(f.mass > 0)) in.fail("the mass must be positive, not " + words[1]);
  const Grid g = read_grid(in);
  f.drho = g.drho;
  f.dr = g.dr;
  f.cut = g.cut;
  f.frho = read_table(in, g.nrho);
  f.zr = read_table(in, g.nr);
  f.rhor = read_table(in, g.nr);
  // LAMMPS converts F by the energy factor and Z (whose square is an energy times a length)
  // by its square root.
  if (conversion != 1.0) {
    for (std::size_t m = 1; m < f.frho.size(); ++m) f.frho[m] *= conversion;
    for (std::size_t m = 1; m < f.zr.size(); ++m) f.zr[m] *= std::sqrt(conversion);
  }
  funcfl_.push_back(std::move(f));
}

void PairEAM::read_setfl(const std::string& path) {
  PotentialFile in = open_potential(context_, path, kind);
  const double conversion = energy_conversion(in, context_.units.style);
  Setfl f;
  f.path = path;
  for (int k = 0; k < 3; ++k) in.skip_line();
  auto words = in.values(1);
  const int n = in.integer(words[0]);
  if (n < 1 || static_cast<int>(words.size()) != n + 1)
    in.fail("expected the number of elements and their names, found " +
            std::to_string(words.size()) + " words for " + words[0] + " elements");
  f.elements.assign(words.begin() + 1, words.end());
  const Grid g = read_grid(in);
  f.nrho = g.nrho;
  f.nr = g.nr;
  f.drho = g.drho;
  f.dr = g.dr;
  f.cut = g.cut;
  const auto nrho = static_cast<std::size_t>(f.nrho), nr = static_cast<std::size_t>(f.nr);
  // eam/alloy converts all but the last entry of each F and r*phi table, eam/fs all of them: so
  // LAMMPS's two readers do (its alloy loops stop one short), and md_ipu gives its numbers.
  const std::size_t short_by = format_ == Format::setfl ? 1 : 0;
  for (int e = 0; e < n; ++e) {
    words = in.values(2);
    const double mass = in.number(words[1]);
    if (!(mass > 0))
      in.fail("the mass of element " + f.elements[static_cast<std::size_t>(e)] +
              " must be positive, not " + words[1]);
    f.mass.push_back(mass);
    f.frho.push_back(read_table(in, f.nrho));
    if (conversion != 1.0)
      for (std::size_t m = 1; m + short_by <= nrho; ++m) f.frho.back()[m] *= conversion;
    const int densities = format_ == Format::fs ? n : 1;
    for (int d = 0; d < densities; ++d) f.rhor.push_back(read_table(in, f.nr));
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      f.z2r.push_back(read_table(in, f.nr));
      if (conversion != 1.0)
        for (std::size_t m = 1; m + short_by <= nr; ++m) f.z2r.back()[m] *= conversion;
    }
  setfl_ = std::move(f);
  have_setfl_ = true;
}

PairEAM::Spline PairEAM::spline(const std::vector<double>& f, double delta) {
  // LAMMPS's PairEAM::interpolate: f[1..n]; slopes from 4th-order differences inside, lower
  // orders at the ends; a cubic per interval through the values with those slopes.
  const std::size_t n = f.size() - 1;
  Spline s(7 * (n + 1), 0.0);
  const auto c = [&](std::size_t m, std::size_t k) -> double& { return s[7 * m + k]; };
  for (std::size_t m = 1; m <= n; ++m) c(m, 6) = f[m];
  c(1, 5) = c(2, 6) - c(1, 6);
  c(2, 5) = 0.5 * (c(3, 6) - c(1, 6));
  c(n - 1, 5) = 0.5 * (c(n, 6) - c(n - 2, 6));
  c(n, 5) = c(n, 6) - c(n - 1, 6);
  for (std::size_t m = 3; m + 2 <= n; ++m)
    c(m, 5) = ((c(m - 2, 6) - c(m + 2, 6)) + 8.0 * (c(m + 1, 6) - c(m - 1, 6))) / 12.0;
  for (std::size_t m = 1; m + 1 <= n; ++m) {
    c(m, 4) = 3.0 * (c(m + 1, 6) - c(m, 6)) - 2.0 * c(m, 5) - c(m + 1, 5);
    c(m, 3) = c(m, 5) + c(m + 1, 5) - 2.0 * (c(m + 1, 6) - c(m, 6));
  }
  c(n, 4) = 0.0;
  c(n, 3) = 0.0;
  for (std::size_t m = 1; m <= n; ++m) {
    c(m, 2) = c(m, 5) / delta;
    c(m, 1) = 2.0 * c(m, 4) / delta;
    c(m, 0) = 3.0 * c(m, 3) / delta;
  }
  return s;
}

// LAMMPS's PairEAM::file2array: every active file's tables on one grid (the largest spacings
// and extents), r*phi of unlike elements from Z_i(r) Z_j(r) in Hartree Bohr (27.2 x 0.529).
void PairEAM::build_funcfl_tables() {
  double rmax = 0, rhomax = 0;
  dr_ = drho_ = 0;
  for (std::size_t k = 0; k < funcfl_.size(); ++k) {
    if (std::find(map_.begin() + 1, map_.end(), static_cast<int>(k)) == map_.end()) continue;
    const Funcfl& f = funcfl_[k];
    dr_ = std::max(dr_, f.dr);
    drho_ = std::max(drho_, f.drho);
    rmax = std::max(rmax, static_cast<double>(f.rhor.size() - 2) * f.dr);
    rhomax = std::max(rhomax, static_cast<double>(f.frho.size() - 2) * f.drho);
  }
  nr_ = static_cast<int>(rmax / dr_ + 0.5);
  nrho_ = static_cast<int>(rhomax / drho_ + 0.5);
  rhomax_ = rhomax;
  const auto grid = [](int n, double delta, const std::vector<double>& table, double table_delta) {
    std::vector<double> out(static_cast<std::size_t>(n) + 1, 0.0);
    const int table_n = static_cast<int>(table.size()) - 1;
    for (int m = 1; m <= n; ++m)
      out[static_cast<std::size_t>(m)] = lagrange(table, table_n, table_delta, (m - 1) * delta);
    return out;
  };
  frho_spline_.clear();
  rhor_spline_.clear();
  z2r_spline_.clear();
  for (const Funcfl& f : funcfl_) {
    frho_spline_.push_back(spline(grid(nrho_, drho_, f.frho, f.drho), drho_));
    rhor_spline_.push_back(spline(grid(nr_, dr_, f.rhor, f.dr), dr_));
  }
  for (std::size_t i = 0; i < funcfl_.size(); ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      const auto zi = grid(nr_, dr_, funcfl_[i].zr, funcfl_[i].dr);
      const auto zj = grid(nr_, dr_, funcfl_[j].zr, funcfl_[j].dr);
      std::vector<double> z2(zi.size(), 0.0);
      for (std::size_t m = 1; m < z2.size(); ++m) z2[m] = 27.2 * 0.529 * zi[m] * zj[m];
      z2r_spline_.push_back(spline(z2, dr_));
    }
}

// LAMMPS's PairEAMAlloy/PairEAMFS::file2array: the file's own grid.
void PairEAM::build_setfl_tables() {
  nrho_ = setfl_.nrho;
  nr_ = setfl_.nr;
  drho_ = setfl_.drho;
  dr_ = setfl_.dr;
  rhomax_ = (nrho_ - 1) * drho_;
  frho_spline_.clear();
  rhor_spline_.clear();
  z2r_spline_.clear();
  for (const auto& t : setfl_.frho) frho_spline_.push_back(spline(t, drho_));
  for (const auto& t : setfl_.rhor) rhor_spline_.push_back(spline(t, dr_));
  for (const auto& t : setfl_.z2r) z2r_spline_.push_back(spline(t, dr_));
}

bool PairEAM::has_coeff(int i, int j) const {
  if (static_cast<std::size_t>(j) >= map_.size()) return false;
  const bool mapped =
      map_[static_cast<std::size_t>(i)] >= 0 && map_[static_cast<std::size_t>(j)] >= 0;
  // A funcfl file sets its type's like pair; unlike pairs are mixed (LAMMPS's setflag[i][i]).
  return format_ == Format::funcfl ? mapped && i == j : mapped;
}

double PairEAM::init(int types, std::size_t tiles) {
  if (static_cast<int>(map_.size()) != types + 1)
    bad("pair_style " + style() + " has no pair_coeff for this box's " + std::to_string(types) +
        " atom types");
  for (int i = 1; i <= types; ++i)
    if (map_[static_cast<std::size_t>(i)] < 0 && active_type(i, types))
      bad("pair_style " + style() + ": atom type " + std::to_string(i) +
          (format_ == Format::funcfl ? " has no potential file (pair_coeff I I FILE)"
                                     : " is mapped to no element (NULL)") +
          "; every type needs one (LAMMPS: All pair coeffs are not set)");
  types_ = types;
  if (format_ == Format::funcfl)
    build_funcfl_tables();
  else
    build_setfl_tables();
  // Which table each type or type pair reads (LAMMPS's type2frho, type2rhor, type2z2r): the
  // element's F and r phi of the pair (lower triangle), and the density an atom of element j
  // gives one of element i: element j's (eam, eam/alloy), or the fs file's rho_ji.
  const auto width = static_cast<std::size_t>(types) + 1;
  const int elements = static_cast<int>(setfl_.elements.size());
  type2frho_.assign(width, 0);
  type2rhor_.assign(width * width, 0);
  type2z2r_.assign(width * width, 0);
  for (std::size_t i = 1; i < width; ++i) {
    type2frho_[i] = map_[i];
    for (std::size_t j = 1; j < width; ++j) {
      type2rhor_[i * width + j] = format_ == Format::fs ? map_[i] * elements + map_[j] : map_[i];
      type2z2r_[i * width + j] = triangle(map_[i], map_[j]);
    }
  }
  rdr_ = 1.0 / dr_;
  rdrho_ = 1.0 / drho_;
  double cut = 0;
  if (format_ == Format::funcfl)
    for (const Funcfl& f : funcfl_) cut = std::max(cut, f.cut);
  else
    cut = setfl_.cut;
  cutforcesq_ = cut * cut;
  tiles_.clear();
  tiles_.resize(tiles);
  return cut;
}

void PairEAM::compute_forward(PairTile& t, std::span<double> owned) {
  if (!tiles_[t.slot]) tiles_[t.slot] = std::make_unique<TileState>(t.tile);
  TileState& s = *tiles_[t.slot];
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const auto width = static_cast<std::size_t>(types_) + 1;
  s.rho.assign(nlocal, 0.0);
  s.embedding.assign(nlocal, 0.0);
  const double* __restrict x = t.x.data();
  const std::int32_t* __restrict type = t.type.data();
  for (std::size_t i = 0; i < nlocal; ++i) {
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    const auto ti = static_cast<std::size_t>(type[i]);
    double rho = 0;
    for (int n = t.begin[i]; n < t.begin[i + 1]; ++n) {
      const auto j = static_cast<std::size_t>(t.list[static_cast<std::size_t>(n)]);
      const double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      if (rsq >= cutforcesq_) continue;
      const auto [m, p] = interval(std::sqrt(rsq) * rdr_ + 1.0, 1, nr_);
      const auto tj = static_cast<std::size_t>(type[j]);
      rho += value(&rhor_spline_[static_cast<std::size_t>(type2rhor_[tj * width + ti])][7 * m], p);
    }
    s.rho[i] = rho;
  }
  // F'(rho), which the neighbors on other tiles need too, and F(rho), extended linearly past the
  // table's largest density (LAMMPS's energy-conserving extrapolation).
  double energy = 0;
  for (std::size_t i = 0; i < nlocal; ++i) {
    const int table = type2frho_[static_cast<std::size_t>(type[i])];
    if (table < 0) {  // a type pair_style hybrid gives to other styles: no embedding
      owned[i] = 0;
      continue;
    }
    const auto [m, p] = interval(s.rho[i] * rdrho_ + 1.0, 1, nrho_);
    const double* c = &frho_spline_[static_cast<std::size_t>(table)][7 * m];
    owned[i] = slope(c, p);
    double phi = value(c, p);
    if (s.rho[i] > rhomax_) phi += owned[i] * (s.rho[i] - rhomax_);
    s.embedding[i] = phi;
    energy += phi;
  }
  s.embedding_energy = energy;
  t.tile.charge(eam_density_work, static_cast<std::uint64_t>(t.begin[nlocal]));
  t.tile.charge(eam_embedding_work, nlocal);
}

void PairEAM::compute(PairTile& t) {
  with_tally_flags(t, [&]<bool E, bool P>() { kernel<E, P>(t); });
  t.tile.charge(eam_force_work,
                static_cast<std::uint64_t>(t.begin[static_cast<std::size_t>(t.nlocal)]));
}

// Each atom's force from its full list: the pair force of r*phi and both embedding terms, F'_i
// rho_j'(r) + F'_j rho_i'(r); half of each pair's energy and virial to the atom (the other half
// comes when its neighbor's list is walked).
template <bool EnergyVirial, bool PerAtom>
void PairEAM::kernel(PairTile& t) const {
  const TileState& s = *tiles_[t.slot];
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const auto width = static_cast<std::size_t>(types_) + 1;
  const double* __restrict x = t.x.data();
  const std::int32_t* __restrict type = t.type.data();
  const double* fp = t.forward.data();  // F'(rho) of the owned atoms, as compute_forward left it
  double* __restrict f = t.f.data();
  double pairs_energy = 0;
  std::array<double, 6> w{};
  for (std::size_t i = 0; i < nlocal; ++i) {
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    const auto ti = static_cast<std::size_t>(type[i]);
    double fx = 0, fy = 0, fz = 0;
    double atom_energy = 0;
    std::array<double, 6> atom_virial{};
    for (int n = t.begin[i]; n < t.begin[i + 1]; ++n) {
      const auto j = static_cast<std::size_t>(t.list[static_cast<std::size_t>(n)]);
      const double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      if (rsq >= cutforcesq_) continue;
      const auto tj = static_cast<std::size_t>(type[j]);
      const double r = std::sqrt(rsq);
      const auto [m, p] = interval(r * rdr_ + 1.0, 1, nr_);
      const double rhoip =
          slope(&rhor_spline_[static_cast<std::size_t>(type2rhor_[ti * width + tj])][7 * m], p);
      const double rhojp =
          slope(&rhor_spline_[static_cast<std::size_t>(type2rhor_[tj * width + ti])][7 * m], p);
      const double* c = &z2r_spline_[static_cast<std::size_t>(type2z2r_[ti * width + tj])][7 * m];
      const double z2p = slope(c, p), z2 = value(c, p);
      const double recip = 1.0 / r;
      const double phi = z2 * recip;
      const double phip = z2p * recip - phi * recip;
      const double fp_j = j < nlocal ? fp[j] : t.ghost_forward[j - nlocal];
      const double psip = fp[i] * rhojp + fp_j * rhoip + phip;
      const double fpair = -psip * recip;
      fx += dx * fpair, fy += dy * fpair, fz += dz * fpair;
      if constexpr (EnergyVirial) {
        const std::array<double, 6> v = {dx * dx * fpair, dy * dy * fpair, dz * dz * fpair,
                                         dx * dy * fpair, dx * dz * fpair, dy * dz * fpair};
        pairs_energy += 0.5 * phi;
        for (std::size_t k = 0; k < 6; ++k) w[k] += 0.5 * v[k];
        if constexpr (PerAtom) {
          atom_energy += 0.5 * phi;
          for (std::size_t k = 0; k < 6; ++k) atom_virial[k] += 0.5 * v[k];
        }
      }
    }
    f[3 * i] += fx, f[3 * i + 1] += fy, f[3 * i + 2] += fz;
    if constexpr (PerAtom) {
      t.eatom[i] += s.embedding[i] + atom_energy;
      for (std::size_t k = 0; k < 6; ++k) t.vatom[6 * i + k] += atom_virial[k];
    }
  }
  if constexpr (EnergyVirial) {
    t.energy = s.embedding_energy + pairs_energy;
    t.virial = w;
  }
}

nlohmann::json PairEAM::restart_section() const {
  return {{"style", style()}, {"coeffs", coeff_calls_}};
}

// The files are read again, as LAMMPS's users do after read_restart (its eam styles keep
// nothing in restart files); the masses come from the restart file.
void PairEAM::restore(const nlohmann::json& p, const detail::RestartHeader& r, int types) {
  const auto& calls = r.at(p, "coeffs", "pair.coeffs");
  if (!calls.is_array() || calls.empty()) r.fail("has no pair_coeff of pair style " + style());
  const auto set_mass = std::move(context_.set_mass);
  context_.set_mass = nullptr;
  for (std::size_t k = 0; k < calls.size(); ++k)
    coeff(r.texts(calls[k], "pair.coeffs[" + std::to_string(k) + "]"), types);
  context_.set_mass = set_mass;
}

std::size_t PairEAM::replicated_bytes() const {
  std::size_t values = 0;
  for (const auto* splines : {&frho_spline_, &rhor_spline_, &z2r_spline_})
    for (const Spline& s : *splines) values += s.size();
  return values * sizeof(double);
}

}  // namespace tessera::md
