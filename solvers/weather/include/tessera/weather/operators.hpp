// Stencil operators on the C grid, written once and applied to each tile's
// block. Each is a small struct with the extent it reads (from which halos are
// derived), the cycle estimate of one application on an IPU tile, and
// apply(), which writes every interior point of the output block from the
// input blocks, whose halos must be valid to the declared extent.
//
// Cost: each operator declares the counted work of one output point (KernelWork: its
// double operations, divisions and the doubles it loads and stores, as written below);
// the Target turns that into cycles (cycle_estimate.hpp), FP64 being emulated on the IPU.
#pragma once

#include <cmath>

#include "tessera/core/cycle_estimate.hpp"
#include "tessera/weather/field.hpp"
#include "tessera/weather/grid.hpp"

namespace tessera::weather {

// The work of a stencil point in double: `flops` operations besides `divisions`, `loads`
// and `stores` doubles.
constexpr KernelWork stencil_work(double flops, double divisions, double loads, double stores) {
  KernelWork w;
  w.flops_fp64 = flops;
  w.transcendentals_fp64 = divisions;
  w.bytes_loaded = 8 * loads;
  w.bytes_stored = 8 * stores;
  w.value_bytes = 8;
  return w;
}

// d/dx of a centre field, at x faces: (f(i) - f(i-1)) / dx.
struct GradientX {
  static constexpr Extent extent{1, 0, 0, 0};
  static constexpr KernelWork work = stencil_work(1, 1, 2, 1);
  static void apply(FieldView out, ConstFieldView f, double dx) {
    for (int j = 0; j < out.height(); ++j)
      for (int i = 0; i < out.width(); ++i) out(i, j) = (f(i, j) - f(i - 1, j)) / dx;
  }
};

// d/dy of a centre field, at y faces.
struct GradientY {
  static constexpr Extent extent{0, 0, 1, 0};
  static constexpr KernelWork work = stencil_work(1, 1, 2, 1);
  static void apply(FieldView out, ConstFieldView f, double dy) {
    for (int j = 0; j < out.height(); ++j)
      for (int i = 0; i < out.width(); ++i) out(i, j) = (f(i, j) - f(i, j - 1)) / dy;
  }
};

// Divergence of a face vector (u at x faces, v at y faces), at centres.
struct Divergence {
  static constexpr Extent extent{0, 1, 0, 1};
  static constexpr KernelWork work = stencil_work(3, 2, 4, 1);
  static void apply(FieldView out, ConstFieldView u, ConstFieldView v, double dx, double dy) {
    for (int j = 0; j < out.height(); ++j)
      for (int i = 0; i < out.width(); ++i)
        out(i, j) = (u(i + 1, j) - u(i, j)) / dx + (v(i, j + 1) - v(i, j)) / dy;
  }
};

// Five-point Laplacian of a centre field.
struct Laplacian {
  static constexpr Extent extent{1, 1, 1, 1};
  static constexpr KernelWork work = stencil_work(9, 0, 5, 1);
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
  // Four face fluxes as written (each face value: upwind, a compare; van Leer, two slopes,
  // their harmonic mean and a compare), their differences and two divisions.
  static constexpr KernelWork work =
      Face::reach == 1 ? stencil_work(4 * 2 + 4, 2, 12, 1) : stencil_work(4 * 11 + 4, 2 + 4, 20, 1);
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
