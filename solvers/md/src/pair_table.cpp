// pair_style table (pair_table.hpp), following LAMMPS's pair_table.cpp and Pair::init_bitmap
// (the version Debian ships, 29 Sep 2021) step by step, so that its interpolated values are
// LAMMPS's to rounding.
#include "tessera/md/pair_table.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>

#include "arguments.hpp"
#include "float_bitmap.hpp"
#include "potential_file.hpp"
#include "restart_header.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/kernel_work.hpp"

namespace tessera::md {

using arguments::bad;
using Spacing = PairTable::Table::Spacing;

namespace {

constexpr const char* kind = "pair table file";
// LAMMPS's EPSILONR: the relative difference of a file's distance from the one its R or RSQ
// keyword implies above which it warns.
constexpr double epsilon_r = 1.0e-6;

// The cubic spline through (x, y) with end slopes yp1 and ypn: the second derivatives y2 (the
// tridiagonal solve of Press et al., Numerical Recipes, section 3.3, as LAMMPS's spline()).
void spline(const std::vector<double>& x, const std::vector<double>& y, double yp1, double ypn,
            std::vector<double>& y2) {
  const std::size_t n = x.size();
  y2.assign(n, 0.0);
  std::vector<double> u(n, 0.0);
  if (yp1 > 0.99e30) {
    y2[0] = u[0] = 0.0;
  } else {
    y2[0] = -0.5;
    u[0] = (3.0 / (x[1] - x[0])) * ((y[1] - y[0]) / (x[1] - x[0]) - yp1);
  }
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double sig = (x[i] - x[i - 1]) / (x[i + 1] - x[i - 1]);
    const double p = sig * y2[i - 1] + 2.0;
    y2[i] = (sig - 1.0) / p;
    u[i] = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1]);
    u[i] = (6.0 * u[i] / (x[i + 1] - x[i - 1]) - sig * u[i - 1]) / p;
  }
  double qn = 0, un = 0;
  if (!(ypn > 0.99e30)) {
    qn = 0.5;
    un = (3.0 / (x[n - 1] - x[n - 2])) * (ypn - (y[n - 1] - y[n - 2]) / (x[n - 1] - x[n - 2]));
  }
  y2[n - 1] = (un - qn * u[n - 2]) / (qn * y2[n - 2] + 1.0);
  for (std::size_t k = n - 1; k-- > 0;) y2[k] = y2[k] * y2[k + 1] + u[k];
}

// The spline's value at x (bisection for the interval, as LAMMPS's splint()).
double splint(const std::vector<double>& xa, const std::vector<double>& ya,
              const std::vector<double>& y2a, double x) {
  std::size_t klo = 0, khi = xa.size() - 1;
  while (khi - klo > 1) {
    const std::size_t k = (khi + klo) >> 1;
    if (xa[k] > x)
      khi = k;
    else
      klo = k;
  }
  const double h = xa[khi] - xa[klo];
  const double a = (xa[khi] - x) / h;
  const double b = (x - xa[klo]) / h;
  return a * ya[klo] + b * ya[khi] +
         ((a * a * a - a) * y2a[klo] + (b * b * b - b) * y2a[khi]) * (h * h) / 6.0;
}

}  // namespace

void PairTable::settings(const std::vector<std::string>& args) {
  const std::string usage =
      "pair_style table STYLE N [ewald|pppm|msm|dispersion|tip4p] (STYLE lookup, linear, spline "
      "or bitmap)";
  if (args.size() < 2) bad(usage);
  if (args[0] == "lookup")
    interpolation_ = Interpolation::lookup;
  else if (args[0] == "linear")
    interpolation_ = Interpolation::linear;
  else if (args[0] == "spline")
    interpolation_ = Interpolation::spline;
  else if (args[0] == "bitmap")
    interpolation_ = Interpolation::bitmap;
  else
    bad("pair_style table: unknown table style " + args[0] + "; " + usage);
  length_ =
      static_cast<int>(arguments::integer("pair_style table", args[1], 2, arguments::int_max));
  kspace_words_.clear();
  for (std::size_t k = 2; k < args.size(); ++k) {
    const std::string& w = args[k];
    if (w != "ewald" && w != "pppm" && w != "msm" && w != "dispersion" && w != "tip4p")
      bad("pair_style table: unknown keyword " + w + "; " + usage);
    kspace_words_.push_back(w);
  }
  // As LAMMPS's: new settings discard the tables (they cannot be re-interpolated).
  tables_.clear();
  index_.clear();
  coeff_calls_.clear();
}

