// Grids, decompositions, halo exchange plans and boundary strategies. Every
// test holds for any number of MPI ranks: the checks reduce over all tiles.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tessera/weather/field.hpp"
#include "tessera/weather/halo_exchange.hpp"
#include "tessera/weather/operators.hpp"
#include "test_support.hpp"

namespace tessera::weather {
namespace {

using testing::error_of;
using ::testing::HasSubstr;
using testing::small_target;

TEST(Extent, ComposesAndMergesIntoHalos) {
  constexpr Extent lap = Laplacian::extent;
  constexpr Extent twice = lap.then(lap);
  static_assert(twice.west == 2 && twice.north == 2 && twice.halo() == 2);
  constexpr Extent grad_then_div = Divergence::extent.then(GradientX::extent);
  static_assert(grad_then_div.west == 1 && grad_then_div.east == 1 && grad_then_div.south == 0);
  static_assert(LimitedAdvection::extent.halo() == 2 && UpwindAdvection::extent.halo() == 1);
  constexpr Extent m = GradientX::extent.merge(GradientY::extent);
  static_assert(m.west == 1 && m.south == 1 && m.east == 0 && m.halo() == 1);
}

TEST(Decomposition, PicksTheShortestPerimeterAndCoversTheGrid) {
  Grid g{.nx = 60, .ny = 30};
  const Decomposition d(g, 8, 1);
  EXPECT_EQ(d.px(), 4);
  EXPECT_EQ(d.py(), 2);
  int cells = 0;
  for (int t = 0; t < d.tiles(); ++t) cells += d.width(t) * d.height(t);
  EXPECT_EQ(cells, 60 * 30);
}

TEST(Decomposition, RejectsBlocksSmallerThanTheHalo) {
  Grid g{.nx = 5, .ny = 5};
  EXPECT_THAT(error_of([&] { Decomposition(g, 16, 2); }),
              HasSubstr("a 5 x 5 grid cannot be split over 16 tiles in blocks of at least 2"));
}

// Global value of cell (i, j), wrapped into the domain.
double tag(int i, int j, const Grid& g) {
  i = (i % g.nx + g.nx) % g.nx;
  j = (j % g.ny + g.ny) % g.ny;
  return 1000.0 * i + j;
}

class HaloExchange : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Halo, HaloExchange, ::testing::Values(1, 2, 3));

TEST_P(HaloExchange, FillsEveryHaloCellFromItsPeriodicNeighbour) {
  const int halo = GetParam();
  Runtime rt(small_target(6), 2);
  Grid g{.nx = 19, .ny = 13, .periodic_x = true, .periodic_y = true};
  const Decomposition d(g, 6, halo);
  auto bc = std::make_shared<Periodic>();
  const Field f = make_field(rt, d, "test.f", "f", Stagger::center, halo, bc, bc);
  const ExchangePlan plan = compile_halo_exchange(rt, d, std::span(&f, 1), "test.halo");
  rt.superstep("fill",
               [&](Tile& t) {
                 const FieldView v = view(t, d, f);
                 for (int j = 0; j < v.height(); ++j)
                   for (int i = 0; i < v.width(); ++i)
                     v(i, j) = tag(d.x_begin(t.id()) + i, d.y_begin(t.id()) + j, g);
               },
               {&plan});
  const int wrong = rt.all_reduce<int>("check", ReduceOp::sum, [&](Tile& t) {
    const FieldView v = view(t, d, f);
    int bad = 0;
    for (int j = -halo; j < v.height() + halo; ++j)
      for (int i = -halo; i < v.width() + halo; ++i)
        bad += v(i, j) != tag(d.x_begin(t.id()) + i, d.y_begin(t.id()) + j, g);
    return bad;
  });
  EXPECT_EQ(wrong, 0);
}

TEST(HaloPlan, WallsAreLeftToTheBoundaryCondition) {
  Runtime rt(small_target(4), 1);
  Grid g{.nx = 8, .ny = 8};
  const Decomposition d(g, 4, 1);
  auto wall = std::make_shared<ReflectiveWall>();
  const Field u = make_field(rt, d, "test.u", "u", Stagger::face_x, 1, wall, wall);
  const ExchangePlan plan = compile_halo_exchange(rt, d, std::span(&u, 1), "test.halo");
  rt.superstep("fill",
               [&](Tile& t) {
                 const FieldView v = view(t, d, u);
                 for (int j = 0; j < v.height(); ++j)
                   for (int i = 0; i < v.width(); ++i) v(i, j) = 1 + d.x_begin(t.id()) + i;
               },
               {&plan});
  // Free-slip wall for the normal velocity: zero on the wall faces, odd about them.
  const int wrong = rt.all_reduce<int>("check", ReduceOp::sum, [&](Tile& t) {
    apply_boundaries(t, d, u);
    const FieldView v = view(t, d, u);
    int bad = 0;
    for (int j = -1; j <= v.height(); ++j) {
      if (d.on_west(t.id())) bad += v(0, j) != 0 || v(-1, j) != -v(1, j);
      if (d.on_east(t.id())) bad += v(v.width(), j) != 0;
      if (!d.on_west(t.id())) bad += v(-1, j) != d.x_begin(t.id());
    }
    return bad;
  });
  EXPECT_EQ(wrong, 0);
}

TEST(HaloPlan, RejectsAWallOnAPeriodicAxis) {
  Runtime rt(small_target(4), 1);
  Grid g{.nx = 8, .ny = 8, .periodic_x = true};
  const Decomposition d(g, 4, 1);
  const Field f = make_field(rt, d, "test.f", "f", Stagger::center, 1,
                             std::make_shared<ReflectiveWall>(), nullptr);
  EXPECT_THAT(error_of([&] { compile_halo_exchange(rt, d, std::span(&f, 1), "h"); }),
              HasSubstr("field 'f' has a wall boundary in x but the grid is periodic in x"));
}

TEST(HaloPlan, RejectsAHaloWiderThanABlock) {
  Runtime rt(small_target(4), 1);
  Grid g{.nx = 8, .ny = 8, .periodic_x = true, .periodic_y = true};
  const Decomposition d(g, 4, 1);
  const Field f = make_field(rt, d, "test.f", "f", Stagger::center, 5, nullptr, nullptr);
  EXPECT_THAT(error_of([&] { compile_halo_exchange(rt, d, std::span(&f, 1), "h"); }),
              HasSubstr("field 'f' needs a halo of 5 cells but tile"));
}

// Boundary strategies on one block with a halo of 2.
struct Block {
  BlockLayout layout{4, 3, 2};
  std::vector<double> data = std::vector<double>(layout.size(), -99.0);
  FieldView view() { return {data.data(), layout}; }
  void fill_interior() {
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 4; ++i) view()(i, j) = 10 * i + j + 1;
  }
};

