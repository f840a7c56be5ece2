#include "tessera/weather/field.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>

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
  // -0.0 is the exact identity of the sum below (0.0 would turn an owner's -0.0 into +0.0).
  std::vector<double> all(nx * static_cast<std::size_t>(d.grid().ny), -0.0);
  for (const auto& tile : runtime.local_tiles()) {
    const int i0 = d.x_begin(tile->id()), j0 = d.y_begin(tile->id());
    for (int j = 0; j < d.height(tile->id()); ++j)
      for (int i = 0; i < d.width(tile->id()); ++i)
        all[static_cast<std::size_t>(j0 + j) * nx + static_cast<std::size_t>(i0 + i)] =
            value(*tile, i, j);
  }
  // Every point comes from exactly one rank; the others add -0.0, so the sum is exact.
  if (runtime.rank() == 0)
    MPI_Reduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, 0,
               runtime.comm());
  else
    MPI_Reduce(all.data(), nullptr, static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM, 0,
               runtime.comm());
  if (runtime.rank() != 0) return {};
  return all;
}

void scatter_interior(Runtime& runtime, const Decomposition& d, const Field& f,
                      const std::vector<double>& values, const std::string& what) {
  const Grid& g = d.grid();
  const auto nx = static_cast<std::size_t>(g.nx);
  if (values.size() != nx * static_cast<std::size_t>(g.ny))
    throw ConfigError(what + " has " + std::to_string(values.size()) + " values for a " +
                      std::to_string(g.nx) + " x " + std::to_string(g.ny) + " grid");
  runtime.superstep("weather.scatter_interior", [&](Tile& t) {
    const FieldView a = view(t, d, f);
    const int i0 = d.x_begin(t.id()), j0 = d.y_begin(t.id());
    for (int j = 0; j < a.height(); ++j)
      for (int i = 0; i < a.width(); ++i)
        a(i, j) = values[static_cast<std::size_t>(j0 + j) * nx + static_cast<std::size_t>(i0 + i)];
  });
}

std::optional<BadValue> find_bad_value(Runtime& runtime, const Decomposition& d,
                                       const std::vector<Field>& fields,
                                       const std::vector<bool>& positive) {
  const auto nx = static_cast<std::uint64_t>(d.grid().nx);
  const auto cells = nx * static_cast<std::uint64_t>(d.grid().ny);
  constexpr std::uint64_t kNone = ~std::uint64_t{0};
  // Each bad point's rank: a finite value of a positive field (a layer that dried out: the
  // physical cause) before any non-finite one (which spreads from it), then field, j, i;
  // the smallest wins.
  const std::uint64_t per_kind = static_cast<std::uint64_t>(fields.size()) * cells;
  const std::uint64_t first =
      runtime.all_reduce<std::uint64_t>("weather.check", ReduceOp::min, [&](Tile& t) {
        const int i0 = d.x_begin(t.id()), j0 = d.y_begin(t.id());
        std::uint64_t best = kNone;
        for (std::size_t f = 0; f < fields.size(); ++f) {
          const FieldView a = view(t, d, fields[f]);
          for (int j = 0; j < a.height(); ++j)
            for (int i = 0; i < a.width(); ++i) {
              const double v = a(i, j);
              if (std::isfinite(v) && (!positive[f] || v > 0)) continue;
              const std::uint64_t key = (std::isfinite(v) ? 0 : per_kind) + f * cells +
                                        static_cast<std::uint64_t>(j0 + j) * nx +
                                        static_cast<std::uint64_t>(i0 + i);
              best = std::min(best, key);
            }
        }
        return best;
      });
  if (first == kNone) return std::nullopt;
  BadValue b;
  b.field = static_cast<int>(first % per_kind / cells);
  b.j = static_cast<int>(first % cells / nx);
  b.i = static_cast<int>(first % nx);
  // The owner's value (every other tile adds 0; NaN and infinities survive the sum).
  b.value = runtime.all_reduce<double>("weather.check.value", ReduceOp::sum, [&](Tile& t) {
    const int i0 = d.x_begin(t.id()), j0 = d.y_begin(t.id());
    if (b.i < i0 || b.i >= i0 + d.width(t.id()) || b.j < j0 || b.j >= j0 + d.height(t.id()))
      return 0.0;
    return view(t, d, fields[static_cast<std::size_t>(b.field)])(b.i - i0, b.j - j0);
  });
  return b;
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

void fill_lat_lon(Runtime& runtime, const Decomposition& d, const Field& f,
                  const std::function<double(double lambda, double phi)>& fn) {
  const Grid& g = d.grid();
  runtime.superstep("weather.fill", [&](Tile& t) {
    const FieldView x = view(t, d, f);
    const int i0 = d.x_begin(t.id()), j0 = d.y_begin(t.id()), hw = f.halo;
    for (int j = -hw; j < x.height() + hw; ++j)
      for (int i = -hw; i < x.width() + hw; ++i) {
        const double lambda = f.stagger == Stagger::face_x ? g.x_face(i0 + i) : g.x_center(i0 + i);
        const double phi = f.stagger == Stagger::face_y ? g.y_face(j0 + j) : g.y_center(j0 + j);
        x(i, j) = fn(lambda, std::clamp(phi, -std::numbers::pi / 2, std::numbers::pi / 2));
      }
  });
}

std::uint64_t state_checksum(Runtime& runtime, const Decomposition& d,
                             const std::vector<Field>& fields) {
  auto mix = [](std::uint64_t x) {  // splitmix64 finaliser
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  const auto nx = static_cast<std::uint64_t>(d.grid().nx);
  return runtime.all_reduce<std::uint64_t>("weather.checksum", ReduceOp::sum, [&](Tile& t) {
    // Wrapping sums of per-point hashes are exact and order-free, so the checksum does not
    // depend on how the grid is split.
    std::uint64_t sum = 0;
    const int i0 = d.x_begin(t.id()), j0 = d.y_begin(t.id());
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const FieldView x = view(t, d, fields[f]);
      for (int j = 0; j < x.height(); ++j)
        for (int i = 0; i < x.width(); ++i) {
          const std::uint64_t where =
              (static_cast<std::uint64_t>(j0 + j) * nx + static_cast<std::uint64_t>(i0 + i)) *
                  fields.size() +
              f;
          sum += mix(mix(where) ^ std::bit_cast<std::uint64_t>(x(i, j)));
        }
    }
    return sum;
  });
}

}  // namespace tessera::weather
