#include "tessera/weather/planar_cases.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <tuple>

#include "tessera/core/error.hpp"
#include "tessera/weather/elevation.hpp"
#include "tessera/weather/same_input.hpp"

namespace tessera::weather {

namespace {

using Function = ShallowWater::Function;
constexpr double kPi = std::numbers::pi;
// The gravity of every case: the model's own.
const double kG = ShallowWaterConfig{}.g;

Grid square(int nx, int ny, double lx, double ly, bool px, bool py) {
  return {.nx = nx, .ny = ny, .dx = lx / nx, .dy = ly / ny, .periodic_x = px, .periodic_y = py};
}
Function constant(double v) {
  return [v](double, double) { return v; };
}

PlanarCase base(int nx, int ny, double days, std::string description) {
  PlanarCase c;
  c.nx = nx, c.ny = ny, c.days = days;
  c.description = std::move(description);
  return c;
}

}  // namespace

PlanarCase make_planar_case(const RunSettings& s, MPI_Comm comm,
                            const std::function<void(int nx, int ny)>& sized) {
  auto size = [&](int nx, int ny, double days) {
    const auto chosen =
        std::tuple{s.nx > 0 ? s.nx : nx, s.ny > 0 ? s.ny : ny, s.days >= 0 ? s.days : days};
    if (sized) sized(std::get<0>(chosen), std::get<1>(chosen));
    return chosen;
  };
  if (s.case_name == "gravity-wave") {
    const auto [nx, ny, days] = size(128, 16, 0.1);
    const double length = 1e6, depth = 1000, a = 0.01, k = 2 * kPi / length;
    const double omega = std::sqrt(kG * depth) * k;
    PlanarCase c =
        base(nx, ny, days, "standing gravity wave, H = 1000 m, amplitude 1 cm, wavelength 1000 km");
    c.config.grid = square(nx, ny, length, length * ny / nx, true, true);
    c.reference_offset = depth;
    c.initialize = [=](ShallowWater& m) {
      m.initialize([=](double x, double) { return depth + a * std::cos(k * x); }, constant(0),
                   constant(0));
    };
    c.reference = [=](double t) {
      return [=](double x, double) { return depth + a * std::cos(k * x) * std::cos(omega * t); };
    };
    return c;
  }
  if (s.case_name == "geostrophic") {
    const auto [nx, ny, days] = size(64, 64, 5);
    const double length = 2e6, depth = 1000, f0 = 1e-4, u0 = 5, ky = 2 * kPi / length;
    const double amplitude = f0 * u0 / (kG * ky);
    auto h = [=](double, double y) { return depth + amplitude * std::cos(ky * y); };
    PlanarCase c =
        base(nx, ny, days,
             "zonal jet u = 5 sin(2 pi y / 2000 km) m/s in geostrophic balance, f = 1e-4 /s");
    c.config.grid = square(nx, ny, length, length, true, true);
    c.config.f0 = f0;
    c.reference = [=](double) { return Function(h); };
    c.reference_offset = depth;
    c.initialize = [=](ShallowWater& m) {
      m.initialize(
          h, [=](double, double y) { return u0 * std::sin(ky * y); }, constant(0));
    };
    return c;
  }
  if (s.case_name == "tracer-rotation") {
    const auto [nx, ny, days] = size(100, 100, 1);
    const double length = 1e6, omega = 2 * kPi / 86400;
    auto bell_at = [=](double t) {
      // The bell's centre turns about the domain centre at omega.
      const double xc = 0.5 * length - 0.25 * length * std::sin(omega * t);
      const double yc = 0.5 * length + 0.25 * length * std::cos(omega * t);
      return Function([=](double x, double y) {
        const double r = std::hypot(x - xc, y - yc) / (0.15 * length);
        return r < 1 ? 0.5 * (1 + std::cos(kPi * r)) : 0.0;
      });
    };
    PlanarCase c = base(nx, ny, days,
                        "cosine bell in solid-body rotation, one turn per day (prescribed flow)");
    c.config.grid = square(nx, ny, length, length, false, false);
    c.config.tracer = true;
    c.config.tracer_scheme = s.tracer_scheme;
    c.config.kinematic = true;
    c.reference = bell_at;
    c.reference_field = ShallowWater::kTracerMass;
    c.initialize = [=](ShallowWater& m) {
      m.initialize(
          constant(1), [=](double, double y) { return -omega * (y - 0.5 * length); },
          [=](double x, double) { return omega * (x - 0.5 * length); }, bell_at(0));
    };
    return c;
  }
  if (s.case_name == "volcano") {
    if (s.topography.empty())
      throw ConfigError(
          "the volcano case needs --topography FILE.csv or FILE.nc "
          "(examples/data/volcano_elevation.csv)");
    const ElevationGrid e = read_elevation(s.topography);
    std::vector<double> read = e.values;
    read.push_back(e.nx), read.push_back(e.ny);
    require_same_input(comm, read, "the topography read from '" + s.topography + "'");
    const auto [nx, ny, days] = size(e.nx, e.ny, 1);
    // Maunga Whau's shape stretched into a regional mountain: each 10 m data cell
    // becomes 5 km, and heights above the lowest point are scaled by 10.
    const double lx = e.nx * 5e3, ly = e.ny * 5e3, depth = 3000, f0 = 1e-4, u0 = 10;
    double lowest = e.values.front();
    for (double v : e.values) lowest = std::min(lowest, v);
    std::vector<double> b = resample(e, nx, ny);
    for (double& v : b) v = 10 * (v - lowest);
    PlanarCase c =
        base(nx, ny, days,
             "10 m/s westerly over Maunga Whau's topography (x 500 across, x 10 up), moist band");
    c.config.grid = square(nx, ny, lx, ly, true, false);
    c.config.f0 = f0;
    c.config.tracer = true;
    c.config.tracer_scheme = s.tracer_scheme;
    c.config.tracer_diffusivity = 100;
    // nx and ny by init-capture: clang 14 cannot capture a structured binding.
    c.initialize = [=, nx = nx, ny = ny](ShallowWater& m) {
      m.set_topography(b);
      // The free surface starts level across the mountain (h = H - b) and tilted in y
      // so that the westerly is in geostrophic balance: f u0 = -g d(h + b)/dy.
      const double dx = lx / nx, dy = ly / ny;
      m.initialize(
          [=](double x, double y) {
            const int i = std::clamp(static_cast<int>(std::floor(x / dx)), 0, nx - 1);
            const int j = std::clamp(static_cast<int>(std::floor(y / dy)), 0, ny - 1);
            return depth - f0 * u0 * (y - 0.5 * ly) / kG -
                   b[static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) +
                     static_cast<std::size_t>(i)];
          },
          constant(u0), constant(0),
          [=](double x, double y) {
            return std::exp(-std::pow((x - 0.15 * lx) / (0.08 * lx), 2)) *
                   (0.6 + 0.4 * std::sin(2 * kPi * y / ly));
          });
    };
    return c;
  }
  throw ConfigError("unknown case '" + s.case_name +
                    "'; the cases are gravity-wave, geostrophic, tracer-rotation, volcano, "
                    "williamson1, williamson2, williamson5, williamson6, jw-steady-state, "
                    "baroclinic-wave, held-suarez");
}

}  // namespace tessera::weather
