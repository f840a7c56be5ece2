// Stencil operators on the C grid, written once and applied to each tile's
// block. Each is a small struct with the extent it reads (from which halos are
// derived), the cycle estimate of one application on an IPU tile, and
// apply(), which writes every interior point of the output block from the
// input blocks, whose halos must be valid to the declared extent.
//
// Cycle estimates: the IPU has no FP64 unit, so double arithmetic is emulated;
// like heat2d we assume about 6 cycles per double flop on one worker, plus
// loads, and charge overhead + cycles x ceil(points / workers) (PopLibs style).
// These are estimates, not measurements.
#pragma once

#include <cmath>

#include "tessera/core/cycle_estimate.hpp"
#include "tessera/weather/field.hpp"
#include "tessera/weather/grid.hpp"

namespace tessera::weather {

// Cycles of a stencil that does `flops` double operations per point.
constexpr KernelCost stencil_cost(int flops) { return {50, 6.0 * flops + 4.0, 1}; }

// d/dx of a centre field, at x faces: (f(i) - f(i-1)) / dx.
struct GradientX {
  static constexpr Extent extent{1, 0, 0, 0};
  static constexpr KernelCost cost = stencil_cost(2);
  static void apply(FieldView out, ConstFieldView f, double dx) {
    for (int j = 0; j < out.height(); ++j)
      for (int i = 0; i < out.width(); ++i) out(i, j) = (f(i, j) - f(i - 1, j)) / dx;
  }
};

// d/dy of a centre field, at y faces.
struct GradientY {
  static constexpr Extent extent{0, 0, 1, 0};
  static constexpr KernelCost cost = stencil_cost(2);
  static void apply(FieldView out, ConstFieldView f, double dy) {
    for (int j = 0; j < out.height(); ++j)
      for (int i = 0; i < out.width(); ++i) out(i, j) = (f(i, j) - f(i, j - 1)) / dy;
  }
};

// Divergence of a face vector (u at x faces, v at y faces), at centres.
struct Divergence {
  static constexpr Extent extent{0, 1, 0, 1};
  static constexpr KernelCost cost = stencil_cost(5);
  static void apply(FieldView out, ConstFieldView u, ConstFieldView v, double dx, double dy) {
    for (int j = 0; j < out.height(); ++j)
      for (int i = 0; i < out.width(); ++i)
        out(i, j) = (u(i + 1, j) - u(i, j)) / dx + (v(i, j + 1) - v(i, j)) / dy;
  }
};

// Five-point Laplacian of a centre field.
struct Laplacian {
  static constexpr Extent extent{1, 1, 1, 1};
  static constexpr KernelCost cost = stencil_cost(8);
  static void apply(FieldView out, ConstFieldView f, double dx, double dy) {
    const double ax = 1 / (dx * dx), ay = 1 / (dy * dy);
    for (int j = 0; j < out.height(); ++j)
      for (int i = 0; i < out.width(); ++i)
        out(i, j) = ax * (f(i + 1, j) - 2 * f(i, j) + f(i - 1, j)) +
                    ay * (f(i, j + 1) - 2 * f(i, j) + f(i, j - 1));
  }
};

// Face values of a centre scalar for flux-form advection by the face velocity w.
// First-order upwind: the value of the upwind cell.
struct UpwindFace {
  static constexpr int reach = 1;  // cells read on the upwind side of the face
  static double value(double w, double c_m2, double c_m1, double c_p0, double c_p1) {
    (void)c_m2, (void)c_p1;
    return w >= 0 ? c_m1 : c_p0;
  }
};
// MUSCL face value with van Leer's limiter (van Leer 1977, J. Comput. Phys. 23):
// upwind value + 1/2 of the harmonic-mean slope, 2ab/(a+b) when a and b share a
// sign and 0 otherwise: second order where smooth, no new extrema.
struct VanLeerFace {
  static constexpr int reach = 2;
  static double slope(double a, double b) { return a * b > 0 ? 2 * a * b / (a + b) : 0.0; }
  // c_m2, c_m1 | face | c_p0, c_p1
  static double value(double w, double c_m2, double c_m1, double c_p0, double c_p1) {
    return w >= 0 ? c_m1 + 0.5 * slope(c_m1 - c_m2, c_p0 - c_m1)
                  : c_p0 - 0.5 * slope(c_p1 - c_p0, c_p0 - c_m1);
  }
};

// Flux-form advection tendency -div(F c_face) of a centre scalar c carried by
// face fluxes (fu at x faces, fv at y faces), with face values from `Face`.
template <class Face>
struct Advection {
  static constexpr Extent extent{Face::reach, Face::reach, Face::reach, Face::reach};
  static constexpr KernelCost cost = stencil_cost(Face::reach == 1 ? 8 : 30);
  static void apply(FieldView out, ConstFieldView c, ConstFieldView fu, ConstFieldView fv,
                    double dx, double dy) {
    auto flux_x = [&](int i, int j) {
      return fu(i, j) * Face::value(fu(i, j), c(i - 2 + (Face::reach == 1), j), c(i - 1, j),
                                    c(i, j), c(i + 1 - (Face::reach == 1), j));
    };
    auto flux_y = [&](int i, int j) {
      return fv(i, j) * Face::value(fv(i, j), c(i, j - 2 + (Face::reach == 1)), c(i, j - 1),
                                    c(i, j), c(i, j + 1 - (Face::reach == 1)));
    };
    for (int j = 0; j < out.height(); ++j)
      for (int i = 0; i < out.width(); ++i)
        out(i, j) =
            -(flux_x(i + 1, j) - flux_x(i, j)) / dx - (flux_y(i, j + 1) - flux_y(i, j)) / dy;
  }
};
using UpwindAdvection = Advection<UpwindFace>;
using LimitedAdvection = Advection<VanLeerFace>;

}  // namespace tessera::weather
