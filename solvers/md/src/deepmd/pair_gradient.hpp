// The last step of the DeePMD kernels' reverse pass (se_a.cpp, se_atten.cpp): from the gradient
// of the energy with respect to a neighbor slot's raw environment row (DeePMD-kit's s/r and
// s d/r^2, deepmd/dpmodel/utils/env_mat.py) and with respect to its smooth weight s, to the
// forces on the pair and the neighbor's per-atom virial (se_a.hpp's convention). Internal.
#pragma once

#include "tessera/md/deepmd/se_a.hpp"

namespace tessera::md::deepmd {

// d = x_j - x_i, r = |d|, s and ds_dr the smooth weight and its slope at r; dr the gradient with
// respect to (s/r, s d_x/r^2, s d_y/r^2, s d_z/r^2), dsw the one with respect to s wherever else
// s enters (DPA-1's attention; 0 for se_e2_a). Adds -g to atom j's force, +g to atom i's and
// -g (x) d to j's virial, g = dE/dd.
inline void add_pair_gradient(const double dr[4], double dsw, const double d[3], double r, double s,
                              double ds_dr, int i, int j, Result& out) {
  const double inv_r = 1.0 / r, inv_r2 = inv_r * inv_r;
  const double dot = dr[1] * d[0] + dr[2] * d[1] + dr[3] * d[2];
  // d/dr of s/r, of s/r^2 and of s, divided by r to turn them into gradients along d.
  const double radial = (dr[0] * (ds_dr * inv_r - s * inv_r2) +
                         dot * (ds_dr * inv_r2 - 2 * s * inv_r2 * inv_r) + dsw * ds_dr) *
                        inv_r;
  for (int c = 0; c < 3; ++c) {
    const double grad = radial * d[c] + dr[1 + c] * s * inv_r2;
    out.force[3 * j + c] -= grad;
    out.force[3 * i + c] += grad;
    for (int e = 0; e < 3; ++e) out.atom_virial[9 * j + 3 * c + e] -= grad * d[e];
  }
}

}  // namespace tessera::md::deepmd
