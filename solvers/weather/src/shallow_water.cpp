#include "tessera/weather/shallow_water.hpp"

#include <algorithm>
#include <cmath>

#include "tessera/core/error.hpp"
#include "tessera/weather/halo_exchange.hpp"

namespace tessera::weather {
namespace {

// Sadourny's terms read their nearest neighbours; Arakawa-Lamb's q combinations for a u
// point read corners one cell further, whose q reads one more.
constexpr Extent kEnergyExtent{1, 1, 1, 1};
constexpr Extent kArakawaLambExtent{2, 2, 2, 2};

bool arakawa_lamb(const ShallowWaterConfig& c) { return c.vorticity_flux == "arakawa-lamb"; }

int tracer_reach(const ShallowWaterConfig& c) {
  if (!c.tracer) return 0;
  return c.tracer_scheme == "upwind" ? UpwindAdvection::extent.halo()
                                     : LimitedAdvection::extent.halo();
}

// Halos of h, u, v and the tracer mass: the union of the extents of the stencils reading each.
std::vector<int> derive_halos(const ShallowWaterConfig& c) {
  c.validate();
  const int tracer = tracer_reach(c);
  const Extent dynamics = arakawa_lamb(c) ? kArakawaLambExtent : kEnergyExtent;
  Extent h = dynamics;
  // The tracer's face values read c = (h c) / h through the advection extent.
  if (c.tracer) h = h.merge({tracer, tracer, tracer, tracer});
  return {h.halo(), dynamics.halo(), dynamics.halo(), tracer};
}

}  // namespace

void ShallowWaterConfig::validate() const {
  if (grid.nx < 1 || grid.ny < 1)
    throw ConfigError("the grid needs at least one cell each way, got " + std::to_string(grid.nx) +
                      " x " + std::to_string(grid.ny));
  if (!(grid.dx > 0) || !(grid.dy > 0))
    throw ConfigError("grid spacings must be positive, got dx = " + std::to_string(grid.dx) +
                      " m, dy = " + std::to_string(grid.dy) + " m");
  if (!(g > 0)) throw ConfigError("gravity must be positive, got " + std::to_string(g));
  if (tracer_scheme != "upwind" && tracer_scheme != "limited")
    throw ConfigError("unknown tracer scheme '" + tracer_scheme + "'; use upwind or limited");
  if (!(tracer_diffusivity >= 0))
    throw ConfigError("the tracer diffusivity must be >= 0, got " +
                      std::to_string(tracer_diffusivity));
  if (vorticity_flux != "energy" && vorticity_flux != "arakawa-lamb")
    throw ConfigError("unknown vorticity flux '" + vorticity_flux +
                      "'; use energy (Sadourny 1975) or arakawa-lamb (Arakawa & Lamb 1981)");
  if (kinematic && !tracer)
    throw ConfigError("kinematic mode moves only the tracer; enable the tracer");
}

ShallowWater::ShallowWater(Runtime& runtime, ShallowWaterConfig config)
    : runtime_(runtime),
      config_(std::move(config)),
      halos_(derive_halos(config_)),
      d_(config_.grid, runtime.target().total_tiles(),
         *std::max_element(halos_.begin(), halos_.end()) + 1) {
  const Grid& g = config_.grid;
  auto axis = [](bool periodic) -> std::shared_ptr<const BoundaryCondition> {
    if (periodic) return std::make_shared<Periodic>();
    return std::make_shared<ReflectiveWall>();
  };
  bc_x_ = axis(g.periodic_x);
  bc_y_ = axis(g.periodic_y);
  b_ = make_field(runtime_, d_, "weather.sw.topography", "b", Stagger::center, 1, bc_x_, bc_y_);
  topography_halo_ = compile_halo_exchange(runtime_, d_, std::span(&b_, 1), "weather.sw.b.halo");
  // Scratch diagnostics: computed on every tile from its own halos, never exchanged.
  mass_flux_x_ =
      make_field(runtime_, d_, "weather.sw.U", "U", Stagger::face_x, 1, nullptr, nullptr);
  mass_flux_y_ =
      make_field(runtime_, d_, "weather.sw.V", "V", Stagger::face_y, 1, nullptr, nullptr);
  if (!config_.kinematic) {
    bernoulli_ =
        make_field(runtime_, d_, "weather.sw.B", "B", Stagger::center, 1, nullptr, nullptr);
    pv_ = make_field(runtime_, d_, "weather.sw.q", "q", Stagger::corner, 1, nullptr, nullptr);
  }
  if (config_.tracer)
    concentration_ =
        make_field(runtime_, d_, "weather.sw.c", "c", Stagger::center, halos_[3], nullptr, nullptr);
  state_ = make_state("weather.sw.state");
}

State ShallowWater::make_state(const char* label) {
  State s;
  // In kinematic mode the velocities keep their initial halos: no boundary condition.
  const auto vx = config_.kinematic ? nullptr : bc_x_;
  const auto vy = config_.kinematic ? nullptr : bc_y_;
  s.fields.push_back(
      make_field(runtime_, d_, label, "h", Stagger::center, halos_[0], bc_x_, bc_y_));
  s.fields.push_back(make_field(runtime_, d_, label, "u", Stagger::face_x, halos_[1], vx, vy));
  s.fields.push_back(make_field(runtime_, d_, label, "v", Stagger::face_y, halos_[2], vx, vy));
  if (config_.tracer)
    s.fields.push_back(
        make_field(runtime_, d_, label, "tracer", Stagger::center, halos_[3], bc_x_, bc_y_));
  s.halo = std::make_shared<const ExchangePlan>(
      compile_halo_exchange(runtime_, d_, s.fields, std::string(label) + ".halo"));
  return s;
}

KernelWork ShallowWater::tendency_work() const {
  // Operations as the loops are written: U, V (+ B, q, du, dv, dh; Arakawa-Lamb's corner
  // combinations cost about 40 more), and the doubles the loops stream per point (mass
  // fluxes 3 + 3, Bernoulli 5, vorticity 4, tendencies 7: docs/performance.md), 15 loaded
  // and 7 stored; the tracer's fluxes and their divergence besides.
  double flops = config_.kinematic ? 2 : arakawa_lamb(config_) ? 100 : 60;
  double loads = config_.kinematic ? 4 : 15, stores = config_.kinematic ? 2 : 7;
  if (config_.tracer) {
    flops += (config_.tracer_scheme == "upwind" ? 10 : 32) + 1 +
             (config_.tracer_diffusivity > 0 ? 16 : 0);
    loads += config_.tracer_scheme == "upwind" ? 6 : 10;
    stores += 1;
  }
  return stencil_work(flops, 0, loads, stores);
}

double ShallowWater::coriolis(int j) const {
  const Grid& g = config_.grid;
  // A periodic y axis wraps the face row, so that a corner and its periodic image
  // (in a halo) carry the same f: the vorticity flux then stays antisymmetric
  // across the seam and energy and enstrophy stay conserved (a beta-plane is
  // discontinuous there, but consistently so).
  if (g.periodic_y) j = ((j % g.ny) + g.ny) % g.ny;
  return config_.f0 + config_.beta * (g.y_face(j) - (g.y0 + 0.5 * g.length_y()));
}

void ShallowWater::tendency(const State& q, const State& dq) {
  const Grid& g = config_.grid;
  const double dx = g.dx, dy = g.dy, grav = config_.g;
  const KernelWork work = tendency_work();
  runtime_.superstep("weather.sw.tendency", [&](Tile& t) {
    for (const Field& f : q.fields) apply_boundaries(t, d_, f);
    const int w = d_.width(t.id()), n = d_.height(t.id());
    const FieldView h = view(t, d_, q.fields[kH]), u = view(t, d_, q.fields[kU]),
                    v = view(t, d_, q.fields[kV]);
    const FieldView U = view(t, d_, mass_flux_x_), V = view(t, d_, mass_flux_y_);
    // Arakawa-Lamb also needs U, V and q one face further west and south.
    const bool al = arakawa_lamb(config_);
    const int lo = al ? -1 : 0;
    // Row pointers, restrict-qualified: the loops below then vectorise.
    for (int j = -1; j < n; ++j) {
      const double* __restrict hr = h.row(j);
      const double* __restrict ur = u.row(j);
      double* __restrict out = U.row(j);
      for (int i = lo; i <= w; ++i) out[i] = 0.5 * (hr[i - 1] + hr[i]) * ur[i];
    }
    for (int j = lo; j <= n; ++j) {
      const double* __restrict hr = h.row(j);
      const double* __restrict hs = h.row(j - 1);
      const double* __restrict vr = v.row(j);
      double* __restrict out = V.row(j);
      for (int i = -1; i < w; ++i) out[i] = 0.5 * (hs[i] + hr[i]) * vr[i];
    }
    const FieldView dh = view(t, d_, dq.fields[kH]), du = view(t, d_, dq.fields[kU]),
                    dv = view(t, d_, dq.fields[kV]);
    if (config_.kinematic) {
      for (int k = 0; k < 3; ++k) {
        const auto piece = t.get(dq.fields[static_cast<std::size_t>(k)].variable);
        std::fill(piece.begin(), piece.end(), 0.0);
      }
    } else {
      const FieldView b = view(t, d_, b_), B = view(t, d_, bernoulli_), pv = view(t, d_, pv_);
      const double inv_dx = 1 / dx, inv_dy = 1 / dy;
      for (int j = -1; j < n; ++j) {
        const double* __restrict hr = h.row(j);
        const double* __restrict br = b.row(j);
        const double* __restrict ur = u.row(j);
        const double* __restrict vr = v.row(j);
        const double* __restrict vn = v.row(j + 1);
        double* __restrict out = B.row(j);
        for (int i = -1; i < w; ++i)
          out[i] = grav * (hr[i] + br[i]) +
                   0.25 * (ur[i] * ur[i] + ur[i + 1] * ur[i + 1] + vr[i] * vr[i] + vn[i] * vn[i]);
      }
      const int j0 = d_.y_begin(t.id());
      for (int j = lo; j <= n; ++j) {
        const double f = coriolis(j0 + j);
        const double* __restrict hr = h.row(j);
        const double* __restrict hs = h.row(j - 1);
        const double* __restrict ur = u.row(j);
        const double* __restrict us = u.row(j - 1);
        const double* __restrict vr = v.row(j);
        double* __restrict out = pv.row(j);
        for (int i = lo; i <= w; ++i) {
          const double zeta = (vr[i] - vr[i - 1]) * inv_dx - (ur[i] - us[i]) * inv_dy;
          const double hc = 0.25 * (hr[i] + hr[i - 1] + hs[i] + hs[i - 1]);
          out[i] = (f + zeta) / hc;
        }
      }
      if (!al) {
        for (int j = 0; j < n; ++j) {
          const double* __restrict q0 = pv.row(j);
          const double* __restrict q1 = pv.row(j + 1);
          const double* __restrict U0 = U.row(j);
          const double* __restrict Us = U.row(j - 1);
          const double* __restrict V0 = V.row(j);
          const double* __restrict V1 = V.row(j + 1);
          const double* __restrict B0 = B.row(j);
          const double* __restrict Bs = B.row(j - 1);
          double* __restrict dur = du.row(j);
          double* __restrict dvr = dv.row(j);
          double* __restrict dhr = dh.row(j);
          // One loop per output: GCC vectorises these, not the fused loop.
          for (int i = 0; i < w; ++i)
            dur[i] = 0.25 * (q0[i] * (V0[i - 1] + V0[i]) + q1[i] * (V1[i - 1] + V1[i])) -
                     (B0[i] - B0[i - 1]) * inv_dx;
          for (int i = 0; i < w; ++i)
            dvr[i] = -0.25 * (q0[i] * (Us[i] + U0[i]) + q0[i + 1] * (Us[i + 1] + U0[i + 1])) -
                     (B0[i] - Bs[i]) * inv_dy;
          for (int i = 0; i < w; ++i)
            dhr[i] = -((U0[i + 1] - U0[i]) * inv_dx + (V1[i] - V0[i]) * inv_dy);
        }
      } else {
        // Arakawa & Lamb (1981): with SW, SE, NW, NE the q at the corners of cell (i, j),
        // a = (2 NE + 2 SW + NW + SE) / 24 and b = (2 NW + 2 SE + NE + SW) / 24 weight
        // the V (U) sharing that cell with a u (v) point; e = (NE + NW - SW - SE) / 24 and
        // p = (NW + SW - NE - SE) / 24 couple neighbouring u (v) points.
        const double c24 = 1.0 / 24, ex = c24 * dy / dx, py = c24 * dx / dy;
        for (int j = 0; j < n; ++j) {
          const double* __restrict qs = pv.row(j - 1);
          const double* __restrict q0 = pv.row(j);
          const double* __restrict q1 = pv.row(j + 1);
          const double* __restrict U0 = U.row(j);
          const double* __restrict Us = U.row(j - 1);
          const double* __restrict V0 = V.row(j);
          const double* __restrict V1 = V.row(j + 1);
          const double* __restrict Vs = V.row(j - 1);
          const double* __restrict B0 = B.row(j);
          const double* __restrict Bs = B.row(j - 1);
          double* __restrict dur = du.row(j);
          double* __restrict dvr = dv.row(j);
          double* __restrict dhr = dh.row(j);
          // One loop per output, as above.
          for (int i = 0; i < w; ++i) {
            // u point: the cells (i, j) east and (i - 1, j) west of it, with the
            // diagonal sums d1 = NE + SW and d2 = NW + SE of each (a = 2 d1 + d2, b = 2 d2 + d1).
            const double d1_e = q1[i + 1] + q0[i], d2_e = q1[i] + q0[i + 1];
            const double d1_w = q1[i] + q0[i - 1], d2_w = q1[i - 1] + q0[i];
            const double e_e = q1[i + 1] + q1[i] - q0[i] - q0[i + 1];
            const double e_w = q1[i] + q1[i - 1] - q0[i - 1] - q0[i];
            dur[i] = c24 * ((2 * d1_e + d2_e) * V1[i] + (2 * d2_e + d1_e) * V0[i] +
                            (2 * d2_w + d1_w) * V1[i - 1] + (2 * d1_w + d2_w) * V0[i - 1]) +
                     ex * (e_w * U0[i - 1] - e_e * U0[i + 1]) - (B0[i] - B0[i - 1]) * inv_dx;
          }
          for (int i = 0; i < w; ++i) {
            // v point: the cells (i, j) north and (i, j - 1) south of it.
            const double d1_n = q1[i + 1] + q0[i], d2_n = q1[i] + q0[i + 1];
            const double d1_s = q0[i + 1] + qs[i], d2_s = q0[i] + qs[i + 1];
            const double p_n = q1[i] + q0[i] - q1[i + 1] - q0[i + 1];
            const double p_s = q0[i] + qs[i] - q0[i + 1] - qs[i + 1];
            dvr[i] = -c24 * ((2 * d2_n + d1_n) * U0[i] + (2 * d1_n + d2_n) * U0[i + 1] +
                             (2 * d1_s + d2_s) * Us[i] + (2 * d2_s + d1_s) * Us[i + 1]) +
                     py * (p_s * Vs[i] - p_n * V1[i]) - (B0[i] - Bs[i]) * inv_dy;
          }
          for (int i = 0; i < w; ++i)
            dhr[i] = -((U0[i + 1] - U0[i]) * inv_dx + (V1[i] - V0[i]) * inv_dy);
        }
      }
    }
    if (config_.tracer) {
      const FieldView m = view(t, d_, q.fields[kTracerMass]),
                      dm = view(t, d_, dq.fields[kTracerMass]), c = view(t, d_, concentration_);
      const int r = c.halo();
      for (int j = -r; j < n + r; ++j)
        for (int i = -r; i < w + r; ++i) c(i, j) = m(i, j) / h(i, j);
      if (config_.tracer_scheme == "upwind")
        UpwindAdvection::apply(dm, c, U, V, dx, dy);
      else
        LimitedAdvection::apply(dm, c, U, V, dx, dy);
      if (const double kappa = config_.tracer_diffusivity; kappa > 0) {
        // div(kappa h grad c) in flux form, so diffusion conserves the tracer mass too.
        const double ax = kappa / (dx * dx), ay = kappa / (dy * dy);
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < w; ++i)
            dm(i, j) += ax * (0.5 * (h(i + 1, j) + h(i, j)) * (c(i + 1, j) - c(i, j)) -
                              0.5 * (h(i, j) + h(i - 1, j)) * (c(i, j) - c(i - 1, j))) +
                        ay * (0.5 * (h(i, j + 1) + h(i, j)) * (c(i, j + 1) - c(i, j)) -
                              0.5 * (h(i, j) + h(i, j - 1)) * (c(i, j) - c(i, j - 1)));
      }
    }
    t.charge(work, static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(n));
  });
}