void PairTable::coeff(const std::vector<std::string>& args, int types) {
  if (length_ == 0) bad("pair_coeff before pair_style table STYLE N");
  if (args.size() != 4 && args.size() != 5)
    bad("pair_coeff for pair_style table: I J FILE KEYWORD [CUTOFF]");
  const auto [ilo, ihi] = arguments::type_range("pair_coeff", args[0], types);
  const auto [jlo, jhi] = arguments::type_range("pair_coeff", args[1], types);
  Table tb;
  read(tb, args[2], args[3]);
  if (args.size() == 5)
    tb.cut = arguments::number("pair_coeff", args[4]);
  else if (tb.spacing != Spacing::file)
    tb.cut = tb.rhi;
  else
    tb.cut = tb.rfile.back();
  const double rlo = tb.spacing == Spacing::file ? tb.rfile.front() : tb.rlo;
  const double rhi = tb.spacing == Spacing::file ? tb.rfile.back() : tb.rhi;
  if (tb.cut <= rlo || tb.cut > rhi)
    bad("pair_coeff: the cutoff " + std::to_string(tb.cut) + " is outside table " + args[3] +
        " of " + args[2] + " (" + std::to_string(rlo) + " to " + std::to_string(rhi) + ")");
  if (rlo <= 0.0)
    bad("pair_coeff: table " + args[3] + " of " + args[2] +
        " starts at r = " + std::to_string(rlo) + "; its inner end must be positive");
  const auto n = static_cast<std::int64_t>(tb.rfile.size());
  tb.match =
      (interpolation_ == Interpolation::linear && n == length_ && tb.spacing == Spacing::rsq &&
       tb.rhi == tb.cut) ||
      (interpolation_ == Interpolation::bitmap && length_ < 31 &&
       n == (std::int64_t{1} << length_) && tb.spacing == Spacing::bitmap && tb.rhi == tb.cut);
  if (tb.spacing == Spacing::bitmap && !tb.match)
    bad("pair_coeff: the bitmapped table " + args[3] + " of " + args[2] +
        " does not match pair_style table " +
        (interpolation_ == Interpolation::bitmap ? "bitmap " + std::to_string(length_)
                                                 : std::string("of another style")) +
        " with its cutoff at the table's end");
  build(tb);

  if (static_cast<int>(index_.size()) != types + 1)
    index_.assign(static_cast<std::size_t>(types) + 1,
                  std::vector<int>(static_cast<std::size_t>(types) + 1, -1));
  int count = 0;
  for (int i = ilo; i <= ihi; ++i)
    for (int j = std::max(jlo, i); j <= jhi; ++j) {
      index_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] =
          static_cast<int>(tables_.size());
      ++count;
    }
  if (count == 0) bad("pair_coeff " + args[0] + " " + args[1] + " names no type pair I <= J");
  tables_.push_back(std::move(tb));
  coeff_calls_.push_back(args);
}

