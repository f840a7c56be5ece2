#include "tessera/weather/primitive_equations.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include "tessera/core/error.hpp"
#include "tessera/weather/halo_exchange.hpp"
#include "tessera/weather/lat_lon.hpp"
#include "tessera/weather/operators.hpp"
#include "tessera/weather/polar_filter.hpp"

namespace tessera::weather {
namespace {

// ps is read two cells out (a face's mass flux one cell into the halo takes the layer
// thickness of the cell beyond it); u, v and T one cell out, two for del^4 (the Laplacian of
// the Laplacian).
constexpr int kSurfaceHalo = 2;
constexpr int kLayerHalo = 1;
constexpr int kDel4Halo = 2;

Grid sphere_grid(const AtmosphereConfig& c) {
  c.validate();
  return {.nx = c.nlon,
          .ny = c.nlat,
          .dx = 2 * std::numbers::pi / c.nlon,
          .dy = std::numbers::pi / c.nlat,
          .x0 = 0,
          .y0 = -std::numbers::pi / 2,
          .periodic_x = true,
          .periodic_y = false};
}

// The geometry of one column's layers for its surface pressure (Simmons & Burridge 1981): thickness
// dp_k, ln(p_{k+1/2} / p_{k-1/2}) and alpha_k.
struct ColumnGeometry {
  std::vector<double> dp, log_ratio, alpha;
  bool open_top = false;  // p = 0 on the top interface

  explicit ColumnGeometry(int layers)
      : dp(static_cast<std::size_t>(layers)),
        log_ratio(static_cast<std::size_t>(layers)),
        alpha(static_cast<std::size_t>(layers)) {}

  void set(const HybridLevels& lv, double ps) {
    const int nk = lv.layers();
    const double p0 = lv.reference_pressure;
    double upper = lv.a[0] * p0 + lv.b[0] * ps;
    open_top = upper <= 0;
    for (int k = 0; k < nk; ++k) {
      const auto s = static_cast<std::size_t>(k);
      const double lower = lv.a[s + 1] * p0 + lv.b[s + 1] * ps;
      dp[s] = lower - upper;
      if (k == 0 && open_top) {
        log_ratio[s] = 0;  // multiplies only the (empty) mass above the top
        alpha[s] = std::numbers::ln2;
      } else {
        log_ratio[s] = std::log(lower / upper);
        alpha[s] = 1 - upper / dp[s] * log_ratio[s];
      }
      upper = lower;
    }
  }
};

// u in fixed point for the zonal sums of the polar rows: integer sums are exact, so the sum
// does not depend on how the row is split over tiles. 2^-30 m/s resolution; |u| is clamped to
// 1e5 m/s (no overflow for up to 85 000 longitudes) and a non-finite u counts as 0 (it is
// still in the state, where the run's checks find it).
constexpr int kFixedPointBits = 30;
std::int64_t fixed_point(double u) {
  if (!std::isfinite(u)) return 0;
  return std::llround(std::ldexp(std::clamp(u, -1e5, 1e5), kFixedPointBits));
}

}  // namespace

void HybridLevels::validate() const {
  if (a.size() != b.size() || a.size() < 3)
    throw ConfigError(
        "hybrid levels need the same number (>= 3) of a and b interface values, got " +
        std::to_string(a.size()) + " and " + std::to_string(b.size()));
  if (!(reference_pressure > 0) || !std::isfinite(reference_pressure))
    throw ConfigError("the hybrid levels' reference pressure must be positive");
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!(a[k] >= 0) || !(b[k] >= 0) || !(b[k] <= 1) || !std::isfinite(a[k]))
      throw ConfigError("hybrid interface " + std::to_string(k) +
                        " has a = " + std::to_string(a[k]) + ", b = " + std::to_string(b[k]) +
                        "; need a >= 0 and 0 <= b <= 1");
  if (a.back() != 0 || b.back() != 1)
    throw ConfigError("the last hybrid interface must be the ground (a = 0, b = 1)");
  for (const double ps : {0.1 * reference_pressure, 1.2 * reference_pressure})
    for (std::size_t k = 0; k + 1 < a.size(); ++k)
      if (!(a[k + 1] * reference_pressure + b[k + 1] * ps > a[k] * reference_pressure + b[k] * ps))
        throw ConfigError("hybrid layer " + std::to_string(k) +
                          " does not have its pressure rise downwards for a surface pressure of " +
                          std::to_string(ps) + " Pa");
}

HybridLevels HybridLevels::cam26() {
  // CAM3's L26 hyai and hybi, top to ground (Jablonowski & Williamson 2006, Table 3).
  return {
      .a = {0.002194067, 0.004895209, 0.009882418, 0.01805201, 0.02983724, 0.04462334, 0.06160587,
            0.07851243,  0.07731271,  0.07590131,  0.07424086, 0.07228744, 0.06998933, 0.06728574,
            0.06410509,  0.06036322,  0.05596111,  0.05078225, 0.04468960, 0.03752191, 0.02908949,
            0.02084739,  0.01334443,  0.00708499,  0.00252136, 0.0,        0.0},
      .b = {0.0,       0.0,        0.0,        0.0,        0.0,        0.0,       0.0,
            0.0,       0.01505309, 0.03276228, 0.05359622, 0.07810627, 0.1069411, 0.1408637,
            0.1807720, 0.2277220,  0.2829562,  0.3479364,  0.4243822,  0.5143168, 0.6201202,
            0.7235355, 0.8176768,  0.8962153,  0.9534761,  0.9851122,  1.0},
      .reference_pressure = 1e5};
}

HybridLevels HybridLevels::uniform_sigma(int layers) {
  HybridLevels lv;
  for (int k = 0; k <= layers; ++k) {
    lv.a.push_back(0);
    lv.b.push_back(static_cast<double>(k) / layers);
  }
  return lv;
}

