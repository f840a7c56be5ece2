// Quaternion and principal-frame arithmetic for rigid bodies, term by term as LAMMPS's MathExtra
// (math_extra.cpp, RIGID package) so that bodies follow LAMMPS's digits. A quaternion is (w, i, j,
// k); ex, ey, ez are a body's principal axes in the space frame (the columns of its rotation
// matrix); moments are its principal moments of inertia (0 for an axis it cannot spin about).
#pragma once

#include <array>
#include <cmath>
#include <utility>

namespace tessera::md::rigid {

using Vec = std::array<double, 3>;
using Quat = std::array<double, 4>;

inline void normalize(Quat& q) {
  const double norm = 1.0 / std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double& c : q) c *= norm;
}

// (ex ey ez) v: body frame to space frame.
inline Vec to_space(const Vec& ex, const Vec& ey, const Vec& ez, const Vec& v) {
  return {ex[0] * v[0] + ey[0] * v[1] + ez[0] * v[2], ex[1] * v[0] + ey[1] * v[1] + ez[1] * v[2],
          ex[2] * v[0] + ey[2] * v[1] + ez[2] * v[2]};
}
// (ex ey ez)^T v: space frame to body frame.
inline Vec to_body(const Vec& ex, const Vec& ey, const Vec& ez, const Vec& v) {
  return {ex[0] * v[0] + ex[1] * v[1] + ex[2] * v[2], ey[0] * v[0] + ey[1] * v[1] + ey[2] * v[2],
          ez[0] * v[0] + ez[1] * v[1] + ez[2] * v[2]};
}

// (0, a) * b.
inline Quat vector_times_quat(const Vec& a, const Quat& b) {
  return {-a[0] * b[1] - a[1] * b[2] - a[2] * b[3], b[0] * a[0] + a[1] * b[3] - a[2] * b[2],
          b[0] * a[1] + a[2] * b[1] - a[0] * b[3], b[0] * a[2] + a[0] * b[2] - a[1] * b[1]};
}
// a * (0, b).
inline Quat quat_times_vector(const Quat& a, const Vec& b) {
  return {-a[1] * b[0] - a[2] * b[1] - a[3] * b[2], a[0] * b[0] + a[2] * b[2] - a[3] * b[1],
          a[0] * b[1] + a[3] * b[0] - a[1] * b[2], a[0] * b[2] + a[1] * b[1] - a[2] * b[0]};
}
// The vector part of conj(a) * b.
inline Vec inverse_quat_times(const Quat& a, const Quat& b) {
  return {-a[1] * b[0] + a[0] * b[1] + a[3] * b[2] - a[2] * b[3],
          -a[2] * b[0] - a[3] * b[1] + a[0] * b[2] + a[1] * b[3],
          -a[3] * b[0] + a[2] * b[1] - a[1] * b[2] + a[0] * b[3]};
}

// The rotation matrix of a unit quaternion, row by row.
inline std::array<Vec, 3> rotation(const Quat& q) {
  const double w2 = q[0] * q[0], i2 = q[1] * q[1], j2 = q[2] * q[2], k2 = q[3] * q[3];
  const double ij = 2.0 * q[1] * q[2], ik = 2.0 * q[1] * q[3], jk = 2.0 * q[2] * q[3];
  const double iw = 2.0 * q[1] * q[0], jw = 2.0 * q[2] * q[0], kw = 2.0 * q[3] * q[0];
  return {{{w2 + i2 - j2 - k2, ij - kw, jw + ik},
           {ij + kw, w2 - i2 + j2 - k2, jk - iw},
           {ik - jw, jk + iw, w2 - i2 - j2 + k2}}};
}

// The body-frame angular velocity of angular momentum m (space frame) in orientation q.
inline Vec body_angular_velocity(const Vec& m, const Quat& q, const Vec& moments) {
  const auto r = rotation(q);
  Vec w{r[0][0] * m[0] + r[1][0] * m[1] + r[2][0] * m[2],
        r[0][1] * m[0] + r[1][1] * m[1] + r[2][1] * m[2],
        r[0][2] * m[0] + r[1][2] * m[1] + r[2][2] * m[2]};
  for (std::size_t d = 0; d < 3; ++d) w[d] = moments[d] == 0.0 ? 0.0 : w[d] / moments[d];
  return w;
}