// LAMMPS's read_table and param_extract.
void PairTable::read(Table& tb, const std::string& path, const std::string& keyword) const {
  PotentialFile in = open_potential(context_, path, kind);
  const double conversion = energy_conversion(in, context_.units.style);
  for (;;) {
    const auto words = in.next_values(1);
    if (!words) bad("pair_coeff: table file " + in.path() + " has no section " + keyword);
    if ((*words)[0] == keyword) break;
  }
  const auto params = in.values(1);
  int ninput = 0;
  for (std::size_t k = 0; k < params.size(); ++k) {
    const std::string& word = params[k];
    const auto next = [&]() -> const std::string& {
      if (++k >= params.size()) in.fail("table " + keyword + ": " + word + " needs a value");
      return params[k];
    };
    if (word == "N") {
      ninput = in.integer(next());
    } else if (word == "R" || word == "RSQ" || word == "BITMAP") {
      tb.spacing = word == "R" ? Spacing::r : word == "RSQ" ? Spacing::rsq : Spacing::bitmap;
      tb.rlo = in.number(next());
      tb.rhi = in.number(next());
    } else if (word == "FPRIME") {
      tb.fprime = true;
      tb.fplo = in.number(next());
      tb.fphi = in.number(next());
    } else {
      in.fail("table " + keyword + ": unknown parameter " + word +
              " (N n [R|RSQ|BITMAP lo hi] [FPRIME fplo fphi])");
    }
  }
  if (ninput == 0) in.fail("table " + keyword + ": its parameters do not set N");
  if (ninput < 2) in.fail("table " + keyword + " has " + std::to_string(ninput) + " points");

  FloatBitmap bitmap;
  if (tb.spacing == Spacing::bitmap) {
    int bits = 0;
    while ((std::int64_t{1} << bits) < ninput) ++bits;
    if ((std::int64_t{1} << bits) != ninput)
      in.fail("bitmapped table " + keyword + " has " + std::to_string(ninput) +
              " points, not a power of 2");
    bitmap = float_bitmap(tb.rlo, tb.rhi, bits, "pair_style table bitmap");
  }

  const auto n = static_cast<std::size_t>(ninput);
  tb.rfile.resize(n);
  tb.efile.resize(n);
  tb.ffile.resize(n);
  int distance_errors = 0;
  in.skip_line();  // LAMMPS skips the line after the parameters (blank in its format)
  for (std::size_t i = 0; i < n; ++i) {
    const auto w = in.values(4);
    in.integer(w[0]);
    const double rfile = in.number(w[1]);
    tb.efile[i] = conversion * in.number(w[2]);
    tb.ffile[i] = conversion * in.number(w[3]);
    double rnew = rfile;
    if (tb.spacing == Spacing::r) {
      rnew = tb.rlo + (tb.rhi - tb.rlo) * static_cast<double>(i) / (ninput - 1);
    } else if (tb.spacing == Spacing::rsq) {
      rnew = tb.rlo * tb.rlo +
             (tb.rhi * tb.rhi - tb.rlo * tb.rlo) * static_cast<double>(i) / (ninput - 1);
      rnew = std::sqrt(rnew);
    } else if (tb.spacing == Spacing::bitmap) {
      rnew = std::sqrt(bitmap.bin_edge(i, tb.rlo * tb.rlo));
    }
    if (tb.spacing != Spacing::file && std::fabs(rnew - rfile) / rfile > epsilon_r)
      ++distance_errors;
    tb.rfile[i] = rnew;
  }

  // Forces that are not -dE/dr by the secants on both sides (outside inflection points).
  int force_errors = 0;
  if (tb.spacing != Spacing::bitmap)
    for (std::size_t i = 1; i + 1 < n; ++i) {
      const double fleft = -(tb.efile[i] - tb.efile[i - 1]) / (tb.rfile[i] - tb.rfile[i - 1]);
      const double fright = -(tb.efile[i + 1] - tb.efile[i]) / (tb.rfile[i + 1] - tb.rfile[i]);
      const double f = tb.ffile[i];
      if ((f < fleft && f < fright) || (f > fleft && f > fright)) ++force_errors;
    }
  if (context_.warn && force_errors > 0)
    context_.warn("WARNING: " + std::to_string(force_errors) + " of " + std::to_string(ninput) +
                  " force values in table " + keyword +
                  " are inconsistent with -dE/dr.\nWARNING:  Should only be flagged at "
                  "inflection points\n");
  if (context_.warn && distance_errors > 0)
    context_.warn("WARNING: " + std::to_string(distance_errors) + " of " + std::to_string(ninput) +
                  " distance values in table " + keyword +
                  " with relative error\nWARNING:  over 1e-06 to re-computed values\n");
}

