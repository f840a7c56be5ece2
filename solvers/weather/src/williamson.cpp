#include "tessera/weather/williamson.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/weather/lat_lon.hpp"

namespace tessera::weather::williamson {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDay = 86400;

double u0(const SphereConfig& c) { return 2 * kPi * c.radius / (12 * kDay); }

// Case 1's bell around the centre `p` (a unit vector).
Function bell(const SphereConfig& c, std::array<double, 3> p) {
  return [=](double lambda, double phi) {
    const double cos_r =
        std::clamp(std::cos(phi) * std::cos(lambda) * p[0] +
                       std::cos(phi) * std::sin(lambda) * p[1] + std::sin(phi) * p[2],
                   -1.0, 1.0);
    const double r = c.radius * std::acos(cos_r), big_r = c.radius / 3;
    return r < big_r ? 500.0 * (1 + std::cos(kPi * r / big_r)) : 0.0;
  };
}

void check(int number) {
  if (number != 1 && number != 2 && number != 5 && number != 6)
    throw ConfigError("Williamson test case " + std::to_string(number) +
                      " is not implemented; the cases are 1, 2, 5 and 6");
}

}  // namespace

void initialize(int number, SphericalShallowWater& model) {
  check(number);
  const SphereConfig& c = model.config();
  const double a = c.radius, alpha = c.alpha, omega = c.omega, g = c.g;
  if (number == 1) {
    // Stream function psi = -a u0 (sin phi cos alpha - cos lambda cos phi sin alpha) (eq. 76).
    const double speed = u0(c);
    model.initialize_kinematic(exact_height(1, c, 0), [=](double lambda, double phi) {
      return -a * speed *
             (std::sin(phi) * std::cos(alpha) - std::cos(lambda) * std::cos(phi) * std::sin(alpha));
    });
    return;
  }
  if (number == 2) {
    const double speed = u0(c);
    model.initialize(
        exact_height(2, c, 0),
        [=](double lambda, double phi) {
          return speed * (std::cos(phi) * std::cos(alpha) +
                          std::cos(lambda) * std::sin(phi) * std::sin(alpha));
        },
        [=](double lambda, double) { return -speed * std::sin(lambda) * std::sin(alpha); });
    return;
  }
  if (number == 5) {
    // Zonal flow over an isolated mountain: case 2's balanced state with u0 = 20 m/s,
    // h0 = 5960 m and alpha = 0 (eqs. 90-92), over a cone hs = hs0 (1 - r / R), hs0 = 2000 m,
    // R = pi / 9, centred at (3 pi / 2, pi / 6) (eq. 133), r^2 = min(R^2, dlambda^2 + dphi^2).
    // h is the layer's thickness: the free surface less the mountain.
    if (alpha != 0)
      throw ConfigError("Williamson test case 5 flows along the equator (alpha = 0), not at " +
                        std::to_string(alpha));
    const double speed = 20, h0 = 5960, hs0 = 2000, radius = kPi / 9;
    const Function mountain = [=](double lambda, double phi) {
      const double dl = lambda - 1.5 * kPi, dp = phi - kPi / 6;
      return hs0 * (1 - std::sqrt(std::min(radius * radius, dl * dl + dp * dp)) / radius);
    };
    model.set_topography(mountain);
    model.initialize(
        [=](double lambda, double phi) {
          const double s = std::sin(phi);
          return h0 - (a * omega * speed + 0.5 * speed * speed) * s * s / g - mountain(lambda, phi);
        },
        [=](double, double phi) { return speed * std::cos(phi); },
        [](double, double) { return 0.0; });
    return;
  }
  // Case 6 (eqs. 142-147), R = 4.
  const double w = 7.848e-6, k = 7.848e-6, r = 4, h0 = 8000;
  model.initialize(
      [=](double lambda, double phi) {
        const double cp = std::cos(phi), c2 = cp * cp, c2r = std::pow(cp, 2 * r);
        const double big_a =
            0.5 * w * (2 * omega + w) * c2 +
            0.25 * k * k * c2r * ((r + 1) * c2 + (2 * r * r - r - 2) - 2 * r * r / c2);
        const double big_b = 2 * (omega + w) * k / ((r + 1) * (r + 2)) * std::pow(cp, r) *
                             ((r * r + 2 * r + 2) - (r + 1) * (r + 1) * c2);
        const double big_c = 0.25 * k * k * c2r * ((r + 1) * c2 - (r + 2));
        return h0 + a * a / g *
                        (big_a + big_b * std::cos(r * lambda) + big_c * std::cos(2 * r * lambda));
      },
      [=](double lambda, double phi) {
        const double cp = std::cos(phi), sp = std::sin(phi);
        return a * w * cp +
               a * k * std::pow(cp, r - 1) * (r * sp * sp - cp * cp) * std::cos(r * lambda);
      },
      [=](double lambda, double phi) {
        return -a * k * r * std::pow(std::cos(phi), r - 1) * std::sin(phi) * std::sin(r * lambda);
      });
}