void ShallowWater::fill(const Field& f, const Function& fn) {
  const Grid& g = config_.grid;
  runtime_.superstep("weather.sw.initialize", [&](Tile& t) {
    const FieldView a = view(t, d_, f);
    const int i0 = d_.x_begin(t.id()), j0 = d_.y_begin(t.id()), hw = f.halo;
    for (int j = -hw; j < a.height() + hw; ++j)
      for (int i = -hw; i < a.width() + hw; ++i) {
        const bool xf = f.stagger == Stagger::face_x || f.stagger == Stagger::corner;
        const bool yf = f.stagger == Stagger::face_y || f.stagger == Stagger::corner;
        a(i, j) = fn(xf ? g.x_face(i0 + i) : g.x_center(i0 + i),
                     yf ? g.y_face(j0 + j) : g.y_center(j0 + j));
      }
  });
}

void ShallowWater::initialize(const Function& h, const Function& u, const Function& v,
                              const Function& c) {
  fill(state_.fields[kH], h);
  fill(state_.fields[kU], u);
  fill(state_.fields[kV], v);
  if (config_.tracer) {
    if (!c) throw ConfigError("the model carries a tracer: give its initial concentration");
    fill(state_.fields[kTracerMass], [&](double x, double y) { return h(x, y) * c(x, y); });
  }
  runtime_.exchange("weather.sw.halo", {state_.halo.get()});
}

