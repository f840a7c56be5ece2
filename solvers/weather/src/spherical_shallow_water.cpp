#include "tessera/weather/spherical_shallow_water.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tessera/core/error.hpp"
#include "tessera/weather/halo_exchange.hpp"
#include "tessera/weather/lat_lon.hpp"
#include "tessera/weather/polar_filter.hpp"

namespace tessera::weather {
namespace {

// h is read through the limited advection extent in kinematic mode, and through
// the nearest-neighbour dynamics stencil otherwise; one halo of 2 serves both.
constexpr int kHeightHalo = LimitedAdvection::extent.west;
constexpr int kVelocityHalo = 1;

Grid sphere_grid(const SphereConfig& c) {
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

}  // namespace

void SphereConfig::validate() const {
  if (nlon < 4 || nlat < 4 || nlon % 2 != 0)
    throw ConfigError(
        "a latitude-longitude grid needs an even number of longitudes >= 4 and >= 4 "
        "latitudes, got " +
        std::to_string(nlon) + " x " + std::to_string(nlat));
  if (!(radius > 0) || !(g > 0))
    throw ConfigError("the sphere's radius and gravity must be positive");
  // The filter's latitude is checked by the filter itself (PolarFilter).
  if (polar_filter_latitude != 0 && kinematic)
    throw ConfigError(
        "the polar filter acts on the dynamic cases (2, 5 and 6), not on test case 1's "
        "prescribed flow");
}

SphericalShallowWater::SphericalShallowWater(Runtime& runtime, SphereConfig config)
    : runtime_(runtime),
      config_(config),
      dlambda_(2 * std::numbers::pi / config.nlon),
      dphi_(std::numbers::pi / config.nlat),
      d_(sphere_grid(config_), runtime.target().total_tiles(), kHeightHalo + 1) {
  periodic_ = std::make_shared<Periodic>();
  pole_ = std::make_shared<ReflectiveWall>();  // v = 0 on the polar faces
  flux_x_ = make_field(runtime_, d_, "weather.sphere.U", "U", Stagger::face_x, 1, nullptr, nullptr);
  flux_y_ = make_field(runtime_, d_, "weather.sphere.V", "V", Stagger::face_y, 1, nullptr, nullptr);
  if (!config_.kinematic) {
    bernoulli_ =
        make_field(runtime_, d_, "weather.sphere.B", "B", Stagger::center, 1, nullptr, nullptr);
    pv_ = make_field(runtime_, d_, "weather.sphere.q", "q", Stagger::corner, 1, nullptr, nullptr);
  }
  state_ = make_state("weather.sphere.state");
  if (config_.polar_filter_latitude != 0)
    filter_ = std::make_unique<PolarFilter>(
        runtime_, d_, std::vector<Stagger>{Stagger::center, Stagger::face_x, Stagger::face_y},
        config_.polar_filter_latitude);
}

SphericalShallowWater::~SphericalShallowWater() = default;

State SphericalShallowWater::make_state(const char* label) {
  State s;
  const auto vy = config_.kinematic ? nullptr : pole_;  // prescribed transports keep their halos
  const auto vx = config_.kinematic ? nullptr : periodic_;
  s.fields.push_back(
      make_field(runtime_, d_, label, "h", Stagger::center, kHeightHalo, periodic_, pole_));
  s.fields.push_back(make_field(runtime_, d_, label, "u", Stagger::face_x, kVelocityHalo, vx, vy));
  s.fields.push_back(make_field(runtime_, d_, label, "v", Stagger::face_y, kVelocityHalo, vx, vy));
  s.halo = std::make_shared<const ExchangePlan>(
      compile_halo_exchange(runtime_, d_, s.fields, std::string(label) + ".halo"));
  return s;
}

double SphericalShallowWater::coriolis(double lambda, double phi) const {
  const double a = config_.alpha;
  return 2 * config_.omega *
         (-std::cos(lambda) * std::cos(phi) * std::sin(a) + std::sin(phi) * std::cos(a));
}

void SphericalShallowWater::tendency(const State& q, const State& dq) {
  const double a = config_.radius, grav = config_.g, dl = dlambda_, dp = dphi_;
  const int ny = config_.nlat;
  // Operations per point as the loops below are written (the van Leer fluxes of the
  // kinematic case; the C-grid terms with their metric factors), and the doubles streamed.
  const KernelWork work =
      config_.kinematic ? stencil_work(40, 5, 12, 1) : stencil_work(75, 3, 16, 7);
  const TileFunction compute = [&](Tile& t) {
    for (const Field& f : q.fields) apply_boundaries(t, d_, f);
    const int w = d_.width(t.id()), n = d_.height(t.id());
    const int i0 = d_.x_begin(t.id()), j0 = d_.y_begin(t.id());
    const FieldView h = view(t, d_, q.fields[0]), u = view(t, d_, q.fields[1]),
                    v = view(t, d_, q.fields[2]);
    const FieldView dh = view(t, d_, dq.fields[0]), du = view(t, d_, dq.fields[1]),
                    dv = view(t, d_, dq.fields[2]);
    auto area = [&](int j) {
      return a * a * dl * (std::sin(lat_face(j0 + j + 1)) - std::sin(lat_face(j0 + j)));
    };
    if (config_.kinematic) {
      // u and v hold the face transports (m^3/s per metre of depth), fixed in time.
      for (const Field& f : {dq.fields[1], dq.fields[2]}) {
        const auto piece = t.get(f.variable);
        std::fill(piece.begin(), piece.end(), 0.0);
      }
      auto fx = [&](int i, int j) {
        return u(i, j) *
               VanLeerFace::value(u(i, j), h(i - 2, j), h(i - 1, j), h(i, j), h(i + 1, j));
      };
      auto fy = [&](int i, int j) {
        return v(i, j) *
               VanLeerFace::value(v(i, j), h(i, j - 2), h(i, j - 1), h(i, j), h(i, j + 1));
      };
      for (int j = 0; j < n; ++j) {
        const double inv_area = 1 / area(j);
        for (int i = 0; i < w; ++i)
          dh(i, j) = -(fx(i + 1, j) - fx(i, j) + fy(i, j + 1) - fy(i, j)) * inv_area;
      }
      t.charge(work, static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(n));
      return;
    }
    const FieldView U = view(t, d_, flux_x_), V = view(t, d_, flux_y_), B = view(t, d_, bernoulli_),
                    pv = view(t, d_, pv_);
    for (int j = -1; j < n; ++j)
      for (int i = 0; i <= w; ++i) U(i, j) = 0.5 * (h(i - 1, j) + h(i, j)) * u(i, j);
    for (int j = 0; j <= n; ++j)
      for (int i = -1; i < w; ++i) V(i, j) = 0.5 * (h(i, j - 1) + h(i, j)) * v(i, j);
    const bool mountains = topography_.has_value();
    const FieldView hs = mountains ? view(t, d_, *topography_) : h;
    for (int j = -1; j < n; ++j) {
      const auto [ws, wn] =
          y_face_weights(std::cos(lat_face(j0 + j)), std::cos(lat_face(j0 + j + 1)));
      for (int i = -1; i < w; ++i)
        B(i, j) = grav * (mountains ? h(i, j) + hs(i, j) : h(i, j)) +
                  kinetic_energy(u, v, i, j, ws, wn);
    }
    for (int j = 0; j <= n; ++j) {
      const int jg = j0 + j;
      if (jg == 0 || jg == ny) {  // polar corners: q multiplies v = 0 there
        for (int i = 0; i <= w; ++i) pv(i, j) = 0;
        continue;
      }
      const double cos_c = std::cos(lat_face(jg)), cos_n = std::cos(lat_center(jg)),
                   cos_s = std::cos(lat_center(jg - 1));
      for (int i = 0; i <= w; ++i) {
        const double zeta =
            ((v(i, j) - v(i - 1, j)) / dl - (u(i, j) * cos_n - u(i, j - 1) * cos_s) / dp) /
            (a * cos_c);
        const double hc = 0.25 * (h(i, j) + h(i - 1, j) + h(i, j - 1) + h(i - 1, j - 1));
        pv(i, j) = (coriolis(lon_face(i0 + i), lat_face(jg)) + zeta) / hc;
      }
    }
    for (int j = 0; j < n; ++j) {
      const int jg = j0 + j;
      const double cos_j = std::cos(lat_center(jg)), cos_s = std::cos(lat_face(jg)),
                   cos_n = std::cos(lat_face(jg + 1));
      const double inv_area = 1 / area(j);
      for (int i = 0; i < w; ++i) {
        du(i, j) = 0.25 *
                       (pv(i, j) * (V(i - 1, j) + V(i, j)) * cos_s +
                        pv(i, j + 1) * (V(i - 1, j + 1) + V(i, j + 1)) * cos_n) /
                       cos_j -
                   (B(i, j) - B(i - 1, j)) / (a * cos_j * dl);
        dv(i, j) = jg == 0 ? 0.0
                           : -0.25 * (pv(i, j) * (U(i, j - 1) + U(i, j)) +
                                      pv(i + 1, j) * (U(i + 1, j - 1) + U(i + 1, j))) -
                                 (B(i, j) - B(i, j - 1)) / (a * dp);
        dh(i, j) =
            -((U(i + 1, j) - U(i, j)) * a * dp + (V(i, j + 1) * cos_n - V(i, j) * cos_s) * a * dl) *
            inv_area;
      }
    }
    t.charge(work, static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(n));
  };
  if (!filter_) {
    runtime_.superstep("weather.sphere.tendency", compute);
    return;
  }
  // The rows poleward of the filter latitude go to their owners with this superstep's
  // exchange, are filtered there and come back in the next.
  runtime_.superstep("weather.sphere.tendency", compute, {filter_->gather(dq.fields)});
  filter_->filter(dq.fields);
}

void SphericalShallowWater::set_topography(const Function& hs) {
  if (config_.kinematic) throw ConfigError("a kinematic sphere has no momentum to feel mountains");
  if (!topography_)
    topography_ = make_field(runtime_, d_, "weather.sphere.hs", "hs", Stagger::center, kHeightHalo,
                             nullptr, nullptr);
  fill(*topography_, hs);
}

void SphericalShallowWater::fill(const Field& f, const Function& fn) {
  fill_lat_lon(runtime_, d_, f, fn);
}

void SphericalShallowWater::initialize(const Function& h, const Function& u, const Function& v) {
  if (config_.kinematic)
    throw ConfigError("a kinematic sphere is initialised from a stream function");
  fill(state_.fields[0], h);
  fill(state_.fields[1], u);
  fill(state_.fields[2], [&](double lambda, double phi) {
    return std::abs(std::abs(phi) - std::numbers::pi / 2) < 1e-12 ? 0.0 : v(lambda, phi);
  });
  runtime_.exchange("weather.sphere.halo", {state_.halo.get()});
}

void SphericalShallowWater::initialize_kinematic(const Function& h, const Function& psi) {
  if (!config_.kinematic) throw ConfigError("only a kinematic sphere takes a stream function");
  fill(state_.fields[0], h);
  // Transports through each face are differences of psi between its ends, so the
  // discrete divergence of the flow vanishes exactly.
  const double half_l = dlambda_ / 2, half_p = dphi_ / 2;
  fill(state_.fields[1], [&](double lambda, double phi) {
    return -(psi(lambda, std::min(phi + half_p, std::numbers::pi / 2)) -
             psi(lambda, std::max(phi - half_p, -std::numbers::pi / 2)));
  });
  fill(state_.fields[2], [&](double lambda, double phi) {
    return psi(lambda + half_l, phi) - psi(lambda - half_l, phi);
  });
  runtime_.exchange("weather.sphere.halo", {state_.halo.get()});
}

double SphericalShallowWater::mass() {
  const double a = config_.radius;
  return runtime_.all_reduce<double>("weather.sphere.mass", ReduceOp::sum, [&](Tile& t) {
    const FieldView h = view(t, d_, state_.fields[0]);
    const int j0 = d_.y_begin(t.id());
    double m = 0;
    for (int j = 0; j < h.height(); ++j) {
      double row = 0;
      for (int i = 0; i < h.width(); ++i) row += h(i, j);
      m += row * a * a * dlambda_ * (std::sin(lat_face(j0 + j + 1)) - std::sin(lat_face(j0 + j)));
    }
    return m;
  });
}

double SphericalShallowWater::energy() {
  const double a = config_.radius, grav = config_.g;
  return runtime_.all_reduce<double>("weather.sphere.energy", ReduceOp::sum, [&](Tile& t) {
    for (const Field& f : state_.fields) apply_boundaries(t, d_, f);
    const FieldView h = view(t, d_, state_.fields[0]), u = view(t, d_, state_.fields[1]),
                    v = view(t, d_, state_.fields[2]);
    const bool mountains = topography_.has_value();
    const FieldView hs = mountains ? view(t, d_, *topography_) : h;
    const int j0 = d_.y_begin(t.id());
    double e = 0;
    for (int j = 0; j < h.height(); ++j) {
      const double area =
          a * a * dlambda_ * (std::sin(lat_face(j0 + j + 1)) - std::sin(lat_face(j0 + j)));
      const auto [ws, wn] =
          y_face_weights(std::cos(lat_face(j0 + j)), std::cos(lat_face(j0 + j + 1)));
      for (int i = 0; i < h.width(); ++i) {
        const double k = kinetic_energy(u, v, i, j, ws, wn);
        const double potential = mountains ? grav * h(i, j) * hs(i, j) : 0.0;
        e += (h(i, j) * k + 0.5 * grav * h(i, j) * h(i, j) + potential) * area;
      }
    }
    return e;
  });
}

ErrorNorms SphericalShallowWater::height_errors(const Function& reference) {
  auto visit = [&](Tile& t, const std::function<void(double e, double r, double area)>& f) {
    const FieldView h = view(t, d_, state_.fields[0]);
    const int i0 = d_.x_begin(t.id()), j0 = d_.y_begin(t.id());
    for (int j = 0; j < h.height(); ++j) {
      const double area = std::sin(lat_face(j0 + j + 1)) - std::sin(lat_face(j0 + j));
      for (int i = 0; i < h.width(); ++i) {
        const double r = reference(lon_center(i0 + i), lat_center(j0 + j));
        f(h(i, j) - r, r, area);
      }
    }
  };
  const std::vector<double> s = runtime_.all_reduce<double>(
      "weather.sphere.errors", ReduceOp::sum, 4, [&](Tile& t, std::span<double> out) {
        std::fill(out.begin(), out.end(), 0.0);
        visit(t, [&](double e, double r, double area) {
          out[0] += std::abs(e) * area, out[1] += std::abs(r) * area;
          out[2] += e * e * area, out[3] += r * r * area;
        });
      });
  const std::vector<double> m = runtime_.all_reduce<double>(
      "weather.sphere.errors", ReduceOp::max, 2, [&](Tile& t, std::span<double> out) {
        out[0] = out[1] = 0;
        visit(t, [&](double e, double r, double) {
          out[0] = std::max(out[0], std::abs(e)), out[1] = std::max(out[1], std::abs(r));
        });
      });
  return {s[0] / s[1], std::sqrt(s[2] / s[3]), m[0] / m[1]};
}

std::uint64_t SphericalShallowWater::checksum() {
  return state_checksum(runtime_, d_, state_.fields);
}

double SphericalShallowWater::max_frequency() {
  const double a = config_.radius, grav = config_.g;
  return runtime_.all_reduce<double>("weather.sphere.cfl", ReduceOp::max, [&](Tile& t) {
    const FieldView h = view(t, d_, state_.fields[0]), u = view(t, d_, state_.fields[1]),
                    v = view(t, d_, state_.fields[2]);
    const int j0 = d_.y_begin(t.id());
    double r = 0;
    for (int j = 0; j < h.height(); ++j) {
      // With the polar filter, no zonal wave is faster than at the filter latitude.
      const double latitude = lat_center(j0 + j);
      const double zonal_cos = filter_ ? filter_->effective_cos(latitude) : std::cos(latitude);
      const double dx = a * zonal_cos * dlambda_, dy = a * dphi_;
      const double area =
          a * a * dlambda_ * (std::sin(lat_face(j0 + j + 1)) - std::sin(lat_face(j0 + j)));
      for (int i = 0; i < h.width(); ++i) {
        if (config_.kinematic) {  // transports: the Courant number is transport * dt / area
          r = std::max(r, (std::abs(u(i, j)) + std::abs(v(i, j))) / area);
        } else {
          const double c = std::sqrt(grav * std::max(h(i, j), 0.0));
          r = std::max(r, (std::abs(u(i, j)) + c) / dx + (std::abs(v(i, j)) + c) / dy);
        }
      }
    }
    return r;
  });
}

std::vector<double> SphericalShallowWater::gather(const std::string& name) {
  const int k = name == "h" ? 0 : name == "u" ? 1 : name == "v" ? 2 : name == "hs" ? 3 : -1;
  if (k < 0 || (k > 0 && config_.kinematic) || (k == 3 && !topography_))
    throw ConfigError("no field '" + name + "' to gather; the fields are h" +
                      (config_.kinematic ? "" : ", u, v") + (topography_ ? ", hs" : ""));
  for (const auto& tile : runtime_.local_tiles())
    for (const Field& f : state_.fields) apply_boundaries(*tile, d_, f);
  const Field& field = k == 3 ? *topography_ : state_.fields[static_cast<std::size_t>(k)];
  return gather_to_root(runtime_, d_, [&](Tile& t, int i, int j) {
    const FieldView x = view(t, d_, field);
    if (k == 1) return 0.5 * (x(i, j) + x(i + 1, j));
    if (k == 2) return 0.5 * (x(i, j) + x(i, j + 1));
    return x(i, j);
  });
}

}  // namespace tessera::weather
