// Helpers of the DeePMD kernel tests (deepmd_test.cpp, deepmd_compress_test.cpp): random
// water-like configurations, the cell of one of DeePMD-kit's reference frames, and error norms.
#pragma once

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/core/rng.hpp"
#include "tessera/md/deepmd/se_a.hpp"

namespace tessera::md::deepmd::test {

struct Config {
  std::vector<double> x;
  std::vector<int> type;
  std::optional<std::array<double, 9>> cell;
};

// n atoms (types O, H, H repeating) at random in a triclinic cell, no pair closer than `closest`
// A; without periodicity the same positions in open space. Streams of rng_stream(seed, stream).
inline Config random_config(std::uint64_t seed, std::uint64_t stream, int n, bool periodic,
                            double closest) {
  Config c;
  c.cell = std::array<double, 9>{7.0, 0.0, 0.0, 0.8, 6.5, 0.0, -0.5, 0.7, 6.8};
  auto rng = rng_stream(seed, stream);
  boost::random::uniform_real_distribution<double> u(0.0, 1.0);
  while (static_cast<int>(c.type.size()) < n) {
    const double f[3] = {u(rng), u(rng), u(rng)};
    double x[3];
    for (int d = 0; d < 3; ++d)
      x[d] = f[0] * (*c.cell)[d] + f[1] * (*c.cell)[3 + d] + f[2] * (*c.cell)[6 + d];
    bool ok = true;
    for (std::size_t j = 0; j < c.type.size() && ok; ++j)
      ok = std::hypot(x[0] - c.x[3 * j], x[1] - c.x[3 * j + 1], x[2] - c.x[3 * j + 2]) > closest;
    if (!ok) continue;
    c.x.insert(c.x.end(), x, x + 3);
    c.type.push_back(c.type.size() % 3 == 0 ? 0 : 1);
  }
  if (!periodic) c.cell.reset();
  return c;
}

// A DeePMD-kit test frame's box (rows the cell vectors), or none for a cluster.
inline std::optional<std::array<double, 9>> frame_cell(const YAML::Node& frame) {
  if (frame["box"].IsNull()) return std::nullopt;
  const auto box = frame["box"].as<std::vector<double>>();
  std::array<double, 9> cell{};
  std::copy(box.begin(), box.end(), cell.begin());
  return cell;
}

inline double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Each force component of `model` on `c` against minus the central difference of its energy
// with step h, within abs + rel * |F|; returns the largest |F + dE/dx|.
inline double expect_forces_are_minus_gradient(const Model& model, Config c, double h, double abs,
                                               double rel = 0.0) {
  const Result r = evaluate(model, c.x, c.type, c.cell);
  double worst = 0.0;
  for (std::size_t k = 0; k < c.x.size(); ++k) {
    const double x0 = c.x[k];
    c.x[k] = x0 + h;
    const double ep = evaluate(model, c.x, c.type, c.cell).energy;
    c.x[k] = x0 - h;
    const double em = evaluate(model, c.x, c.type, c.cell).energy;
    c.x[k] = x0;
    const double fd = -(ep - em) / (2 * h);
    EXPECT_NEAR(r.force[k], fd, abs + rel * std::abs(r.force[k])) << "component " << k;
    worst = std::max(worst, std::abs(r.force[k] - fd));
  }
  return worst;
}

// The virial of `model` on the periodic `c` against minus the central difference of its energy
// under each of the 9 homogeneous strains (atoms and cell vectors, v_q += v_p eps), within tol.
inline void expect_virial_is_strain_derivative(const Model& model, const Config& c, double h,
                                               double tol) {
  const auto w = evaluate(model, c.x, c.type, c.cell).virial();
  for (int p = 0; p < 3; ++p)
    for (int q = 0; q < 3; ++q) {
      double e[2];
      for (int side = 0; side < 2; ++side) {
        const double eps = side == 0 ? h : -h;
        Config s = c;
        for (std::size_t a = 0; a < s.type.size(); ++a) s.x[3 * a + q] += c.x[3 * a + p] * eps;
        for (int row = 0; row < 3; ++row) (*s.cell)[3 * row + q] += (*c.cell)[3 * row + p] * eps;
        e[side] = evaluate(model, s.x, s.type, s.cell).energy;
      }
      EXPECT_NEAR(w[3 * q + p], -(e[0] - e[1]) / (2 * h), tol) << p << q;
    }
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) m = std::max(m, std::abs(a[k] - b[k]));
  return m;
}

}  // namespace tessera::md::deepmd::test
