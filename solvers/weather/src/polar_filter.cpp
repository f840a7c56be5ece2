#include "tessera/weather/polar_filter.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>

#include "tessera/core/error.hpp"
#include "tessera/weather/block_view.hpp"

namespace tessera::weather {
namespace {

// The band of blocks (block_y) that holds global row j.
int band_of(const Decomposition& d, int j) {
  for (int by = 0; by < d.py(); ++by) {
    const int tile = d.tile_at(0, by);
    if (j >= d.y_begin(tile) && j < d.y_begin(tile) + d.height(tile)) return by;
  }
  throw std::logic_error("row outside the grid");
}

fftw_complex* as_fftw(std::complex<double>* c) { return reinterpret_cast<fftw_complex*>(c); }

}  // namespace

double PolarFilter::response(int k, int nlon, double latitude, double phi_c) {
  if (k == 0) return 1.0;
  const double half_wave = std::sin(k * std::numbers::pi / nlon);  // sin(k dlambda / 2)
  return std::min(1.0, std::cos(latitude) / (std::cos(phi_c) * half_wave));
}

double PolarFilter::effective_cos(double latitude) const {
  return std::max(std::cos(latitude), std::cos(phi_c_));
}

PolarFilter::PolarFilter(Runtime& runtime, const Decomposition& d, std::vector<Stagger> staggers,
                         double filter_latitude)
    : runtime_(runtime),
      d_(d),
      staggers_(std::move(staggers)),
      phi_c_(filter_latitude),
      nlon_(d.grid().nx) {
  const Grid& g = d.grid();
  if (!(phi_c_ > 0 && phi_c_ < std::numbers::pi / 2))
    throw ConfigError(
        "the polar filter's latitude must lie strictly between 0 and 90 degrees, got " +
        std::to_string(phi_c_ * 180 / std::numbers::pi));
  if (!g.periodic_x) throw ConfigError("the polar filter needs a grid periodic in longitude");
  // Rows are dealt round their band's tiles in (field, row) order.
  std::vector<int> dealt(static_cast<std::size_t>(d.py()), 0);
  owned_.assign(static_cast<std::size_t>(d.tiles()), {});
  for (std::size_t f = 0; f < staggers_.size(); ++f) {
    if (staggers_[f] == Stagger::corner)
      throw std::logic_error("the polar filter takes centre and face fields, not corner ones");
    const bool faces = staggers_[f] == Stagger::face_y;
    for (int j = faces ? 1 : 0; j < g.ny; ++j) {
      const double latitude = faces ? g.y_face(j) : g.y_center(j);
      if (!(std::abs(latitude) > phi_c_)) continue;
      const int band = band_of(d, j);
      const int turn = dealt[static_cast<std::size_t>(band)]++;
      const int owner = d.tile_at(turn % d.px(), band);
      auto& mine = owned_[static_cast<std::size_t>(owner)];
      rows_.push_back({f, j, band, owner, static_cast<int>(mine.size())});
      mine.push_back(static_cast<int>(rows_.size() - 1));
      std::vector<double> s(static_cast<std::size_t>(nlon_ / 2 + 1));
      for (int k = 0; k <= nlon_ / 2; ++k)
        s[static_cast<std::size_t>(k)] = response(k, nlon_, latitude, phi_c_) / nlon_;
      factors_.push_back(std::move(s));
    }
  }
  const auto n = static_cast<std::size_t>(nlon_);
  buffer_ = runtime_.create_variable<double>("weather.polar_filter.rows", [this, n](const Tile& t) {
    return owned_[static_cast<std::size_t>(t.id())].size() * n;
  });
  // Plans that do not depend on the arrays' alignment: the same code, hence the same bits, for
  // every row wherever it is held. Planning is not thread-safe; it happens here, on the host.
  std::vector<double> x(n);
  std::vector<std::complex<double>> c(n / 2 + 1);
  forward_ =
      fftw_plan_dft_r2c_1d(nlon_, x.data(), as_fftw(c.data()), FFTW_ESTIMATE | FFTW_UNALIGNED);
  backward_ =
      fftw_plan_dft_c2r_1d(nlon_, as_fftw(c.data()), x.data(), FFTW_ESTIMATE | FFTW_UNALIGNED);
  if (!forward_ || !backward_)
    throw Error("FFTW could not plan a transform of " + std::to_string(n) + " points");
}

PolarFilter::~PolarFilter() {
  if (forward_) fftw_destroy_plan(forward_);
  if (backward_) fftw_destroy_plan(backward_);
}

const PolarFilter::Plans& PolarFilter::plans(std::span<const Field> fields) {
  if (fields.size() != staggers_.size())
    throw std::logic_error("the polar filter got other fields than it was made for");
  for (std::size_t f = 0; f < fields.size(); ++f)
    if (fields[f].stagger != staggers_[f])
      throw std::logic_error("the polar filter got a field of another staggering");
  auto& slot = plans_[fields.front().variable.id];
  if (slot) return *slot;
  ExchangePlanBuilder gather("weather.polar_filter.gather"),
      scatter("weather.polar_filter.scatter");
  for (const Row& r : rows_) {
    const Field& f = fields[r.field];
    for (int bx = 0; bx < d_.px(); ++bx) {
      const int tile = d_.tile_at(bx, r.band);
      const std::size_t at = layout_of(d_, tile, f.halo).index(0, r.j - d_.y_begin(tile));
      const std::size_t in_row =
          static_cast<std::size_t>(r.slot) * static_cast<std::size_t>(nlon_) +
          static_cast<std::size_t>(d_.x_begin(tile));
      const auto w = static_cast<std::size_t>(d_.width(tile));
      gather.copy(f.variable, tile, at, buffer_, r.owner, in_row, w);
      scatter.copy(buffer_, r.owner, in_row, f.variable, tile, at, w);
    }
  }
  slot = std::make_unique<Plans>(Plans{runtime_.compile(gather), runtime_.compile(scatter)});
  return *slot;
}

const ExchangePlan* PolarFilter::gather(std::span<const Field> fields) {
  return &plans(fields).gather;
}

void PolarFilter::filter(std::span<const Field> fields) {
  const Plans& p = plans(fields);
  const double n = nlon_;
  // Per row: two real transforms (about 2.5 n log2 n flops each) and the scaling of n / 2 + 1
  // complex coefficients; the row is read and written by each transform.
  KernelWork work;
  work.flops_fp64 = 5 * n * std::log2(n) + 2 * (n / 2 + 1);
  work.bytes_loaded = 8 * 2 * n;
  work.bytes_stored = 8 * 2 * n;
  work.value_bytes = 8;
  runtime_.superstep(
      "weather.polar_filter",
      [&](Tile& t) {
        const auto& mine = owned_[static_cast<std::size_t>(t.id())];
        if (mine.empty()) return;
        auto rows = t.get(buffer_);
        std::vector<std::complex<double>> spectrum(static_cast<std::size_t>(nlon_ / 2 + 1));
        for (const int index : mine) {
          const Row& r = rows_[static_cast<std::size_t>(index)];
          double* row =
              rows.data() + static_cast<std::size_t>(r.slot) * static_cast<std::size_t>(nlon_);
          fftw_execute_dft_r2c(forward_, row, as_fftw(spectrum.data()));
          const auto& s = factors_[static_cast<std::size_t>(index)];
          for (std::size_t k = 0; k < spectrum.size(); ++k) spectrum[k] *= s[k];
          fftw_execute_dft_c2r(backward_, as_fftw(spectrum.data()), row);
        }
        t.charge(work, mine.size());
      },
      {&p.scatter});
}

}  // namespace tessera::weather
