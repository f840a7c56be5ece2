// Registry: styles made by name, unknown names refused with the family's list.
#include "tessera/core/registry.hpp"

#include <gtest/gtest.h>

namespace tessera {
namespace {

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
};
struct Square : Shape {
  explicit Square(double side) : side(side) {}
  double area() const override { return side * side; }
  double side;
};
struct Disc : Shape {
  explicit Disc(double r) : r(r) {}
  double area() const override { return 3.0 * r * r; }
  double r;
};

Registry<Shape, double> shapes() {
  Registry<Shape, double> r("shape");
  r.add<Square>("square").add("disc", [](double x) { return std::make_unique<Disc>(x); });
  return r;
}

TEST(Registry, MakesEachStyleByNameWithItsArguments) {
  const auto r = shapes();
  EXPECT_EQ(r.make("square", 2.0)->area(), 4.0);
  EXPECT_EQ(r.make("disc", 1.0)->area(), 3.0);
  EXPECT_TRUE(r.has("disc"));
  EXPECT_FALSE(r.has("triangle"));
  EXPECT_EQ(r.names(), (std::vector<std::string>{"disc", "square"}));
}

TEST(Registry, UnknownNameListsTheFamily) {
  const auto r = shapes();
  try {
    r.make("triangle", 1.0);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "shape triangle is not supported; the shapes are disc and square");
  }
}

TEST(Registry, ANameTwiceIsAProgrammingError) {
  auto r = shapes();
  EXPECT_THROW(r.add<Square>("disc"), std::logic_error);
}

}  // namespace
}  // namespace tessera
