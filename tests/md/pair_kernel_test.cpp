// The lj/cut kernel, which computes four neighbours at a time in vector lanes (pair_lj_cut.cpp):
// against a direct sum over every pair of a periodic box, and its baseline (SSE2) and AVX2 builds
// against each other, to the bit (tessera/core/simd.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "md_test_support.hpp"
#include "tessera/core/simd.hpp"

namespace tessera::md::test {
namespace {

// 256 atoms of an fcc lattice moved at random by up to `shake` sigma, half of them type 2, with
// three different cutoffs so that each lane's coefficients and cutoff are its own pair's; shifted
// energies. Neighbour counts are not multiples of four, so every list ends in a partial group.
std::string mixture(const std::string& shake, const std::string& extra) {
  return "units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 4 0 4 0 4\n"
         "create_box 2 box\ncreate_atoms 1 box\nmass * 1.0\n"
         "displace_atoms all random " +
         shake + " " + shake + " " + shake +
         " 4821\nset type 1 type/fraction 2 0.5 991\n"
         "velocity all create 1.2 5512 loop geom\n"
         "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\npair_coeff 2 2 0.5 0.88 2.2\n"
         "pair_coeff 1 2 0.75 0.8 2.0\npair_modify shift yes\nneighbor 0.3 bin\n" +
         extra;
}

struct DirectSum {
  double energy = 0;
  std::array<double, 6> virial{};
  std::map<std::int64_t, std::array<double, 3>> force;
};

// Every pair of the box once, at its minimum image (the box, 6.7 sigma, is more than twice the
// largest cutoff).
DirectSum direct_sum(const std::vector<AtomRecord>& atoms, double box) {
  const auto coefficients = [](int a, int b) {
    if (a == 1 && b == 1) return std::array<double, 3>{1.0, 1.0, 2.5};
    if (a == 2 && b == 2) return std::array<double, 3>{0.5, 0.88, 2.2};
    return std::array<double, 3>{0.75, 0.8, 2.0};
  };
  DirectSum sum;
  for (const auto& a : atoms) sum.force[a.id] = {0, 0, 0};
  for (std::size_t p = 0; p < atoms.size(); ++p)
    for (std::size_t q = p + 1; q < atoms.size(); ++q) {
      std::array<double, 3> d;
      for (std::size_t k = 0; k < 3; ++k) {
        d[k] = atoms[p].x[k] - atoms[q].x[k];
        d[k] -= box * std::round(d[k] / box);
      }
      const double rsq = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      const auto [eps, sigma, rc] = coefficients(atoms[p].type, atoms[q].type);
      if (rsq >= rc * rc) continue;
      const double sr6 = std::pow(sigma * sigma / rsq, 3), sc6 = std::pow(sigma / rc, 6);
      sum.energy += 4 * eps * (sr6 * sr6 - sr6) - 4 * eps * (sc6 * sc6 - sc6);
      const double fpair = 24 * eps * (2 * sr6 * sr6 - sr6) / rsq;
      for (std::size_t k = 0; k < 3; ++k) {
        sum.force[atoms[p].id][k] += fpair * d[k];
        sum.force[atoms[q].id][k] -= fpair * d[k];
      }
      const std::array<double, 6> w = {d[0] * d[0], d[1] * d[1], d[2] * d[2],
                                       d[0] * d[1], d[0] * d[2], d[1] * d[2]};
      for (std::size_t k = 0; k < 6; ++k) sum.virial[k] += fpair * w[k];
    }
  return sum;
}

// A lane past a list's end or beyond its pair's cutoff that were not masked would add its force
// again (a repeated neighbour) or a force that should be zero: both change forces by far more
// than 1e-12 of their scale.
TEST(PairKernel, LjCutLanesMatchADirectSumOverEveryPair) {
  for (int tiles : {1, 4}) {
    SCOPED_TRACE(std::to_string(tiles) + " tiles");
    Session s(host_target(tiles), 2);
    s.input.run_script(mixture("0.3", "run 0\n"), "test");
    const auto atoms = s.sim().gather_atoms();
    ASSERT_EQ(atoms.size(), 256u);
    const double box = 4 * std::cbrt(4 / 0.8442);
    const DirectSum reference = direct_sum(atoms, box);
    double scale = 0;
    for (const auto& [id, f] : reference.force)
      for (double c : f) scale = std::max(scale, std::fabs(c));
    for (const auto& a : atoms)
      for (std::size_t k = 0; k < 3; ++k)
        ASSERT_NEAR(a.f[k], reference.force.at(a.id)[k], 1e-12 * scale)
            << "atom " << a.id << " component " << k;
    const Thermo t = s.sim().thermo();
    EXPECT_NEAR(t.pe, reference.energy, 1e-12 * std::fabs(reference.energy));
    for (std::size_t k = 0; k < 6; ++k)
      EXPECT_NEAR(t.virial[k], reference.virial[k], 1e-11 * std::fabs(reference.virial[0]))
          << "virial " << k;
  }
}

// One run's atoms and thermo at every step, at a given SIMD level.
struct Trajectory {
  std::vector<AtomRecord> atoms;
  std::vector<std::vector<double>> thermo;
};

Trajectory run_at(SimdLevel level, const std::string& script) {
  ScopedSimdLevel at(level);
  Session s(host_target(4), 2);
  auto rec = std::make_shared<Recorder>(1);
  s.sim().add_observer(rec);
  s.input.run_script(script, "test");
  Trajectory out{s.sim().gather_atoms(), {}};
  for (const auto& [step, row] : rec->rows) out.thermo.push_back(row);
  return out;
}

// The two builds of the kernel on one CPU: every position, velocity and thermo value the same
// bits over 200 steps of a mixture (a difference in the last bit grows by orders of magnitude
// over so many steps of a liquid), with energies and per-atom tallies asked for at every step.
TEST(PairKernel, BaselineAndAvx2BuildsGiveTheSameBits) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "this CPU has no AVX2 to compare with";
  const std::string script =
      mixture("0.05",
              "compute pe all pe/atom\ncompute w all stress/atom NULL\n"
              "compute sumpe all reduce sum c_pe\ncompute sumw all reduce sum c_w[1] c_w[5]\n"
              "thermo_style custom step pe press c_sumpe c_sumw[1] c_sumw[2]\nthermo 1\n"
              "fix 1 all nve\nrun 200\n");
  const Trajectory baseline = run_at(SimdLevel::baseline, script);
  const Trajectory avx2 = run_at(SimdLevel::avx2, script);
  ASSERT_EQ(baseline.thermo.size(), 201u);
  EXPECT_EQ(baseline.thermo, avx2.thermo);
  ASSERT_EQ(baseline.atoms.size(), avx2.atoms.size());
  for (std::size_t a = 0; a < baseline.atoms.size(); ++a) {
    EXPECT_EQ(baseline.atoms[a].x, avx2.atoms[a].x) << "atom " << baseline.atoms[a].id;
    EXPECT_EQ(baseline.atoms[a].v, avx2.atoms[a].v) << "atom " << baseline.atoms[a].id;
  }
}

}  // namespace
}  // namespace tessera::md::test