// LAMMPS's spline_table and compute_table.
void PairTable::build(Table& tb) const {
  if (!tb.match) {
    const std::size_t n = tb.rfile.size();
    spline(tb.rfile, tb.efile, -tb.ffile[0], -tb.ffile[n - 1], tb.e2file);
    if (!tb.fprime) {
      tb.fplo = (tb.ffile[1] - tb.ffile[0]) / (tb.rfile[1] - tb.rfile[0]);
      tb.fphi = (tb.ffile[n - 1] - tb.ffile[n - 2]) / (tb.rfile[n - 1] - tb.rfile[n - 2]);
    }
    spline(tb.rfile, tb.ffile, tb.fplo, tb.fphi, tb.f2file);
  }
  const auto splined_e = [&](double r) { return splint(tb.rfile, tb.efile, tb.e2file, r); };
  const auto splined_f = [&](double r) { return splint(tb.rfile, tb.ffile, tb.f2file, r); };

  const int tlm1 = length_ - 1;
  const double inner = tb.spacing != Spacing::file ? tb.rlo : tb.rfile.front();
  tb.innersq = inner * inner;
  tb.delta = (tb.cut * tb.cut - tb.innersq) / tlm1;
  tb.invdelta = 1.0 / tb.delta;
  const auto len = static_cast<std::size_t>(length_);

  switch (interpolation_) {
    case Interpolation::lookup: {
      tb.e.resize(len - 1);
      tb.f.resize(len - 1);
      for (std::size_t i = 0; i + 1 < len; ++i) {
        const double rsq = tb.innersq + (static_cast<double>(i) + 0.5) * tb.delta;
        const double r = std::sqrt(rsq);
        tb.e[i] = splined_e(r);
        tb.f[i] = splined_f(r) / r;
      }
      break;
    }
    case Interpolation::linear: {
      tb.rsq.resize(len);
      tb.e.resize(len);
      tb.f.resize(len);
      for (std::size_t i = 0; i < len; ++i) {
        const double rsq = tb.innersq + static_cast<double>(i) * tb.delta;
        const double r = std::sqrt(rsq);
        tb.rsq[i] = rsq;
        tb.e[i] = tb.match ? tb.efile[i] : splined_e(r);
        tb.f[i] = (tb.match ? tb.ffile[i] : splined_f(r)) / r;
      }
      tb.de.resize(len - 1);
      tb.df.resize(len - 1);
      for (std::size_t i = 0; i + 1 < len; ++i) {
        tb.de[i] = tb.e[i + 1] - tb.e[i];
        tb.df[i] = tb.f[i + 1] - tb.f[i];
      }
      break;
    }
    case Interpolation::spline: {
      tb.rsq.resize(len);
      tb.e.resize(len);
      tb.f.resize(len);
      tb.deltasq6 = tb.delta * tb.delta / 6.0;
      for (std::size_t i = 0; i < len; ++i) {
        const double rsq = tb.innersq + static_cast<double>(i) * tb.delta;
        const double r = std::sqrt(rsq);
        tb.rsq[i] = rsq;
        tb.e[i] = splined_e(r);
        tb.f[i] = splined_f(r);
      }
      // The end slopes in r^2: of e, dE/d(r^2) = -f / 2r; of f/r, by its derivative where
      // FPRIME gives it, else by a secant a tenth of a bin long.
      const double ep0 = -tb.f[0] / (2.0 * std::sqrt(tb.innersq));
      const double epn = -tb.f[len - 1] / (2.0 * tb.cut);
      spline(tb.rsq, tb.e, ep0, epn, tb.e2);
      constexpr double secant = 0.1;
      double fp0, fpn;
      if (tb.fprime) {
        fp0 = (tb.fplo / std::sqrt(tb.innersq) - tb.f[0] / tb.innersq) /
              (2.0 * std::sqrt(tb.innersq));
      } else {
        const double rsq1 = tb.innersq;
        const double rsq2 = rsq1 + secant * tb.delta;
        fp0 = (splined_f(std::sqrt(rsq2)) / std::sqrt(rsq2) - tb.f[0] / std::sqrt(rsq1)) /
              (secant * tb.delta);
      }
      if (tb.fprime && tb.cut == tb.rfile.back()) {
        fpn = (tb.fphi / tb.cut - tb.f[len - 1] / (tb.cut * tb.cut)) / (2.0 * tb.cut);
      } else {
        const double rsq2 = tb.cut * tb.cut;
        const double rsq1 = rsq2 - secant * tb.delta;
        fpn = (tb.f[len - 1] / std::sqrt(rsq2) - splined_f(std::sqrt(rsq1)) / std::sqrt(rsq1)) /
              (secant * tb.delta);
      }
      for (std::size_t i = 0; i < len; ++i) tb.f[i] /= std::sqrt(tb.rsq[i]);
      spline(tb.rsq, tb.f, fp0, fpn, tb.f2);
      break;
    }
    case Interpolation::bitmap: {
      const FloatBitmap b = float_bitmap(inner, tb.cut, length_, "pair_style table bitmap");
      tb.nmask = b.nmask;
      tb.nshiftbits = b.nshiftbits;
      const std::size_t ntable = std::size_t{1} << length_;
      tb.rsq.resize(ntable);
      tb.e.resize(ntable);
      tb.f.resize(ntable);
      tb.de.resize(ntable);
      tb.df.resize(ntable);
      tb.drsq.resize(ntable);
      float minrsq = bits_as_float(b.maskhi);
      for (std::size_t i = 0; i < ntable; ++i) {
        const float rsq = b.bin_edge(i, tb.innersq);
        const float r = std::sqrt(rsq);  // in float, as LAMMPS's sqrtf
        tb.rsq[i] = rsq;
        tb.e[i] = tb.match ? tb.efile[i] : splined_e(r);
        tb.f[i] = (tb.match ? tb.ffile[i] : splined_f(r)) / r;
        minrsq = std::min(minrsq, rsq);
      }
      tb.innersq = minrsq;
      for (std::size_t i = 0; i + 1 < ntable; ++i) {
        tb.de[i] = tb.e[i + 1] - tb.e[i];
        tb.df[i] = tb.f[i + 1] - tb.f[i];
        tb.drsq[i] = 1.0 / (tb.rsq[i + 1] - tb.rsq[i]);
      }
      // The bins wrap around between the last and the first.
      tb.de[ntable - 1] = tb.e[0] - tb.e[ntable - 1];
      tb.df[ntable - 1] = tb.f[0] - tb.f[ntable - 1];
      tb.drsq[ntable - 1] = 1.0 / (tb.rsq[0] - tb.rsq[ntable - 1]);
      // The bin of the largest r^2 ends at the cutoff, not at the next bin's edge.
      const auto itablemin =
          static_cast<std::size_t>((float_bits(minrsq) & tb.nmask) >> tb.nshiftbits);
      const std::size_t itablemax = itablemin == 0 ? ntable - 1 : itablemin - 1;
      const std::size_t itablemaxm1 = itablemax == 0 ? ntable - 1 : itablemax - 1;
      const float rsq_max =
          bits_as_float(static_cast<std::int32_t>(itablemax << b.nshiftbits) | b.maskhi);
      if (rsq_max < tb.cut * tb.cut) {
        if (tb.match) {
          tb.de[itablemax] = tb.de[itablemaxm1];
          tb.df[itablemax] = tb.df[itablemaxm1];
          tb.drsq[itablemax] = tb.drsq[itablemaxm1];
        } else {
          const auto cutsq = static_cast<float>(tb.cut * tb.cut);
          const float r = std::sqrt(cutsq);
          tb.de[itablemax] = splined_e(r) - tb.e[itablemax];
          tb.df[itablemax] = splined_f(r) / r - tb.f[itablemax];
          tb.drsq[itablemax] = 1.0 / (cutsq - tb.rsq[itablemax]);
        }
      }
      break;
    }
  }
}

