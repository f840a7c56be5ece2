// kspace_style pppm ACCURACY: the particle-particle particle-mesh solver of Hockney and Eastwood
// as LAMMPS's PPPM (KSPACE/pppm.cpp; ik differentiation, the optimal influence function), step by
// step: g_ewald from the accuracy as Ewald's, the mesh the smallest factorable by 2, 3, 5 whose
// estimated error (Deserno and Holm, J. Chem. Phys. 109, 7678 (1998): LAMMPS's acons) is within
// it, g_ewald then tuned by Newton-Raphson until the real- and k-space errors balance, charges
// assigned to the mesh by the order-P weights (default 5), the Poisson equation solved with the
// Green's function optimised for them (aliasing sums as LAMMPS's), the field's three components
// transformed back and interpolated to the atoms by the same weights.
//
// On the tiles (kspace.hpp): each tile spreads its own atoms' charges over the mesh cells they
// reach (its sub-box grown by half the skin and the stencil, as LAMMPS's out-brick), one exchange
// phase sends every such cell to the tile that holds its mesh line in the distributed FFT
// (fft3d.hpp), which sums what it receives in a fixed order; the forward 3-d FFT; each tile
// multiplies its own k-points by the Green's function (the energy and virial as an all-reduce)
// and forms the three gradient fields; the backward FFT of the three; one exchange phase sends
// each tile the field at every cell of its grown sub-box; each tile interpolates its atoms'
// forces. So the mesh never sits on one tile, and every step is costed as the supersteps it is.
//
// Per-atom energies and virials (compute pe/atom, stress/atom), when asked, as LAMMPS's
// poisson_peratom: the potential and the virial's six components through the same FFT (10
// fields instead of 3), interpolated as the field is. kspace_modify mesh NX NY NZ, order N (2..7)
// and gewald G as LAMMPS's. Not here (refused): ad differentiation, the slab correction, triclinic
// boxes, and tabulated pair Coulomb (md_ipu computes the real-space term, as LAMMPS's pair_modify
// table 0). A barostat's box changes are followed as LAMMPS's fix npt has PPPM follow them (the
// Green's function recomputed at each).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/md/fft3d.hpp"
#include "tessera/md/kspace.hpp"

namespace tessera::md {

class KSpacePPPM final : public KSpace {
 public:
  KSpacePPPM();
  ~KSpacePPPM() override;
  std::string style() const override { return "pppm"; }
  void settings(const std::vector<std::string>& args) override;
  void modify(const std::vector<std::string>& args) override;
  double init(const KSpaceSystem& system, std::string& log) override;
  void prepare(Runtime& runtime, const Domain& domain, double skin) override;
  void box_changed(const Box& box) override;
  void compute(Runtime& runtime, const std::function<KSpaceTile(Tile&)>& view, bool energy_virial,
               bool per_atom, double& energy, std::array<double, 6>& virial) override;

  // The mesh and order init chose (for tests and the log).
  const std::array<int, 3>& mesh() const { return n_; }
  double g_ewald() const { return g_ewald_; }

 private:
  double estimate_ik_error(double h, double prd) const;
  double df_kspace() const;
  double newton_raphson_f() const;
  void set_grid_global(const Box& box);
  void adjust_gewald();
  void compute_gf_denom();
  void compute_rho_coeff();
  double gf_denom(double x, double y, double z) const;
  // The charge weights of an atom at distances d (3) from its lower-left mesh point: rho1d[d][k]
  // for the stencil's k = nlower..nupper.
  void rho1d(const double* d, std::array<std::array<double, 8>, 3>& out) const;
  // Atom i's lower-left mesh point (LAMMPS's part2grid) and its distances to it.
  std::array<int, 3> mesh_point(const double* x, double* d) const;
  void release(Runtime& runtime);
  void build(Runtime& runtime, std::size_t fields);
  void compute_greens(Runtime& runtime);

  double accuracy_relative_ = 0;
  std::optional<double> gewald_;
  std::optional<std::array<int, 3>> mesh_set_;
  int order_ = 5;

  double accuracy_ = 0, g_ewald_ = 0, natoms_ = 0, q2_ = 0, qsum_ = 0, qsqsum_ = 0, qqrd2e_ = 0;
  double cutoff_ = 0;
  std::array<double, 3> prd_{}, boxlo_{}, h_{}, delinv_{};
  double volume_ = 0, delvolinv_ = 0;
  std::array<int, 3> n_{};
  int nlower_ = 0, nupper_ = 0;
  double shift_ = 0, shiftone_ = 0;
  std::vector<double> gf_b_;
  std::vector<std::vector<double>> rho_coeff_;  // [l][k - (1 - order) / 2]

  // The distributed parts, made by prepare.
  Runtime* runtime_ = nullptr;
  std::unique_ptr<Fft3d> fft_;
  std::size_t fields_ = 0;  // the fields fft_ and field_ hold (3, or 10 with per-atom terms)
  // Per tile (global id): its grown sub-box on the mesh (lo, extent per axis; LAMMPS's
  // n*lo_out, n*hi_out), and, as the holder of x-pencils, the runs of received cells it sums:
  // (its pencil point, how many), in the order they arrive.
  struct Brick {
    std::array<int, 3> lo{}, extent{};
    std::size_t cells() const {
      return static_cast<std::size_t>(extent[0]) * static_cast<std::size_t>(extent[1]) *
             static_cast<std::size_t>(extent[2]);
    }
  };
  std::vector<Brick> bricks_;
  struct Run {
    std::size_t point, count;
  };
  std::vector<std::vector<Run>> received_;
  // Per tile (global id), as the holder of z-pencils: each of its k-points' Green's function
  // and virial coefficients (7 values), and the wave vectors along x, y, z of its lines.
  std::vector<std::vector<double>> greens_;
  Variable<double> density_{}, incoming_{}, field_{};  // field: fields_ per cell
  bool variables_ = false;
  std::optional<ExchangePlan> to_pencils_, to_bricks_;
};

}  // namespace tessera::md
