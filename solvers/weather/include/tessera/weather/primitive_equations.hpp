// The hydrostatic primitive equations of a dry atmosphere on the sphere: a 3-D dynamical core
// on the latitude-longitude C grid of SphericalShallowWater, on the tile runtime.
//
// Vertical coordinate: hybrid sigma-pressure, p = A p0 + B ps at the K + 1 layer interfaces
// (Simmons & Burridge 1981, Mon. Wea. Rev. 109, 758-766; B = sigma and A = 0 gives pure
// sigma), Lorenz staggering: u, v and T at the K layer midpoints, the vertical mass flux
// eta-dot dp/deta at the interfaces. Prognostic: surface pressure ps (Pa, cell centres), and
// per layer u (m/s, west faces), v (m/s, south faces; 0 on the polar faces) and T (K, centres).
//
// Vertical discretisation: Simmons & Burridge's energy- and angular-momentum-conserving
// scheme (as the ECMWF IFS documentation, Part III, writes it for hybrid levels): the
// hydrostatic equation through ln p with alpha_k = 1 - p_{k-1/2} / dp_k ln(p_{k+1/2} /
// p_{k-1/2}) (ln 2 in a top layer whose upper interface is p = 0), the pressure-gradient term
// R T grad ln p and the energy conversion kappa T omega / p in paired forms, so that the
// conversions between kinetic and internal energy cancel, and the vertical
// advection (1 / 2 dp_k) [m_{k+1/2} (X_{k+1} - X_k) + m_{k-1/2} (X_k - X_{k-1})].
// Horizontal: per layer, the shallow-water C-grid scheme of SphericalShallowWater with the layer
// thickness dp_k in place of h (Sadourny's energy-conserving potential-vorticity flux; mass in
// flux form, conserved to round-off) and geopotential plus kinetic energy as the Bernoulli
// function; the term R T grad ln p at a u or v face takes the mass-weighted average of its
// cells' values (Arakawa & Suarez 1983, Mon. Wea. Rev. 111, 34-45), the one that pairs with the
// thermodynamic equation's v . grad ps. T is advected with centred face values.
//
// Horizontal diffusion (optional): del^2 on T and, on the wind, nu (grad D + k x grad zeta +
// 2 v / a^2): the vector Laplacian L in divergence-vorticity form with the term that leaves
// solid-body rotation undamped (as CAM's and the IFS's (del^2 + 2 / a^2) on vorticity);
// del^4 is -nu4 L(L(.)) (on T, -nu4 del^2 del^2 T), which leaves solid-body rotation alone too.
// A sponge near the model top (optional): del^2 in the top layers in place of del^4, with a
// coefficient that doubles upwards, as NCAR CAM3's Eulerian core has (Collins et al. 2004,
// NCAR/TN-464+STR, section 3.1: del^2 in its top levels, del^4 below).
// Polar filter (optional): as SphericalShallowWater, on every tendency poleward of phi_c.
// With the filter, the diffusion coefficients poleward of phi_c are scaled by
// (cos(phi) / cos(phi_c))^2 for del^2 and ^4 for del^4: the filter holds the zonal waves'
// frequencies to those at phi_c, which suits advection (first order in the wavenumber) but
// not diffusion (second and fourth), whose shortest zonal wave in the row next to a pole
// would otherwise decay (cos(phi_c) / cos(phi))^(p - 1) times faster than at phi_c (at 2.8
// degrees, del^4 of 1e16 m^4/s at 2.3 /s, against 1/300 s steps); scaled, it decays no faster
// than at phi_c, so the time step of max_frequency() holds.
// Forcing (optional): Held & Suarez's (held_suarez.hpp), with sigma = p / ps at the layer's
// midpoint (for u and v, with ps averaged to the face).
//
// State fields, in order: ps, u_0 .. u_{K-1}, v_0 .. v_{K-1}, T_0 .. T_{K-1}; layer 0 is the
// top. One tendency is one superstep (two with the polar filter), after a reduction of four
// numbers per layer when the wind is diffused (polar_vorticity). Not thread-safe per object;
// every method that touches fields is collective over the runtime's ranks.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/weather/held_suarez.hpp"
#include "tessera/weather/model.hpp"

namespace tessera::weather {

class PolarFilter;

// The interfaces of K layers, top first: p_{k} = a[k] * reference_pressure + b[k] * ps,
// k = 0 .. K (interface K is the ground: a = 0, b = 1).
struct HybridLevels {
  std::vector<double> a, b;
  double reference_pressure = 1e5;  // p0, Pa

