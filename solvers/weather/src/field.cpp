#include "tessera/weather/field.hpp"

namespace tessera::weather {

Field make_field(Runtime& runtime, const Decomposition& d, const char* label, std::string name,
                 Stagger stagger, int halo, std::shared_ptr<const BoundaryCondition> boundary_x,
                 std::shared_ptr<const BoundaryCondition> boundary_y) {
  Field f;
  f.name = std::move(name);
  f.stagger = stagger;
  f.halo = halo;
  f.boundary_x = std::move(boundary_x);
  f.boundary_y = std::move(boundary_y);
  f.variable = runtime.create_variable<double>(
      label, [&d, halo](const Tile& t) { return layout_of(d, t.id(), halo).size(); });
  return f;
}

std::vector<double> gather_to_root(Runtime& runtime, const Decomposition& d,
                                   const std::function<double(Tile&, int, int)>& value) {
  const std::size_t nx = static_cast<std::size_t>(d.grid().nx);
  std::vector<double> all(nx * static_cast<std::size_t>(d.grid().ny), 0.0);
  for (const auto& tile : runtime.local_tiles()) {
    const int i0 = d.x_begin(tile->id()), j0 = d.y_begin(tile->id());
    for (int j = 0; j < d.height(tile->id()); ++j)
      for (int i = 0; i < d.width(tile->id()); ++i)
        all[static_cast<std::size_t>(j0 + j) * nx + static_cast<std::size_t>(i0 + i)] =
            value(*tile, i, j);
  }
  // Every point comes from exactly one rank; the others add zeros, so the sum is exact.
  if (runtime.rank() == 0)
    MPI_Reduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, 0,
               runtime.comm());
  else
    MPI_Reduce(all.data(), nullptr, static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, 0,
               runtime.comm());
  if (runtime.rank() != 0) return {};
  return all;
}

void apply_boundaries(Tile& t, const Decomposition& d, const Field& f) {
  if (f.halo == 0) return;
  const FieldView v = view(t, d, f);
  const Grid& g = d.grid();
  if (!g.periodic_x && f.boundary_x) {
    if (d.on_west(t.id())) f.boundary_x->apply(v, f.stagger, Side::west);
    if (d.on_east(t.id())) f.boundary_x->apply(v, f.stagger, Side::east);
  }
  if (!g.periodic_y && f.boundary_y) {
    if (d.on_south(t.id())) f.boundary_y->apply(v, f.stagger, Side::south);
    if (d.on_north(t.id())) f.boundary_y->apply(v, f.stagger, Side::north);
  }
}

}  // namespace tessera::weather
