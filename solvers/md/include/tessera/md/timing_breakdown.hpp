// LAMMPS's "MPI task timing breakdown" for md_ipu (LAMMPS src/finish.cpp, mpi_timings): each
// section's wall time over the run, its minimum, average and maximum over the ranks, its
// variation across them (LAMMPS's %varavg, 100 sqrt(<t^2>/<t> - <t>) over the ranks' times t)
// and its share of the loop time; "Other" is the loop time the sections leave.
//
// md_ipu's sections come from its supersteps' names (the runtime's profile records each
// superstep's wall time, compute and exchange together), as LAMMPS's from its timers: Pair (the
// force superstep, a style's forward values), Bond (the bonded terms inside the force
// superstep), Kspace (Ewald and PPPM, with their FFTs), Neigh (list rebuilds, inside the force
// superstep, and the bins and skin checks), Comm (ghosts, migration, returned forces), Output
// (thermo and its computes), Modify (integration, constraints and the other fixes). A superstep
// that does two sections' work at once (the ghost positions' forward riding on the integration
// superstep) counts under its compute. The force superstep's time is split into Pair, Neigh and
// Bond in the proportions its tiles measured (Simulation::force_phase_seconds).
#pragma once

#include <mpi.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

enum class TimingSection { kPair, kBond, kKspace, kNeigh, kComm, kOutput, kModify };
inline constexpr std::size_t kTimingSections = 7;
using SectionSeconds = std::array<double, kTimingSections>;

// The section of a superstep, by its name; nullopt for one LAMMPS would count under Other.
// md.force and md.pair_forward are split apart (section_seconds).
std::optional<TimingSection> section_of(std::string_view superstep);

// This rank's seconds per section: `by_name` the wall seconds each superstep name took during
// the run (the profile's totals after it minus before), `force` the force supersteps' phases.
SectionSeconds section_seconds(const std::vector<std::pair<std::string, double>>& by_name,
                               const Simulation::ForcePhaseSeconds& force);

// The table as LAMMPS prints it (header, one row per section, Other), from the sections over
// every rank of `comm` and this rank's loop time; collective over `comm`. Bond appears with
// molecular systems and Kspace with a kspace style, as in LAMMPS.
std::string timing_breakdown(MPI_Comm comm, const SectionSeconds& mine, double loop_seconds,
                             bool bond, bool kspace);

// What LAMMPS's Finish prints after the breakdown (collective over `comm`): the average, largest
// and smallest over the ranks of their owned atoms (Nlocal), ghosts (Nghost) and neighbor pairs
// (Neighs, or FullNghs for a style with full lists), each with its 10-bin histogram over the
// ranks; then the total pairs, pairs per atom, special neighbors per atom (molecular systems), the
// list builds and the dangerous builds (when the skin is checked).
struct NeighborSummary {
  Simulation::NeighborCounts mine;  // this rank's
  std::int64_t natoms = 0, builds = 0, dangerous = 0;
  bool molecular = false, full_list = false, checked = false;
};
std::string neighbor_statistics(MPI_Comm comm, const NeighborSummary& summary);

}  // namespace tessera::md
