#include "tessera/md/timing_breakdown.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace tessera::md {
namespace {

struct Prefix {
  std::string_view prefix;
  TimingSection section;
};

// Superstep names (or their prefixes, ending in '_') and their sections.
constexpr Prefix kSections[] = {
    {"md.deepmd_", TimingSection::kPair},
    {"md.pppm_", TimingSection::kKspace},
    {"md.fft_", TimingSection::kKspace},
    {"md.kspace_", TimingSection::kKspace},
    {"md.neighbor_list", TimingSection::kNeigh},
    {"md.neighbor_check", TimingSection::kNeigh},
    {"md.bins", TimingSection::kNeigh},
    {"md.special_list", TimingSection::kNeigh},
    {"md.hybrid_neighbor_list", TimingSection::kNeigh},
    {"md.forward_ghosts", TimingSection::kComm},
    {"md.ghosts", TimingSection::kComm},
    {"md.ghost_", TimingSection::kComm},
    {"md.migrate", TimingSection::kComm},
    {"md.arrive", TimingSection::kComm},
    {"md.thermo", TimingSection::kOutput},
    {"md.thermo_", TimingSection::kOutput},
    {"md.compute_", TimingSection::kOutput},
    {"md.per_atom_", TimingSection::kOutput},
    {"md.integrate", TimingSection::kModify},
    {"md.integrate_second", TimingSection::kModify},
    {"md.constraint_", TimingSection::kModify},
    {"md.fix_", TimingSection::kModify},
    {"md.langevin_", TimingSection::kModify},
    {"md.kinetic_", TimingSection::kModify},
    {"md.nvt_sllod", TimingSection::kModify},
    {"md.press_berendsen_dilate", TimingSection::kModify},
    {"md.post_force_sums", TimingSection::kModify},
    {"md.initial_integrate_sums", TimingSection::kModify},
    {"md.final_integrate_sums", TimingSection::kModify},
};

constexpr const char* kLabels[kTimingSections] = {"Pair", "Bond",   "Kspace", "Neigh",
                                                  "Comm", "Output", "Modify"};

std::size_t index(TimingSection s) { return static_cast<std::size_t>(s); }

}  // namespace

std::optional<TimingSection> section_of(std::string_view superstep) {
  for (const Prefix& p : kSections) {
    const bool is_prefix = p.prefix.back() == '_';
    if (is_prefix ? superstep.starts_with(p.prefix) : superstep == p.prefix) return p.section;
  }
  return std::nullopt;
}

SectionSeconds section_seconds(const std::vector<std::pair<std::string, double>>& by_name,
                               const Simulation::ForcePhaseSeconds& force) {
  SectionSeconds out{};
  // A superstep's wall time split in the proportions its tiles measured (summed over threads).
  const auto split = [&](double wall, double total, double neighbor, double bonded) {
    const double neigh = total > 0 ? wall * neighbor / total : 0.0;
    const double bond = total > 0 ? wall * bonded / total : 0.0;
    out[index(TimingSection::kNeigh)] += neigh;
    out[index(TimingSection::kBond)] += bond;
    out[index(TimingSection::kPair)] += wall - neigh - bond;
  };
  for (const auto& [name, seconds] : by_name) {
    if (name == "md.force") {
      split(seconds, force.total, force.neighbor, force.bonded);
    } else if (name == "md.pair_forward") {
      split(seconds, force.forward_total, force.forward_neighbor, 0.0);
    } else if (const auto s = section_of(name)) {
      out[index(*s)] += seconds;
    }
  }
  return out;
}