std::optional<double> PairTable::long_range_cutoff() const {
  if (kspace_words_.empty() || tables_.empty()) return std::nullopt;
  for (const Table& tb : tables_)
    if (tb.cut != tables_.front().cut)
      throw ConfigError("pair_style table " + kspace_words_.front() +
                        ": every table's cutoff must be the same to use a kspace style");
  return tables_.front().cut;
}

bool PairTable::has_coeff(int i, int j) const {
  return static_cast<std::size_t>(j) < index_.size() &&
         index_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] >= 0;
}

double PairTable::init(int types, std::size_t) {
  types_ = types;
  const auto width = static_cast<std::size_t>(types) + 1;
  if (index_.size() < width) index_.resize(width);
  for (auto& row : index_)
    if (row.size() < width) row.resize(width, -1);
  pair_table_.assign(width * width, -1);
  cutsq_.assign(width * width, 0.0);
  double max_cut = 0;
  for (std::size_t i = 1; i < width; ++i)
    for (std::size_t j = i; j < width; ++j) {
      if (!active(static_cast<int>(i), static_cast<int>(j), types)) continue;
      const int k = index_[i][j];
      if (k < 0)
        throw ConfigError("pair style table: no pair_coeff for types " + std::to_string(i) + " " +
                          std::to_string(j) +
                          " (every type pair needs its table; LAMMPS's \"All pair coeffs are "
                          "not set\")");
      const double cut = tables_[static_cast<std::size_t>(k)].cut;
      pair_table_[i * width + j] = pair_table_[j * width + i] = k;
      cutsq_[i * width + j] = cutsq_[j * width + i] = cut * cut;
      max_cut = std::max(max_cut, cut);
    }
  return max_cut;
}

