// kspace_style pppm (kspace_pppm.hpp), following LAMMPS's KSPACE/pppm.cpp (its ik path) term by
// term.
#include "tessera/md/kspace_pppm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "arguments.hpp"
#include "tessera/core/cycle_estimate.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/domain.hpp"

namespace tessera::md {

namespace {
constexpr double pi = 3.14159265358979323846;
constexpr double two_pi = 6.28318530717958647692;   // LAMMPS's MY_2PI
constexpr double sqrt_pi = 1.77245385090551602729;  // MY_PIS
constexpr double half_pi = 1.57079632679489661923;  // MY_PI2
constexpr int max_order = 7;
constexpr int offset = 16384;       // LAMMPS's OFFSET: int(-0.75) must be -1
constexpr double small = 0.00001;   // SMALL: the Newton-Raphson tolerance
constexpr int large = 10000;        // LARGE: its iterations
constexpr double eps_hoc = 1.0e-7;  // EPS_HOC: the aliasing sums' reach

// Deserno and Holm's error coefficients, LAMMPS's acons[order][m].
constexpr double acons[8][7] = {
    {},
    {2.0 / 3.0},
    {1.0 / 50.0, 5.0 / 294.0},
    {1.0 / 588.0, 7.0 / 1440.0, 21.0 / 3872.0},
    {1.0 / 4320.0, 3.0 / 1936.0, 7601.0 / 2271360.0, 143.0 / 28800.0},
    {1.0 / 23232.0, 7601.0 / 13628160.0, 143.0 / 69120.0, 517231.0 / 106536960.0,
     106640677.0 / 11737571328.0},
    {691.0 / 68140800.0, 13.0 / 57600.0, 47021.0 / 35512320.0, 9694607.0 / 2095994880.0,
     733191589.0 / 59609088000.0, 326190917.0 / 11700633600.0},
    {1.0 / 345600.0, 3617.0 / 35512320.0, 745739.0 / 838397952.0, 56399353.0 / 12773376000.0,
     25091609.0 / 1560084480.0, 1755948832039.0 / 36229939200000.0, 4887769399.0 / 37838389248.0}};

double square(double x) { return x * x; }

// (sin x / x)^n as LAMMPS's MathSpecial::powsinxx.
double powsinxx(double x, int n) {
  if (x == 0.0) return 1.0;
  double yy = std::sin(x) / x, ww = 1.0;
  for (; n != 0; n >>= 1, yy *= yy)
    if (n & 1) ww *= yy;
  return ww;
}

bool factorable(int n) {
  while (n > 1) {
    if (n % 2 == 0)
      n /= 2;
    else if (n % 3 == 0)
      n /= 3;
    else if (n % 5 == 0)
      n /= 5;
    else
      return false;
  }
  return true;
}

// Per atom: its mesh point, 3 weight rows of the stencil and the multiply-adds over the
// stencil's order^3 cells (an estimate for order 5: 125 cells, 2 operations each, and the
// weights' Horner sums of 3 x 5 x 5).
KernelWork stencil_work(int order) {
  KernelWork w;
  const double cells = static_cast<double>(order * order * order);
  w.flops_fp64 = 2.0 * cells + 6.0 * order * order + 12.0;
  w.int_ops = cells + 12.0;
  w.bytes_loaded = 8.0 * cells + 32.0;
  w.bytes_stored = 8.0 * cells;
  w.value_bytes = 8;
  return w;
}
}  // namespace

KSpacePPPM::KSpacePPPM() = default;
KSpacePPPM::~KSpacePPPM() {
  if (runtime_) release(*runtime_);
}

void KSpacePPPM::settings(const std::vector<std::string>& args) {
  accuracy_relative_ = kspace_accuracy("pppm", args);
}

void KSpacePPPM::modify(const std::vector<std::string>& a) {
  const char* usage = "kspace_modify mesh NX NY NZ | order N | gewald G | compute yes";
  for (std::size_t k = 0; k < a.size();) {
    if (a[k] == "mesh") {
      if (k + 4 > a.size()) arguments::bad("kspace_modify mesh needs NX NY NZ");
      std::array<int, 3> n{};
      for (std::size_t d = 0; d < 3; ++d)
        n[d] =
            static_cast<int>(arguments::integer("kspace_modify mesh", a[k + 1 + d], 0, offset - 1));
      // LAMMPS: all zero means from the accuracy again.
      const bool any = n[0] != 0 || n[1] != 0 || n[2] != 0;
      if (any && (n[0] < 2 || n[1] < 2 || n[2] < 2))
        arguments::bad("kspace_modify mesh: NX NY NZ must each be at least 2 (or all 0)");
      mesh_set_ = any ? std::optional<std::array<int, 3>>(n) : std::nullopt;
      k += 4;
    } else if (a[k] == "order") {
      if (k + 2 > a.size()) arguments::bad("kspace_modify order needs a value");
      order_ = static_cast<int>(arguments::integer("kspace_modify order", a[k + 1], 2, max_order));
      k += 2;
    } else if (a[k] == "gewald") {
      gewald_ = kspace_gewald(a, k, usage);
      k += 2;
    } else if (a[k] == "compute" && k + 1 < a.size() && a[k + 1] == "yes") {
      k += 2;
    } else {
      arguments::bad("kspace_modify " + a[k] + " is not supported for pppm; " + usage);
    }
  }
}

double KSpacePPPM::estimate_ik_error(double h, double prd) const {
  double sum = 0.0;
  for (int m = 0; m < order_; m++) sum += acons[order_][m] * std::pow(h * g_ewald_, 2.0 * m);
  return q2_ * std::pow(h * g_ewald_, static_cast<double>(order_)) *
         std::sqrt(g_ewald_ * prd * std::sqrt(two_pi) * sum / natoms_) / (prd * prd);
}

double KSpacePPPM::df_kspace() const {
  const double lprx = estimate_ik_error(h_[0], prd_[0]);
  const double lpry = estimate_ik_error(h_[1], prd_[1]);
  const double lprz = estimate_ik_error(h_[2], prd_[2]);
  return std::sqrt(lprx * lprx + lpry * lpry + lprz * lprz) / std::sqrt(3.0);
}

double KSpacePPPM::newton_raphson_f() const {
  const double df_rspace = 2.0 * q2_ * std::exp(-g_ewald_ * g_ewald_ * cutoff_ * cutoff_) /
                           std::sqrt(natoms_ * cutoff_ * prd_[0] * prd_[1] * prd_[2]);
  return df_rspace - df_kspace();
}

// LAMMPS's adjust_gewald: Newton-Raphson on the balance of the two errors, the derivative by a
// forward difference.
void KSpacePPPM::adjust_gewald() {
  for (int i = 0; i < large; i++) {
    const double h = 0.000001;
    const double f1 = newton_raphson_f();
    const double g = g_ewald_;
    g_ewald_ += h;
    const double f2 = newton_raphson_f();
    g_ewald_ = g;
    const double dx = newton_raphson_f() / ((f2 - f1) / h);
    g_ewald_ -= dx;
    if (std::fabs(newton_raphson_f()) < small) return;
  }
  throw ConfigError(
      "kspace_style pppm: could not compute g_ewald (LAMMPS: \"Could not compute "
      "g_ewald\"); set it with kspace_modify gewald");
}

// LAMMPS's set_grid_global for ik: from h = 1/g_ewald, each axis's points grown until its error
// estimate (of the spacing before the step, as LAMMPS's loop has it) is within the accuracy;
// then grown to a product of 2, 3 and 5.
void KSpacePPPM::set_grid_global(const Box& box) {
  for (std::size_t d = 0; d < 3; ++d) prd_[d] = box.length(static_cast<int>(d));
  if (mesh_set_) {
    n_ = *mesh_set_;
  } else {
    for (std::size_t d = 0; d < 3; ++d) {
      h_[d] = 1.0 / g_ewald_;
      n_[d] = static_cast<int>(prd_[d] / h_[d]) + 1;
      double err = estimate_ik_error(h_[d], prd_[d]);
      while (err > accuracy_) {
        err = estimate_ik_error(h_[d], prd_[d]);
        n_[d]++;
        h_[d] = prd_[d] / n_[d];
      }
    }
  }
  for (auto& n : n_)
    while (!factorable(n)) ++n;
  for (std::size_t d = 0; d < 3; ++d) h_[d] = prd_[d] / n_[d];
  if (n_[0] >= offset || n_[1] >= offset || n_[2] >= offset)
    throw ConfigError(
        "kspace_style pppm: the mesh is too large (LAMMPS: \"PPPM grid is too "
        "large\"); lower the accuracy");
}

void KSpacePPPM::compute_gf_denom() {
  gf_b_.assign(static_cast<std::size_t>(order_), 0.0);
  gf_b_[0] = 1.0;
  for (int m = 1; m < order_; m++) {
    int l = m;
    for (; l > 0; l--) {
      const auto u = static_cast<std::size_t>(l);
      gf_b_[u] =
          4.0 * (gf_b_[u] * (l - m) * (l - m - 0.5) - gf_b_[u - 1] * (l - m - 1) * (l - m - 1));
    }
    gf_b_[0] = 4.0 * (gf_b_[0] * (l - m) * (l - m - 0.5));
  }
  std::int64_t ifact = 1;
  for (int k = 1; k < 2 * order_; k++) ifact *= k;
  const double gaminv = 1.0 / static_cast<double>(ifact);
  for (auto& b : gf_b_) b *= gaminv;
}

double KSpacePPPM::gf_denom(double x, double y, double z) const {
  double sx = 0.0, sy = 0.0, sz = 0.0;
  for (int l = order_ - 1; l >= 0; l--) {
    const double b = gf_b_[static_cast<std::size_t>(l)];
    sx = b + sx * x;
    sy = b + sy * y;
    sz = b + sz * z;
  }
  const double s = sx * sy * sz;
  return s * s;
}

// LAMMPS's compute_rho_coeff: the polynomial pieces of the order-P charge assignment function.
void KSpacePPPM::compute_rho_coeff() {
  const int order = order_;
  std::vector<std::vector<double>> a(
      static_cast<std::size_t>(order),
      std::vector<double>(static_cast<std::size_t>(2 * order + 1), 0.0));
  const auto at = [&](int l, int k) -> double& {
    return a[static_cast<std::size_t>(l)][static_cast<std::size_t>(k + order)];
  };
  at(0, 0) = 1.0;
  for (int j = 1; j < order; j++) {
    for (int k = -j; k <= j; k += 2) {
      double s = 0.0;
      for (int l = 0; l < j; l++) {
        at(l + 1, k) = (at(l, k + 1) - at(l, k - 1)) / (l + 1);
        s += std::pow(0.5, static_cast<double>(l) + 1) *
             (at(l, k - 1) + std::pow(-1.0, static_cast<double>(l)) * at(l, k + 1)) / (l + 1);
      }
      at(0, k) = s;
    }
  }
  const int first = (1 - order) / 2;
  rho_coeff_.assign(static_cast<std::size_t>(order),
                    std::vector<double>(static_cast<std::size_t>(order / 2 - first + 1), 0.0));
  int m = first;
  for (int k = -(order - 1); k < order; k += 2) {
    for (int l = 0; l < order; l++)
      rho_coeff_[static_cast<std::size_t>(l)][static_cast<std::size_t>(m - first)] = at(l, k);
    m++;
  }
}

void KSpacePPPM::rho1d(const double* d, std::array<std::array<double, 8>, 3>& out) const {
  const int first = (1 - order_) / 2;
  for (int k = first; k <= order_ / 2; k++) {
    double r[3] = {0.0, 0.0, 0.0};
    for (int l = order_ - 1; l >= 0; l--) {
      const double c = rho_coeff_[static_cast<std::size_t>(l)][static_cast<std::size_t>(k - first)];
      for (std::size_t dim = 0; dim < 3; ++dim) r[dim] = c + r[dim] * d[dim];
    }
    for (std::size_t dim = 0; dim < 3; ++dim)
      out[dim][static_cast<std::size_t>(k - nlower_)] = r[dim];
  }
}

std::array<int, 3> KSpacePPPM::mesh_point(const double* x, double* d) const {
  std::array<int, 3> p{};
  for (std::size_t dim = 0; dim < 3; ++dim) {
    p[dim] = static_cast<int>((x[dim] - boxlo_[dim]) * delinv_[dim] + shift_) - offset;
    d[dim] = p[dim] + shiftone_ - (x[dim] - boxlo_[dim]) * delinv_[dim];
  }
  return p;
}

double KSpacePPPM::init(const KSpaceSystem& s, std::string& log) {
  check_kspace_system(s, "pppm", "PPPM", "LAMMPS's triclinic mesh");
  log = "PPPM initialization ...\n" + kspace_charge_warnings(s);
  natoms_ = s.natoms;
  qsum_ = s.qsum;
  qsqsum_ = s.qsqsum;
  qqrd2e_ = s.qqrd2e;
  q2_ = qsqsum_ * qqrd2e_;
  cutoff_ = s.cutoff;
  accuracy_ = accuracy_relative_ * s.units.qqr2e;  // LAMMPS's two_charge_force
  for (std::size_t d = 0; d < 3; ++d)
    prd_[d] = s.box.length(static_cast<int>(d)), boxlo_[d] = s.box.lo[d];
  g_ewald_ = gewald_ ? *gewald_ : g_ewald_from_accuracy(s, accuracy_, q2_, "pppm");
  set_grid_global(s.box);
  if (!gewald_) adjust_gewald();
  // LAMMPS's final_accuracy (no table term: the real-space term is computed).
  const double q2_over_sqrt = q2_ / std::sqrt(natoms_ * cutoff_ * prd_[0] * prd_[1] * prd_[2]);
  const double df_rspace = 2.0 * q2_over_sqrt * std::exp(-g_ewald_ * g_ewald_ * cutoff_ * cutoff_);
  const double dk = df_kspace();
  const double estimated = std::sqrt(dk * dk + df_rspace * df_rspace);
  nlower_ = -(order_ - 1) / 2;
  nupper_ = order_ / 2;
  shift_ = order_ % 2 ? offset + 0.5 : offset;
  shiftone_ = order_ % 2 ? 0.0 : 0.5;
  volume_ = prd_[0] * prd_[1] * prd_[2];
  for (std::size_t d = 0; d < 3; ++d) delinv_[d] = n_[d] / prd_[d];
  delvolinv_ = delinv_[0] * delinv_[1] * delinv_[2];
  compute_gf_denom();
  compute_rho_coeff();
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "  G vector (1/distance) = %.8g\n  grid = %d %d %d\n  stencil order = %d\n"
                "  estimated absolute RMS force accuracy = %.8g\n"
                "  estimated relative force accuracy = %.8g\n"
                "  using double precision FFTW3\n",
                g_ewald_, n_[0], n_[1], n_[2], order_, estimated, estimated / s.units.qqr2e);
  log += buf;
  return g_ewald_;
}

