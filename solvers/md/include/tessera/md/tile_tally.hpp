// Per-tile sums a fix's post_force keeps (fix indent's, the walls'): a row of `width` values per
// tile, its energy first, read by thermo's reduction (Fix::tile_energy) and summed over tiles
// and ranks on demand. resize is collective (a fix's pre_force, before the tiles write); each
// tile then writes only its own row, so the rows need no lock.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "tessera/core/runtime.hpp"

namespace tessera::md {

class TileTally {
 public:
  // Rows of `width` zeros for every tile of the target, unless they are there already.
  void resize(const Runtime& runtime, std::size_t width) {
    const auto size = static_cast<std::size_t>(runtime.target().total_tiles()) * width;
    if (width_ != width || values_.size() != size) width_ = width, values_.assign(size, 0.0);
  }
  // The tile's row (zeroed here: post_force adds into it).
  std::span<double> start_row(const Tile& tile) {
    auto row =
        std::span<double>(values_).subspan(static_cast<std::size_t>(tile.id()) * width_, width_);
    std::fill(row.begin(), row.end(), 0.0);
    return row;
  }
  // The tile's row as it is (to add into), and read-only.
  std::span<double> row(const Tile& tile) {
    return std::span<double>(values_).subspan(static_cast<std::size_t>(tile.id()) * width_, width_);
  }
  std::span<const double> values(const Tile& tile) const {
    const auto at = static_cast<std::size_t>(tile.id()) * width_;
    if (at + width_ > values_.size()) return {};
    return std::span<const double>(values_).subspan(at, width_);
  }
  // The tile's first N values as an array (zeros before any post_force): a fix's virial.
  template <std::size_t N>
  std::array<double, N> first_values(const Tile& tile) const {
    std::array<double, N> out{};
    const auto row = values(tile);
    std::copy_n(row.begin(), std::min(N, row.size()), out.begin());
    return out;
  }
  // The first value of the tile's row (its energy), 0 before any post_force.
  double first(const Tile& tile) const {
    const auto at = static_cast<std::size_t>(tile.id()) * width_;
    return at < values_.size() ? values_[at] : 0.0;
  }
  // Every column summed over the tiles and ranks (collective), `width` values.
  std::vector<double> totals(Runtime& runtime, std::string_view name, std::size_t width) const {
    return runtime.all_reduce<double>(
        name, ReduceOp::sum, width, [&](Tile& t, std::span<double> out) {
          const auto at = static_cast<std::size_t>(t.id()) * width_;
          for (std::size_t c = 0; c < out.size(); ++c)
            out[c] = at + c < values_.size() && c < width_ ? values_[at + c] : 0.0;
        });
  }

 private:
  std::size_t width_ = 0;
  std::vector<double> values_;
};

}  // namespace tessera::md