void PairTable::compute(PairTile& t) {
  with_tally_flags(t, [&]<bool E, bool P>() {
    switch (interpolation_) {
      case Interpolation::lookup:
        return kernel<Interpolation::lookup, E, P>(t);
      case Interpolation::linear:
        return kernel<Interpolation::linear, E, P>(t);
      case Interpolation::spline:
        return kernel<Interpolation::spline, E, P>(t);
      case Interpolation::bitmap:
        return kernel<Interpolation::bitmap, E, P>(t);
    }
  });
  t.tile.charge(interpolation_ == Interpolation::spline ? table_spline_work : table_work,
                static_cast<std::uint64_t>(t.begin[static_cast<std::size_t>(t.nlocal)]));
}

// One pair's force over r and, with Energy, its energy from table tb (LAMMPS's PairTable::
// compute, by interpolation style); false for a distance beyond the table's outer end.
template <PairTable::Interpolation Style, bool Energy>
bool PairTable::interpolate(const Table& tb, double rsq, double& fpair, double& energy) const {
  if constexpr (Style == Interpolation::bitmap) {
    const auto rsq_f = static_cast<float>(rsq);
    const auto itable = static_cast<std::size_t>((float_bits(rsq_f) & tb.nmask) >> tb.nshiftbits);
    const double fraction = (rsq_f - tb.rsq[itable]) * tb.drsq[itable];
    fpair = tb.f[itable] + fraction * tb.df[itable];
    if constexpr (Energy) energy = tb.e[itable] + fraction * tb.de[itable];
  } else {
    const int itable_signed = static_cast<int>((rsq - tb.innersq) * tb.invdelta);
    if (itable_signed >= length_ - 1) return false;
    const auto itable = static_cast<std::size_t>(itable_signed);
    if constexpr (Style == Interpolation::lookup) {
      fpair = tb.f[itable];
      if constexpr (Energy) energy = tb.e[itable];
    } else if constexpr (Style == Interpolation::linear) {
      const double fraction = (rsq - tb.rsq[itable]) * tb.invdelta;
      fpair = tb.f[itable] + fraction * tb.df[itable];
      if constexpr (Energy) energy = tb.e[itable] + fraction * tb.de[itable];
    } else {
      const double b = (rsq - tb.rsq[itable]) * tb.invdelta;
      const double a = 1.0 - b;
      fpair = a * tb.f[itable] + b * tb.f[itable + 1] +
              ((a * a * a - a) * tb.f2[itable] + (b * b * b - b) * tb.f2[itable + 1]) * tb.deltasq6;
      if constexpr (Energy)
        energy =
            a * tb.e[itable] + b * tb.e[itable + 1] +
            ((a * a * a - a) * tb.e2[itable] + (b * b * b - b) * tb.e2[itable + 1]) * tb.deltasq6;
    }
  }
  return true;
}