// A barostat's new box (LAMMPS's PPPM::setup, which its fix npt calls at each change): the
// same mesh and bricks over the new lengths (the tiles' sub-boxes scale with the box), the
// volume factors and the Green's function anew.
void KSpacePPPM::box_changed(const Box& box) {
  if (box.triclinic)
    throw ConfigError(
        "kspace_style pppm: the box became triclinic during the run; md_ipu's pppm "
        "is for orthogonal boxes");
  for (std::size_t d = 0; d < 3; ++d) {
    prd_[d] = box.length(static_cast<int>(d));
    boxlo_[d] = box.lo[d];
    delinv_[d] = n_[d] / prd_[d];
    h_[d] = prd_[d] / n_[d];
  }
  volume_ = prd_[0] * prd_[1] * prd_[2];
  delvolinv_ = delinv_[0] * delinv_[1] * delinv_[2];
  if (runtime_) compute_greens(*runtime_);
}

void KSpacePPPM::release(Runtime& runtime) {
  to_pencils_.reset();
  to_bricks_.reset();
  fft_.reset();
  if (variables_)
    for (const auto v : {density_, incoming_, field_}) runtime.destroy_variable(v);
  variables_ = false;
}

// The bricks, the exchange plans between them and the pencils, and each z-pencil tile's
// Green's function.
void KSpacePPPM::prepare(Runtime& runtime, const Domain& domain, double skin) {
  const int tiles = runtime.target().total_tiles();
  // LAMMPS's set_grid_local: the mesh points an atom of the sub-box, strayed by half the skin,
  // can reach with its stencil.
  bricks_.assign(static_cast<std::size_t>(tiles), {});
  const double cuthalf = 0.5 * skin;
  for (int t = 0; t < tiles; ++t) {
    const auto lo = domain.sub_lo(t), hi = domain.sub_hi(t);
    Brick& b = bricks_[static_cast<std::size_t>(t)];
    for (std::size_t d = 0; d < 3; ++d) {
      const int nlo =
          static_cast<int>((lo[d] - cuthalf - boxlo_[d]) * n_[d] / prd_[d] + shift_) - offset;
      const int nhi =
          static_cast<int>((hi[d] + cuthalf - boxlo_[d]) * n_[d] / prd_[d] + shift_) - offset;
      b.lo[d] = nlo + nlower_;
      b.extent[d] = nhi + nupper_ - b.lo[d] + 1;
    }
  }
  build(runtime, 3);
}

