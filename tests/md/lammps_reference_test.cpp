// md_ipu against LAMMPS (29 Sep 2021, Debian's lammps): the reference files in
// tests/md/data were written by make_reference.sh there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "md_test_support.hpp"

namespace tessera::md::test {
namespace {

void expect_rows(const std::map<std::int64_t, std::vector<double>>& ours,
                 const std::map<std::int64_t, std::vector<double>>& lammps, double rel) {
  ASSERT_FALSE(lammps.empty());
  for (const auto& [step, ref] : lammps) {
    auto it = ours.find(step);
    ASSERT_NE(it, ours.end()) << "no thermo at step " << step;
    const char* names[] = {"Temp", "E_pair", "TotEng", "Press"};
    for (std::size_t k = 0; k < ref.size(); ++k)
      EXPECT_NEAR(it->second[k], ref[k], rel * std::fabs(ref[k]))
          << names[k] << " at step " << step;
  }
}

TEST(Lammps, ForcesEnergyAndPressureTensorOfAMixture) {
  Session s(host_target(2), 2);
  const std::string dump = ::testing::TempDir() + "tessera_forces.dump";
  s.input.define_variable("dumpfile", {dump});
  s.input.run_file(data_dir() + "/in.forces");
  // LAMMPS: Step PotEng KinEng Press Pxx Pyy Pzz Pxy Pxz Pyz, printed with %.17g.
  std::istringstream thermo(read_text(data_dir() + "/forces.lammps.thermo"));
  std::string header;
  std::getline(thermo, header);
  double step, pe, ke, press, p[6];
  ASSERT_TRUE(thermo >> step >> pe >> ke >> press >> p[0] >> p[1] >> p[2] >> p[3] >> p[4] >> p[5]);
  const Thermo t = s.sim().thermo();
  const double n = static_cast<double>(t.natoms);
  EXPECT_NEAR(t.pe / n, pe, 1e-10 * std::fabs(pe));
  EXPECT_NEAR(t.ke / n, ke, 1e-10 * std::fabs(ke));
  EXPECT_NEAR(s.sim().pressure(t), press, 1e-10 * std::fabs(press));
  const double pv = 1.0 / s.sim().box().volume();
  for (std::size_t k = 0; k < 6; ++k)
    EXPECT_NEAR((t.ke_tensor[k] + t.virial[k]) * pv, p[k], 1e-10 * std::fabs(press))
        << "pressure component " << k;

  // Forces, atom by atom: |f - f_lammps| <= 1e-10 (|f_lammps| + rms force).
  auto read_dump = [](const std::string& path) {
    std::map<long, std::array<double, 3>> f;
    std::istringstream in(read_text(path));
    std::string line;
    while (std::getline(in, line) && line.rfind("ITEM: ATOMS", 0) != 0) {
    }
    long id;
    int type;
    std::array<double, 3> v;
    while (in >> id >> type >> v[0] >> v[1] >> v[2]) f[id] = v;
    return f;
  };
  const auto ours = read_dump(dump), lammps = read_dump(data_dir() + "/forces.lammps.dump");
  ASSERT_EQ(lammps.size(), 500u);
  ASSERT_EQ(ours.size(), lammps.size());
  double rms = 0;
  for (const auto& [id, f] : lammps) rms += f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
  rms = std::sqrt(rms / (3.0 * static_cast<double>(lammps.size())));
  for (const auto& [id, f] : lammps)
    for (std::size_t d = 0; d < 3; ++d)
      EXPECT_NEAR(ours.at(id)[d], f[d], 1e-10 * (std::fabs(f[d]) + rms))
          << "atom " << id << " component " << d;
  std::remove(dump.c_str());
}

TEST(Lammps, BenchInLjRunsUnmodifiedAndMatches) {
  // The unmodified bench input: 32000 atoms, velocity create ... loop geom gives
  // LAMMPS's own velocities, so both printed rows (steps 0 and 100) must agree.
  Session s(host_target(2), 2);
  auto rec = std::make_shared<Recorder>(0);
  s.sim().add_observer(rec);
  s.input.run_file(data_dir() + "/in.lj");
  expect_rows(rec->rows, read_lammps_thermo(data_dir() + "/in.lj.lammps.thermo"), 5e-8);
}

TEST(Lammps, WholeThermoTableFromLammpsDataFile) {
  // Positions and velocities written by LAMMPS's write_data; every 10 steps to 100.
  Session s(host_target(2), 2);
  auto rec = std::make_shared<Recorder>(10);
  s.sim().add_observer(rec);
  s.input.run_file(data_dir() + "/in.lj4000");
  expect_rows(rec->rows, read_lammps_thermo(data_dir() + "/in.lj4000.lammps.thermo"), 1e-6);
  EXPECT_EQ(rec->rows.size(), 11u);
}

// fix nvt with a ramp (1.44 to 1.0) over two runs of 50 steps, LAMMPS's thermo printed with
// 15 digits. Before the fix the chain's links 1 and 2 started without the forces LAMMPS's
// FixNH::setup gives them (3.5e-7 apart at step 10), and the second run continued the first
// (the neighbor schedule and the ramp not restarted: 5e-6 apart at step 80).
TEST(Lammps, NoseHooverRampOverTwoRunsMatchesToTheDigits) {
  Session s(host_target(2), 2);
  auto rec = std::make_shared<Recorder>(10);
  s.sim().add_observer(rec);
  s.input.run_file(data_dir() + "/in.lj4000.nvt");
  const auto lammps = read_lammps_thermo(data_dir() + "/in.lj4000.nvt.lammps.thermo");
  EXPECT_EQ(lammps.size(), 11u);
  expect_rows(rec->rows, lammps, 1e-11);
}

TEST(Lammps, WholeInLjTableOnASimulatedGc200) {
  // The same 32000 atoms on 1472 tiles: the thermo table every 10 steps to 100.
  Session s(Target::preset("gc200"), 2);
  auto rec = std::make_shared<Recorder>(10);
  s.sim().add_observer(rec);
  s.input.run_file(data_dir() + "/in.lj");
  expect_rows(rec->rows, read_lammps_thermo(data_dir() + "/in.lj10.lammps.thermo"), 1e-6);
  EXPECT_EQ(rec->rows.size(), 11u);
}

}  // namespace
}  // namespace tessera::md::test
