// Field: one staggered variable of the grid, held as one block per tile with a
// halo (see block_view.hpp for the layout).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/runtime.hpp"
#include "tessera/weather/block_view.hpp"
#include "tessera/weather/boundary.hpp"
#include "tessera/weather/grid.hpp"

namespace tessera::weather {

// A field: its variable, where it sits on the cell, its halo width and the
// boundary condition on each axis (ignored on a periodic axis).
struct Field {
  std::string name;
  Variable<double> variable;
  Stagger stagger = Stagger::center;
  int halo = 0;
  std::shared_ptr<const BoundaryCondition> boundary_x, boundary_y;
};

// Creates a field on every tile of `d`; `label` must be a string literal.
Field make_field(Runtime& runtime, const Decomposition& d, const char* label, std::string name,
                 Stagger stagger, int halo, std::shared_ptr<const BoundaryCondition> boundary_x,
                 std::shared_ptr<const BoundaryCondition> boundary_y);

inline BlockLayout layout_of(const Decomposition& d, int tile, int halo) {
  return {d.width(tile), d.height(tile), halo};
}
inline FieldView view(Tile& t, const Decomposition& d, const Field& f) {
  return {t.get(f.variable).data(), layout_of(d, t.id(), f.halo)};
}

// The interior of a centre quantity, value(tile, i, j) at local cell (i, j), as
// a row-major nx x ny array on rank 0 (j = 0 south); other ranks get an empty
// vector. Host I/O, outside the cost model; collective.
std::vector<double> gather_to_root(Runtime& runtime, const Decomposition& d,
                                   const std::function<double(Tile&, int, int)>& value);

// Sets the interior of `f` from a row-major nx x ny array (j = 0 south) that every rank
// passes whole, at the field's own staggered points; halos are left as they were. Throws
// ConfigError naming `what` for an array of another size. One superstep; collective.
void scatter_interior(Runtime& runtime, const Decomposition& d, const Field& f,
                      const std::vector<double>& values, const std::string& what);

// A hash of the interior values of `fields` (their bits, cell and field index), the same on
// any decomposition over tiles, threads and ranks. Host check, outside the cost model;
// collective.
std::uint64_t state_checksum(Runtime& runtime, const Decomposition& d,
                             const std::vector<Field>& fields);

// The first interior value of `fields` that is not finite or, for fields[k] with
// positive[k], not positive: its field's index, cell and value, on every rank; nothing if
// all are good. First: a finite value that is not positive (a dried-out layer) before a
// non-finite one, then in the order field, j, i (the same on any decomposition).
// Host check, outside the cost model; collective.
struct BadValue {
  int field = 0, i = 0, j = 0;
  double value = 0;
};
std::optional<BadValue> find_bad_value(Runtime& runtime, const Decomposition& d,
                                       const std::vector<Field>& fields,
                                       const std::vector<bool>& positive);

// Fills the halo of `f` on the domain edges this tile touches, x first, then y
// (so that corners come from the already-filled x halo).
void apply_boundaries(Tile& t, const Decomposition& d, const Field& f);

}  // namespace tessera::weather