// The distributed FFT for `fields` fields back to the bricks (3: the field; 10: and the 7 of
// the per-atom energies and virials), its variables and plans, and the Green's function.
void KSpacePPPM::build(Runtime& runtime, std::size_t fields) {
  if (runtime_) release(*runtime_);
  runtime_ = &runtime;
  fields_ = fields;
  fft_ = std::make_unique<Fft3d>(runtime, n_, fields, "md.pppm_fft");
  const int tiles = runtime.target().total_tiles();
  const auto nx = static_cast<std::size_t>(n_[0]);
  const Fft3d::Pencils& xp = fft_->x_pencils();
  const auto owner = [&](std::size_t line) {
    return static_cast<int>(std::upper_bound(xp.first.begin(), xp.first.end(), line) -
                            xp.first.begin()) -
           1;
  };
  const auto wrap = [](int i, int n) { return ((i % n) + n) % n; };
  // Every brick's cells, in runs along x that stay on one mesh line (periodic images wrapped):
  // visit(tile, its first cell, the line's holder, the run's first point there, its length).
  const auto each_run = [&](const auto& visit) {
    for (int t = 0; t < tiles; ++t) {
      const Brick& b = bricks_[static_cast<std::size_t>(t)];
      std::size_t cell = 0;
      for (int z = 0; z < b.extent[2]; ++z)
        for (int y = 0; y < b.extent[1]; ++y) {
          const auto gy = static_cast<std::size_t>(wrap(b.lo[1] + y, n_[1]));
          const auto gz = static_cast<std::size_t>(wrap(b.lo[2] + z, n_[2]));
          const std::size_t line = gy + static_cast<std::size_t>(n_[1]) * gz;
          const int p = owner(line);
          for (int x = 0; x < b.extent[0];) {
            const int gx = wrap(b.lo[0] + x, n_[0]);
            const auto count = static_cast<std::size_t>(std::min(b.extent[0] - x, n_[0] - gx));
            visit(
                t, cell, p,
                (line - xp.first[static_cast<std::size_t>(p)]) * nx + static_cast<std::size_t>(gx),
                count);
            cell += count;
            x += static_cast<int>(count);
          }
        }
    }
  };
  // The holders' received runs, summed in this order.
  received_.assign(static_cast<std::size_t>(tiles), {});
  std::vector<std::size_t> incoming(static_cast<std::size_t>(tiles), 0);
  each_run([&](int, std::size_t, int p, std::size_t point, std::size_t count) {
    received_[static_cast<std::size_t>(p)].push_back({point, count});
    incoming[static_cast<std::size_t>(p)] += count;
  });
  const auto cells = [&](const Tile& t) {
    return bricks_[static_cast<std::size_t>(t.id())].cells();
  };
  density_ = runtime.create_variable<double>("md.pppm_density", cells);
  field_ = runtime.create_variable<double>("md.pppm_field",
                                           [&](const Tile& t) { return fields * cells(t); });
  incoming_ = runtime.create_variable<double>("md.pppm_incoming", [&](const Tile& t) {
    return incoming[static_cast<std::size_t>(t.id())];
  });
  variables_ = true;
  // The charges' way to the holders (each holder's runs side by side in that order), and the
  // fields' way back to every cell of every brick.
  ExchangePlanBuilder up("md.pppm_to_pencils"), down("md.pppm_to_bricks");
  std::vector<std::size_t> filled(static_cast<std::size_t>(tiles), 0);
  each_run([&](int t, std::size_t cell, int p, std::size_t point, std::size_t count) {
    up.copy(density_, t, cell, incoming_, p, filled[static_cast<std::size_t>(p)], count);
    filled[static_cast<std::size_t>(p)] += count;
    const std::size_t lines = xp.lines(p), brick = bricks_[static_cast<std::size_t>(t)].cells();
    for (std::size_t f = 0; f < fields; ++f)
      down.copy_strided(fft_->x_data(), p, 2 * (f * lines * nx + point), 2, field_, t,
                        f * brick + cell, 1, count);
  });
  to_pencils_.emplace(runtime.compile(up));
  to_bricks_.emplace(runtime.compile(down));

  compute_greens(runtime);
}