void AtmosphereConfig::validate() const {
  if (nlon < 4 || nlat < 4 || nlon % 2 != 0)
    throw ConfigError(
        "a latitude-longitude grid needs an even number of longitudes >= 4 and >= 4 "
        "latitudes, got " +
        std::to_string(nlon) + " x " + std::to_string(nlat));
  levels.validate();
  for (const auto& [name, value] :
       {std::pair{"radius", radius}, std::pair{"g", g}, std::pair{"rd", rd}, std::pair{"cp", cp}})
    if (!(value > 0) || !std::isfinite(value))
      throw ConfigError(std::string("the atmosphere's ") + name + " must be positive and finite");
  if (!(cp > rd)) throw ConfigError("the atmosphere's cp must exceed its gas constant rd");
  if (!(diffusion >= 0) || !std::isfinite(diffusion))
    throw ConfigError("the horizontal diffusion coefficient must be >= 0 and finite");
  if (!(hyperdiffusion >= 0) || !std::isfinite(hyperdiffusion))
    throw ConfigError("the del4 diffusion coefficient must be >= 0 and finite");
  if (sponge_layers < 0 || sponge_layers >= levels.layers())
    throw ConfigError("the sponge must have 0 to " + std::to_string(levels.layers() - 1) +
                      " layers (fewer than the model's " + std::to_string(levels.layers()) +
                      "), got " + std::to_string(sponge_layers));
  if (!(sponge_diffusion >= 0) || !std::isfinite(sponge_diffusion))
    throw ConfigError("the sponge's del2 coefficient must be >= 0 and finite");
  if ((sponge_layers > 0) != (sponge_diffusion > 0))
    throw ConfigError("a sponge needs both a number of layers and a del2 coefficient, got " +
                      std::to_string(sponge_layers) + " layers and " +
                      std::to_string(sponge_diffusion) + " m2/s");
  if (!std::isfinite(omega)) throw ConfigError("the rotation rate omega must be finite");
  if (!std::isfinite(rotation_axis_tilt))
    throw ConfigError("the rotation axis' tilt must be a finite angle");
  if (held_suarez) {
    const HeldSuarez& h = *held_suarez;
    for (const double rate : {h.friction_rate, h.free_atmosphere_rate, h.surface_rate})
      if (!(rate >= 0) || !std::isfinite(rate))
        throw ConfigError("the Held-Suarez relaxation rates must be >= 0 and finite");
    if (!(h.boundary_layer_top >= 0 && h.boundary_layer_top < 1))
      throw ConfigError("the Held-Suarez boundary-layer top sigma_b must be in [0, 1)");
  }
}

double AtmosphereConfig::del2_coefficient(int k) const {
  return diffusion + (k < sponge_layers ? std::ldexp(sponge_diffusion, sponge_layers - 1 - k) : 0);
}

double AtmosphereConfig::del4_coefficient(int k) const {
  return k < sponge_layers ? 0 : hyperdiffusion;
}

PrimitiveEquations::PrimitiveEquations(Runtime& runtime, AtmosphereConfig config)
    : runtime_(runtime),
      config_(std::move(config)),
      dlambda_(2 * std::numbers::pi / config_.nlon),
      dphi_(std::numbers::pi / config_.nlat),
      d_(sphere_grid(config_), runtime.target().total_tiles(), kSurfaceHalo + 1),
      layer_halo_(config_.hyperdiffusion > 0 ? kDel4Halo : kLayerHalo) {
  periodic_ = std::make_shared<Periodic>();
  pole_ = std::make_shared<ReflectiveWall>();  // v = 0 on the polar faces
  const int nk = layers();
  auto scratch = [&](const char* name, Stagger stagger, int halo = 1) {
    return make_field(runtime_, d_, "weather.atmosphere.work", name, stagger, halo, nullptr,
                      nullptr);
  };
  auto work = [&](std::vector<Field>& fields, int count, const char* name, Stagger stagger) {
    for (int k = 0; k < count; ++k) fields.push_back(scratch(name, stagger));
  };
  work(mass_flux_x_, nk, "U", Stagger::face_x);
  work(mass_flux_y_, nk, "V", Stagger::face_y);
  work(divergence_, nk, "M", Stagger::center);
  work(vertical_flux_, nk + 1, "etadot_dp", Stagger::center);
  work(geopotential_, nk, "Phi", Stagger::center);
  work(pressure_term_, nk, "P", Stagger::center);
  bernoulli_ = scratch("B", Stagger::center);
  // del^4 reads the divergence and vorticity one ring further out.
  vorticity_ = scratch("zeta", Stagger::corner, layer_halo_);
  potential_vorticity_ = scratch("q", Stagger::corner);
  velocity_divergence_ = scratch("D", Stagger::center, layer_halo_);
  if (config_.hyperdiffusion > 0) {
    laplacian_u_ = scratch("Lu", Stagger::face_x);
    laplacian_v_ = scratch("Lv", Stagger::face_y);
    laplacian_t_ = scratch("LT", Stagger::center);
    laplacian_divergence_ = scratch("LD", Stagger::center);
    laplacian_vorticity_ = scratch("Lzeta", Stagger::corner);
  }
  surface_geopotential_ = make_field(runtime_, d_, "weather.atmosphere.phis", "phis",
                                     Stagger::center, kLayerHalo, periodic_, pole_);
  state_ = make_state("weather.atmosphere.state");
  if (config_.polar_filter_latitude != 0) {
    std::vector<Stagger> staggers{Stagger::center};
    for (const Stagger s : {Stagger::face_x, Stagger::face_y, Stagger::center})
      staggers.insert(staggers.end(), static_cast<std::size_t>(nk), s);
    filter_ = std::make_unique<PolarFilter>(runtime_, d_, std::move(staggers),
                                            config_.polar_filter_latitude);
  }
}

PrimitiveEquations::~PrimitiveEquations() = default;

double PrimitiveEquations::lat_center(int j) const {
  return -std::numbers::pi / 2 + (j + 0.5) * dphi_;
}
double PrimitiveEquations::lat_face(int j) const { return -std::numbers::pi / 2 + j * dphi_; }
double PrimitiveEquations::diffusion_taper(double phi) const {
  const double phi_c = config_.polar_filter_latitude;
  return phi_c == 0 ? 1.0 : std::min(1.0, std::cos(phi) / std::cos(phi_c));
}
double PrimitiveEquations::cell_area(int j) const {
  const double a = config_.radius;
  return a * a * dlambda_ * (std::sin(lat_face(j + 1)) - std::sin(lat_face(j)));
}

State PrimitiveEquations::make_state(const char* label) {
  State s;
  s.fields.push_back(
      make_field(runtime_, d_, label, "ps", Stagger::center, kSurfaceHalo, periodic_, pole_));
  const int nk = layers();
  for (const auto& [name, stagger] :
       {std::pair{"u", Stagger::face_x}, std::pair{"v", Stagger::face_y},
        std::pair{"T", Stagger::center}})
    for (int k = 0; k < nk; ++k)
      s.fields.push_back(make_field(runtime_, d_, label, std::string(name) + std::to_string(k),
                                    stagger, layer_halo_, periodic_, pole_));
  s.halo = std::make_shared<const ExchangePlan>(
      compile_halo_exchange(runtime_, d_, s.fields, std::string(label) + ".halo"));
  return s;
}

double PrimitiveEquations::layer_eta(int k) const {
  const auto s = static_cast<std::size_t>(k);
  const HybridLevels& lv = config_.levels;
  return 0.5 * (lv.a[s] + lv.b[s] + lv.a[s + 1] + lv.b[s + 1]);
}

