// Boundary conditions as small strategy classes (GridTools style): each fills
// the halo of a field beyond one domain edge from the field's interior. Halos
// between blocks, and on periodic axes, come from the halo exchange instead.
//
//   Periodic        the axis wraps; nothing to do locally (the exchange plan wraps).
//   ReflectiveWall  free-slip wall: the normal velocity is zero on the wall face
//                   and odd about it, every other field is even about the wall.
//   FixedValue(v)   every halo value (and a normal face on the wall) is v.
#pragma once

#include <string>

#include "tessera/weather/block_view.hpp"
#include "tessera/weather/grid.hpp"

namespace tessera::weather {

enum class Side { west, east, south, north };

class BoundaryCondition {
 public:
  virtual ~BoundaryCondition() = default;
  virtual bool periodic() const { return false; }
  // Fills the halo of `f` (a field at `stagger`) beyond `side`; every halo row
  // (or column) along the edge is filled, including the corners.
  virtual void apply(BlockView<double> f, Stagger stagger, Side side) const = 0;
  virtual std::string name() const = 0;
};

class Periodic final : public BoundaryCondition {
 public:
  bool periodic() const override { return true; }
  void apply(BlockView<double>, Stagger, Side) const override {}
  std::string name() const override { return "periodic"; }
};

class ReflectiveWall final : public BoundaryCondition {
 public:
  void apply(BlockView<double> f, Stagger stagger, Side side) const override;
  std::string name() const override { return "wall"; }
};

class FixedValue final : public BoundaryCondition {
 public:
  explicit FixedValue(double value) : value_(value) {}
  void apply(BlockView<double> f, Stagger stagger, Side side) const override;
  std::string name() const override { return "fixed"; }

 private:
  double value_;
};

}  // namespace tessera::weather