// The Green's function and virial coefficients of each tile's k-points in the z-pencils (LAMMPS's
// setup and compute_gf_ik), lines kx + nx ky, kz along each: a superstep, each tile charged for
// its aliasing sums.
void KSpacePPPM::compute_greens(Runtime& runtime) {
  const Fft3d::Pencils& zp = fft_->z_pencils();
  const auto nx = static_cast<std::size_t>(n_[0]);
  std::array<double, 3> unitk{};
  for (std::size_t d = 0; d < 3; ++d) unitk[d] = two_pi / prd_[d];
  std::array<int, 3> nb{};
  for (std::size_t d = 0; d < 3; ++d)
    nb[d] =
        static_cast<int>((g_ewald_ * prd_[d] / (pi * n_[d])) * std::pow(-std::log(eps_hoc), 0.25));
  const int twoorder = 2 * order_;
  const auto per = [&](int i, std::size_t d) { return i - n_[d] * (2 * i / n_[d]); };
  // Per k-point: the aliasing sums' terms (an exponential and a sine power each, counted as 8
  // divisions, and 20 operations), the denominator and the virial coefficients.
  KernelWork work;
  const double terms = (2.0 * nb[0] + 1) * (2.0 * nb[1] + 1) * (2.0 * nb[2] + 1);
  work.flops_fp64 = 20.0 * terms + 40.0;
  work.transcendentals_fp64 = 8.0 * terms + 10.0;
  work.bytes_stored = 56;
  work.value_bytes = 8;
  greens_.resize(static_cast<std::size_t>(runtime.target().total_tiles()));
  runtime.superstep("md.pppm_greens", [&](Tile& tile) {
    const int t = tile.id();
    auto& g = greens_[static_cast<std::size_t>(t)];
    const std::size_t lines = zp.lines(t);
    g.assign(7 * lines * static_cast<std::size_t>(n_[2]), 0.0);
    for (std::size_t l = 0; l < lines; ++l) {
      const std::size_t line = zp.first[static_cast<std::size_t>(t)] + l;
      const int k = static_cast<int>(line % nx), j = static_cast<int>(line / nx);
      for (int m = 0; m < n_[2]; ++m) {
        double* out = &g[7 * (l * static_cast<std::size_t>(n_[2]) + static_cast<std::size_t>(m))];
        const int kper = per(k, 0), lper = per(j, 1), mper = per(m, 2);
        const double snx = square(std::sin(0.5 * unitk[0] * kper * prd_[0] / n_[0]));
        const double sny = square(std::sin(0.5 * unitk[1] * lper * prd_[1] / n_[1]));
        const double snz = square(std::sin(0.5 * unitk[2] * mper * prd_[2] / n_[2]));
        const double sqk =
            square(unitk[0] * kper) + square(unitk[1] * lper) + square(unitk[2] * mper);
        if (sqk == 0.0) continue;                   // greensfn and vg 0
        const double numerator = 12.5663706 / sqk;  // LAMMPS's 4 pi, to 9 digits
        const double denominator = gf_denom(snx, sny, snz);
        double sum1 = 0.0;
        for (int ix = -nb[0]; ix <= nb[0]; ix++) {
          const double qx = unitk[0] * (kper + n_[0] * ix);
          const double sx = std::exp(-0.25 * square(qx / g_ewald_));
          const double wx = powsinxx(0.5 * qx * prd_[0] / n_[0], twoorder);
          for (int iy = -nb[1]; iy <= nb[1]; iy++) {
            const double qy = unitk[1] * (lper + n_[1] * iy);
            const double sy = std::exp(-0.25 * square(qy / g_ewald_));
            const double wy = powsinxx(0.5 * qy * prd_[1] / n_[1], twoorder);
            for (int iz = -nb[2]; iz <= nb[2]; iz++) {
              const double qz = unitk[2] * (mper + n_[2] * iz);
              const double sz = std::exp(-0.25 * square(qz / g_ewald_));
              const double wz = powsinxx(0.5 * qz * prd_[2] / n_[2], twoorder);
              const double dot1 =
                  unitk[0] * kper * qx + unitk[1] * lper * qy + unitk[2] * mper * qz;
              const double dot2 = qx * qx + qy * qy + qz * qz;
              sum1 += (dot1 / dot2) * sx * sy * sz * wx * wy * wz;
            }
          }
        }
        out[0] = numerator * sum1 / denominator;
        const double fkx = unitk[0] * kper, fky = unitk[1] * lper, fkz = unitk[2] * mper;
        const double vsqk = fkx * fkx + fky * fky + fkz * fkz;
        const double vterm = -2.0 * (1.0 / vsqk + 0.25 / (g_ewald_ * g_ewald_));
        out[1] = 1.0 + vterm * fkx * fkx;
        out[2] = 1.0 + vterm * fky * fky;
        out[3] = 1.0 + vterm * fkz * fkz;
        out[4] = vterm * fkx * fky;
        out[5] = vterm * fkx * fkz;
        out[6] = vterm * fky * fkz;
      }
    }
    tile.charge(work, lines * static_cast<std::size_t>(n_[2]));
  });
}