// Space-frame angular velocity from angular momentum m (LAMMPS's mq_to_omega).
inline Vec omega_of(const Vec& m, const Quat& q, const Vec& moments) {
  const Vec wb = body_angular_velocity(m, q, moments);
  const auto r = rotation(q);
  return {r[0][0] * wb[0] + r[0][1] * wb[1] + r[0][2] * wb[2],
          r[1][0] * wb[0] + r[1][1] * wb[1] + r[1][2] * wb[2],
          r[2][0] * wb[0] + r[2][1] * wb[1] + r[2][2] * wb[2]};
}

// The same from the principal axes (LAMMPS's angmom_to_omega).
inline Vec omega_of(const Vec& m, const Vec& ex, const Vec& ey, const Vec& ez, const Vec& moments) {
  const Vec wb{moments[0] == 0.0 ? 0.0 : (m[0] * ex[0] + m[1] * ex[1] + m[2] * ex[2]) / moments[0],
               moments[1] == 0.0 ? 0.0 : (m[0] * ey[0] + m[1] * ey[1] + m[2] * ey[2]) / moments[1],
               moments[2] == 0.0 ? 0.0 : (m[0] * ez[0] + m[1] * ez[1] + m[2] * ez[2]) / moments[2]};
  return {wb[0] * ex[0] + wb[1] * ey[0] + wb[2] * ez[0],
          wb[0] * ex[1] + wb[1] * ey[1] + wb[2] * ez[1],
          wb[0] * ex[2] + wb[1] * ey[2] + wb[2] * ez[2]};
}

// The principal axes of orientation q (LAMMPS's q_to_exyz).
inline void axes_of(const Quat& q, Vec& ex, Vec& ey, Vec& ez) {
  ex = {q[0] * q[0] + q[1] * q[1] - q[2] * q[2] - q[3] * q[3], 2.0 * (q[1] * q[2] + q[0] * q[3]),
        2.0 * (q[1] * q[3] - q[0] * q[2])};
  ey = {2.0 * (q[1] * q[2] - q[0] * q[3]), q[0] * q[0] - q[1] * q[1] + q[2] * q[2] - q[3] * q[3],
        2.0 * (q[2] * q[3] + q[0] * q[1])};
  ez = {2.0 * (q[1] * q[3] + q[0] * q[2]), 2.0 * (q[2] * q[3] - q[0] * q[1]),
        q[0] * q[0] - q[1] * q[1] - q[2] * q[2] + q[3] * q[3]};
}

// The orientation whose principal axes are ex, ey, ez (LAMMPS's exyz_to_q: from the largest of
// the squared components, which is at least 1/4).
inline Quat orientation_of(const Vec& ex, const Vec& ey, const Vec& ez) {
  const double q0sq = 0.25 * (ex[0] + ey[1] + ez[2] + 1.0);
  const double q1sq = q0sq - 0.5 * (ey[1] + ez[2]);
  const double q2sq = q0sq - 0.5 * (ex[0] + ez[2]);
  const double q3sq = q0sq - 0.5 * (ex[0] + ey[1]);
  Quat q{};
  if (q0sq >= 0.25) {
    q[0] = std::sqrt(q0sq);
    q[1] = (ey[2] - ez[1]) / (4.0 * q[0]);
    q[2] = (ez[0] - ex[2]) / (4.0 * q[0]);
    q[3] = (ex[1] - ey[0]) / (4.0 * q[0]);
  } else if (q1sq >= 0.25) {
    q[1] = std::sqrt(q1sq);
    q[0] = (ey[2] - ez[1]) / (4.0 * q[1]);
    q[2] = (ey[0] + ex[1]) / (4.0 * q[1]);
    q[3] = (ex[2] + ez[0]) / (4.0 * q[1]);
  } else if (q2sq >= 0.25) {
    q[2] = std::sqrt(q2sq);
    q[0] = (ez[0] - ex[2]) / (4.0 * q[2]);
    q[1] = (ey[0] + ex[1]) / (4.0 * q[2]);
    q[3] = (ez[1] + ey[2]) / (4.0 * q[2]);
  } else {
    q[3] = std::sqrt(q3sq);
    q[0] = (ex[1] - ey[0]) / (4.0 * q[3]);
    q[1] = (ez[0] + ex[2]) / (4.0 * q[3]);
    q[2] = (ez[1] + ey[2]) / (4.0 * q[3]);
  }
  normalize(q);
  return q;
}