void PrimitiveEquations::tendency(const State& q, const State& dq) {
  const HybridLevels& lv = config_.levels;
  const int nk = layers(), ny = config_.nlat;
  // nu 2 / a^2 v: the term that makes the diffusion leave solid-body rotation alone (the
  // vector Laplacian alone damps it at 2 nu / a^2).
  const double solid_body = 2 / (config_.radius * config_.radius);
  const double a = config_.radius, dl = dlambda_, dp_lat = dphi_, rd = config_.rd,
               kappa = config_.rd / config_.cp, p0 = lv.reference_pressure;
  // Per point and layer, as the loops below are written: about 230 operations (mass fluxes
  // 25, column sums, geopotential and omega 35, Bernoulli function, vorticity and potential
  // vorticity 40, u and v 80, T 45), 7 divisions, a logarithm and the sine of a row; 42
  // doubles loaded (the state's stencils and the work fields read back) and 13 stored.
  // The Held-Suarez forcing adds about 30 operations and a power, a logarithm and a cosine;
  // del^2 about 35 operations, 2 divisions, 8 loads and a store (the divergence); del^4 about
  // 80 more, 2 divisions, 16 loads and 5 stores (the first Laplacians, their divergence and
  // vorticity), counted on every layer when on in any.
  int operations = 230, divisions = 9, loads = 42, stores = 13;
  if (config_.held_suarez) operations += 30, divisions += 3;
  if (config_.diffusion > 0 || config_.sponge_layers > 0)
    operations += 35, divisions += 2, loads += 8, stores += 1;
  if (config_.hyperdiffusion > 0) operations += 80, divisions += 2, loads += 16, stores += 5;
  const KernelWork work = stencil_work(operations, divisions, loads, stores);
  const std::vector<double> poles = polar_vorticity(q);
  const TileFunction compute = [&](Tile& t) {
    for (const Field& f : q.fields) apply_boundaries(t, d_, f);
    apply_boundaries(t, d_, surface_geopotential_);
    const int w = d_.width(t.id()), n = d_.height(t.id());
    const int j0 = d_.y_begin(t.id());
    const FieldView ps = view(t, d_, q.fields[ps_field]), dps = view(t, d_, dq.fields[ps_field]);
    const FieldView phis = view(t, d_, surface_geopotential_);
    auto layer_view = [&](const State& s, int field) {
      return view(t, d_, s.fields[static_cast<std::size_t>(field)]);
    };
    auto thickness = [&](int k, double surface) {
      const auto s = static_cast<std::size_t>(k);
      return (lv.a[s + 1] - lv.a[s]) * p0 + (lv.b[s + 1] - lv.b[s]) * surface;
    };
    // The centre quantities are needed one cell beyond the block's west and south sides
    // (the faces of the block's own cells read them there); the corner beyond both comes along.
    const int cx0 = -1, cx1 = w, cy0 = -1, cy1 = n;

    // C-grid operators on the local rows j (global j0 + j), for the mass fluxes and the
    // diffusion, with the rows' geometry computed once for the rows -3 .. n + 4: cos(phi) at
    // the centres and south faces, 1 / area, and 1 / (a cos(phi) dlambda) at the centres and
    // south faces.
    constexpr int pad = 3;
    const double inv_dy = 1 / (a * dp_lat);
    const std::size_t stride = static_cast<std::size_t>(n + 2 * pad + 2);
    std::vector<double> row_geometry(5 * stride);
    const auto row_table = [&](int table) {
      return [&row_geometry, table, stride](int j) -> double& {
        return row_geometry[static_cast<std::size_t>(table) * stride +
                            static_cast<std::size_t>(j + pad)];
      };
    };
    const auto cos_center = row_table(0), cos_face = row_table(1), inv_area_of = row_table(2),
               inv_dx_center = row_table(3), inv_dx_face = row_table(4);
    for (int j = -pad; j <= n + pad + 1; ++j) {
      cos_center(j) = std::cos(lat_center(j0 + j));
      cos_face(j) = std::cos(lat_face(j0 + j));
      inv_area_of(j) = 1 / cell_area(j0 + j);
      inv_dx_center(j) = 1 / (a * cos_center(j) * dl);
      inv_dx_face(j) = 1 / (a * cos_face(j) * dl);
    }
    // Divergence of the face vectors (x, y) at the cells [i0, i1) x [jl, jh).
    auto cell_divergence = [&](const FieldView& x, const FieldView& y, const FieldView& out, int i0,
                               int i1, int jl, int jh) {
      for (int j = jl; j < jh; ++j) {
        const double cos_s = cos_face(j), cos_n = cos_face(j + 1);
        const double inv_area = inv_area_of(j);
        for (int i = i0; i < i1; ++i)
          out(i, j) = ((x(i + 1, j) - x(i, j)) * a * dp_lat +
                       (y(i, j + 1) * cos_n - y(i, j) * cos_s) * a * dl) *
                      inv_area;
      }
    };
    // Relative vorticity of (x, y) at the corners [i0, i1] x [jl, jh]; at the poles `south`
    // and `north` (the polar caps' circulations, from polar_vorticity), 0 beyond them.
    auto corner_vorticity = [&](const FieldView& x, const FieldView& y, const FieldView& out,
                                int i0, int i1, int jl, int jh, double south, double north) {
      for (int j = jl; j <= jh; ++j) {
        const int jg = j0 + j;
        if (jg <= 0 || jg >= ny) {
          const double pole = jg == 0 ? south : jg == ny ? north : 0.0;
          for (int i = i0; i <= i1; ++i) out(i, j) = pole;
          continue;
        }
        const double cos_n = cos_center(j), cos_s = cos_center(j - 1);
        const double x_weight = inv_dx_face(j), y_weight = 1 / (a * cos_face(j) * dp_lat);
        for (int i = i0; i <= i1; ++i)
          out(i, j) = (y(i, j) - y(i - 1, j)) * x_weight -
                      (x(i, j) * cos_n - x(i, j - 1) * cos_s) * y_weight;
      }
    };
    // The vector Laplacian grad D + k x grad zeta + 2 x / a^2 at a u face and at a v face (not
    // a polar one), from the divergence D and vorticity zeta of x.
    auto vector_laplacian_u = [&](const FieldView& x, const FieldView& div, const FieldView& vort,
                                  int i, int j) {
      return (div(i, j) - div(i - 1, j)) * inv_dx_center(j) -
             (vort(i, j + 1) - vort(i, j)) * inv_dy + solid_body * x(i, j);
    };
    auto vector_laplacian_v = [&](const FieldView& x, const FieldView& div, const FieldView& vort,
                                  int i, int j) {
      return (div(i, j) - div(i, j - 1)) * inv_dy + (vort(i + 1, j) - vort(i, j)) * inv_dx_face(j) +
             solid_body * x(i, j);
    };
    // del^2 of a centred scalar in flux form; no flux crosses a pole.
    auto scalar_laplacian = [&](const FieldView& x, int i, int j) {
      const int jg = j0 + j;
      const double east_west =
          (x(i + 1, j) - 2 * x(i, j) + x(i - 1, j)) * inv_dx_center(j) * a * dp_lat;
      const double north =
          jg + 1 >= ny ? 0.0 : (x(i, j + 1) - x(i, j)) * cos_face(j + 1) * a * dl * inv_dy;
      const double south = jg <= 0 ? 0.0 : (x(i, j) - x(i, j - 1)) * cos_face(j) * a * dl * inv_dy;
      return (east_west + north - south) * inv_area_of(j);
    };

    // 1. Mass fluxes (Pa m/s: dp on the face times the normal wind) and their divergence
    //    M_k (Pa/s) per layer.
    for (int k = 0; k < nk; ++k) {
      const FieldView u = layer_view(q, u_field(k)), v = layer_view(q, v_field(k));
      const FieldView U = view(t, d_, mass_flux_x_[static_cast<std::size_t>(k)]),
                      V = view(t, d_, mass_flux_y_[static_cast<std::size_t>(k)]),
                      M = view(t, d_, divergence_[static_cast<std::size_t>(k)]);
      for (int j = cy0; j < cy1; ++j)
        for (int i = cx0; i <= cx1; ++i)
          U(i, j) = 0.5 * (thickness(k, ps(i - 1, j)) + thickness(k, ps(i, j))) * u(i, j);
      for (int j = cy0; j <= cy1; ++j)
        for (int i = cx0; i < cx1; ++i)
          V(i, j) = 0.5 * (thickness(k, ps(i, j - 1)) + thickness(k, ps(i, j))) * v(i, j);
      cell_divergence(U, V, M, cx0, cx1, cy0, cy1);
    }

    // 2. Column by column, top down: the surface-pressure tendency, the vertical mass flux
    //    eta-dot dp/deta at the interfaces, the pressure term
    //    P_k = R T_k (ln-ratio_k b_{k-1/2} + alpha_k db_k), whose face average over that of
    //    dp is R T grad ln p per unit grad ps, and in the block kappa T omega / p
    //    (with v . grad ps taken from the faces as the pressure term is); then bottom up the
    //    geopotential.
    auto views = [&](const std::vector<Field>& fields) {
      std::vector<FieldView> out;
      for (const Field& f : fields) out.push_back(view(t, d_, f));
      return out;
    };
    auto layer_views = [&](const State& st, int first) {
      std::vector<FieldView> out;
      for (int k = 0; k < nk; ++k) out.push_back(layer_view(st, first + k));
      return out;
    };
    const std::vector<FieldView> Ms = views(divergence_), mdot = views(vertical_flux_),
                                 Phis = views(geopotential_), Ps = views(pressure_term_),
                                 us = layer_views(q, u_field(0)), vs = layer_views(q, v_field(0)),
                                 Ts = layer_views(q, t_field(0)), dTs = layer_views(dq, t_field(0));
    ColumnGeometry column(nk);
    for (int j = cy0; j < cy1; ++j) {
      const double inv_dx = inv_dx_center(j);
      const auto [ws, wn] = y_face_weights(cos_face(j), cos_face(j + 1));
      for (int i = cx0; i < cx1; ++i) {
        const bool inside = i >= 0 && j >= 0 && i < w && j < n;
        column.set(lv, ps(i, j));
        double total = 0;
        for (int k = 0; k < nk; ++k) total += Ms[static_cast<std::size_t>(k)](i, j);
        if (inside) dps(i, j) = -total;
        double above = 0;  // sum of M over the layers above
        mdot[0](i, j) = 0;
        for (int k = 0; k < nk; ++k) {
          const auto l = static_cast<std::size_t>(k);
          const double temperature = Ts[l](i, j);
          // d ln p per unit change of ps, times dp (the bracket of R T grad ln p).
          const double ln_p_response =
              column.log_ratio[l] * lv.b[l] + column.alpha[l] * (lv.b[l + 1] - lv.b[l]);
          Ps[l](i, j) = rd * temperature * ln_p_response;
          if (inside) {
            const FieldView &u = us[l], &v = vs[l];
            const double v_grad_ps = 0.5 *
                                         (u(i, j) * (ps(i, j) - ps(i - 1, j)) +
                                          u(i + 1, j) * (ps(i + 1, j) - ps(i, j))) *
                                         inv_dx +
                                     (ws * v(i, j) * (ps(i, j) - ps(i, j - 1)) +
                                      wn * v(i, j + 1) * (ps(i, j + 1) - ps(i, j))) *
                                         inv_dy;
            const double omega_over_p =
                (-(column.log_ratio[l] * above + column.alpha[l] * Ms[l](i, j)) +
                 ln_p_response * v_grad_ps) /
                column.dp[l];
            dTs[l](i, j) = kappa * temperature * omega_over_p;
          }
          above += Ms[l](i, j);
          mdot[l + 1](i, j) = k + 1 == nk ? 0.0 : lv.b[l + 1] * total - above;
        }
        double phi_interface = phis(i, j);
        for (int k = nk - 1; k >= 0; --k) {
          const auto l = static_cast<std::size_t>(k);
          const double temperature = Ts[l](i, j);
          Phis[l](i, j) = phi_interface + column.alpha[l] * rd * temperature;
          phi_interface += rd * temperature * column.log_ratio[l];
        }
      }
    }

    // 3. Layer by layer: momentum and temperature.
    const FieldView B = view(t, d_, bernoulli_), zeta = view(t, d_, vorticity_),
                    potential_vorticity = view(t, d_, potential_vorticity_),
                    D = view(t, d_, velocity_divergence_);
    const std::optional<HeldSuarez>& forcing = config_.held_suarez;
    const double cos_tilt = std::cos(config_.rotation_axis_tilt),
                 sin_tilt = std::sin(config_.rotation_axis_tilt);
    std::vector<double> corner_cos_lambda(static_cast<std::size_t>(w + 1));
    for (int i = 0; i <= w; ++i)
      corner_cos_lambda[static_cast<std::size_t>(i)] = std::cos(lon_face(d_.x_begin(t.id()) + i));
    const bool del4 = config_.hyperdiffusion > 0;
    auto scratch_view = [&](const Field& f) {
      return del4 ? view(t, d_, f) : FieldView(nullptr, {});
    };
    const FieldView Lu = scratch_view(laplacian_u_), Lv = scratch_view(laplacian_v_),
                    LT = scratch_view(laplacian_t_), LD = scratch_view(laplacian_divergence_),
                    Lzeta = scratch_view(laplacian_vorticity_);

    for (int k = 0; k < nk; ++k) {
      const auto s = static_cast<std::size_t>(k);
      const FieldView u = layer_view(q, u_field(k)), v = layer_view(q, v_field(k)),
                      T = layer_view(q, t_field(k));
      // The layer midpoint's p = a_mid p0 + b_mid ps, for sigma = p / ps in the forcing.
      const double a_mid = 0.5 * (lv.a[s] + lv.a[s + 1]) * p0,
                   b_mid = 0.5 * (lv.b[s] + lv.b[s + 1]);
      auto sigma = [&](double surface) { return (a_mid + b_mid * surface) / surface; };
      const FieldView du = layer_view(dq, u_field(k)), dv = layer_view(dq, v_field(k)),
                      dT = layer_view(dq, t_field(k));
      const FieldView U = view(t, d_, mass_flux_x_[s]), V = view(t, d_, mass_flux_y_[s]),
                      Phi = view(t, d_, geopotential_[s]), P = view(t, d_, pressure_term_[s]);
      const FieldView m_above = view(t, d_, vertical_flux_[s]),
                      m_below = view(t, d_, vertical_flux_[s + 1]);
      // The neighbouring layers' fields (this layer's own at the top and bottom, where the
      // vertical flux that multiplies them is 0).
      const FieldView u_up = layer_view(q, u_field(std::max(k - 1, 0))),
                      u_down = layer_view(q, u_field(std::min(k + 1, nk - 1))),
                      v_up = layer_view(q, v_field(std::max(k - 1, 0))),
                      v_down = layer_view(q, v_field(std::min(k + 1, nk - 1))),
                      T_up = layer_view(q, t_field(std::max(k - 1, 0))),
                      T_down = layer_view(q, t_field(std::min(k + 1, nk - 1)));

      const double nu2 = config_.del2_coefficient(k), nu4 = config_.del4_coefficient(k);
      // del^4 reads the divergence and vorticity one ring further out than del^2 does.
      const int ring = nu4 > 0 ? 1 : 0;
      for (int j = cy0; j < cy1; ++j) {
        const auto [ws, wn] = y_face_weights(cos_face(j), cos_face(j + 1));
        for (int i = cx0; i < cx1; ++i) B(i, j) = Phi(i, j) + kinetic_energy(u, v, i, j, ws, wn);
      }
      if (nu2 > 0 || nu4 > 0)
        cell_divergence(u, v, D, cx0 - ring, cx1 + ring, cy0 - ring, cy1 + ring);
      // Relative vorticity at corners; at the poles the polar caps' (which the rotation term
      // does not read: potential vorticity is 0 there, where it multiplies v = 0), for the
      // diffusion of the polar rows' u.
      const auto pole = [&](int which) {
        return poles.empty() ? 0.0 : poles[static_cast<std::size_t>(4 * k + which)];
      };
      corner_vorticity(u, v, zeta, -ring, w + ring, -ring, n + ring, pole(0), pole(1));
      if (nu4 > 0) {
        // The first Laplacians where the second one reads them: faces and cells one ring
        // around the block, 0 beyond the poles (never read there: the polar faces' v and
        // corners' zeta are 0, and no T flux crosses a pole).
        for (int j = -1; j <= n; ++j) {
          const int jg = j0 + j;
          for (int i = -1; i <= w; ++i) {
            const bool row = jg >= 0 && jg < ny;
            Lu(i, j) = row ? vector_laplacian_u(u, D, zeta, i, j) : 0;
            LT(i, j) = row ? scalar_laplacian(T, i, j) : 0;
            Lv(i, j) = jg > 0 && jg < ny ? vector_laplacian_v(v, D, zeta, i, j) : 0;
          }
        }
        cell_divergence(Lu, Lv, LD, -1, w, -1, n);
        corner_vorticity(Lu, Lv, Lzeta, 0, w, 0, n, pole(2), pole(3));
      }
      // Potential vorticity (f + zeta) / dp at corners, once per corner for both components.
      for (int j = 0; j <= n; ++j) {
        const int jg = j0 + j;
        if (jg == 0 || jg == ny) {
          for (int i = 0; i <= w; ++i) potential_vorticity(i, j) = 0;
          continue;
        }
        // f = 2 Omega (sin phi cos alpha - cos lambda cos phi sin alpha) about the tilted axis
        // (exactly 2 Omega sin phi for alpha = 0).
        const double sin_part = std::sin(lat_face(jg)) * cos_tilt,
                     cos_part = std::cos(lat_face(jg)) * sin_tilt;
        for (int i = 0; i <= w; ++i) {
          const double f = 2 * config_.omega *
                           (sin_part - corner_cos_lambda[static_cast<std::size_t>(i)] * cos_part);
          const double dp_corner =
              0.25 * (thickness(k, ps(i, j)) + thickness(k, ps(i - 1, j)) +
                      thickness(k, ps(i, j - 1)) + thickness(k, ps(i - 1, j - 1)));
          potential_vorticity(i, j) = (f + zeta(i, j)) / dp_corner;
        }
      }

      for (int j = 0; j < n; ++j) {
        const int jg = j0 + j;
        const double phi = lat_center(jg);
        // The diffusion coefficients at this row's centres (u, T) and south faces (v).
        const double taper = diffusion_taper(phi), taper_face = diffusion_taper(lat_face(jg));
        const double nu2_row = nu2 * taper * taper, nu4_row = nu4 * std::pow(taper, 4),
                     nu2_face = nu2 * taper_face * taper_face,
                     nu4_face = nu4 * std::pow(taper_face, 4);
        const double cos_j = cos_center(j), cos_s = cos_face(j), cos_n = cos_face(j + 1);
        const double inv_dx = inv_dx_center(j), inv_area = inv_area_of(j);
        for (int i = 0; i < w; ++i) {
          // u at the west face (i, j).
          {
            const double inv_dp_face = 2 / (thickness(k, ps(i - 1, j)) + thickness(k, ps(i, j)));
            const double rotation =
                0.25 *
                (potential_vorticity(i, j) * (V(i - 1, j) + V(i, j)) * cos_s +
                 potential_vorticity(i, j + 1) * (V(i - 1, j + 1) + V(i, j + 1)) * cos_n) /
                cos_j;
            const double gradient =
                (B(i, j) - B(i - 1, j) +
                 0.5 * (P(i - 1, j) + P(i, j)) * inv_dp_face * (ps(i, j) - ps(i - 1, j))) *
                inv_dx;
            const double m_up = 0.5 * (m_above(i - 1, j) + m_above(i, j)),
                         m_down = 0.5 * (m_below(i - 1, j) + m_below(i, j));
            const double vertical =
                (m_down * (u_down(i, j) - u(i, j)) + m_up * (u(i, j) - u_up(i, j))) * 0.5 *
                inv_dp_face;
            double value = rotation - gradient - vertical;
            if (nu2 > 0) value += nu2_row * vector_laplacian_u(u, D, zeta, i, j);
            if (nu4 > 0) value -= nu4_row * vector_laplacian_u(Lu, LD, Lzeta, i, j);
            if (forcing)
              value -= forcing->friction(sigma(0.5 * (ps(i - 1, j) + ps(i, j)))) * u(i, j);
            du(i, j) = value;
          }
          // v at the south face (i, j); 0 on the polar face.
          if (jg == 0) {
            dv(i, j) = 0;
          } else {
            const double inv_dp_face = 2 / (thickness(k, ps(i, j - 1)) + thickness(k, ps(i, j)));
            const double rotation =
                -0.25 * (potential_vorticity(i, j) * (U(i, j - 1) + U(i, j)) +
                         potential_vorticity(i + 1, j) * (U(i + 1, j - 1) + U(i + 1, j)));
            const double gradient =
                (B(i, j) - B(i, j - 1) +
                 0.5 * (P(i, j - 1) + P(i, j)) * inv_dp_face * (ps(i, j) - ps(i, j - 1))) *
                inv_dy;
            const double m_up = 0.5 * (m_above(i, j - 1) + m_above(i, j)),
                         m_down = 0.5 * (m_below(i, j - 1) + m_below(i, j));
            const double vertical =
                (m_down * (v_down(i, j) - v(i, j)) + m_up * (v(i, j) - v_up(i, j))) * 0.5 *
                inv_dp_face;
            double value = rotation - gradient - vertical;
            if (nu2 > 0) value += nu2_face * vector_laplacian_v(v, D, zeta, i, j);
            if (nu4 > 0) value -= nu4_face * vector_laplacian_v(Lv, LD, Lzeta, i, j);
            if (forcing)
              value -= forcing->friction(sigma(0.5 * (ps(i, j - 1) + ps(i, j)))) * v(i, j);
            dv(i, j) = value;
          }
          // T at the centre (kappa T omega / p is there from step 2): centred advection in
          // flux form less T times the mass divergence, and vertical advection.
          {
            const double inv_dp = 1 / thickness(k, ps(i, j));
            const double east = U(i + 1, j) * a * dp_lat, west = U(i, j) * a * dp_lat,
                         north = V(i, j + 1) * cos_n * a * dl, south = V(i, j) * cos_s * a * dl;
            const double horizontal =
                0.5 *
                (east * (T(i + 1, j) - T(i, j)) + west * (T(i, j) - T(i - 1, j)) +
                 north * (T(i, j + 1) - T(i, j)) + south * (T(i, j) - T(i, j - 1))) *
                inv_area * inv_dp;
            const double vertical = (m_below(i, j) * (T_down(i, j) - T(i, j)) +
                                     m_above(i, j) * (T(i, j) - T_up(i, j))) *
                                    0.5 * inv_dp;
            double value = -horizontal - vertical;
            if (nu2 > 0) value += nu2_row * scalar_laplacian(T, i, j);
            if (nu4 > 0) value -= nu4_row * scalar_laplacian(LT, i, j);
            if (forcing) {
              const double p_mid = a_mid + b_mid * ps(i, j);
              value -= forcing->relaxation(phi, p_mid / ps(i, j)) *
                       (T(i, j) - forcing->equilibrium_temperature(phi, p_mid));
            }
            dT(i, j) += value;
          }
        }
      }
    }
    t.charge(work, static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(n) *
                       static_cast<std::uint64_t>(nk));
  };
  if (!filter_) {
    runtime_.superstep("weather.atmosphere.tendency", compute);
    return;
  }
  runtime_.superstep("weather.atmosphere.tendency", compute, {filter_->gather(dq.fields)});
  filter_->filter(dq.fields);
}

