// Conservation and ensemble checks, and restarts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>

#include "md_test_support.hpp"
#include "tessera/md/data_file.hpp"

namespace tessera::md::test {
namespace {

std::string liquid(int cells, const std::string& extra) {
  return "units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 " +
         std::to_string(cells) + " 0 " + std::to_string(cells) + " 0 " + std::to_string(cells) +
         "\ncreate_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\nvelocity all create 1.44 87287 loop "
         "geom\n"
         "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\nneighbor 0.3 bin\n" +
         extra;
}

// Mean and standard error of a series, from the variance of the means of 10 blocks.
std::pair<double, double> block_mean(const std::vector<double>& x) {
  const std::size_t blocks = 10, n = x.size() / blocks;
  std::vector<double> means;
  for (std::size_t b = 0; b < blocks; ++b)
    means.push_back(std::accumulate(x.begin() + static_cast<std::ptrdiff_t>(b * n),
                                    x.begin() + static_cast<std::ptrdiff_t>((b + 1) * n), 0.0) /
                    static_cast<double>(n));
  const double mean = std::accumulate(means.begin(), means.end(), 0.0) / blocks;
  double var = 0;
  for (double m : means) var += (m - mean) * (m - mean);
  return {mean, std::sqrt(var / (blocks - 1) / blocks)};
}

TEST(Physics, NveConservesEnergyOverTenThousandSteps) {
  // 4000-atom LJ liquid, shifted potential, dt 0.005: |E(t) - E(0)| / |E(0)| < 5e-5.
  Session s(host_target(2), 2);
  auto rec = std::make_shared<Recorder>(100);
  s.sim().add_observer(rec);
  s.input.run_script(liquid(10,
                            "pair_modify shift yes\nneigh_modify every 1 delay 0 check yes\nfix 1 "
                            "all nve\nrun 10000\n"),
                     "nve test");
  const double e0 = rec->rows.at(0)[2];
  double worst = 0;
  for (const auto& [step, row] : rec->rows)
    worst = std::max(worst, std::fabs(row[2] - e0) / std::fabs(e0));
  std::printf("largest relative energy drift over 10000 steps: %.3g\n", worst);
  EXPECT_LT(worst, 5e-5);
  EXPECT_EQ(rec->rows.size(), 101u);
}

TEST(Physics, NvtHoldsTheTargetTemperature) {
  // After equilibration, the mean temperature agrees with T0 within 4 standard errors.
  Session s(host_target(2), 2);
  s.input.run_script(liquid(5, "fix 1 all nvt temp 1.2 1.2 0.5\nrun 2000\n"), "nvt equilibration");
  auto rec = std::make_shared<Recorder>(5);
  s.sim().add_observer(rec);
  s.input.run_script("run 10000\n", "nvt production");
  std::vector<double> temps;
  for (const auto& [step, row] : rec->rows) temps.push_back(row[0]);
  const auto [mean, error] = block_mean(temps);
  std::printf("NVT: <T> = %.4f +- %.4f (target 1.2)\n", mean, error);
  EXPECT_NEAR(mean, 1.2, 4 * error + 1e-3);
  EXPECT_LT(error, 0.02);
}

TEST(Physics, LangevinHoldsTheTargetTemperature) {
  Session s(host_target(2), 2);
  s.input.run_script(liquid(5, "fix 1 all nve\nfix 2 all langevin 0.9 0.9 1.0 48279\nrun 2000\n"),
                     "langevin equilibration");
  auto rec = std::make_shared<Recorder>(5);
  s.sim().add_observer(rec);
  s.input.run_script("run 10000\n", "langevin production");
  std::vector<double> temps;
  for (const auto& [step, row] : rec->rows) temps.push_back(row[0]);
  const auto [mean, error] = block_mean(temps);
  std::printf("Langevin: <T> = %.4f +- %.4f (target 0.9)\n", mean, error);
  EXPECT_NEAR(mean, 0.9, 4 * error + 1e-3);
}

TEST(Physics, ARunContinuedFromARestartIsBitwiseTheSame) {
  const std::string restart = ::testing::TempDir() + "tessera_md.restart";
  const std::string script =
      liquid(4, "fix 1 all nvt temp 1.0 1.0 0.5\nfix 2 all langevin 1.0 1.0 2.0 777\nrun 60\n");
  // Uninterrupted: 60 steps, a restart file, 60 more.
  Target small_ipu = Target::preset("gc200");
  small_ipu.tiles_per_ipu = 27;
  Session a(small_ipu, 2);
  a.input.run_script(script, "first");
  write_restart(a.sim(), restart);
  a.input.run_script("run 60\n", "second");
  const auto end_a = a.sim().gather_atoms();
  // Continued: read the restart file, 60 steps.
  Session b(small_ipu, 1);
  b.input.run_script("read_restart " + restart + "\nrun 60\n", "continued");
  const auto end_b = b.sim().gather_atoms();
  ASSERT_EQ(end_a.size(), end_b.size());
  ASSERT_EQ(end_a.size(), 256u);
  for (std::size_t i = 0; i < end_a.size(); ++i) {
    EXPECT_EQ(end_a[i].id, end_b[i].id);
    for (std::size_t d = 0; d < 3; ++d) {
      EXPECT_EQ(end_a[i].x[d], end_b[i].x[d]) << "atom " << end_a[i].id;
      EXPECT_EQ(end_a[i].v[d], end_b[i].v[d]) << "atom " << end_a[i].id;
    }
  }
  EXPECT_EQ(a.sim().step(), 120);
  EXPECT_EQ(b.sim().step(), 120);
  std::remove(restart.c_str());
}

TEST(Physics, WriteDataThenReadDataGivesTheSameSystem) {
  const std::string data = ::testing::TempDir() + "tessera_md.data";
  Session a(host_target(3), 1);
  a.input.run_script(liquid(3, "fix 1 all nve\nrun 30\n"), "write");
  write_data(a.sim(), data);
  const auto atoms_a = a.sim().gather_atoms();
  Session b(host_target(3), 1);
  b.input.run_script("units lj\natom_style atomic\npair_style lj/cut 2.5\nread_data " + data + "\n",
                     "read");
  const auto atoms_b = b.sim().gather_atoms();
  ASSERT_EQ(atoms_a.size(), atoms_b.size());
  for (std::size_t i = 0; i < atoms_a.size(); ++i)
    for (std::size_t d = 0; d < 3; ++d) {
      EXPECT_EQ(atoms_a[i].x[d], atoms_b[i].x[d]);  // %.17g round-trips doubles exactly
      EXPECT_EQ(atoms_a[i].v[d], atoms_b[i].v[d]);
      EXPECT_EQ(atoms_a[i].image[d], atoms_b[i].image[d]);
    }
  std::remove(data.c_str());
}

}  // namespace
}  // namespace tessera::md::test