// A full step dt of dq/dt = w q / 2 by Richardson extrapolation of one full and two half steps,
// the angular velocity w re-evaluated at the half step from angular momentum m (LAMMPS's
// richardson; dtq = dt / 2). Updates q and w.
inline void richardson(Quat& q, const Vec& m, Vec& w, const Vec& moments, double dtq) {
  Quat wq = vector_times_quat(w, q);
  Quat full{}, half{};
  for (std::size_t c = 0; c < 4; ++c) full[c] = q[c] + dtq * wq[c];
  normalize(full);
  for (std::size_t c = 0; c < 4; ++c) half[c] = q[c] + 0.5 * dtq * wq[c];
  normalize(half);
  w = omega_of(m, half, moments);
  wq = vector_times_quat(w, half);
  for (std::size_t c = 0; c < 4; ++c) half[c] += 0.5 * dtq * wq[c];
  normalize(half);
  for (std::size_t c = 0; c < 4; ++c) q[c] = 2.0 * half[c] - full[c];
  normalize(q);
}

// Free rotation about principal axis k (1, 2 or 3) for dt of the NO_SQUISH splitting (Miller et
// al., J. Chem. Phys. 116, 8649 (2002)): quaternion q and its conjugate momentum p.
inline void no_squish_rotate(int k, Quat& p, Quat& q, const Vec& moments, double dt) {
  Quat kp{}, kq{};
  if (k == 1) {
    kq = {-q[1], q[0], q[3], -q[2]};
    kp = {-p[1], p[0], p[3], -p[2]};
  } else if (k == 2) {
    kq = {-q[2], -q[3], q[0], q[1]};
    kp = {-p[2], -p[3], p[0], p[1]};
  } else {
    kq = {-q[3], q[2], -q[1], q[0]};
    kp = {-p[3], p[2], -p[1], p[0]};
  }
  double phi = p[0] * kq[0] + p[1] * kq[1] + p[2] * kq[2] + p[3] * kq[3];
  const double moment = moments[static_cast<std::size_t>(k - 1)];
  phi = moment == 0.0 ? 0.0 : phi / (4.0 * moment);
  const double c = std::cos(dt * phi), s = std::sin(dt * phi);
  for (std::size_t i = 0; i < 4; ++i) p[i] = c * p[i] + s * kp[i];
  for (std::size_t i = 0; i < 4; ++i) q[i] = c * q[i] + s * kq[i];
}

