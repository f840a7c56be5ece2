// The Compute family through the library: what thermo and LAMMPS's tables cannot show.
#include "tessera/md/compute.hpp"

#include <gtest/gtest.h>

#include "md_test_support.hpp"
#include "tessera/md/output_reference.hpp"

namespace tessera::md::test {
namespace {

const char* const two_types = R"(
units lj
lattice fcc 0.8442
region box block 0 4 0 4 0 4
create_box 2 box
create_atoms 1 box
region half block 0 2 INF INF INF INF
group left region half
set group left type 2
mass * 1.0
velocity all create 1.5 4321 loop geom
pair_style lj/cut 2.5
pair_coeff * * 1.0 1.0 2.5
fix 1 all nve
)";

std::int64_t count(Simulation& sim, const std::string& group) {
  return sim.add_to_group(group, [](const Simulation::GroupAtom&) { return false; });
}

// A refused group delete leaves the group as it was (it used to empty it first).
TEST(Compute, ARefusedGroupDeleteKeepsTheGroupsAtoms) {
  Session s(host_target(2), 1);
  s.input.run_script(std::string(two_types) + "compute t left temp\n", "two types");
  ASSERT_EQ(count(s.sim(), "left"), 160);  // five fcc planes, the upper face included
  EXPECT_THROW(s.sim().delete_group("left"), ConfigError);
  EXPECT_EQ(count(s.sim(), "left"), 160);
}

// The temperature of a group is the group's own: the two halves' kinetic energies add up to the
// whole's, and each temperature is over its own 3 N - 3 degrees of freedom.
TEST(Compute, GroupTemperaturesAddUpToTheWhole) {
  Session s(host_target(2), 2);
  s.input.run_script(std::string(two_types) +
                         "group right subtract all left\ncompute tl left temp\n"
                         "compute tr right temp\nrun 20\n",
                     "two types");
  auto value = [&](const std::string& id) {
    return output_value(s.sim(), OutputReference{'c', id, 0, false}, false, "test");
  };
  Compute& tl = *s.sim().find_compute("tl");
  Compute& tr = *s.sim().find_compute("tr");
  Compute& all = *s.sim().find_compute("thermo_temp");
  EXPECT_EQ(tl.dof(s.sim()), 3.0 * 160 - 3);
  EXPECT_EQ(all.dof(s.sim()), 3.0 * 256 - 3);
  const double ke = value("tl") * tl.dof(s.sim()) + value("tr") * tr.dof(s.sim());
  EXPECT_NEAR(ke, value("thermo_temp") * all.dof(s.sim()), 1e-12 * ke);
}

}  // namespace
}  // namespace tessera::md::test