  int layers() const { return static_cast<int>(a.size()) - 1; }
  // Throws ConfigError unless there are >= 2 layers, a and b have one size, a >= 0 and
  // 0 <= b <= 1, the ground interface has a = 0 and b = 1, and pressure rises downwards for
  // every ps in [0.1 p0, 1.2 p0].
  void validate() const;
  // The 26 layers of NCAR CAM3 (hyai, hybi), the ones of Jablonowski & Williamson (2006,
  // Q. J. R. Meteorol. Soc. 132, 2943-2975), Table 3.
  static HybridLevels cam26();
  // K layers of sigma = b, equally spaced from 0 (top) to 1.
  static HybridLevels uniform_sigma(int layers);
};

struct AtmosphereConfig {
  int nlon = 128, nlat = 64;
  HybridLevels levels = HybridLevels::cam26();
  double radius = 6.371229e6;        // a, m (Jablonowski & Williamson 2006, Table 1)
  double omega = 7.29212e-5;         // s^-1
  // alpha, radians: the rotation axis is (-sin alpha, 0, cos alpha) in the grid's Cartesian
  // frame (tilted from the grid's pole towards lambda = pi), so f = 2 Omega (sin phi cos alpha -
  // cos lambda cos phi sin alpha): the rotated tests of Lauritzen et al. (2010, J. Adv. Model.
  // Earth Syst. 2, 15), whose flow crosses the grid's poles.
  double rotation_axis_tilt = 0;
  double g = 9.80616;                // m s^-2
  double rd = 287.04;                // gas constant of dry air, J kg^-1 K^-1
  double cp = 1004.64;               // J kg^-1 K^-1
  double polar_filter_latitude = 0;  // rad, 0 < phi_c < pi/2; 0: no polar filter
  double diffusion = 0;              // del^2 coefficient nu on u, v and T in every layer, m^2/s
  double hyperdiffusion = 0;         // del^4 coefficient nu4 on u, v and T below the sponge, m^4/s
  int sponge_layers = 0;             // n_s: the top layers that get the sponge's del^2
  double sponge_diffusion = 0;       // nu_s, m^2/s: layer k < n_s gets nu_s 2^(n_s - 1 - k)
  std::optional<HeldSuarez> held_suarez =
      std::nullopt;  // the Held & Suarez (1994) forcing; none by default
  // Throws ConfigError naming what is wrong (grid, levels, constants, coefficients, a sponge
  // deeper than the model or without a coefficient).
  void validate() const;
  // The del^2 coefficient of layer k (0 is the top, m^2/s): diffusion plus the sponge's, and
  // the del^4 coefficient (m^4/s): hyperdiffusion, 0 in the sponge.
  double del2_coefficient(int k) const;
  double del4_coefficient(int k) const;
};

class PrimitiveEquations final : public Model {
 public:
  using SurfaceFunction = std::function<double(double lambda, double phi)>;  // radians
  // A value at (lambda, phi, eta) with eta = p / p0 at the layer's midpoint for ps = p0.
  using LayerFunction = std::function<double(double lambda, double phi, double eta)>;

  PrimitiveEquations(Runtime& runtime, AtmosphereConfig config);
  ~PrimitiveEquations() override;

  Runtime& runtime() override { return runtime_; }
  const Decomposition& decomposition() const override { return d_; }
  State make_state(const char* label) override;
  void tendency(const State& q, const State& dq) override;
  State& state() override { return state_; }
  const AtmosphereConfig& config() const { return config_; }
  int layers() const { return config_.levels.layers(); }
  // The state field of layer k's u, v or T, and of ps.
  static constexpr int ps_field = 0;
  int u_field(int k) const { return 1 + k; }
  int v_field(int k) const { return 1 + layers() + k; }
  int t_field(int k) const { return 1 + 2 * layers() + k; }

  // Sets the state: ps at centres, u at west faces, v at south faces (0 on the polar faces)
  // and T at centres, each layer's values at its midpoint eta for ps = p0 (the eta of
  // Jablonowski & Williamson's initial state).
  void initialize(const SurfaceFunction& ps, const LayerFunction& u, const LayerFunction& v,
                  const LayerFunction& t);
  // Surface geopotential Phi_s (m^2/s^2) at centres; 0 until set.
  void set_surface_geopotential(const SurfaceFunction& phis);
  // The eta of layer k's midpoint: (a + b)_{k-1/2} / 2 + (a + b)_{k+1/2} / 2.
  double layer_eta(int k) const;