// The eigenvalues (largest first) and unit eigenvectors of a symmetric 3x3 matrix by Jacobi
// rotations, each zeroing the largest off-diagonal element, in the order and arithmetic of
// LAMMPS's MathEigen::jacobi3 (A. Jewett's jacobi_pd), so that a body with equal moments gets
// the principal axes LAMMPS's does. False when 50 sweeps do not converge.
inline bool principal_axes(const std::array<Vec, 3>& matrix, Vec& values,
                           std::array<Vec, 3>& vectors) {
  constexpr int n = 3;
  double m[n][n];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      m[i][j] = matrix[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
  double e[n][n] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};  // rows: eigenvectors
  // The column of the largest element above the diagonal in each row, kept up to date.
  int max_in_row[n] = {0, 0, 0};
  const auto row_max = [&](int i) {
    int best = i + 1;
    for (int j = i + 2; j < n; ++j)
      if (std::fabs(m[i][j]) > std::fabs(m[i][best])) best = j;
    return best;
  };
  for (int i = 0; i < n - 1; ++i) max_in_row[i] = row_max(i);
  const int max_iterations = 50 * n * (n - 1) / 2;
  int iteration = 0;
  for (; iteration < max_iterations; ++iteration) {
    int i = 0, j = max_in_row[0];
    double largest = std::fabs(m[i][j]);
    for (int r = 1; r < n - 1; ++r)
      if (std::fabs(m[r][max_in_row[r]]) > largest)
        largest = std::fabs(m[r][max_in_row[r]]), i = r, j = max_in_row[r];
    if (m[i][i] + m[i][j] == m[i][i] && m[j][j] + m[i][j] == m[j][j]) {
      m[i][j] = 0.0;
      max_in_row[i] = row_max(i);
    }
    if (m[i][j] == 0.0) break;
    // The rotation that zeroes m[i][j]: t = tan(theta), the smaller root.
    double t = 1.0;
    if (const double diff = m[j][j] - m[i][i]; diff != 0.0) {
      const double kappa = diff / (2.0 * m[i][j]);
      t = 1.0 / (std::sqrt(1 + kappa * kappa) + std::fabs(kappa));
      if (kappa < 0.0) t = -t;
    }
    const double c = 1.0 / std::sqrt(1 + t * t), s = c * t;
    // M' = R^T M R over the upper triangle, old values backed up below the diagonal.
    m[i][i] -= t * m[i][j];
    m[j][j] += t * m[i][j];
    m[i][j] = 0.0;
    for (int w = 0; w < i; ++w) {
      m[i][w] = m[w][i];
      m[w][i] = c * m[w][i] - s * m[w][j];
      if (i == max_in_row[w])
        max_in_row[w] = row_max(w);
      else if (std::fabs(m[w][i]) > std::fabs(m[w][max_in_row[w]]))
        max_in_row[w] = i;
    }
    for (int w = i + 1; w < j; ++w) {
      m[w][i] = m[i][w];
      m[i][w] = c * m[i][w] - s * m[w][j];
    }
    for (int w = j + 1; w < n; ++w) {
      m[w][i] = m[i][w];
      m[i][w] = c * m[i][w] - s * m[j][w];
    }
    max_in_row[i] = row_max(i);
    for (int w = 0; w < i; ++w) {
      m[w][j] = s * m[i][w] + c * m[w][j];
      if (j == max_in_row[w])
        max_in_row[w] = row_max(w);
      else if (std::fabs(m[w][j]) > std::fabs(m[w][max_in_row[w]]))
        max_in_row[w] = j;
    }
    for (int w = i + 1; w < j; ++w) {
      m[w][j] = s * m[w][i] + c * m[w][j];
      if (j == max_in_row[w])
        max_in_row[w] = row_max(w);
      else if (std::fabs(m[w][j]) > std::fabs(m[w][max_in_row[w]]))
        max_in_row[w] = j;
    }
    for (int w = j + 1; w < n; ++w) m[j][w] = s * m[w][i] + c * m[j][w];
    max_in_row[j] = row_max(j);
    for (int v = 0; v < n; ++v) {
      const double eiv = e[i][v];
      e[i][v] = c * e[i][v] - s * e[j][v];
      e[j][v] = s * eiv + c * e[j][v];
    }
  }
  double eval[n] = {m[0][0], m[1][1], m[2][2]};
  // Selection sort, largest first, as jacobi_pd's SortRows.
  for (int i = 0; i < n - 1; ++i) {
    int best = i;
    for (int j = i + 1; j < n; ++j)
      if (eval[j] > eval[best]) best = j;
    std::swap(eval[i], eval[best]);
    for (int k = 0; k < n; ++k) std::swap(e[i][k], e[best][k]);
  }
  for (std::size_t i = 0; i < 3; ++i) {
    values[i] = eval[i];
    for (std::size_t k = 0; k < 3; ++k) vectors[i][k] = e[i][k];
  }
  return iteration < max_iterations;
}

}  // namespace tessera::md::rigid
