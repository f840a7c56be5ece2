// md_ipu's LAMMPS-style timing breakdown: which superstep counts under which section, the force
// superstep split by its tiles' measurements, and the table's rows, min/avg/max, %varavg and
// Other as LAMMPS's finish.cpp computes them (on one rank and, under mpirun, on several).
#include "tessera/md/timing_breakdown.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <regex>
#include <string>

namespace tessera::md {
namespace {

TEST(TimingBreakdown, SuperstepsBelongToLammpsSections) {
  EXPECT_EQ(section_of("md.pppm_forces"), TimingSection::kKspace);
  EXPECT_EQ(section_of("md.fft_x_back"), TimingSection::kKspace);
  EXPECT_EQ(section_of("md.kspace_sums"), TimingSection::kKspace);
  EXPECT_EQ(section_of("md.neighbor_check"), TimingSection::kNeigh);
  EXPECT_EQ(section_of("md.ghosts"), TimingSection::kComm);
  EXPECT_EQ(section_of("md.ghost_counts"), TimingSection::kComm);
  EXPECT_EQ(section_of("md.migrate"), TimingSection::kComm);
  EXPECT_EQ(section_of("md.thermo"), TimingSection::kOutput);
  EXPECT_EQ(section_of("md.thermo_cpu"), TimingSection::kOutput);
  EXPECT_EQ(section_of("md.compute_temp"), TimingSection::kOutput);
  EXPECT_EQ(section_of("md.integrate_second"), TimingSection::kModify);
  EXPECT_EQ(section_of("md.fix_shake_stats_sum"), TimingSection::kModify);
  EXPECT_EQ(section_of("md.deepmd_deviation"), TimingSection::kPair);
  EXPECT_FALSE(section_of("md.init"));     // LAMMPS's Other
  EXPECT_FALSE(section_of("md.ghostsx"));  // whole names match whole
  EXPECT_FALSE(section_of("comm.allreduce"));
}

// md.force's 10 s: its tiles spent 4 s in it, 1 s of them rebuilding lists and 0.5 s in bonded
// terms; md.pair_forward's 2 s: 1 s in all, 0.25 s rebuilding.
TEST(TimingBreakdown, ForceSuperstepIsSplitByItsTilesMeasurements) {
  Simulation::ForcePhaseSeconds force;
  force.total = 4;
  force.neighbor = 1;
  force.bonded = 0.5;
  force.forward_total = 1;
  force.forward_neighbor = 0.25;
  const SectionSeconds s = section_seconds(
      {{"md.force", 10.0}, {"md.pair_forward", 2.0}, {"md.pppm_charges", 0.75}, {"md.init", 3.0}},
      force);
  EXPECT_DOUBLE_EQ(s[static_cast<std::size_t>(TimingSection::kNeigh)], 2.5 + 0.5);
  EXPECT_DOUBLE_EQ(s[static_cast<std::size_t>(TimingSection::kBond)], 1.25);
  EXPECT_DOUBLE_EQ(s[static_cast<std::size_t>(TimingSection::kPair)], 6.25 + 1.5);
  EXPECT_DOUBLE_EQ(s[static_cast<std::size_t>(TimingSection::kKspace)], 0.75);
  double sum = 0;
  for (double x : s) sum += x;
  EXPECT_DOUBLE_EQ(sum, 12.75);  // md.init is Other's
}

// Each rank r holds Pair = 1 + r and Modify = 0.5 over a loop of 4 + r seconds: min, avg, max
// over the ranks, LAMMPS's %varavg 100 sqrt(<t^2>/<t> - <t>), the shares of the average loop
// time and Other, the loop time the sections leave, on average.
TEST(TimingBreakdown, TableAsLammpsPrintsIt) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  SectionSeconds mine{};
  mine[static_cast<std::size_t>(TimingSection::kPair)] = 1.0 + rank;
  mine[static_cast<std::size_t>(TimingSection::kModify)] = 0.5;
  const std::string text = timing_breakdown(MPI_COMM_WORLD, mine, 4.0 + rank, false, true);
  if (rank != 0) {
    EXPECT_TRUE(text.empty());
    return;
  }
  double avg = 0, avg_sq = 0, loop = 0;
  for (int r = 0; r < ranks; ++r) {
    avg += (1.0 + r) / ranks;
    avg_sq += (1.0 + r) * (1.0 + r) / ranks;
    loop += (4.0 + r) / ranks;
  }
  const double varavg = avg_sq / avg - avg > 1e-10 ? std::sqrt(avg_sq / avg - avg) * 100 : 0.0;
  char pair[128], other[128];
  std::snprintf(pair, sizeof pair, "Pair    | %-10.5g | %-10.5g | %-10.5g |%6.1f |%6.2f\n", 1.0,
                avg, static_cast<double>(ranks), varavg, avg / loop * 100);
  std::snprintf(other, sizeof other, "Other   |            | %-10.4g |            |       |%6.2f\n",
                loop - avg - 0.5, (loop - avg - 0.5) / loop * 100);
  EXPECT_EQ(
      text,
      "\nMPI task timing breakdown:\nSection |  min time  |  avg time  |  max time  |%varavg| "
      "%total\n---------------------------------------------------------------\n" +
          std::string(pair) +
          "Kspace  | 0          | 0          | 0          |   0.0 |  0.00\n"
          "Neigh   | 0          | 0          | 0          |   0.0 |  0.00\n"
          "Comm    | 0          | 0          | 0          |   0.0 |  0.00\n"
          "Output  | 0          | 0          | 0          |   0.0 |  0.00\n" +
          [&] {
            char modify[128];
            std::snprintf(modify, sizeof modify,
                          "Modify  | 0.5        | 0.5        | 0.5        |   0.0 |%6.2f\n",
                          0.5 / loop * 100);
            return std::string(modify);
          }() +
          other);
}

}  // namespace
}  // namespace tessera::md
