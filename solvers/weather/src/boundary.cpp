#include "tessera/weather/boundary.hpp"

#include "tessera/weather/field.hpp"

namespace tessera::weather {
namespace {

// Walks the halo beyond `side` as (k, line): k = 1 .. halo counts outwards
// from the edge, `line` runs along the edge over the whole padded block.
// at(k, line) is the cell k beyond the last interior cell; mirror(k, line) the
// cell k - 1 inside it; the normal face on the edge is at(0, line) on the
// west/south side (an interior value) and at(1, line) on the east/north side.
struct EdgeWalker {
  BlockView<double> f;
  Side side;
  int lines() const {
    const bool vertical = side == Side::west || side == Side::east;
    return (vertical ? f.height() : f.width()) + 2 * f.halo();
  }
  // Interior index (i or j) of the edge cell, and the outward direction.
  double& cell(int offset, int line) const {
    const int l = line - f.halo();
    switch (side) {
      case Side::west:
        return f(-1 - offset, l);
      case Side::east:
        return f(f.width() + offset, l);
      case Side::south:
        return f(l, -1 - offset);
      case Side::north:
        return f(l, f.height() + offset);
    }
    return f(0, 0);
  }
};

bool is_normal(Stagger s, Side side) {
  const bool vertical = side == Side::west || side == Side::east;
  return vertical ? s == Stagger::face_x : s == Stagger::face_y;
}

}  // namespace

// cell(o, l) with o >= 0 is the o-th halo cell outwards; cell(-1 - m, l) the
// m-th interior cell inwards from the edge.
void ReflectiveWall::apply(BlockView<double> f, Stagger stagger, Side side) const {
  const EdgeWalker e{f, side};
  const int h = f.halo();
  const bool low = side == Side::west || side == Side::south;
  for (int l = 0; l < e.lines(); ++l) {
    if (!is_normal(stagger, side)) {
      for (int o = 0; o < h; ++o) e.cell(o, l) = e.cell(-1 - o, l);  // even about the wall
    } else if (low) {
      // The wall face is interior face 0 (cell(-1)); odd about it.
      e.cell(-1, l) = 0;
      for (int o = 0; o < h; ++o) e.cell(o, l) = -e.cell(-2 - o, l);
    } else {
      // The wall face is the first halo face (cell(0)); odd about it.
      e.cell(0, l) = 0;
      for (int o = 1; o < h; ++o) e.cell(o, l) = -e.cell(-o, l);
    }
  }
}

void FixedValue::apply(BlockView<double> f, Stagger stagger, Side side) const {
  const EdgeWalker e{f, side};
  const bool low = side == Side::west || side == Side::south;
  for (int l = 0; l < e.lines(); ++l) {
    for (int o = 0; o < f.halo(); ++o) e.cell(o, l) = value_;
    if (low && is_normal(stagger, side)) e.cell(-1, l) = value_;  // the face on the edge
  }
}

}  // namespace tessera::weather