void ShallowWater::set_topography(const Function& b) {
  fill(b_, b);
  runtime_.exchange("weather.sw.b.halo", {&topography_halo_});
}

void ShallowWater::require_cell_values(const std::vector<double>& values,
                                       const std::string& what) const {
  const Grid& g = config_.grid;
  if (values.size() != static_cast<std::size_t>(g.nx) * static_cast<std::size_t>(g.ny))
    throw ConfigError(what + " has " + std::to_string(values.size()) + " values for a " +
                      std::to_string(g.nx) + " x " + std::to_string(g.ny) + " grid");
}

void ShallowWater::set_topography(const std::vector<double>& b) {
  scatter_interior(runtime_, d_, b_, b, "topography");
  runtime_.exchange("weather.sw.b.halo", {&topography_halo_});
  // The halo beyond walls mirrors the interior.
  runtime_.superstep("weather.sw.b.boundary", [&](Tile& t) { apply_boundaries(t, d_, b_); });
}

void ShallowWater::set_depth(const std::vector<double>& depth) {
  const Grid& g = config_.grid;
  require_cell_values(depth, "the layer depth");
  for (std::size_t k = 0; k < depth.size(); ++k)
    if (!(depth[k] > 0) || !std::isfinite(depth[k]))
      throw ConfigError(
          "the layer depth must be positive, got " + std::to_string(depth[k]) +
          " m at cell (i, j) = (" + std::to_string(k % static_cast<std::size_t>(g.nx)) + ", " +
          std::to_string(k / static_cast<std::size_t>(g.nx)) + ") of the " + std::to_string(g.nx) +
          " x " + std::to_string(g.ny) + " grid, counted from the south-west");
  runtime_.superstep("weather.sw.initialize", [&](Tile& t) {
    const FieldView h = view(t, d_, state_.fields[kH]);
    const int i0 = d_.x_begin(t.id()), j0 = d_.y_begin(t.id());
    for (int j = 0; j < h.height(); ++j)
      for (int i = 0; i < h.width(); ++i) {
        const double v = depth[static_cast<std::size_t>(j0 + j) * static_cast<std::size_t>(g.nx) +
                               static_cast<std::size_t>(i0 + i)];
        if (config_.tracer) {
          const FieldView m = view(t, d_, state_.fields[kTracerMass]);
          m(i, j) = m(i, j) / h(i, j) * v;
        }
        h(i, j) = v;
      }
  });
  runtime_.exchange("weather.sw.halo", {state_.halo.get()});
}