std::vector<double> PrimitiveEquations::polar_vorticity(const State& q) {
  const int nk = layers(), ny = config_.nlat, nx = config_.nlon;
  bool diffused = false;
  for (int k = 0; k < nk; ++k)
    diffused = diffused || config_.del2_coefficient(k) > 0 || config_.del4_coefficient(k) > 0;
  if (!diffused) return {};
  // Per layer, the zonal sums of u in the rows 0, 1, ny - 1 and ny - 2.
  const std::array<int, 4> rows{0, 1, ny - 1, ny - 2};
  const std::vector<std::int64_t> sums = runtime_.all_reduce<std::int64_t>(
      "weather.atmosphere.polar_circulation", ReduceOp::sum, static_cast<std::size_t>(4 * nk),
      [&](Tile& t, std::span<std::int64_t> out) {
        std::fill(out.begin(), out.end(), 0);
        const int j0 = d_.y_begin(t.id()), w = d_.width(t.id()), n = d_.height(t.id());
        for (int k = 0; k < nk; ++k) {
          const FieldView u = view(t, d_, q.fields[static_cast<std::size_t>(u_field(k))]);
          for (std::size_t r = 0; r < rows.size(); ++r) {
            const int j = rows[r] - j0;
            if (j < 0 || j >= n) continue;
            std::int64_t sum = 0;
            for (int i = 0; i < w; ++i) sum += fixed_point(u(i, j));
            out[static_cast<std::size_t>(4 * k) + r] = sum;
          }
        }
      });
  // The polar cap from a pole to the first row of u, of area 2 pi a^2 (1 - cos(dphi / 2)), has
  // the circulation of that row: -sum u a cos(phi) dlambda around the south pole (its boundary
  // runs westwards), +sum around the north pole. The first Laplacian L(v) = grad D +
  // k x grad zeta + 2 v / a^2 of del^4 has the circulation a cos(phi) dlambda sum L_u over the
  // same row, where grad D sums to 0 and the zonal sums of zeta one corner row in follow from
  // those of u in the first two rows.
  const double a = config_.radius, dl = dlambda_, dp = dphi_;
  const double cap = 2 * std::numbers::pi * a * a * (1 - std::cos(dp / 2));
  std::vector<double> poles(static_cast<std::size_t>(4 * nk));
  for (int k = 0; k < nk; ++k) {
    const auto at = [&](int r) {
      return std::ldexp(static_cast<double>(sums[static_cast<std::size_t>(4 * k + r)]),
                        -kFixedPointBits);
    };
    // sign: -1 around the south pole, +1 around the north; first: the polar row of u, second:
    // the next one; corner: the row of corners between them.
    auto cap_vorticity = [&](double sign, double first, double second, int first_row,
                             int second_row, int corner_row) {
      const double cos_first = std::cos(lat_center(first_row)),
                   cos_second = std::cos(lat_center(second_row));
      const double vorticity = sign * first * a * cos_first * dl / cap;
      // The zonal sum of zeta on the corner row between them (v's part sums to 0): in the
      // south (S0 cos phi_0 - S1 cos phi_1) / (dphi a cos phi_c), the negative in the north.
      const double corner_sum = -sign * (first * cos_first - second * cos_second) /
                                (dp * a * std::cos(lat_face(corner_row)));
      // The zonal sum of L_u on the polar row: -(sum zeta_corner - nx zeta_pole) / (a dphi)
      // from the south, (sum zeta_corner - nx zeta_pole) / (a dphi) from the north.
      const double laplacian_sum =
          sign * (corner_sum - nx * vorticity) / (a * dp) + 2 * first / (a * a);
      return std::pair{vorticity, sign * laplacian_sum * a * cos_first * dl / cap};
    };
    const auto [south, south_laplacian] = cap_vorticity(-1, at(0), at(1), 0, 1, 1);
    const auto [north, north_laplacian] = cap_vorticity(1, at(2), at(3), ny - 1, ny - 2, ny - 1);
    poles[static_cast<std::size_t>(4 * k)] = south;
    poles[static_cast<std::size_t>(4 * k + 1)] = north;
    poles[static_cast<std::size_t>(4 * k + 2)] = south_laplacian;
    poles[static_cast<std::size_t>(4 * k + 3)] = north_laplacian;
  }
  return poles;
}