TEST(Boundary, ReflectiveWallMirrorsScalarsAndNegatesTheNormalVelocity) {
  Block b;
  b.fill_interior();
  const ReflectiveWall wall;
  wall.apply(b.view(), Stagger::center, Side::west);
  wall.apply(b.view(), Stagger::center, Side::north);
  const FieldView v = b.view();
  EXPECT_EQ(v(-1, 1), v(0, 1));
  EXPECT_EQ(v(-2, 1), v(1, 1));
  EXPECT_EQ(v(2, 3), v(2, 2));
  EXPECT_EQ(v(2, 4), v(2, 1));
  EXPECT_EQ(v(-2, 4), v(1, 1));  // the corner, through the west halo

  Block n;
  n.fill_interior();
  wall.apply(n.view(), Stagger::face_x, Side::west);
  wall.apply(n.view(), Stagger::face_x, Side::east);
  const FieldView u = n.view();
  EXPECT_EQ(u(0, 1), 0);
  EXPECT_EQ(u(-1, 1), -u(1, 1));
  EXPECT_EQ(u(-2, 1), -u(2, 1));
  EXPECT_EQ(u(4, 1), 0);  // the east wall face
  EXPECT_EQ(u(5, 1), -u(3, 1));
}

TEST(Boundary, FixedValueFillsTheHaloAndTheWallFace) {
  Block b;
  b.fill_interior();
  const FixedValue fixed(7.5);
  fixed.apply(b.view(), Stagger::face_y, Side::south);
  const FieldView v = b.view();
  for (int i = -2; i < 6; ++i) {
    EXPECT_EQ(v(i, -1), 7.5);
    EXPECT_EQ(v(i, -2), 7.5);
  }
  EXPECT_EQ(v(1, 0), 7.5);   // the wall face
  EXPECT_EQ(v(1, 1), 12.0);  // the interior beyond it is untouched
}

}  // namespace
}  // namespace tessera::weather
