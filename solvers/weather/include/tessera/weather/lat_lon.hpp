// Pieces shared by the latitude-longitude models (SphericalShallowWater, PrimitiveEquations):
// a grid whose x0, dx, y0, dy are radians (x0 = 0, y0 = -pi/2), C staggering as grid.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <utility>

#include "tessera/core/runtime.hpp"
#include "tessera/weather/block_view.hpp"
#include "tessera/weather/field.hpp"

namespace tessera::weather {

// The relative area of latitude row j of nlat rows from the south pole, sin phi_{j+1/2} -
// sin phi_{j-1/2}: the weight of a row's cells in area-weighted norms and means.
inline double row_area(int j, int nlat) {
  const double dphi = std::numbers::pi / nlat;
  return std::sin(-std::numbers::pi / 2 + (j + 1) * dphi) -
         std::sin(-std::numbers::pi / 2 + j * dphi);
}

// The weights of a centre row's south and north y faces in its kinetic energy: their lengths
// (cos phi, clamped at 0), so that in the rows next to the poles only the equatorward face
// counts; v = 0 on a polar face is a wall of no length, not a velocity.
inline std::pair<double, double> y_face_weights(double cos_south, double cos_north) {
  const double cs = std::max(0.0, cos_south), cn = std::max(0.0, cos_north);
  if (!(cs + cn > 0)) return {0.5, 0.5};
  return {cs / (cs + cn), cn / (cs + cn)};
}

// Kinetic energy per unit mass at centre (i, j) from its x faces (averaged) and y faces
// (weighted as above).
inline double kinetic_energy(const FieldView& u, const FieldView& v, int i, int j, double ws,
                             double wn) {
  return 0.25 * (u(i, j) * u(i, j) + u(i + 1, j) * u(i + 1, j)) +
         0.5 * (ws * v(i, j) * v(i, j) + wn * v(i, j + 1) * v(i, j + 1));
}

// Sets every value of `f`, halos included, to fn(lambda, phi) at the field's own staggered
// points (phi clamped to the poles for halo rows beyond them). One superstep; collective.
void fill_lat_lon(Runtime& runtime, const Decomposition& d, const Field& f,
                  const std::function<double(double lambda, double phi)>& fn);

}  // namespace tessera::weather