void PrimitiveEquations::fill(const Field& f, const std::function<double(double, double)>& fn) {
  fill_lat_lon(runtime_, d_, f, fn);
}

void PrimitiveEquations::initialize(const SurfaceFunction& ps, const LayerFunction& u,
                                    const LayerFunction& v, const LayerFunction& t) {
  fill(state_.fields[ps_field], ps);
  for (int k = 0; k < layers(); ++k) {
    const double eta = layer_eta(k);
    auto field = [&](int index) { return state_.fields[static_cast<std::size_t>(index)]; };
    fill(field(u_field(k)), [&](double lambda, double phi) { return u(lambda, phi, eta); });
    fill(field(v_field(k)), [&](double lambda, double phi) {
      return std::abs(std::abs(phi) - std::numbers::pi / 2) < 1e-12 ? 0.0 : v(lambda, phi, eta);
    });
    fill(field(t_field(k)), [&](double lambda, double phi) { return t(lambda, phi, eta); });
  }
  runtime_.exchange("weather.atmosphere.halo", {state_.halo.get()});
}

void PrimitiveEquations::set_surface_geopotential(const SurfaceFunction& phis) {
  fill(surface_geopotential_, phis);
}

double PrimitiveEquations::mass() {
  const HybridLevels& lv = config_.levels;
  return runtime_.all_reduce<double>("weather.atmosphere.mass", ReduceOp::sum, [&](Tile& t) {
    const FieldView ps = view(t, d_, state_.fields[ps_field]);
    const int j0 = d_.y_begin(t.id());
    double m = 0;
    for (int j = 0; j < ps.height(); ++j) {
      double row = 0;
      for (int i = 0; i < ps.width(); ++i)
        row += ps(i, j) - (lv.a[0] * lv.reference_pressure + lv.b[0] * ps(i, j));
      m += row * cell_area(j0 + j) / config_.g;
    }
    return m;
  });
}

