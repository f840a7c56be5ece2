// The polar Fourier filter (polar_filter.hpp): each zonal wave of a filtered row scaled by its
// response S_k = min(1, cos(phi) / (cos(phi_c) sin(k dlambda / 2))), the zonal mean and the rows
// equatorward of phi_c untouched, and the same bits whatever the tiles that hold a row.
#include "tessera/weather/polar_filter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "test_support.hpp"

namespace tessera::weather {
namespace {

using testing::error_of;
using testing::small_target;
constexpr double kPi = std::numbers::pi;

Grid sphere(int nlon) {
  return {.nx = nlon,
          .ny = nlon / 2,
          .dx = 2 * kPi / nlon,
          .dy = kPi / (nlon / 2),
          .x0 = 0,
          .y0 = -kPi / 2,
          .periodic_x = true,
          .periodic_y = false};
}

// The waves of every row: a mean, k = 1, 5, 16, 31 and the Nyquist wave 32 of a 64-point row.
double waves(int i, int j, int nlon) {
  const double lambda = 2 * kPi * i / nlon;
  return 100 + j + 3 * std::cos(lambda + 0.1 * j) + 2 * std::sin(5 * lambda) +
         1.5 * std::cos(16 * lambda + 0.7) + 0.5 * std::sin(31 * lambda + 0.2) +
         0.25 * std::cos(32 * lambda);
}
double filtered_waves(int i, int j, int nlon, double latitude, double phi_c) {
  const double lambda = 2 * kPi * i / nlon;
  auto s = [&](int k) { return PolarFilter::response(k, nlon, latitude, phi_c); };
  return 100 + j + 3 * s(1) * std::cos(lambda + 0.1 * j) + 2 * s(5) * std::sin(5 * lambda) +
         1.5 * s(16) * std::cos(16 * lambda + 0.7) + 0.5 * s(31) * std::sin(31 * lambda + 0.2) +
         0.25 * s(32) * std::cos(32 * lambda);
}

// Fills a centre field and a y-face field from `value`, filters both and returns them
// gathered (row-major, south first), centre field then face field.
template <class F>
std::vector<double> filter_on(int tiles, int nlon, double phi_c, F value) {
  Runtime rt(small_target(tiles), 1);
  const Grid g = sphere(nlon);
  const Decomposition d(g, rt.target().total_tiles(), 1);
  std::vector<Field> fields = {
      make_field(rt, d, "test.h", "h", Stagger::center, 1, nullptr, nullptr),
      make_field(rt, d, "test.v", "v", Stagger::face_y, 1, nullptr, nullptr)};
  rt.superstep("test.fill", [&](Tile& t) {
    const int i0 = d.x_begin(t.id()), j0 = d.y_begin(t.id());
    for (const Field& f : fields) {
      const FieldView x = view(t, d, f);
      for (int j = 0; j < x.height(); ++j)
        for (int i = 0; i < x.width(); ++i) x(i, j) = value(i0 + i, j0 + j);
    }
  });
  PolarFilter filter(rt, d, {Stagger::center, Stagger::face_y}, phi_c);
  rt.exchange("test.gather", {filter.gather(fields)});
  filter.filter(fields);
  std::vector<double> out;
  for (const Field& f : fields) {
    const auto values =
        gather_to_root(rt, d, [&](Tile& t, int i, int j) { return view(t, d, f)(i, j); });
    out.insert(out.end(), values.begin(), values.end());
  }
  return out;
}

TEST(PolarFilter, ResponseKeepsTheMeanAndDampsShortWavesPolewardOnly) {
  const double phi_c = kPi / 3;
  EXPECT_EQ(PolarFilter::response(0, 64, 1.5, phi_c), 1.0);
  for (int k = 1; k <= 32; ++k) EXPECT_EQ(PolarFilter::response(k, 64, phi_c, phi_c), 1.0);
  // The Nyquist wave at 80 degrees: cos 80 / cos 60.
  const double phi = 80 * kPi / 180;
  EXPECT_NEAR(PolarFilter::response(32, 64, phi, phi_c), std::cos(phi) / std::cos(phi_c), 1e-15);
  // A long wave is kept where its zonal scale already exceeds the Nyquist wave's at phi_c.
  EXPECT_EQ(PolarFilter::response(1, 64, phi, phi_c), 1.0);
}

TEST(PolarFilter, ScalesEachZonalWaveByItsResponse) {
  const int nlon = 64;
  const double phi_c = kPi / 3;
  const auto out = filter_on(6, nlon, phi_c, [&](int i, int j) { return waves(i, j, nlon); });
  const Grid g = sphere(nlon);
  const auto n = static_cast<std::size_t>(nlon) * static_cast<std::size_t>(g.ny);
  int filtered_rows = 0;
  for (int part = 0; part < 2; ++part)
    for (int j = 0; j < g.ny; ++j) {
      const bool faces = part == 1;
      const double latitude = faces ? g.y_face(j) : g.y_center(j);
      const bool filtered = std::abs(latitude) > phi_c && !(faces && j == 0);
      filtered_rows += filtered;
      double mean_in = 0, mean_out = 0;
      for (int i = 0; i < nlon; ++i) {
        const double got = out[static_cast<std::size_t>(part) * n +
                               static_cast<std::size_t>(j) * nlon + static_cast<std::size_t>(i)];
        mean_in += waves(i, j, nlon), mean_out += got;
        if (filtered)
          EXPECT_NEAR(got, filtered_waves(i, j, nlon, latitude, phi_c), 1e-12)
              << "row " << j << (faces ? " (faces)" : "") << ", i " << i;
        else
          EXPECT_EQ(got, waves(i, j, nlon)) << "row " << j << " is equatorward of the filter";
      }
      EXPECT_NEAR(mean_out, mean_in, 1e-14 * std::abs(mean_in)) << "row " << j;
    }
  EXPECT_EQ(filtered_rows, 20);  // |phi| > 60 degrees: 5 rows of centres and 5 of faces a side
}

TEST(PolarFilter, SameBitsOnAnyTiles) {
  const int nlon = 64;
  auto noise = [](int i, int j) {
    std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ULL ^
                      static_cast<std::uint64_t>(j) * 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 31;
    return static_cast<double>(x % 1000003) / 1000003.0;
  };
  const auto one = filter_on(1, nlon, kPi / 3, noise);
  for (int tiles : {4, 5, 6, 12}) EXPECT_EQ(filter_on(tiles, nlon, kPi / 3, noise), one) << tiles;
}

TEST(PolarFilter, RefusesALatitudeOutsideTheHemisphere) {
  Runtime rt(small_target(4), 1);
  const Decomposition d(sphere(64), 4, 1);
  for (double phi_c : {0.0, -0.3, kPi / 2, 2.0})
    EXPECT_EQ(error_of([&] {
                PolarFilter(rt, d, {Stagger::center}, phi_c);
              }).rfind("the polar filter's latitude must lie strictly between 0 and 90 degrees", 0),
              0u)
        << phi_c;
}

}  // namespace
}  // namespace tessera::weather
