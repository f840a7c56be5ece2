// Small exact checks of the MD building blocks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/md/domain.hpp"
#include "tessera/md/expression.hpp"
#include "tessera/md/lattice.hpp"
#include "tessera/md/pair_lj_cut.hpp"
#include "tessera/md/random_park.hpp"
#include "tessera/md/units.hpp"

namespace tessera::md {
namespace {

using ::testing::HasSubstr;

TEST(Units, LammpsConstants) {
  const Units lj = Units::of("lj"), metal = Units::of("metal"), real = Units::of("real");
  EXPECT_EQ(lj.boltz, 1.0);
  EXPECT_EQ(lj.dt, 0.005);
  EXPECT_EQ(metal.boltz, 8.617343e-5);
  EXPECT_EQ(metal.nktv2p, 1.6021765e6);
  EXPECT_EQ(metal.dt, 0.001);
  EXPECT_DOUBLE_EQ(real.mvv2e * real.ftm2v, 1.0);
  EXPECT_EQ(real.nktv2p, 68568.415);
  EXPECT_THROW(Units::of("si"), ConfigError);
}

TEST(Lattice, FccCountsAndSpacing) {
  const auto half_open = [](double side) {
    return [side](const std::array<double, 3>& p) {
      return p[0] < side && p[1] < side && p[2] < side && p[0] >= 0 && p[1] >= 0 && p[2] >= 0;
    };
  };
  const Lattice l = Lattice::make({"fcc", "0.8442"}, Units::of("lj"), 3);
  EXPECT_DOUBLE_EQ(l.spacing(0), std::pow(4.0 / 0.8442, 1.0 / 3.0));
  const double side = 20 * l.spacing(0);
  EXPECT_EQ(l.points({0, 0, 0}, {side, side, side}, half_open(side)).size(), 32000u);
  const Lattice d = Lattice::make({"diamond", "5.43"}, Units::of("metal"), 3);
  EXPECT_EQ(d.spacing(0), 5.43);
  EXPECT_EQ(d.points({0, 0, 0}, {2 * 5.43, 2 * 5.43, 2 * 5.43}, half_open(2 * 5.43)).size(), 64u);
  const Lattice bcc = Lattice::make({"bcc", "1.0"}, Units::of("lj"), 3);
  const double s3 = 3 * bcc.spacing(0);
  EXPECT_EQ(bcc.points({0, 0, 0}, {s3, s3, s3}, half_open(s3)).size(), 54u);
  EXPECT_THROW(Lattice::make({"hcp", "1"}, Units::of("lj"), 2), ConfigError);
  EXPECT_THROW(Lattice::make({"bct", "1"}, Units::of("lj"), 3), ConfigError);
}

// lattice custom with a1 a2 a3 and basis is the named lattice it spells out, point for point
// (the input of LAMMPS's examples/tersoff and threebody).
TEST(Lattice, CustomSpellsOutDiamond) {
  const Lattice d = Lattice::make({"diamond", "5.431"}, Units::of("metal"), 3);
  std::vector<std::string> args = {"custom", "5.431", "a1",  "1.0", "0.0", "0.0", "a2",
                                   "0.0",    "1.0",   "0.0", "a3",  "0.0", "0.0", "1.0"};
  for (const char* b : {"0.0 0.0 0.0", "0.0 0.5 0.5", "0.5 0.0 0.5", "0.5 0.5 0.0",
                        "0.25 0.25 0.25", "0.25 0.75 0.75", "0.75 0.25 0.75", "0.75 0.75 0.25"}) {
    args.push_back("basis");
    std::istringstream words(b);
    for (std::string w; words >> w;) args.push_back(w);
  }
  const Lattice c = Lattice::make(args, Units::of("metal"), 3);
  const auto all = [](const std::array<double, 3>&) { return true; };
  EXPECT_EQ(c.points({0, 0, 0}, {11, 11, 11}, all), d.points({0, 0, 0}, {11, 11, 11}, all));
  EXPECT_EQ(c.spacing(0), 5.431);
  // Its own keywords only for custom, as LAMMPS.
  EXPECT_THROW(Lattice::make({"fcc", "1.0", "basis", "0", "0", "0"}, Units::of("metal"), 3),
               ConfigError);
}

// orient: fcc with x along [1 1 0], y along [-1 1 0], z along [0 0 1] has spacings a sqrt(2),
// a sqrt(2), a (LAMMPS's bounding box of the rotated unit cell), and its points are fcc's: every
// point has 12 nearest neighbors at a / sqrt(2).
TEST(Lattice, OrientRotatesTheCell) {
  const double a = 4.05;
  const Lattice l = Lattice::make({"fcc", "4.05", "orient", "x", "1", "1", "0", "orient", "y", "-1",
                                   "1", "0", "orient", "z", "0", "0", "1"},
                                  Units::of("metal"), 3);
  EXPECT_NEAR(l.spacing(0), a * std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(l.spacing(1), a * std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(l.spacing(2), a, 1e-12);
  const auto points = l.points({-10, -10, -10}, {10, 10, 10}, [](const std::array<double, 3>& p) {
    return std::fabs(p[0]) < 10 && std::fabs(p[1]) < 10 && std::fabs(p[2]) < 10;
  });
  const std::array<double, 3> centre = {0, 0, 0};
  int near = 0;
  for (const auto& p : points) {
    const double r = std::hypot(p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]);
    if (std::fabs(r - a / std::sqrt(2.0)) < 1e-9) ++near;
  }
  EXPECT_EQ(near, 12);
  // Orient vectors that are not orthogonal, or left-handed, are refused as LAMMPS refuses them.
  EXPECT_THROW(Lattice::make({"fcc", "4.05", "orient", "x", "1", "1", "0"}, Units::of("metal"), 3),
               ConfigError);
  EXPECT_THROW(Lattice::make({"fcc", "4.05", "orient", "z", "0", "0", "-1"}, Units::of("metal"), 3),
               ConfigError);
}

// hcp (LAMMPS's rectangular cell of 4 atoms, a2 = sqrt(3), a3 = sqrt(8/3)) and origin.
TEST(Lattice, HcpAndOrigin) {
  const Lattice h = Lattice::make({"hcp", "3.0"}, Units::of("metal"), 3);
  EXPECT_EQ(h.basis.size(), 4u);
  EXPECT_NEAR(h.spacing(1), 3.0 * std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(h.spacing(2), 3.0 * std::sqrt(8.0 / 3.0), 1e-12);
  const Lattice o =
      Lattice::make({"sc", "2.0", "origin", "0.5", "0", "0.25"}, Units::of("metal"), 3);
  const auto p = o.to_box({1, 1, 1});
  EXPECT_DOUBLE_EQ(p[0], 3.0);
  EXPECT_DOUBLE_EQ(p[1], 2.0);
  EXPECT_DOUBLE_EQ(p[2], 2.5);
  const auto back = o.to_lattice(p);
  EXPECT_DOUBLE_EQ(back[0], 1.0);
  EXPECT_DOUBLE_EQ(back[2], 1.0);
}

TEST(RandomPark, MinimalStandardCheckValue) {
  // Park & Miller (1988): from seed 1, the 10000th value is 1043618065.
  RandomPark r(1);
  double u = 0;
  for (int i = 0; i < 10000; ++i) u = r.uniform();
  EXPECT_EQ(std::llround(u * 2147483647.0), 1043618065);
  EXPECT_THROW(RandomPark(0), ConfigError);
}

TEST(RandomPark, GaussianMoments) {
  RandomPark r(12345);
  double sum = 0, sq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double g = r.gaussian();
    sum += g, sq += g * g;
  }
  EXPECT_NEAR(sum / n, 0.0, 4.0 / std::sqrt(n));
  EXPECT_NEAR(sq / n, 1.0, 4.0 * std::sqrt(2.0 / n));
}

TEST(PairLJCut, MixingShiftAndTables) {
  PairLJCut p;
  p.settings(2.5);
  p.coeff(1, 1, 1, 1, 1.0, 1.0, -1);
  p.coeff(2, 2, 2, 2, 0.5, 1.2, 3.0);
  p.set_shift(true);
  p.set_mix("arithmetic");
  p.init(2, 1);
  const auto& c12 = p(1, 2);
  const double eps = std::sqrt(0.5), sigma = 1.1, rc = 0.5 * (2.5 + 3.0);
  EXPECT_DOUBLE_EQ(c12.cutsq, rc * rc);
  EXPECT_DOUBLE_EQ(c12.lj1, 48 * eps * std::pow(sigma, 12));
  EXPECT_DOUBLE_EQ(c12.lj4, 4 * eps * std::pow(sigma, 6));
  EXPECT_DOUBLE_EQ(c12.offset, 4 * eps * (std::pow(sigma / rc, 12) - std::pow(sigma / rc, 6)));
  EXPECT_EQ(p.max_cutoff(), 3.0);
  // The energy is zero at the cutoff with shift yes.
  const double r6 = std::pow(1.0 / (rc * rc), 3);
  EXPECT_NEAR(r6 * (c12.lj3 * r6 - c12.lj4) - c12.offset, 0.0, 1e-15);
}

TEST(PairLJCut, MissingCoefficientsAreNamed) {
  PairLJCut p;
  p.settings(2.5);
  p.coeff(1, 1, 1, 1, 1.0, 1.0, -1);
  try {
    p.init(2, 1);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no coefficients for atom types 1 2"));
  }
}

TEST(Domain, OwnershipWrappingAndSegments) {
  Box b;
  b.hi = {10, 10, 10};
  const Domain d(b, 8, 2.0);
  EXPECT_EQ(d.grid(), (std::array<int, 3>{2, 2, 2}));
  EXPECT_EQ(d.owner({1, 1, 1}), 0);
  EXPECT_EQ(d.owner({6, 1, 1}), 1);
  EXPECT_EQ(d.owner({6, 6, 6}), 7);
  EXPECT_EQ(d.owner({5, 5, 5}), 7);  // the lower face belongs to the upper tile
  double x[3] = {-0.5, 10.0, 25.0};
  int image[3] = {0, 0, 0};
  EXPECT_TRUE(d.wrap(x, image));
  EXPECT_DOUBLE_EQ(x[0], 9.5);
  EXPECT_DOUBLE_EQ(x[1], 0.0);
  EXPECT_DOUBLE_EQ(x[2], 5.0);
  EXPECT_EQ(image[0], -1);
  EXPECT_EQ(image[1], 1);
  EXPECT_EQ(image[2], 2);
  // 2 x 2 x 2 tiles, sub-box 5 > cutoff 2: 26 neighbour segments, each tile reached twice per axis.
  EXPECT_EQ(d.segments_per_tile(), 26);
  int to_self = 0;
  for (const auto& s : d.segments(0)) to_self += s.destination == 0;
  EXPECT_EQ(to_self, 0);
  // An image count beyond int's range (an atom moved 1e307 box lengths) is refused, not wrapped
  // (UBSan saw the conversion overflow before).
  double far[3] = {5.0, 1e308, 5.0};
  int far_image[3] = {0, 0, 0};
  EXPECT_FALSE(d.wrap(far, far_image));
  double almost[3] = {25.0, 5.0, 5.0};
  int almost_image[3] = {std::numeric_limits<int>::max() - 1, 0, 0};
  EXPECT_FALSE(d.wrap(almost, almost_image));
}

TEST(Expression, ArithmeticFunctionsAndNames) {
  auto none = [](const std::string&) -> std::optional<double> { return std::nullopt; };
  EXPECT_EQ(evaluate("20*1", none), 20.0);
  EXPECT_EQ(evaluate("2^3^2", none), 512.0);
  EXPECT_EQ(evaluate("-(1+2)*3 - 4/2", none), -11.0);
  EXPECT_DOUBLE_EQ(evaluate("sqrt(16) + ln(exp(2)) + max(1, 3)", none), 9.0);
  EXPECT_EQ(evaluate("1 < 2 && 3 >= 3", none), 1.0);
  EXPECT_EQ(evaluate("v_a * 2",
                     [](const std::string& n) -> std::optional<double> {
                       if (n == "v_a") return 21.0;
                       return std::nullopt;
                     }),
            42.0);
  EXPECT_THROW(evaluate("1 +", none), ConfigError);
  EXPECT_THROW(evaluate("1 / 0", none), ConfigError);
  try {
    evaluate("2 * foo", none);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown name 'foo'"));
  }
}

}  // namespace
}  // namespace tessera::md