double PrimitiveEquations::total_energy() {
  const HybridLevels& lv = config_.levels;
  const int nk = layers();
  return runtime_.all_reduce<double>("weather.atmosphere.energy", ReduceOp::sum, [&](Tile& t) {
    for (const Field& f : state_.fields) apply_boundaries(t, d_, f);
    const FieldView ps = view(t, d_, state_.fields[ps_field]),
                    phis = view(t, d_, surface_geopotential_);
    const int j0 = d_.y_begin(t.id());
    ColumnGeometry column(nk);
    double e = 0;
    for (int j = 0; j < ps.height(); ++j) {
      const int jg = j0 + j;
      const auto [ws, wn] = y_face_weights(std::cos(lat_face(jg)), std::cos(lat_face(jg + 1)));
      double row = 0;
      for (int i = 0; i < ps.width(); ++i) {
        column.set(lv, ps(i, j));
        double column_energy = ps(i, j) * phis(i, j), phi_top = phis(i, j);
        for (int k = 0; k < nk; ++k) {
          const auto l = static_cast<std::size_t>(k);
          const FieldView u = view(t, d_, state_.fields[static_cast<std::size_t>(u_field(k))]),
                          v = view(t, d_, state_.fields[static_cast<std::size_t>(v_field(k))]),
                          temperature =
                              view(t, d_, state_.fields[static_cast<std::size_t>(t_field(k))]);
          const double kinetic = kinetic_energy(u, v, i, j, ws, wn);
          column_energy += (config_.cp * temperature(i, j) + kinetic) * column.dp[l];
          phi_top += config_.rd * temperature(i, j) * column.log_ratio[l];
        }
        const double p_top = lv.a[0] * lv.reference_pressure + lv.b[0] * ps(i, j);
        row += column_energy - (column.open_top ? 0.0 : p_top * phi_top);
      }
      e += row * cell_area(jg) / config_.g;
    }
    return e;
  });
}