Function exact_height(int number, const SphereConfig& c, double seconds) {
  check(number);
  const double alpha = c.alpha;
  if (number == 1) {
    // The bell's centre turns by u0 t / a about the axis n = (-sin alpha, 0, cos alpha)
    // of the solid-body rotation (Rodrigues' formula).
    const double theta = u0(c) * seconds / c.radius;
    const std::array<double, 3> n{-std::sin(alpha), 0.0, std::cos(alpha)};
    const std::array<double, 3> p{std::cos(1.5 * kPi), std::sin(1.5 * kPi), 0.0};
    const std::array<double, 3> cross{n[1] * p[2] - n[2] * p[1], n[2] * p[0] - n[0] * p[2],
                                      n[0] * p[1] - n[1] * p[0]};
    const double dot = n[0] * p[0] + n[1] * p[1] + n[2] * p[2];
    std::array<double, 3> q{};
    for (int i = 0; i < 3; ++i)
      q[static_cast<std::size_t>(i)] = p[static_cast<std::size_t>(i)] * std::cos(theta) +
                                       cross[static_cast<std::size_t>(i)] * std::sin(theta) +
                                       n[static_cast<std::size_t>(i)] * dot * (1 - std::cos(theta));
    return bell(c, q);
  }
  if (number == 2) {
    const double speed = u0(c), gh0 = 2.94e4;
    return [=](double lambda, double phi) {
      const double s =
          -std::cos(lambda) * std::cos(phi) * std::sin(alpha) + std::sin(phi) * std::cos(alpha);
      return (gh0 - (c.radius * c.omega * speed + 0.5 * speed * speed) * s * s) / c.g;
    };
  }
  throw ConfigError("Williamson test case " + std::to_string(number) +
                    " has no exact solution; its errors need a reference run");
}

std::vector<double> coarsen(const std::vector<double>& fine, int nlon, int nlat, int factor) {
  if (factor < 1 || nlon % factor != 0 || nlat % factor != 0)
    throw ConfigError("cannot average a " + std::to_string(nlon) + " x " + std::to_string(nlat) +
                      " grid onto one " + std::to_string(factor) +
                      " times coarser: the factor must divide both sizes");
  if (fine.size() != static_cast<std::size_t>(nlon) * static_cast<std::size_t>(nlat))
    throw ConfigError("coarsen: " + std::to_string(fine.size()) + " values for a " +
                      std::to_string(nlon) + " x " + std::to_string(nlat) + " grid");
  const int cx = nlon / factor, cy = nlat / factor;
  std::vector<double> coarse(static_cast<std::size_t>(cx) * static_cast<std::size_t>(cy));
  for (int J = 0; J < cy; ++J)
    for (int I = 0; I < cx; ++I) {
      double sum = 0, area = 0;
      for (int b = 0; b < factor; ++b) {
        const int j = J * factor + b;
        const double w = row_area(j, nlat);
        for (int a = 0; a < factor; ++a)
          sum += w * fine[static_cast<std::size_t>(j) * static_cast<std::size_t>(nlon) +
                          static_cast<std::size_t>(I * factor + a)];
        area += factor * w;
      }
      coarse[static_cast<std::size_t>(J) * static_cast<std::size_t>(cx) +
             static_cast<std::size_t>(I)] = sum / area;
    }
  return coarse;
}

ErrorNorms normalised_errors(const std::vector<double>& h, const std::vector<double>& reference,
                             int nlon, int nlat) {
  const std::size_t n = static_cast<std::size_t>(nlon) * static_cast<std::size_t>(nlat);
  if (h.size() != n || reference.size() != n)
    throw ConfigError("normalised_errors: " + std::to_string(h.size()) + " and " +
                      std::to_string(reference.size()) + " values for a " + std::to_string(nlon) +
                      " x " + std::to_string(nlat) + " grid");
  double e1 = 0, r1 = 0, e2 = 0, r2 = 0, emax = 0, rmax = 0;
  for (int j = 0; j < nlat; ++j) {
    const double w = row_area(j, nlat);
    for (int i = 0; i < nlon; ++i) {
      const std::size_t k = static_cast<std::size_t>(j) * static_cast<std::size_t>(nlon) +
                            static_cast<std::size_t>(i);
      const double e = std::abs(h[k] - reference[k]), r = std::abs(reference[k]);
      e1 += w * e, r1 += w * r, e2 += w * e * e, r2 += w * r * r;
      emax = std::max(emax, e), rmax = std::max(rmax, r);
    }
  }
  return {e1 / r1, std::sqrt(e2 / r2), emax / rmax};
}

}  // namespace tessera::weather::williamson
