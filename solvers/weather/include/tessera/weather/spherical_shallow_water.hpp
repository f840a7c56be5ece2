// Shallow-water equations on the sphere, on a latitude-longitude C grid, for
// the test cases of Williamson, Drake, Hack, Jakob & Swarztrauber (1992, J.
// Comput. Phys. 102, 211-224): 1 (advection of a cosine bell), 2 (steady
// zonal geostrophic flow) and 6 (Rossby-Haurwitz wave).
//
// Grid: nx cells in longitude (periodic), ny in latitude from pole to pole;
// h at cell centres (lambda_i, phi_j), u at west faces, v at south faces
// (v = 0 on the polar faces, which are walls of zero length). Mass is updated
// in flux form with face lengths a dphi and a cos(phi) dlambda and cell areas
// a^2 dlambda (sin phi_{j+1/2} - sin phi_{j-1/2}), so it is conserved to
// round-off. Momentum uses the vector-invariant form of Sadourny's
// energy-conserving scheme (see shallow_water.hpp) with the spherical metric;
// the vorticity at the polar corners is not needed (it multiplies v = 0 there). The kinetic
// energy takes v^2 from a cell's two y faces weighted by their lengths (cos phi), so that
// v = 0 on a polar face, a wall of no length, does not count as a velocity.
// Without a polar filter the time step is limited by the zonal spacing of the rows next to
// the poles; with one (polar_filter_latitude, polar_filter.hpp) the tendencies of h, u and v
// are filtered zonally poleward of that latitude and the time step follows its spacing.
//
// In kinematic mode (test case 1) u and v are prescribed through the stream
// function psi at the corners, so the discrete flow is exactly
// non-divergent, and h is carried as a tracer with van Leer-limited face values.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <numbers>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "tessera/weather/model.hpp"
#include "tessera/weather/shallow_water.hpp"

namespace tessera::weather {

class PolarFilter;

struct SphereConfig {
  int nlon = 128, nlat = 64;
  double radius = 6.37122e6;  // a, m (Williamson et al. 1992)
  double omega = 7.292e-5;    // Omega, s^-1
  double g = 9.80616;         // m s^-2
  double alpha = 0;           // angle of the rotated pole of f and the test flows, rad
  bool kinematic = false;     // test case 1: prescribed flow, h advected as a tracer
  double polar_filter_latitude = 0;  // rad, 0 < phi_c < pi/2; 0: no polar filter
  void validate() const;
};

class SphericalShallowWater final : public Model {
 public:
  using Function = std::function<double(double lambda, double phi)>;  // radians

  SphericalShallowWater(Runtime& runtime, SphereConfig config);
  ~SphericalShallowWater() override;

  Runtime& runtime() override { return runtime_; }
  const Decomposition& decomposition() const override { return d_; }
  State make_state(const char* label) override;
  void tendency(const State& q, const State& dq) override;
  State& state() override { return state_; }
  // State fields: 0 (h), 1 (u on west faces), 2 (v on south faces, 0 on the polar faces).
  const SphereConfig& config() const { return config_; }

  // Dynamic cases: h, u (eastward) and v (northward) at their staggered points.
  void initialize(const Function& h, const Function& u, const Function& v);
  // Kinematic case: h, and the stream function psi (m^2/s) whose discrete curl is the flow.
  void initialize_kinematic(const Function& h, const Function& psi);
  // Bottom topography hs (m) at cell centres (test case 5): the momentum equations feel
  // g grad(h + hs) and the energy gains g h hs; h stays the layer's thickness. None by default.
  void set_topography(const Function& hs);

  // Area integrals: mass, total energy sum(h K + g h^2 / 2) dA.
  double mass();
  double energy();
  // Williamson et al. (1992), eqs. 82-84, with area-weighted integrals.
  ErrorNorms height_errors(const Function& reference);
  std::uint64_t checksum();
  // max over cells of (|u| + sqrt(g h)) / (a cos(phi) dlambda) + (|v| + sqrt(g h)) / (a dphi), 1/s.
  double max_frequency();
  // "h", "u", "v" (dynamic cases, averaged to centres) and "hs" (with topography) on rank 0,
  // row-major nlon x nlat from the south; collective, other ranks get an empty vector.
  std::vector<double> gather(const std::string& name);

 private:
  double lat_center(int j) const { return -std::numbers::pi / 2 + (j + 0.5) * dphi_; }
  double lat_face(int j) const { return -std::numbers::pi / 2 + j * dphi_; }
  double lon_center(int i) const { return (i + 0.5) * dlambda_; }
  double lon_face(int i) const { return i * dlambda_; }
  double coriolis(double lambda, double phi) const;
  void fill(const Field& f, const Function& fn);

  Runtime& runtime_;
  SphereConfig config_;
  double dlambda_, dphi_;
  Decomposition d_;
  std::shared_ptr<const BoundaryCondition> periodic_, pole_;
  Field flux_x_, flux_y_, bernoulli_, pv_;
  State state_;
  std::unique_ptr<PolarFilter> filter_;
  std::optional<Field> topography_;
};

}  // namespace tessera::weather
