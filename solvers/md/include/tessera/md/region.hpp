// Region: a volume of space, as LAMMPS's Region, one of an open family made by name
// (region_styles(): `region r sphere 5 5 5 2` makes the style registered as "sphere"):
//   block xlo xhi ylo yhi zlo zhi     (RegBlock)
//   sphere x y z radius               (RegSphere; the radius scaled by the x lattice spacing)
//   cylinder dim c1 c2 radius lo hi   (RegCylinder: the axis along dim x|y|z through (c1, c2) in
//                                      the other two; the radius scaled by the first of them)
//   union N id1 ... idN, intersect N id1 ... idN   (RegUnion, RegIntersect of other regions)
// A bound may be INF (unbounded) or EDGE (the box's face; both need the box); coordinates are in
// lattice units unless units box (never INF or EDGE). A point matches a region when it is
// inside, surface included, or, with side out, when it is not (LAMMPS's Region::match).
// Regions are immutable once made and safe to read from any thread.
#pragma once

#include <array>
#include <optional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/core/registry.hpp"
#include "tessera/md/domain.hpp"

namespace tessera::md {

class Region {
 public:
  virtual ~Region() = default;
  virtual std::string style() const = 0;
  // Inside the region, its surface included (side not applied).
  virtual bool inside(const std::array<double, 3>& p) const = 0;
  // A box that holds every point inside (+-1e20 where unbounded).
  virtual Box bounds() const = 0;
  // The simulation box create_box makes of the region, as LAMMPS's: a block's bounds, a prism's
  // corners and tilts (a triclinic box); nullopt for the other styles.
  virtual std::optional<Box> as_box() const { return std::nullopt; }

  bool matches(const std::array<double, 3>& p) const { return inside(p) == interior_; }
  // The box that holds every point that matches: everything for side out.
  Box extent() const;
  bool interior() const { return interior_; }
  void set_interior(bool interior) { interior_ = interior; }

 private:
  bool interior_ = true;
};

constexpr double unbounded = 1.0e20;  // LAMMPS's BIG: an INF bound

// What the region command gives a style: its ID, the words between the style and the keywords,
// the lattice spacing per axis (1 with units box), the box (nullptr before create_box; INF and
// EDGE need it) and the regions defined so far (union and intersect).
struct RegionArguments {
  std::string id;
  std::vector<std::string> args;
  std::array<double, 3> scale{1.0, 1.0, 1.0};
  const Box* box = nullptr;
  const std::map<std::string, std::shared_ptr<const Region>>* regions = nullptr;
};

const Registry<Region, const RegionArguments&>& region_styles();

}  // namespace tessera::md