template <PairTable::Interpolation Style, bool EnergyVirial, bool PerAtom>
void PairTable::kernel(PairTile& t) const {
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const auto width = static_cast<std::size_t>(types_) + 1;
  const double* __restrict x = t.x.data();
  double* __restrict f = t.f.data();
  double* __restrict gf = t.ghost_f.data();
  const std::int32_t* __restrict type = t.type.data();
  double pe = 0;
  std::array<double, 6> w{};
  const auto fail = [&](std::size_t i, std::size_t j, double rsq, const char* which) {
    throw Error("pair style table: atoms " + std::to_string(t.id[i]) + " and " +
                std::to_string(j < nlocal ? t.id[j] : t.ghost_id[j - nlocal]) + " (types " +
                std::to_string(type[i]) + " " + std::to_string(type[j]) + ") are " +
                std::to_string(std::sqrt(rsq)) + " apart at step " + std::to_string(t.step) + ", " +
                which + " of their table (LAMMPS: \"Pair distance " +
                (which[0] == 'i' ? "<" : ">") + " table " + (which[0] == 'i' ? "inner" : "outer") +
                " cutoff\")");
  };
  for (std::size_t i = 0; i < nlocal; ++i) {
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    const std::size_t row = static_cast<std::size_t>(type[i]) * width;
    double fx = 0, fy = 0, fz = 0;
    for (int n = t.begin[i]; n < t.begin[i + 1]; ++n) {
      const auto j = static_cast<std::size_t>(t.list[static_cast<std::size_t>(n)]);
      const double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      const std::size_t pair = row + static_cast<std::size_t>(type[j]);
      if (rsq >= cutsq_[pair]) continue;
      const Table& tb = tables_[static_cast<std::size_t>(pair_table_[pair])];
      if (rsq < tb.innersq) fail(i, j, rsq, "inside the inner end");
      double fpair = 0, energy = 0;
      if (!interpolate<Style, EnergyVirial>(tb, rsq, fpair, energy))
        fail(i, j, rsq, "beyond the outer end");
      fx += dx * fpair, fy += dy * fpair, fz += dz * fpair;
      double* reacting = j < nlocal ? f + 3 * j : gf + 3 * (j - nlocal);
      reacting[0] -= dx * fpair, reacting[1] -= dy * fpair, reacting[2] -= dz * fpair;
      if constexpr (EnergyVirial) {
        pe += energy;
        tally_half_pair<PerAtom>(t, i, j, dx, dy, dz, fpair, 0.5 * energy, w);
      }
    }
    f[3 * i] += fx, f[3 * i + 1] += fy, f[3 * i + 2] += fz;
  }
  if constexpr (EnergyVirial) {
    t.energy = pe;
    t.virial = w;
  }
  // special_bonds: LAMMPS's factor_lj on the force and the energy.
  weighted_special_pairs<EnergyVirial, PerAtom>(
      t, [&](std::size_t i, std::size_t j, double rsq, double lj, double, double& evdwl, double&,
             double& fpair) {
        const std::size_t pair =
            static_cast<std::size_t>(type[i]) * width + static_cast<std::size_t>(type[j]);
        if (rsq >= cutsq_[pair]) return false;
        const Table& tb = tables_[static_cast<std::size_t>(pair_table_[pair])];
        if (rsq < tb.innersq) fail(i, j, rsq, "inside the inner end");
        if (!interpolate<Style, EnergyVirial>(tb, rsq, fpair, evdwl))
          fail(i, j, rsq, "beyond the outer end");
        fpair *= lj;
        evdwl *= lj;
        return true;
      });
}

nlohmann::json PairTable::restart_section() const {
  const char* names[] = {"lookup", "linear", "spline", "bitmap"};
  std::vector<std::string> settings{names[static_cast<int>(interpolation_)],
                                    std::to_string(length_)};
  settings.insert(settings.end(), kspace_words_.begin(), kspace_words_.end());
  return {{"style", style()}, {"settings", settings}, {"coeffs", coeff_calls_}};
}

// The files are read again (LAMMPS keeps only the settings; its users give pair_coeff again).
void PairTable::restore(const nlohmann::json& p, const detail::RestartHeader& r, int types) {
  settings(r.texts(r.at(p, "settings", "pair.settings"), "pair.settings"));
  const auto& calls = r.at(p, "coeffs", "pair.coeffs");
  if (!calls.is_array()) r.fail("has pair.coeffs that is not a list of pair_coeff commands");
  for (std::size_t k = 0; k < calls.size(); ++k)
    coeff(r.texts(calls[k], "pair.coeffs[" + std::to_string(k) + "]"), types);
}

std::size_t PairTable::replicated_bytes() const {
  std::size_t values = 0;
  for (const Table& tb : tables_)
    for (const auto* v : {&tb.rsq, &tb.drsq, &tb.e, &tb.de, &tb.f, &tb.df, &tb.e2, &tb.f2})
      values += v->size();
  return values * sizeof(double);
}

}  // namespace tessera::md
