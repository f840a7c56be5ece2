// DeePMD-kit's compute_smooth_weight (deepmd/dpmodel/utils/env_mat.py): 1 below rmin, 0 above
// rmax, a quintic in between; and its derivative with respect to r. Shared by the kernel and the
// compression's table range.
#pragma once

namespace tessera::md::deepmd {

inline void smooth_weight(double r, double rmin, double rmax, double& s, double& ds) {
  if (r <= rmin) {
    s = 1.0;
    ds = 0.0;
  } else if (r >= rmax) {
    s = 0.0;
    ds = 0.0;
  } else {
    const double u = (r - rmin) / (rmax - rmin);
    s = u * u * u * (-6.0 * u * u + 15.0 * u - 10.0) + 1.0;
    ds = -30.0 * u * u * (u - 1.0) * (u - 1.0) / (rmax - rmin);
  }
}

}  // namespace tessera::md::deepmd