std::vector<double> PrimitiveEquations::zonal_mean_u() {
  const int nk = layers(), ny = config_.nlat;
  std::vector<double> sums = runtime_.all_reduce<double>(
      "weather.atmosphere.zonal_mean", ReduceOp::sum, static_cast<std::size_t>(nk * ny),
      [&](Tile& t, std::span<double> out) {
        std::fill(out.begin(), out.end(), 0.0);
        const int j0 = d_.y_begin(t.id());
        for (int k = 0; k < nk; ++k) {
          const FieldView u = view(t, d_, state_.fields[static_cast<std::size_t>(u_field(k))]);
          for (int j = 0; j < u.height(); ++j)
            for (int i = 0; i < u.width(); ++i)
              out[static_cast<std::size_t>(k * ny + j0 + j)] += u(i, j);
        }
      });
  for (double& x : sums) x /= config_.nlon;
  return sums;
}

std::pair<double, double> PrimitiveEquations::surface_pressure_range() {
  const std::vector<double> r = runtime_.all_reduce<double>(
      "weather.atmosphere.ps_range", ReduceOp::max, 2, [&](Tile& t, std::span<double> out) {
        out[0] = out[1] = -std::numeric_limits<double>::infinity();
        const FieldView ps = view(t, d_, state_.fields[ps_field]);
        for (int j = 0; j < ps.height(); ++j)
          for (int i = 0; i < ps.width(); ++i)
            out[0] = std::max(out[0], -ps(i, j)), out[1] = std::max(out[1], ps(i, j));
      });
  return {-r[0], r[1]};
}

std::uint64_t PrimitiveEquations::checksum() { return state_checksum(runtime_, d_, state_.fields); }