Diagnostics ShallowWater::diagnostics() {
  const Grid& g = config_.grid;
  const double area = g.dx * g.dy, grav = config_.g;
  const std::vector<double> sums = runtime_.all_reduce<double>(
      "weather.sw.diagnostics", ReduceOp::sum, 4, [&](Tile& t, std::span<double> out) {
        for (const Field& f : state_.fields) apply_boundaries(t, d_, f);
        const FieldView h = view(t, d_, state_.fields[kH]), u = view(t, d_, state_.fields[kU]),
                        v = view(t, d_, state_.fields[kV]), b = view(t, d_, b_);
        const int j0 = d_.y_begin(t.id());
        double mass = 0, energy = 0, enstrophy = 0, tracer = 0;
        for (int j = 0; j < h.height(); ++j) {
          const double f = coriolis(j0 + j);
          for (int i = 0; i < h.width(); ++i) {
            const double k = 0.25 * (u(i, j) * u(i, j) + u(i + 1, j) * u(i + 1, j) +
                                     v(i, j) * v(i, j) + v(i, j + 1) * v(i, j + 1));
            mass += h(i, j);
            energy += h(i, j) * k + grav * h(i, j) * (0.5 * h(i, j) + b(i, j));
            const double zeta = (v(i, j) - v(i - 1, j)) / g.dx - (u(i, j) - u(i, j - 1)) / g.dy;
            const double hc = 0.25 * (h(i, j) + h(i - 1, j) + h(i, j - 1) + h(i - 1, j - 1));
            enstrophy += 0.5 * (f + zeta) * (f + zeta) / hc;
            if (config_.tracer) tracer += view(t, d_, state_.fields[kTracerMass])(i, j);
          }
        }
        out[0] = mass * area;
        out[1] = energy * area;
        out[2] = enstrophy * area;
        out[3] = tracer * area;
      });
  const std::vector<double> maxima = runtime_.all_reduce<double>(
      "weather.sw.extrema", ReduceOp::max, 4, [&](Tile& t, std::span<double> out) {
        const FieldView h = view(t, d_, state_.fields[kH]), u = view(t, d_, state_.fields[kU]),
                        v = view(t, d_, state_.fields[kV]);
        double cx = 0, cy = 0, neg_depth = -INFINITY, bad = 0;
        for (int j = 0; j < h.height(); ++j)
          for (int i = 0; i < h.width(); ++i) {
            const double c = std::sqrt(grav * std::max(h(i, j), 0.0));
            cx = std::max(cx, std::abs(u(i, j)) + c);
            cy = std::max(cy, std::abs(v(i, j)) + c);
            neg_depth = std::max(neg_depth, -h(i, j));
            for (const Field& f : state_.fields)
              if (!std::isfinite(view(t, d_, f)(i, j))) bad = 1;
          }
        out[0] = cx, out[1] = cy, out[2] = neg_depth, out[3] = bad;
      });
  Diagnostics d;
  d.mass = sums[0], d.energy = sums[1], d.potential_enstrophy = sums[2], d.tracer_mass = sums[3];
  d.max_wave_speed_x = maxima[0], d.max_wave_speed_y = maxima[1], d.min_depth = -maxima[2];
  d.finite = maxima[3] == 0 && std::isfinite(sums[0]) && std::isfinite(sums[1]);
  return d;
}

