#include "tessera/weather/jablonowski_williamson.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tessera/weather/lat_lon.hpp"

namespace tessera::weather::jablonowski_williamson {
namespace {

constexpr double pi = std::numbers::pi;

double eta_v(const Parameters& p, double eta) { return (eta - p.eta_0) * pi / 2; }

// The two latitude factors of T and Phi.
double wind_factor(double phi) {
  const double s = std::sin(phi), c = std::cos(phi);
  return -2 * std::pow(s, 6) * (c * c + 1.0 / 3.0) + 10.0 / 63.0;
}
double rotation_factor(double phi) {
  const double s = std::sin(phi), c = std::cos(phi);
  return 8.0 / 5.0 * c * c * c * (s * s + 2.0 / 3.0) - pi / 4;
}

}  // namespace

AtmosphereConfig configuration(int nlon, int nlat) {
  return {.nlon = nlon,
          .nlat = nlat,
          .levels = HybridLevels::cam26(),
          .radius = 6.371229e6,
          .omega = 7.29212e-5,
          .g = 9.80616,
          .rd = 287.04,
          .cp = 1004.64};
}

double zonal_wind(const Parameters& p, double lambda, double phi, double eta) {
  const double s2 = std::sin(2 * phi);
  double u = p.u0 * std::pow(std::cos(eta_v(p, eta)), 1.5) * s2 * s2;
  if (p.perturbation != 0) {
    const double lambda_c = pi / 9, phi_c = 2 * pi / 9;
    const double cosine = std::sin(phi_c) * std::sin(phi) +
                          std::cos(phi_c) * std::cos(phi) * std::cos(lambda - lambda_c);
    const double r = std::acos(std::clamp(cosine, -1.0, 1.0));  // radians: r / a
    u += p.perturbation * std::exp(-(r * 10) * (r * 10));
  }
  return u;
}

double temperature(const AtmosphereConfig& c, const Parameters& p, double phi, double eta) {
  double mean = p.t0 * std::pow(eta, c.rd * p.lapse_rate / c.g);
  if (eta < p.eta_tropopause) mean += p.delta_t * std::pow(p.eta_tropopause - eta, 5);
  const double ev = eta_v(p, eta);
  return mean + 0.75 * (eta * pi * p.u0 / c.rd) * std::sin(ev) * std::sqrt(std::cos(ev)) *
                    (wind_factor(phi) * 2 * p.u0 * std::pow(std::cos(ev), 1.5) +
                     rotation_factor(phi) * c.radius * c.omega);
}

double surface_geopotential(const AtmosphereConfig& c, const Parameters& p, double phi) {
  const double ev = std::pow(std::cos(eta_v(p, 1.0)), 1.5);
  return p.u0 * ev * (wind_factor(phi) * p.u0 * ev + rotation_factor(phi) * c.radius * c.omega);
}

void initialize(PrimitiveEquations& model, const Parameters& p) {
  const AtmosphereConfig& c = model.config();
  const double p0 = c.levels.reference_pressure, alpha = c.rotation_axis_tilt;
  // The state is JW06's in the frame whose pole is the rotation axis (-sin alpha, 0,
  // cos alpha): (lambda', phi') of a grid point, and the east unit vector of that frame in the
  // grid's (east, north) basis, (cos phi cos alpha + cos lambda sin phi sin alpha,
  // -sin lambda sin alpha) / cos phi' (as Williamson et al.'s 1992 case 2 rotates its flow).
  struct Rotated {
    double lambda, phi, east_x, east_y;
  };
  auto rotated = [=](double lambda, double phi) {
    const double sin_phi =
        std::sin(phi) * std::cos(alpha) - std::cos(lambda) * std::cos(phi) * std::sin(alpha);
    const double x = std::cos(phi) * std::cos(lambda) * std::cos(alpha) +
                     std::sin(phi) * std::sin(alpha),
                 y = std::cos(phi) * std::sin(lambda);
    const double phi_r = std::asin(std::clamp(sin_phi, -1.0, 1.0)), cos_r = std::cos(phi_r);
    Rotated r{std::atan2(y, x), phi_r, 0, 0};
    if (cos_r > 1e-12) {
      r.east_x =
          (std::cos(phi) * std::cos(alpha) + std::cos(lambda) * std::sin(phi) * std::sin(alpha)) /
          cos_r;
      r.east_y = -std::sin(lambda) * std::sin(alpha) / cos_r;
    }
    return r;
  };
  // The unrotated state is evaluated as it is, bit for bit (asin(sin phi) is not phi).
  auto latitude = [&](double lambda, double phi) {
    return alpha == 0 ? phi : rotated(lambda, phi).phi;
  };
  auto wind = [&](double lambda, double phi, double eta) {
    if (alpha == 0) return zonal_wind(p, lambda, phi, eta);
    const Rotated r = rotated(lambda, phi);
    return zonal_wind(p, r.lambda < 0 ? r.lambda + 2 * pi : r.lambda, r.phi, eta);
  };
  model.set_surface_geopotential(
      [&](double lambda, double phi) { return surface_geopotential(c, p, latitude(lambda, phi)); });
  model.initialize([&](double, double) { return p0; },
                   [&](double lambda, double phi, double eta) {
                     return alpha == 0 ? wind(lambda, phi, eta)
                                       : wind(lambda, phi, eta) * rotated(lambda, phi).east_x;
                   },
                   [&](double lambda, double phi, double eta) {
                     return alpha == 0 ? 0.0 : wind(lambda, phi, eta) * rotated(lambda, phi).east_y;
                   },
                   [&](double lambda, double phi, double eta) {
                     return temperature(c, p, latitude(lambda, phi), eta);
                   });
}

double zonal_mean_change(const PrimitiveEquations& model, const std::vector<double>& now,
                         const std::vector<double>& initial) {
  const AtmosphereConfig& c = model.config();
  const int nk = model.layers(), ny = c.nlat;
  const HybridLevels& lv = c.levels;
  double sum = 0, weights = 0;
  for (int k = 0; k < nk; ++k) {
    const auto s = static_cast<std::size_t>(k);
    const double depth = lv.a[s + 1] + lv.b[s + 1] - lv.a[s] - lv.b[s];
    for (int j = 0; j < ny; ++j) {
      const double area = row_area(j, ny);
      const auto at = static_cast<std::size_t>(k * ny + j);
      const double e = now.at(at) - initial.at(at);
      sum += depth * area * e * e;
      weights += depth * area;
    }
  }
  return std::sqrt(sum / weights);
}

double surface_pressure_change(const PrimitiveEquations& model, const std::vector<double>& now,
                               const std::vector<double>& initial) {
  const int nx = model.config().nlon, ny = model.config().nlat;
  double sum = 0, weights = 0;
  for (int j = 0; j < ny; ++j) {
    const double area = row_area(j, ny);
    for (int i = 0; i < nx; ++i) {
      const auto at = static_cast<std::size_t>(j * nx + i);
      const double e = now.at(at) - initial.at(at);
      sum += area * e * e;
      weights += area;
    }
  }
  return std::sqrt(sum / weights);
}

}  // namespace tessera::weather::jablonowski_williamson