  // Dry air mass, integral of (ps - p_top) / g dA (kg), p_top the top interface's pressure.
  double mass();
  // Total energy, integral of [sum_k (cp T_k + K_k) dp_k + ps Phi_s - p_top Phi_top] / g dA (J):
  // enthalpy, kinetic energy and the potential energy of the column between the ground and a
  // lid of constant pressure.
  double total_energy();
  // The zonal mean of u (m/s) in every layer and row, k-major, rows from the south.
  std::vector<double> zonal_mean_u();
  // Minimum and maximum of ps over the grid (Pa).
  std::pair<double, double> surface_pressure_range();
  std::uint64_t checksum();
  // The largest (|u| + c) / dx + (|v| + c) / dy + nu s + nu4 s^2 over cells and layers, 1/s,
  // c the Lamb-wave speed sqrt(R T / (1 - kappa)) (the fastest external mode of the hydrostatic
  // equations), s = 4 / dx^2 + 4 / dy^2 (so nu s and nu4 s^2 bound the decay rates of the
  // diffusion's shortest waves), dx at the polar filter's latitude poleward of it. Adding
  // the diffusion's real rates to the imaginary frequency is conservative: RK3 is stable to
  // 2.5 on the negative real axis, beyond its sqrt(3) on the imaginary one.
  double max_frequency();
  // "ps", "phis", or "u", "v", "T" of layer k (averaged to centres) on rank 0, row-major
  // nlon x nlat from the south; collective, other ranks get an empty vector.
  std::vector<double> gather(const std::string& name, int layer = 0);
  // "T" (K), "u", "v" (m/s, averaged to centres) or "Z" (geopotential height, m) on the pressure
  // surface p (Pa) on rank 0, as gather(); collective. T, u and v are interpolated linearly in
  // ln p between the layer midpoints (p = (p_{k-1/2} + p_{k+1/2}) / 2); Z integrates the
  // model's hydrostatic equation up from the ground, each layer isothermal at its T between
  // its interfaces. Above the top midpoint: the top layer's values. Below the lowest
  // midpoint: u and v of the lowest layer; T linear in ln p to T* at the ground, and below the
  // ground (p > ps) T and Z extrapolated as the ECMWF scheme of
  // Trenberth, Berry & Buja (1993, NCAR/TN-396+STR) does, from a surface temperature
  // T* = T_K (1 + gamma R / g (ps / p_K - 1)), gamma = 6.5 K/km, with y = gamma R / g ln(p / ps):
  // T = T* (1 + y + y^2 / 2 + y^3 / 6), Z = Phi_s / g - R T* / g ln(p / ps) (1 + y / 2 + y^2 / 6)
  // (without that scheme's corrections for terrain above 2 km and very warm surfaces).
  std::vector<double> gather_on_pressure_level(const std::string& name, double p);

 private:
  double lat_center(int j) const;
  double lat_face(int j) const;
  // min(1, cos(phi) / cos(phi_c)) with a polar filter at phi_c, 1 without: del^2's coefficient
  // goes with its square and del^4's with its fourth power.
  double diffusion_taper(double phi) const;
  double lon_center(int i) const { return (i + 0.5) * dlambda_; }
  double lon_face(int i) const { return i * dlambda_; }
  double cell_area(int j) const;
  void fill(const Field& f, const std::function<double(double, double)>& fn);
  // Per layer, the relative vorticity of q's wind at the south and north poles and that of
  // its first Laplacian (del^4's), each from the circulation around the polar cap (a zonal
  // sum over tiles, exact in fixed point, so the same bits on any decomposition); empty when
  // no diffusion acts on the wind. Collective.
  std::vector<double> polar_vorticity(const State& q);

  Runtime& runtime_;
  AtmosphereConfig config_;
  double dlambda_, dphi_;
  Decomposition d_;
  std::shared_ptr<const BoundaryCondition> periodic_, pole_;
  // Work fields, one per layer (interfaces: K + 1), filled by tendency() on each tile's
  // interior and first halo ring from the state's halos.
  std::vector<Field> mass_flux_x_, mass_flux_y_, divergence_, vertical_flux_, geopotential_,
      pressure_term_;
  Field bernoulli_, vorticity_, potential_vorticity_, velocity_divergence_;  // a layer at a time
  // del^4's first Laplacian of u, v and T and its divergence and vorticity (made only with
  // hyperdiffusion), a layer at a time.
  Field laplacian_u_, laplacian_v_, laplacian_t_, laplacian_divergence_, laplacian_vorticity_;
  int layer_halo_;  // u, v and T: 1, or 2 for del^4
  Field surface_geopotential_;
  State state_;
  std::unique_ptr<PolarFilter> filter_;
};

}  // namespace tessera::weather