ErrorNorms ShallowWater::errors(int field, const Function& reference, double offset) {
  if (field != kH && !(field == kTracerMass && config_.tracer))
    throw ConfigError("error norms are defined for h and the tracer concentration");
  const Grid& g = config_.grid;
  auto value = [&](Tile& t, int i, int j) {
    const double h = view(t, d_, state_.fields[kH])(i, j);
    return field == kH ? h : view(t, d_, state_.fields[kTracerMass])(i, j) / h;
  };
  auto each = [&](Tile& t, const std::function<void(double e, double r)>& visit) {
    const int i0 = d_.x_begin(t.id()), j0 = d_.y_begin(t.id());
    for (int j = 0; j < d_.height(t.id()); ++j)
      for (int i = 0; i < d_.width(t.id()); ++i) {
        const double r = reference(g.x_center(i0 + i), g.y_center(j0 + j));
        visit(value(t, i, j) - r, r - offset);
      }
  };
  const std::vector<double> s = runtime_.all_reduce<double>(
      "weather.sw.errors", ReduceOp::sum, 4, [&](Tile& t, std::span<double> out) {
        std::fill(out.begin(), out.end(), 0.0);
        each(t, [&](double e, double r) {
          out[0] += std::abs(e), out[1] += std::abs(r), out[2] += e * e, out[3] += r * r;
        });
      });
  const std::vector<double> m = runtime_.all_reduce<double>(
      "weather.sw.errors", ReduceOp::max, 2, [&](Tile& t, std::span<double> out) {
        out[0] = out[1] = 0;
        each(t, [&](double e, double r) {
          out[0] = std::max(out[0], std::abs(e)), out[1] = std::max(out[1], std::abs(r));
        });
      });
  return {s[0] / s[1], std::sqrt(s[2]) / std::sqrt(s[3]), m[0] / m[1]};
}