std::string timing_breakdown(MPI_Comm comm, const SectionSeconds& mine, double loop_seconds,
                             bool bond, bool kspace) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  const auto n = static_cast<int>(kTimingSections);
  SectionSeconds low{}, high{}, sum{}, squares{}, mine_sq{};
  for (std::size_t k = 0; k < kTimingSections; ++k) mine_sq[k] = mine[k] * mine[k];
  double other = loop_seconds;
  for (double t : mine) other -= t;
  double loop_sum = 0, other_sum = 0;
  MPI_Allreduce(mine.data(), low.data(), n, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(mine.data(), high.data(), n, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(mine.data(), sum.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(mine_sq.data(), squares.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&loop_seconds, &loop_sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&other, &other_sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  if (rank != 0) return {};
  const double loop = loop_sum / ranks;
  std::string text =
      "\nMPI task timing breakdown:\nSection |  min time  |  avg time  |  max time  |%varavg| "
      "%total\n---------------------------------------------------------------\n";
  char row[160];
  for (std::size_t k = 0; k < kTimingSections; ++k) {
    if ((k == index(TimingSection::kBond) && !bond) ||
        (k == index(TimingSection::kKspace) && !kspace))
      continue;
    const double avg = sum[k] / ranks, avg_sq = squares[k] / ranks;
    // LAMMPS's measure of load imbalance, as it computes it.
    const double varavg =
        avg > 0.001 && avg_sq / avg - avg > 1e-10 ? std::sqrt(avg_sq / avg - avg) * 100.0 : 0.0;
    std::snprintf(row, sizeof row, "%-8s| %-10.5g | %-10.5g | %-10.5g |%6.1f |%6.2f\n", kLabels[k],
                  low[k], avg, high[k], varavg, loop > 0 ? avg / loop * 100.0 : 0.0);
    text += row;
  }
  std::snprintf(row, sizeof row, "Other   |            | %-10.4g |            |       |%6.2f\n",
                other_sum / ranks, loop > 0 ? other_sum / ranks / loop * 100.0 : 0.0);
  text += row;
  return text;
}

namespace {

// fmt's "{:W.P}" for a double, as LAMMPS prints with it: P significant digits, trailing zeros
// kept (%#g), and a 0 after a bare decimal point ("150362.0", "2000.00", "37.617750"), that 0
// beyond the width (fmt pads before adding it: "Neighs:        150362.0").
std::string fmt_general(double value, int width, int precision) {
  char digits[64];
  std::snprintf(digits, sizeof digits, "%#*.*g", width, precision, value);
  std::string text = digits;
  if (!text.empty() && text.back() == '.') text += '0';
  return text;
}

// LAMMPS's Finish::stats for one value per rank: its average, largest and smallest over the ranks
// and their histogram in 10 bins from the smallest to the largest.
std::string stats_line(MPI_Comm comm, const char* label, double value) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  double sum = 0, low = 0, high = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&value, &low, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(&value, &high, 1, MPI_DOUBLE, MPI_MAX, comm);
  constexpr int bins = 10;
  int mine[bins] = {}, histogram[bins] = {};
  const double span = high - low;
  mine[span == 0 ? 0 : std::min(bins - 1, static_cast<int>((value - low) / span * bins))] = 1;
  MPI_Allreduce(mine, histogram, bins, MPI_INT, MPI_SUM, comm);
  if (rank != 0) return {};
  char row[64];
  std::string text = label;
  text += fmt_general(sum / ranks, 11, 6);
  text += " ave ";
  std::snprintf(row, sizeof row, "%11.6g max %11.6g min\nHistogram:", high, low);
  text += row;
  for (int count : histogram) {
    text += ' ';
    text += std::to_string(count);
  }
  text += '\n';
  return text;
}

}  // namespace

std::string neighbor_statistics(MPI_Comm comm, const NeighborSummary& summary) {
  const Simulation::NeighborCounts& mine = summary.mine;
  std::string text = "\n";
  text += stats_line(comm, "Nlocal:    ", mine.nlocal);
  text += stats_line(comm, "Nghost:    ", mine.nghost);
  // LAMMPS's Neighs counts a half list; a style with a full list shows 0 there and its pairs
  // under FullNghs.
  text += stats_line(comm, "Neighs:    ", summary.full_list ? 0.0 : mine.pairs);
  if (summary.full_list) text += stats_line(comm, "FullNghs:  ", mine.pairs);
  double pairs = 0, specials = 0;
  MPI_Allreduce(&mine.pairs, &pairs, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&mine.specials, &specials, 1, MPI_DOUBLE, MPI_SUM, comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return {};
  char line[96];
  std::snprintf(line, sizeof line, "\nTotal # of neighbors = %.8g\n", pairs);
  text += line;
  const auto natoms = static_cast<double>(summary.natoms);
  const auto add = [&text](const char* label, const std::string& value) {
    text += label;
    text += value;
    text += '\n';
  };
  if (summary.natoms > 0) add("Ave neighs/atom = ", fmt_general(pairs / natoms, 0, 8));
  if (summary.molecular && summary.natoms > 0)
    add("Ave special neighs/atom = ", fmt_general(specials / natoms, 0, 8));
  add("Neighbor list builds = ", std::to_string(summary.builds));
  if (summary.checked)
    add("Dangerous builds = ", std::to_string(summary.dangerous));
  else
    text += "Dangerous builds not checked\n";
  return text;
}

}  // namespace tessera::md
