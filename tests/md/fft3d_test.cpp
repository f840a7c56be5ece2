// The distributed 3-d FFT (fft3d.hpp) against FFTW's own 3-d transform of the whole mesh, on
// meshes of odd and even sizes, over 2 tiles and over 96 tiles of two IPUs (more tiles than a
// pencil set has lines: some hold none), with several fields at once; and the same bits
// whatever the decomposition. Under mpirun -np 2 the tiles are split over the ranks.
#include "tessera/md/fft3d.hpp"

#include <fftw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

namespace tessera::md {
namespace {

Target small_target(int ipus, int tiles) {
  Target t = Target::preset(ipus == 1 ? "gc200" : "pod4");
  t.ipus = ipus;
  t.tiles_per_ipu = tiles;
  t.ipus_per_link_domain = ipus;
  return t;
}

using Mesh = std::vector<std::complex<double>>;  // index x + nx (y + ny z)

// A field with no symmetry the transform could hide a mistake behind.
Mesh field(const std::array<int, 3>& n, std::size_t f) {
  Mesh m(static_cast<std::size_t>(n[0] * n[1] * n[2]));
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[0]; ++x) {
        const double s = 0.37 * x + 1.3 * y * y - 0.61 * z + 0.9 * static_cast<double>(f);
        m[static_cast<std::size_t>(x + n[0] * (y + n[1] * z))] = {std::sin(s) + 0.1 * x * z,
                                                                  std::cos(1.7 * s) - 0.2 * y};
      }
  return m;
}

// FFTW's 3-d transform of the whole mesh (z slowest, x fastest).
Mesh reference(const std::array<int, 3>& n, Mesh m, int sign) {
  auto* data = reinterpret_cast<fftw_complex*>(m.data());
  fftw_plan p = fftw_plan_dft_3d(n[2], n[1], n[0], data, data, sign, FFTW_ESTIMATE);
  fftw_execute(p);
  fftw_destroy_plan(p);
  return m;
}

// The mesh index of point k of line l of pencils along `axis`.
std::size_t index(const std::array<int, 3>& n, int axis, std::size_t line, std::size_t k) {
  const auto nx = static_cast<std::size_t>(n[0]), ny = static_cast<std::size_t>(n[1]);
  if (axis == 0) return k + nx * line;  // line = y + ny z
  const std::size_t x = line % nx, other = line / nx;
  if (axis == 1) return x + nx * (k + ny * other);  // line = x + nx z
  return x + nx * (other + ny * k);                 // line = x + nx y
}

// Fills pencils along `axis` (x or z) with the fields, or reads them back.
void put(Runtime& rt, Fft3d& fft, int axis, const std::vector<Mesh>& fields) {
  const auto& p = axis == 0 ? fft.x_pencils() : fft.z_pencils();
  const auto v = axis == 0 ? fft.x_data() : fft.z_data();
  const auto length = static_cast<std::size_t>(fft.size()[static_cast<std::size_t>(axis)]);
  rt.superstep("test.put", [&](Tile& t) {
    auto data = t.get(v);
    const std::size_t lines = p.lines(t.id());
    for (std::size_t f = 0; f < fields.size(); ++f)
      for (std::size_t l = 0; l < lines; ++l)
        for (std::size_t k = 0; k < length; ++k) {
          const auto value =
              fields[f][index(fft.size(), axis, p.first[static_cast<std::size_t>(t.id())] + l, k)];
          const std::size_t at = 2 * ((f * lines + l) * length + k);
          data[at] = value.real(), data[at + 1] = value.imag();
        }
  });
}

// The largest difference, relative to the largest magnitude, of pencils along `axis` from
// `expected` over this rank's tiles, and the pencils' values in mesh order (for comparing
// decompositions; points of other ranks' tiles stay 0).
double difference(Runtime& rt, Fft3d& fft, int axis, const std::vector<Mesh>& expected,
                  std::vector<Mesh>* got = nullptr) {
  const auto& p = axis == 0 ? fft.x_pencils() : fft.z_pencils();
  const auto v = axis == 0 ? fft.x_data() : fft.z_data();
  const auto length = static_cast<std::size_t>(fft.size()[static_cast<std::size_t>(axis)]);
  double scale = 0, worst = 0;
  for (const Mesh& m : expected)
    for (const auto& c : m) scale = std::max(scale, std::abs(c));
  if (got) got->assign(expected.size(), Mesh(expected[0].size()));
  for (const auto& tile : rt.local_tiles()) {
    const auto data = tile->get(v);
    const std::size_t lines = p.lines(tile->id());
    for (std::size_t f = 0; f < expected.size(); ++f)
      for (std::size_t l = 0; l < lines; ++l)
        for (std::size_t k = 0; k < length; ++k) {
          const std::size_t i =
              index(fft.size(), axis, p.first[static_cast<std::size_t>(tile->id())] + l, k);
          const std::size_t at = 2 * ((f * lines + l) * length + k);
          const std::complex<double> value(data[at], data[at + 1]);
          worst = std::max(worst, std::abs(value - expected[f][i]));
          if (got) (*got)[f][i] = value;
        }
  }
  return worst / scale;
}

struct Case {
  std::array<int, 3> n;
  std::size_t fields;
};

class Fft3dTest : public ::testing::TestWithParam<Case> {};

// Forward: FFTW's 3-d transform to 1e-13 of the largest value (rounding of n log n operations);
// backward after it: the fields times nx ny nz. A mistake in a transpose (a point in the wrong
// line) or in a line's transform moves values by their own size.
TEST_P(Fft3dTest, MatchesFftwOnAnyDecomposition) {
  const Case c = GetParam();
  std::vector<Mesh> fields, transformed, scaled;
  const double points = static_cast<double>(c.n[0] * c.n[1] * c.n[2]);
  for (std::size_t f = 0; f < c.fields; ++f) {
    fields.push_back(field(c.n, f));
    transformed.push_back(reference(c.n, fields.back(), FFTW_FORWARD));
    scaled.push_back(fields.back());
    for (auto& value : scaled.back()) value *= points;
  }
  std::vector<std::vector<Mesh>> results;
  for (const Target& target : {small_target(1, 2), small_target(2, 48)}) {
    Runtime rt(target, 2);
    Fft3d fft(rt, c.n, c.fields, "test.fft");
    put(rt, fft, 0, fields);
    fft.forward(c.fields);
    results.emplace_back();
    EXPECT_LT(difference(rt, fft, 2, transformed, &results.back()), 1e-13)
        << target.total_tiles() << " tiles";
    fft.backward(c.fields);
    EXPECT_LT(difference(rt, fft, 0, scaled), 1e-13) << target.total_tiles() << " tiles";
  }
  // Each line is transformed by the same plan wherever it is: the same bits on 2 and 96 tiles
  // (on one rank, where this rank holds every tile of both).
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks == 1) {
    EXPECT_EQ(results[0], results[1]);
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, Fft3dTest,
                         ::testing::Values(Case{{8, 6, 5}, 1}, Case{{7, 9, 4}, 3},
                                           Case{{16, 16, 16}, 2}, Case{{1, 3, 2}, 1}));

TEST(Fft3d, RefusesEmptyMeshesAndFieldCounts) {
  Runtime rt(small_target(1, 2), 1);
  EXPECT_THROW(Fft3d(rt, {0, 4, 4}, 1, "test.fft"), std::invalid_argument);
  EXPECT_THROW(Fft3d(rt, {4, 4, 4}, 0, "test.fft"), std::invalid_argument);
  Fft3d fft(rt, {4, 4, 4}, 2, "test.fft");
  EXPECT_THROW(fft.forward(3), std::invalid_argument);
  EXPECT_THROW(fft.backward(0), std::invalid_argument);
}

}  // namespace
}  // namespace tessera::md