std::uint64_t ShallowWater::checksum() { return state_checksum(runtime_, d_, state_.fields); }

std::vector<double> ShallowWater::gather(const std::string& name) {
  if (name != "h" && name != "u" && name != "v" && name != "b" && name != "c")
    throw ConfigError("no field '" + name + "' to gather; the fields are h, u, v, b, c");
  if (name == "c" && !config_.tracer) throw ConfigError("the model carries no tracer");
  for (const auto& tile : runtime_.local_tiles())
    for (const Field& f : state_.fields) apply_boundaries(*tile, d_, f);
  const Field& field = name == "b"   ? b_
                       : name == "u" ? state_.fields[kU]
                       : name == "v" ? state_.fields[kV]
                       : name == "c" ? state_.fields[kTracerMass]
                                     : state_.fields[kH];
  return gather_to_root(runtime_, d_, [&](Tile& t, int i, int j) {
    const FieldView x = view(t, d_, field);
    if (name == "u") return 0.5 * (x(i, j) + x(i + 1, j));  // averaged to the centre
    if (name == "v") return 0.5 * (x(i, j) + x(i, j + 1));
    if (name == "c") return x(i, j) / view(t, d_, state_.fields[kH])(i, j);
    return x(i, j);
  });
}

}  // namespace tessera::weather