void KSpacePPPM::compute(Runtime& runtime, const std::function<KSpaceTile(Tile&)>& view,
                         bool energy_virial, bool per_atom, double& energy,
                         std::array<double, 6>& virial) {
  // The per-atom energies and virials need 7 more fields through the FFT (LAMMPS's
  // poisson_peratom): made the first time they are asked for (collective: every rank asks).
  const std::size_t fields = per_atom ? 10 : 3;
  if (fields_ < fields) build(runtime, fields);
  const KernelWork stencil = stencil_work(order_);
  const auto stencil_size = static_cast<std::size_t>(order_);
  // 1. Each tile's atoms' charges on its brick (LAMMPS's particle_map and make_rho), sent to the
  //    x-pencils' holders.
  runtime.superstep(
      "md.pppm_charges",
      [&](Tile& tile) {
        KSpaceTile t = view(tile);
        const Brick& b = bricks_[static_cast<std::size_t>(tile.id())];
        auto rho = tile.get(density_);
        std::fill(rho.begin(), rho.end(), 0.0);
        std::array<std::array<double, 8>, 3> w{};
        const std::size_t n = t.q.size();
        for (std::size_t i = 0; i < n; ++i) {
          double d[3];
          const auto p = mesh_point(&t.x[3 * i], d);
          for (std::size_t dim = 0; dim < 3; ++dim)
            if (p[dim] + nlower_ < b.lo[dim] || p[dim] + nupper_ >= b.lo[dim] + b.extent[dim])
              throw Error(
                  "kspace_style pppm: an atom is out of its tile's reach on the mesh "
                  "(LAMMPS: \"Out of range atoms - cannot compute PPPM\"): it moved "
                  "more than half the skin since the last rebuild; check the input or "
                  "rebuild the lists more often");
          rho1d(d, w);
          const double z0 = delvolinv_ * t.q[i];
          for (int nz = nlower_; nz <= nupper_; nz++) {
            const std::size_t mz = static_cast<std::size_t>(p[2] + nz - b.lo[2]);
            const double y0 = z0 * w[2][static_cast<std::size_t>(nz - nlower_)];
            for (int ny = nlower_; ny <= nupper_; ny++) {
              const std::size_t my = static_cast<std::size_t>(p[1] + ny - b.lo[1]);
              const double x0 = y0 * w[1][static_cast<std::size_t>(ny - nlower_)];
              double* row = &rho[(mz * static_cast<std::size_t>(b.extent[1]) + my) *
                                     static_cast<std::size_t>(b.extent[0]) +
                                 static_cast<std::size_t>(p[0] + nlower_ - b.lo[0])];
              for (std::size_t l = 0; l < stencil_size; ++l) row[l] += x0 * w[0][l];
            }
          }
        }
        tile.charge(stencil, n);
      },
      {&*to_pencils_});
  // 2. The x-pencils: the received cells summed into their points (in arrival order).
  const Variable<double> pencils = fft_->x_data();
  runtime.superstep("md.pppm_sum", [&](Tile& tile) {
    auto x = tile.get(pencils);
    std::fill(x.begin(), x.end(), 0.0);
    const auto in = tile.get(incoming_);
    std::size_t k = 0;
    for (const Run& r : received_[static_cast<std::size_t>(tile.id())])
      for (std::size_t j = 0; j < r.count; ++j) x[2 * (r.point + j)] += in[k++];
    KernelWork add;
    add.flops_fp64 = 1, add.bytes_loaded = 16, add.bytes_stored = 8, add.value_bytes = 8;
    tile.charge(add, k);
  });
  // 3. rho(k); 4. the energy and virial, V(k) = G(k) rho(k) / N, and the three gradient fields
  //    -i k V(k) (LAMMPS's poisson_ik).
  fft_->forward(1);
  const double scaleinv = 1.0 / (static_cast<double>(n_[0]) * n_[1] * n_[2]);
  const double s2 = scaleinv * scaleinv;
  std::array<double, 3> unitk{};
  for (std::size_t d = 0; d < 3; ++d) unitk[d] = two_pi / prd_[d];
  const Fft3d::Pencils& zp = fft_->z_pencils();
  const Variable<double> spectrum = fft_->z_data();
  const auto nx = static_cast<std::size_t>(n_[0]), nz = static_cast<std::size_t>(n_[2]);
  const auto sums = runtime.all_reduce<double>(
      "md.pppm_poisson", ReduceOp::sum, 7, [&](Tile& tile, std::span<double> out) {
        std::fill(out.begin(), out.end(), 0.0);
        auto data = tile.get(spectrum);
        const auto& g = greens_[static_cast<std::size_t>(tile.id())];
        const std::size_t lines = zp.lines(tile.id());
        const std::size_t field = 2 * lines * nz;  // doubles per field
        for (std::size_t l = 0; l < lines; ++l) {
          const std::size_t line = zp.first[static_cast<std::size_t>(tile.id())] + l;
          const int k = static_cast<int>(line % nx), j = static_cast<int>(line / nx);
          const double fkx = unitk[0] * (k - n_[0] * (2 * k / n_[0]));
          const double fky = unitk[1] * (j - n_[1] * (2 * j / n_[1]));
          for (std::size_t m = 0; m < nz; ++m) {
            const int mi = static_cast<int>(m);
            const double fkz = unitk[2] * (mi - n_[2] * (2 * mi / n_[2]));
            const double* gv = &g[7 * (l * nz + m)];
            double* w = &data[2 * (l * nz + m)];
            if (energy_virial) {
              const double eng = s2 * gv[0] * (w[0] * w[0] + w[1] * w[1]);
              for (std::size_t c = 0; c < 6; ++c) out[1 + c] += eng * gv[1 + c];
              out[0] += eng;
            }
            const double re = w[0] * (scaleinv * gv[0]), im = w[1] * (scaleinv * gv[0]);
            const double fk[3] = {fkx, fky, fkz};
            for (std::size_t f = 0; f < 3; ++f) {
              data[f * field + 2 * (l * nz + m)] = -fk[f] * im;
              data[f * field + 2 * (l * nz + m) + 1] = fk[f] * re;
            }
            if (!per_atom) continue;
            // The potential (u) and the virial's six components (v0..v5) of V(k).
            data[3 * field + 2 * (l * nz + m)] = re;
            data[3 * field + 2 * (l * nz + m) + 1] = im;
            for (std::size_t c = 0; c < 6; ++c) {
              data[(4 + c) * field + 2 * (l * nz + m)] = re * gv[1 + c];
              data[(4 + c) * field + 2 * (l * nz + m) + 1] = im * gv[1 + c];
            }
          }
        }
        KernelWork poisson;
        poisson.flops_fp64 = 30, poisson.bytes_loaded = 72, poisson.bytes_stored = 48;
        poisson.value_bytes = 8;
        tile.charge(poisson, lines * nz);
      });
  // 5. The fields back on the mesh; 6. on every brick's cells; 7. the forces (fieldforce_ik).
  fft_->backward(fields);
  runtime.exchange("md.pppm_to_bricks", {&*to_bricks_});
  runtime.superstep("md.pppm_forces", [&](Tile& tile) {
    KSpaceTile t = view(tile);
    const Brick& b = bricks_[static_cast<std::size_t>(tile.id())];
    const auto e = tile.get(field_);
    const std::size_t cells = b.cells();
    std::array<std::array<double, 8>, 3> w{};
    const std::size_t n = t.q.size();
    for (std::size_t i = 0; i < n; ++i) {
      double d[3];
      const auto p = mesh_point(&t.x[3 * i], d);
      rho1d(d, w);
      // The fields at the atom (the gradient's 3 components; with per-atom terms also the
      // potential and the virial's 6), LAMMPS's fieldforce_ik and fieldforce_peratom in one pass.
      const std::size_t used = t.per_atom ? 10 : 3;
      double at[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
      for (int mz = nlower_; mz <= nupper_; mz++) {
        const std::size_t cz = static_cast<std::size_t>(p[2] + mz - b.lo[2]);
        const double z0 = w[2][static_cast<std::size_t>(mz - nlower_)];
        for (int my = nlower_; my <= nupper_; my++) {
          const std::size_t cy = static_cast<std::size_t>(p[1] + my - b.lo[1]);
          const double y0 = z0 * w[1][static_cast<std::size_t>(my - nlower_)];
          const std::size_t row = (cz * static_cast<std::size_t>(b.extent[1]) + cy) *
                                      static_cast<std::size_t>(b.extent[0]) +
                                  static_cast<std::size_t>(p[0] + nlower_ - b.lo[0]);
          for (std::size_t l = 0; l < stencil_size; ++l) {
            const double x0 = y0 * w[0][l];
            for (std::size_t f = 0; f < used; ++f) at[f] += x0 * e[f * cells + row + l];
          }
        }
      }
      // E = -grad V; the force q E.
      const double qfactor = qqrd2e_ * t.q[i];
      for (std::size_t f = 0; f < 3; ++f) t.f[3 * i + f] += qfactor * -at[f];
      if (!t.per_atom) continue;
      // The per-atom terms scaled as LAMMPS's: half of q u less the self and neutralising
      // terms, and half of q v, in energy units.
      const double qi = t.q[i];
      double eatom = qi * at[3];
      eatom *= 0.5;
      eatom -=
          g_ewald_ * qi * qi / sqrt_pi + half_pi * qi * qsum_ / (g_ewald_ * g_ewald_ * volume_);
      t.eatom[i] += eatom * qqrd2e_;
      for (std::size_t c = 0; c < 6; ++c) t.vatom[6 * i + c] += qi * at[4 + c] * (0.5 * qqrd2e_);
    }
    tile.charge(stencil, (per_atom ? 4 : 2) * n);
  });
  if (!energy_virial) return;
  const double qscale = qqrd2e_;
  energy = sums[0] * (0.5 * volume_);
  energy -=
      g_ewald_ * qsqsum_ / sqrt_pi + half_pi * qsum_ * qsum_ / (g_ewald_ * g_ewald_ * volume_);
  energy *= qscale;
  for (std::size_t c = 0; c < 6; ++c) virial[c] = 0.5 * qscale * volume_ * sums[1 + c];
}

}  // namespace tessera::md
