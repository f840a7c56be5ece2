// The counted work of the MD kernels on an IPU tile, one declaration beside each kernel of
// simulation.cpp: what one item of its loop does (cycle_estimate.hpp turns it into cycles
// on the target; the IPU emulates the FP64 arithmetic). Pinned by tests/md/physics_test.cpp.
#pragma once

#include "tessera/core/cycle_estimate.hpp"

namespace tessera::md {

// Work in double: `flops` operations besides `divisions`, integer instructions, bytes.
constexpr KernelWork md_work(double flops, double divisions, double int_ops, double loads,
                             double stores) {
  KernelWork w;
  w.flops_fp64 = flops;
  w.transcendentals_fp64 = divisions;
  w.int_ops = int_ops;
  w.bytes_loaded = loads;
  w.bytes_stored = stores;
  w.value_bytes = 8;
  return w;
}
// First half-kick and drift, per atom: dtf / mass, v += dtfm f and x += dt v in 3 dimensions,
// and the displacement since the list build (3 subtracts, 3 multiplies, 2 adds, a max);
// loads type, mass, v, f, x, x_build; stores v, x.
constexpr KernelWork integrate_work = md_work(12 + 9, 1, 1, 4 + 8 + 12 * 8, 6 * 8);
// Second half-kick, per atom: dtf / mass, v += dtfm f; with the kinetic-energy tensor
// (thermo steps, thermostats) 6 more components of 2 multiplies and an add, and 3 for m v.
constexpr KernelWork kick_work = md_work(6, 1, 1, 4 + 8 + 6 * 8, 3 * 8);
constexpr KernelWork kick_kinetic_work = md_work(6 + 18 + 3, 1, 1, 4 + 8 + 6 * 8, 3 * 8);
// lj/cut, per neighbor pair: the distance (3 subtracts, 3 multiplies, 2 adds), the cutoff
// compare, 1/r^2, r^6, the force factor (5 operations) and 9 to add the force to i and
// subtract it from j; loads j's index and type, x_j, the pair's coefficients (cutsq, lj1,
// lj2) and f_j; stores f_j.
constexpr KernelWork pair_work =
    md_work(8 + 1 + 2 + 5 + 9, 1, 3, 4 + 4 + 3 * 8 + 3 * 8 + 3 * 8, 3 * 8);
// The pairwise styles (pair_pairwise.hpp: morse, buck, soft, zero), per neighbor pair: the
// distance, the compare, the potential (an estimate: 10 operations, a square root and an
// exponential or a sine, counted as 2 divisions) and 9 to add the force to i and subtract it
// from j; loads as lj/cut's, with 4 derived coefficients.
constexpr KernelWork pairwise_work =
    md_work(8 + 1 + 10 + 9, 2, 3, 4 + 4 + 3 * 8 + 5 * 8 + 3 * 8, 3 * 8);
// pair_style table (pair_table.hpp), per neighbor pair: the distance, the compare, the inner-end
// compare, the bin (a subtract, a multiply, a conversion, a compare) and the linear value (3),
// and 9 to add the force; loads j's index and type, x_j, the pair's table index and cutsq,
// the bin's r^2, f and df, and f_j; stores f_j. The spline reads 4 values and does 14 more
// operations.
// pair_style hybrid (pair_hybrid.hpp), per sub-style and pair of the system's list at a
// rebuild: the type-pair lookup (2 loads, an add, a compare), the half-list test (2 compares)
// and the copy of the index.
constexpr KernelWork hybrid_filter_work = md_work(0, 0, 6, 4 + 4 + 1 + 8, 4);
constexpr KernelWork table_work =
    md_work(8 + 1 + 1 + 4 + 3 + 9, 0, 5, 4 + 4 + 3 * 8 + 4 + 8 + 3 * 8 + 3 * 8, 3 * 8);
constexpr KernelWork table_spline_work =
    md_work(8 + 1 + 1 + 4 + 17 + 9, 0, 5, 4 + 4 + 3 * 8 + 4 + 8 + 5 * 8 + 3 * 8, 3 * 8);
// Molecular topology (bonded.hpp, topology.hpp). special_bonds at a rebuild, per candidate pair
// and special neighbor of its owned atom: a load and a compare of the id.
constexpr KernelWork special_filter_work = md_work(0, 0, 2, 8, 0);
// The bonded atoms' tile indices at a rebuild, per atom (sorting the tile's ids: an estimate of
// 10 integer steps) and per partner looked up (a binary search and the distance to each image).
constexpr KernelWork topology_resolve_work = md_work(8, 0, 20, 5 * 8, 4);
// fix shake's clusters at a rebuild, per atom (as topology_resolve_work: the ids sorted and each
// cluster atom looked up).
constexpr KernelWork shake_resolve_work = topology_resolve_work;
// fix shake, per cluster (an estimate from the 3-atom angle cluster, the dearest, at 4
// iterations): the 6 difference vectors (18), the masses (3 divisions), the matrix and its
// inverse (9 dot products and 40 operations, 1 division), the 18 quadratic coefficients (18 dot
// products and 36), 4 iterations of 3 quadratic forms, right-hand sides and products (4 x 60),
// the forces (27) and virial (36); loads 3 types, 3 positions and predictions and 3 forces,
// stores 3 forces.
constexpr KernelWork shake_cluster_work =
    md_work(18 + 9 * 5 + 40 + 18 * 5 + 36 + 4 * 60 + 27 + 36, 3 + 1 + 3, 20,
            3 * 4 + 9 * 8 + 9 * 8 + 9 * 8, 9 * 8);
// bond_style harmonic, per bond: the distance (8), r, dr, the force factor (4 with a division),
// the forces on two atoms (12), the energy and virial (9); loads the indices, type, 2 positions,
// 2 coefficients and 2 forces, stores 2 forces.
constexpr KernelWork bond_work =
    md_work(8 + 4 + 12 + 9, 2, 4, 3 * 4 + 6 * 8 + 2 * 8 + 6 * 8, 6 * 8);
// angle_style harmonic, per angle: two separations and lengths (16, 2 square roots), the cosine
// (6 and a division), its sine (3 and a square root), acos (counted as 4 divisions), the force
// factors (10, 3 divisions) and forces on three atoms (24), energy and virial (20).
constexpr KernelWork angle_work =
    md_work(16 + 6 + 3 + 10 + 24 + 20, 2 + 1 + 1 + 4 + 3, 4, 4 * 4 + 9 * 8 + 2 * 8 + 9 * 8, 9 * 8);
// angle_style charmm, per angle: the harmonic angle's, and the Urey-Bradley bond between its ends
// (the separation and length, 8 and a square root; the force factor, 4 and a division; 6 more
// force terms on each end, 12; its energy, 2).
constexpr KernelWork angle_charmm_work =
    md_work(16 + 6 + 3 + 10 + 24 + 20 + 8 + 4 + 12 + 2, 2 + 1 + 1 + 4 + 3 + 2, 4,
            4 * 4 + 9 * 8 + 4 * 8 + 9 * 8, 9 * 8);
// dihedral_style charmm, per dihedral: the cosine series of harmonic's (counted as the dihedral
// estimate below), and its 1-4 pair (the separation, 8; 1/r^2, r^-6 and sqrt(1/r^2), 4, a
// division and a square root; q_i q_j and the terms, 12; the forces on two atoms, 12; energy and
// virial, 12); loads 2 types, 2 charges and 4 coefficients more.
constexpr KernelWork dihedral_charmm_work =
    md_work(9 + 30 + 16 + 20 + 36 + 30 + 8 + 4 + 12 + 12 + 12, 3 + 2 + 3 + 7 * 4 + 2, 7,
            5 * 4 + 12 * 8 + 4 * 8 + 12 * 8 + 2 * 4 + 2 * 8 + 4 * 8, 12 * 8);
// dihedral_style harmonic and opls, per dihedral (an estimate from opls, the dearer): three bond
// vectors (9), the plane normals and lengths (30, 3 square roots), the two bond angles' cosines
// and sines (16, 2 square roots, 3 divisions), the angle (acos and 3 sines and 3 cosines, counted
// as 4 divisions each), the six force factors (20), forces on four atoms (36), energy and virial
// (30); loads the indices, type, 4 positions, 4 coefficients and 4 forces, stores 4 forces.
constexpr KernelWork dihedral_work = md_work(9 + 30 + 16 + 20 + 36 + 30, 3 + 2 + 3 + 7 * 4, 5,
                                             5 * 4 + 12 * 8 + 4 * 8 + 12 * 8, 12 * 8);
// improper_style harmonic, per improper: as a dihedral's geometry without its sines and cosines
// of multiples (acos counted as 4 divisions, 5 square roots and divisions besides).
constexpr KernelWork improper_work =
    md_work(9 + 30 + 16 + 20 + 36 + 30, 5 + 4 + 4, 5, 5 * 4 + 12 * 8 + 2 * 8 + 12 * 8, 12 * 8);
// Ewald (kspace_ewald.hpp): per atom, cos and sin along each axis (6 transcendentals, counted
// as divisions, and 3 multiplies); per atom and step of an axis's recurrence, 6 operations.
constexpr KernelWork ewald_exponentials_work = md_work(3, 6, 1, 3 * 8, 2 * 8);
constexpr KernelWork ewald_recurrence_work = md_work(6, 0, 1, 4 * 8, 2 * 8);
// ... per atom and k-vector in the structure factors: exp(i k.r) from the axes' (6 multiplies,
// 4 adds) and q times it added to S(k) (4); loads 6 exponentials and q.
constexpr KernelWork ewald_structure_work = md_work(14, 0, 4, 7 * 8, 0);
// ... and in the forces: exp(i k.r) (10), the partial (3) and the force's 3 components (6);
// loads 6 exponentials, S(k) and eg.
constexpr KernelWork ewald_force_work = md_work(19, 0, 4, 11 * 8, 0);
// EAM (pair_eam.hpp), per neighbor of the full list, in its density pass: the distance (8),
// the cutoff compare, sqrt, the table interval (3) and a cubic (6); loads j's index and
// type, x_j, the table index and 4 coefficients.
constexpr KernelWork eam_density_work = md_work(8 + 1 + 3 + 6, 1, 6, 4 + 4 + 3 * 8 + 4 + 4 * 8, 0);
// ... per owned atom, F(rho) and F'(rho): the interval (3), two polynomials (10), the
// linear extension (3); loads rho, the type and 7 coefficients; stores F, F'.
constexpr KernelWork eam_embedding_work = md_work(3 + 10 + 3, 0, 5, 8 + 4 + 7 * 8, 2 * 8);
// ... and in its force pass: the distance, compare, sqrt and 1/r (the divisions), the
// interval, three derivatives and a value of the splines (3 x 5 + 6), phi, phi', psi' and the
// force factor (8), 6 to add it to i; loads j, its type, x_j, F'_j, three table indices and
// 13 coefficients.
constexpr KernelWork eam_force_work =
    md_work(8 + 1 + 3 + 21 + 8 + 6, 2, 10, 4 + 4 + 3 * 8 + 8 + 3 * 4 + 13 * 8, 0);
// tersoff (pair_tersoff.hpp): per neighbor of the full list, the distance (8), the compare,
// the short list's store, the ids' rule (4 integer operations); loads j, x_j, its id and type.
constexpr KernelWork tersoff_list_work = md_work(8 + 1, 0, 6, 4 + 3 * 8 + 8 + 4, 4);
// ... per pair term (the repulsive pair, the bond's b(zeta) force): sqrt, the cutoff function
// (a sine) and an exponential (4 transcendentals and divisions, counted as divisions), 20
// operations, b(zeta) and its derivative (two powers, counted as 2 more), 12 to add the forces;
// loads 14 parameters and x_j.
constexpr KernelWork tersoff_pair_work = md_work(20 + 12, 6, 6, 14 * 8 + 3 * 8, 3 * 8);
// ... per triplet term, its two passes (zeta's sum, then the forces of its derivative): in each
// the distance and unit vector (12 and a division), sqrt, the cutoff (a sine), the exponential
// and the angular function (10); then the derivatives (50 operations) and 9 to add them; loads
// x_k and 12 parameters in each pass.
constexpr KernelWork tersoff_triplet_work =
    md_work(2 * (12 + 10) + 50 + 9, 2 * 5, 8, 2 * (3 * 8 + 12 * 8), 3 * 8);
// sw and vashishta (pair_threebody.hpp): per neighbor of the full list, the distance, the
// compare, the short list's store, the ids' rule; loads j, x_j, its id and type.
constexpr KernelWork threebody_list_work = md_work(8 + 1, 0, 6, 4 + 3 * 8 + 8 + 4, 4);
// sw, per two-body term: sqrt, two powers, 1/(r - a sigma), an exponential and 1/r^2 (6
// counted as divisions), 14 operations and 12 to add the forces; loads 8 parameters.
constexpr KernelWork sw_pair_work = md_work(14 + 12, 6, 4, 8 * 8 + 3 * 8, 3 * 8);
// ... per three-body term (j, k about i): two square roots, two exponentials and 4 divisions
// (8), about 50 operations for the cosine and forces, 15 to add them; loads x_k and 3
// parameter sets' 6 values.
constexpr KernelWork sw_triplet_work = md_work(50 + 15, 8, 6, 3 * 8 + 6 * 8, 3 * 8);
// vashishta, per two-body term: sqrt, a power, two exponentials and two divisions (6), 20
// operations and 12 to add the forces; loads 10 parameters.
constexpr KernelWork vashishta_pair_work = md_work(20 + 12, 6, 4, 10 * 8 + 3 * 8, 3 * 8);
// ... per three-body term: sw's and the angular factor's division and 4 operations more.
constexpr KernelWork vashishta_triplet_work = md_work(50 + 15 + 4, 9, 6, 3 * 8 + 7 * 8, 3 * 8);
// Neighbor-list build, per candidate pair of the bin stencil: the distance, the compare, and
// the list's end advanced (a branch-free store); loads j, next[j] and x_j.
constexpr KernelWork list_work = md_work(8 + 1, 0, 3, 4 + 4 + 3 * 8, 4);
// Ghost selection, per atom and segment: shifted position inside the slab, 3 adds and 6
// compares; loads x.
constexpr KernelWork ghost_select_work = md_work(3 + 6, 0, 2, 3 * 8, 0);
// Ghost packing, per ghost atom: its index, 3 shifted coordinates.
constexpr KernelWork pack_work = md_work(3, 0, 1, 4 + 3 * 8, 3 * 8);

// A pair style's values sent to ghosts (Pair::forward_per_atom), per value: the atom's
// index, the value.
constexpr KernelWork forward_pack_work = md_work(0, 0, 1, 4 + 8, 8);

// pair_style deepmd: the networks' matrix products per flop, and their tanh. In float64 a
// multiply-add loads one operand from memory per 2 flops and is emulated; in float32 the
// products run on the tile's AMP unit and the tanh on the 2-wide float vectors.
// The loops over the products' flops take a branch per multiply-add in float64, and per
// 64 flops of AMP work in float32 (an estimate: the AMP's operands stream in 64-bit pairs).
inline KernelWork deepmd_matmul_work(bool float32) {
  KernelWork w;
  if (float32) {
    w.matmul_flops_fp32 = 1;
    w.vector_width = 64;
  } else {
    w.flops_fp64 = 1;
    w.bytes_loaded = 4;
    w.value_bytes = 8;
    w.vector_width = 2;
  }
  return w;
}
// A compressed model's table work, per flop of deepmd::slot_table_flops: vector multiply-adds
// (not the AMP: each output has its own coefficients), loading the 6 coefficients of an output
// per 10 or 12 flops (12 values per 32 flops over both passes).
inline KernelWork deepmd_table_work(bool float32) {
  KernelWork w;
  w.value_bytes = float32 ? 4 : 8;
  w.bytes_loaded = 12.0 / 32.0 * w.value_bytes;
  if (float32) {
    w.flops_fp32 = 1;
    w.vector_width = 2;
  } else {
    w.flops_fp64 = 1;
  }
  return w;
}
inline KernelWork deepmd_tanh_work(bool float32) {
  KernelWork w;
  if (float32) {
    w.transcendentals_fp32 = 1;
    w.vector_width = 2;
    w.bytes_loaded = w.bytes_stored = 4;
  } else {
    w.transcendentals_fp64 = 1;
    w.bytes_loaded = w.bytes_stored = 8;
    w.value_bytes = 8;
  }
  return w;
}

}  // namespace tessera::md
