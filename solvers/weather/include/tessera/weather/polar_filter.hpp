// PolarFilter: the Fourier filter of latitude-longitude grid-point models near the poles
// (Arakawa & Lamb 1977, Methods in Computational Physics 17, 173-265; the response of Takacs
// & Balgovind 1983, Mon. Wea. Rev. 111, 2005-2015). In each grid row poleward of the filter
// latitude phi_c, zonal wavenumber k of a field is multiplied by
//   S_k = min(1, cos(phi) / (cos(phi_c) sin(k dlambda / 2))),   S_0 = 1,
// so that no zonal wave moves faster on the grid than the shortest one at phi_c: an explicit
// scheme's time step is then set by the zonal spacing at phi_c, not by the rows next to the
// poles. The zonal mean (k = 0) is kept, so a filtered flux-form tendency keeps mass to
// round-off.
//
// On tiles: a grid row is split over the px tiles of its band of blocks. Each filtered row has
// one owner tile in its band (the rows dealt round the band in turn), which receives the row's
// pieces through an exchange plan (gather: run it with the superstep that wrote the fields),
// transforms the whole row with FFTW (real to complex and back, one pair of plans for every
// row, made without regard to alignment, so that a row's bits do not depend on the tile that
// holds it or on the decomposition) and sends the pieces back through a second plan in the
// same superstep (filter). The transforms are costed by their operation count (5 n log2 n
// flops for the two real transforms of n points), the copies by the exchange model.
//
// Centre and x-face fields are filtered in the rows of cell centres, y-face fields in the rows
// of south faces (not the polar faces, where v is 0). Host-side plans; filter() is collective.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/runtime.hpp"
#include "tessera/weather/field.hpp"
#include "tessera/weather/grid.hpp"

struct fftw_plan_s;  // FFTW's plan (fftw3.h's fftw_plan is a pointer to it)

namespace tessera::weather {

class PolarFilter {
 public:
  // `d`: a periodic-in-x latitude-longitude grid (x0, dx, y0, dy in radians, y0 = -pi/2);
  // `filter_latitude` phi_c in radians, 0 < phi_c < pi/2. `staggers`: the fields this filter
  // serves, in the order filter() gets them.
  PolarFilter(Runtime& runtime, const Decomposition& d, std::vector<Stagger> staggers,
              double filter_latitude);
  ~PolarFilter();
  PolarFilter(const PolarFilter&) = delete;
  PolarFilter& operator=(const PolarFilter&) = delete;

  // The plan that collects `fields`' filtered rows on their owners: run it in the superstep
  // that writes them (compiled on first use for these variables; collective then).
  const ExchangePlan* gather(std::span<const Field> fields);
  // Filters the rows gathered and writes them back (one superstep; collective).
  void filter(std::span<const Field> fields);

  // S_k at `latitude` for a grid of `nlon` longitudes, filter latitude `phi_c`.
  static double response(int k, int nlon, double latitude, double phi_c);
  // The cosine that sets a row's zonal spacing for the time step: max(cos phi, cos phi_c).
  double effective_cos(double latitude) const;
  double filter_latitude() const { return phi_c_; }
  // How many rows of all fields it filters.
  std::size_t rows() const { return rows_.size(); }

 private:
  struct Row {
    std::size_t field;
    int j;     // global row (of centres, or of south faces)
    int band;  // the band of blocks (block_y) that holds it
    int owner, slot;  // the owner tile and the row's place in its buffer
  };
  struct Plans {
    ExchangePlan gather, scatter;
  };
  const Plans& plans(std::span<const Field> fields);

  Runtime& runtime_;
  const Decomposition& d_;
  std::vector<Stagger> staggers_;
  double phi_c_;
  int nlon_;
  std::vector<Row> rows_;
  std::vector<std::vector<int>> owned_;       // per tile: indices into rows_, in slot order
  std::vector<std::vector<double>> factors_;  // per row: S_k / nlon, k = 0 .. nlon / 2
  Variable<double> buffer_;
  std::map<int, std::unique_ptr<Plans>> plans_;  // by the first field's variable id
  fftw_plan_s* forward_ = nullptr;               // real to complex, nlon points
  fftw_plan_s* backward_ = nullptr;              // complex to real
};

}  // namespace tessera::weather
