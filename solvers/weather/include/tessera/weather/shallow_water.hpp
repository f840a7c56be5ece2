// Nonlinear rotating shallow-water equations on a plane (f-plane or
// beta-plane), on the C grid, with bottom topography and an optional passive
// tracer:
//   dh/dt + div(h u) = 0
//   du/dt + q k x (h u) + grad(g (h + b) + |u|^2 / 2) = 0,  q = (f + zeta) / h
//   d(h c)/dt + div(h u c) = div(kappa h grad c)
// with h the layer depth, b the bottom height and c the tracer concentration.
//
// Discretisation: mass h in flux form (total mass conserved to round-off),
//   U = avg_x(h) u, V = avg_y(h) v (faces), B = g (h + b) + K, K = (avg_x(u^2) + avg_y(v^2)) / 2,
//   q = (f + dx v - dy u) / avg_xy(h) (corners),  dh/dt = -(dx U + dy V),
// and one of two forms of the potential-vorticity flux q k x (h u):
//   energy        Sadourny (1975, J. Atmos. Sci. 32, 680), energy-conserving:
//                 du/dt = avg_y(q avg_x(V)) - dx B,  dv/dt = -avg_x(q avg_y(U)) - dy B.
//                 Conserves total energy sum(h K + g h^2 / 2 + g h b); potential
//                 enstrophy only approximately.
//   arakawa-lamb  Arakawa & Lamb (1981, Mon. Wea. Rev. 109, 18-36), section 3: each V
//                 (U) next to a u (v) point is weighted by a four-corner combination of q
//                 in the cell they share (2 on the diagonal not through their common
//                 corner, 1 on the other, / 24), plus the terms epsilon U along x and
//                 phi V along y (weighted by dy/dx and dx/dy when dx != dy). The coupling
//                 is antisymmetric, so energy is conserved as above, and the weights make
//                 potential enstrophy sum(q^2 avg_xy(h) / 2) conserved too, for general
//                 (divergent) flow on a doubly periodic domain (tests/weather checks both
//                 on random states). Reads two cells out: h, u and v get halos of 2.
// The tracer mass h c is advected by the same mass fluxes U, V with van
// Leer-limited (or upwind) face values, so a uniform tracer stays uniform.
//
// Boundaries: periodic axes wrap; other axes are free-slip walls (zero normal
// velocity, zero normal gradients). In kinematic mode h, u and v keep their
// initial values (halos included) and only the tracer moves: prescribed-flow
// transport tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/weather/model.hpp"
#include "tessera/weather/operators.hpp"

namespace tessera::weather {

struct ShallowWaterConfig {
  Grid grid;
  double g = 9.80616;                     // m s^-2 (Williamson et al. 1992)
  double f0 = 0, beta = 0;                // Coriolis f = f0 + beta (y - y_mid), s^-1, m^-1 s^-1
  bool tracer = false;                    // carry a passive tracer
  std::string tracer_scheme = "limited";  // upwind | limited
  double tracer_diffusivity = 0;          // kappa, m^2 s^-1
  bool kinematic = false;                 // prescribed flow: only the tracer evolves
  std::string vorticity_flux = "arakawa-lamb";  // energy | arakawa-lamb (see above)

  // Throws ConfigError naming the offending setting.
  void validate() const;
};

// Area sums over the domain (cell area dx dy), reduced in tile order.
struct Diagnostics {
  double mass = 0;                 // sum h dA, m^3
  double energy = 0;               // sum (h K + g h^2 / 2 + g h b) dA, m^5 s^-2
  double potential_enstrophy = 0;  // sum h_corner q^2 / 2 dA, m s^-2
  double tracer_mass = 0;          // sum h c dA
  double max_wave_speed_x = 0;     // max |u| + sqrt(g h), m/s
  double max_wave_speed_y = 0;
  double min_depth = 0;  // m
  bool finite = true;    // no NaN or infinity in the state
};

// Williamson et al. (1992) normalised errors: l1 = I(|e|) / I(|ref|),
// l2 = sqrt(I(e^2)) / sqrt(I(ref^2)), linf = max|e| / max|ref|, I = area sum.
struct ErrorNorms {
  double l1 = 0, l2 = 0, linf = 0;
};

class ShallowWater final : public Model {
 public:
  using Function = std::function<double(double x, double y)>;

  ShallowWater(Runtime& runtime, ShallowWaterConfig config);

  Runtime& runtime() override { return runtime_; }
  const Decomposition& decomposition() const override { return d_; }
  State make_state(const char* label) override;
  void tendency(const State& q, const State& dq) override;

  const ShallowWaterConfig& config() const { return config_; }
  State& state() override { return state_; }
  // Field indices in a state.
  static constexpr int kH = 0, kU = 1, kV = 2, kTracerMass = 3;

  // Sets the state from functions of position, each evaluated at its own
  // staggered point (halos included), tracer as concentration c; then exchanges halos.
  void initialize(const Function& h, const Function& u, const Function& v,
                  const Function& c = nullptr);
  // Sets the bottom height b(x, y) at centres (m).
  void set_topography(const Function& b);
  // Sets b from a row-major nx x ny array (j = 0 is the south row), in metres.
  void set_topography(const std::vector<double>& b);
  // Sets the layer depth h from a row-major nx x ny array (j = 0 south, metres,
  // every rank passes the whole array), keeping the velocities and the tracer
  // concentration c (so the tracer mass h c changes with h); then exchanges halos.
  // Throws ConfigError for a depth that is not positive and finite.
  void set_depth(const std::vector<double>& h);

  Diagnostics diagnostics();
  // Normalised errors of one centre field (h or tracer concentration) against
  // `reference`; with `offset`, the norms of the reference in the
  // denominators are those of reference - offset (errors of a perturbation).
  ErrorNorms errors(int field, const Function& reference, double offset = 0);
  // A hash of every interior value of the state, independent of the decomposition.
  std::uint64_t checksum();
  // A centre field on rank 0 as a row-major nx x ny array (j = 0 south):
  // "h", "u", "v" (averaged to centres), "c" (tracer concentration), "b". Collective;
  // other ranks get an empty vector.
  std::vector<double> gather(const std::string& name);

  // The halo each field of a state needs, derived from the extents of the stencils reading it.
  int halo_of(int field) const { return halos_.at(static_cast<std::size_t>(field)); }

 private:
  void fill(const Field& f, const Function& fn);
  // Throws ConfigError unless `values` has one value per grid cell; `what` names them.
  void require_cell_values(const std::vector<double>& values, const std::string& what) const;
  // The counted work of the tendency at one point (operations, loads, stores in double).
  KernelWork tendency_work() const;
  // f = f0 + beta (y - y_mid) on face row j (global index; wrapped on a periodic y axis).
  double coriolis(int j) const;

  Runtime& runtime_;
  ShallowWaterConfig config_;
  std::vector<int> halos_;
  Decomposition d_;
  std::shared_ptr<const BoundaryCondition> bc_x_, bc_y_;
  Field b_, mass_flux_x_, mass_flux_y_, bernoulli_, pv_, concentration_;
  ExchangePlan topography_halo_;
  State state_;
};

}  // namespace tessera::weather