double PrimitiveEquations::max_frequency() {
  const double a = config_.radius, kappa = config_.rd / config_.cp;
  const int nk = layers();
  return runtime_.all_reduce<double>("weather.atmosphere.cfl", ReduceOp::max, [&](Tile& t) {
    const int j0 = d_.y_begin(t.id()), w = d_.width(t.id()), n = d_.height(t.id());
    double r = 0;
    for (int k = 0; k < nk; ++k) {
      const FieldView u = view(t, d_, state_.fields[static_cast<std::size_t>(u_field(k))]),
                      v = view(t, d_, state_.fields[static_cast<std::size_t>(v_field(k))]),
                      temperature =
                          view(t, d_, state_.fields[static_cast<std::size_t>(t_field(k))]);
      const double nu2 = config_.del2_coefficient(k), nu4 = config_.del4_coefficient(k);
      for (int j = 0; j < n; ++j) {
        const double latitude = lat_center(j0 + j);
        const double zonal_cos = filter_ ? filter_->effective_cos(latitude) : std::cos(latitude);
        const double dx = a * zonal_cos * dlambda_, dy = a * dphi_;
        const double shortest = 4 / (dx * dx) + 4 / (dy * dy);
        const double decay = nu2 * shortest + nu4 * shortest * shortest;
        for (int i = 0; i < w; ++i) {
          const double c = std::sqrt(config_.rd * std::max(temperature(i, j), 0.0) / (1 - kappa));
          r = std::max(r, (std::abs(u(i, j)) + c) / dx + (std::abs(v(i, j)) + c) / dy + decay);
        }
      }
    }
    return r;
  });
}

std::vector<double> PrimitiveEquations::gather(const std::string& name, int layer) {
  const bool layered = name == "u" || name == "v" || name == "T";
  if (!layered && name != "ps" && name != "phis")
    throw ConfigError("no field '" + name + "' to gather; the fields are ps, phis, u, v, T");
  if (layered && (layer < 0 || layer >= layers()))
    throw ConfigError("no layer " + std::to_string(layer) + "; the layers are 0 to " +
                      std::to_string(layers() - 1));
  for (const auto& tile : runtime_.local_tiles())
    for (const Field& f : state_.fields) apply_boundaries(*tile, d_, f);
  const int index = name == "ps"  ? ps_field
                    : name == "u" ? u_field(layer)
                    : name == "v" ? v_field(layer)
                                  : t_field(layer);
  const Field& field =
      name == "phis" ? surface_geopotential_ : state_.fields[static_cast<std::size_t>(index)];
  return gather_to_root(runtime_, d_, [&](Tile& t, int i, int j) {
    const FieldView x = view(t, d_, field);
    if (name == "u") return 0.5 * (x(i, j) + x(i + 1, j));
    if (name == "v") return 0.5 * (x(i, j) + x(i, j + 1));
    return x(i, j);
  });
}

std::vector<double> PrimitiveEquations::gather_on_pressure_level(const std::string& name,
                                                                 double p) {
  if (name != "T" && name != "u" && name != "v" && name != "Z")
    throw ConfigError("no field '" + name + "' on pressure levels; they are T, u, v, Z");
  if (!(p > 0) || !std::isfinite(p))
    throw ConfigError("a pressure level must be a positive pressure in Pa, got " +
                      std::to_string(p));
  for (const auto& tile : runtime_.local_tiles())
    for (const Field& f : state_.fields) apply_boundaries(*tile, d_, f);
  const HybridLevels& lv = config_.levels;
  const int nk = layers();
  const double rd = config_.rd, g = config_.g, p0 = lv.reference_pressure;
  constexpr double lapse_rate = 6.5e-3;  // K/m, the ECMWF scheme's gamma
  const bool wind = name == "u" || name == "v";
  return gather_to_root(runtime_, d_, [&](Tile& t, int i, int j) {
    auto at = [&](int field) {
      const FieldView x = view(t, d_, state_.fields[static_cast<std::size_t>(field)]);
      if (name == "u") return 0.5 * (x(i, j) + x(i + 1, j));
      if (name == "v") return 0.5 * (x(i, j) + x(i, j + 1));
      return x(i, j);
    };
    const double ps = view(t, d_, state_.fields[ps_field])(i, j);
    auto interface_p = [&](int k) {
      const auto s = static_cast<std::size_t>(k);
      return lv.a[s] * p0 + lv.b[s] * ps;
    };
    auto mid_p = [&](int k) { return 0.5 * (interface_p(k) + interface_p(k + 1)); };
    auto value_of_layer = [&](int k) {
      return at(name == "u" ? u_field(k) : name == "v" ? v_field(k) : t_field(k));
    };
    if (name != "Z") {
      if (p >= mid_p(nk - 1)) {
        const double lowest = value_of_layer(nk - 1);
        if (wind) return lowest;
        // Between the lowest midpoint and the ground, linear in ln p from T_K to T*; below
        // the ground, the ECMWF extrapolation from T*.
        const double t_star = lowest * (1 + lapse_rate * rd / g * (ps / mid_p(nk - 1) - 1));
        if (p <= ps) {
          const double w = std::log(p / mid_p(nk - 1)) / std::log(ps / mid_p(nk - 1));
          return (1 - w) * lowest + w * t_star;
        }
        const double y = lapse_rate * rd / g * std::log(p / ps);
        return t_star * (1 + y + y * y / 2 + y * y * y / 6);
      }
      if (p <= mid_p(0)) return value_of_layer(0);
      int k = 0;
      while (mid_p(k + 1) < p) ++k;
      const double w = std::log(p / mid_p(k)) / std::log(mid_p(k + 1) / mid_p(k));
      return (1 - w) * value_of_layer(k) + w * value_of_layer(k + 1);
    }
    const double phis = view(t, d_, surface_geopotential_)(i, j);
    if (p > ps) {
      const double t_lowest = at(t_field(nk - 1));
      const double t_star = t_lowest * (1 + lapse_rate * rd / g * (ps / mid_p(nk - 1) - 1));
      const double y = lapse_rate * rd / g * std::log(p / ps);
      return (phis - rd * t_star * std::log(p / ps) * (1 + y / 2 + y * y / 6)) / g;
    }
    double phi = phis;  // at interface k + 1
    for (int k = nk - 1; k >= 0; --k) {
      const double temperature = at(t_field(k)), upper = interface_p(k), lower = interface_p(k + 1);
      if (p > upper) return (phi + rd * temperature * std::log(lower / p)) / g;
      phi += rd * temperature * std::log(lower / upper);
    }
    // Above the top interface (p > 0 there): isothermal at the top layer's T.
    return (phi + rd * at(t_field(0)) * std::log(interface_p(0) / p)) / g;
  });
}

}  // namespace tessera::weather
