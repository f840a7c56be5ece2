#include "tessera/md/compute_rdf.hpp"

#include <cmath>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeRDF::ComputeRDF(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " rdf";
  if (a.args.empty())
    throw ConfigError(what + ": usage: compute ID all rdf NBIN [I J ...] [cutoff RC]");
  if (a.group != "all")
    throw ConfigError(what + ": md_ipu computes g(r) over the group all only, not " + a.group);
  bins_ = static_cast<int>(arguments::integer(what + " NBIN", a.args[0], 1, arguments::int_max));
  std::size_t end = a.args.size();
  for (std::size_t k = 1; k < a.args.size(); ++k)
    if (a.args[k] == "cutoff") {
      if (k + 2 != a.args.size()) throw ConfigError(what + ": cutoff RC comes last");
      cutoff_ = arguments::number(what + " cutoff", a.args[k + 1]);
      if (cutoff_ < 0) cutoff_ = 0;  // as LAMMPS: not positive means the pair style's
      end = k;
      break;
    }
  const int types = a.sim ? a.sim->types() : 1;
  if ((end - 1) % 2 != 0) throw ConfigError(what + ": type sets come in pairs, I J");
  if (end == 1) pairs_.push_back({1, types, 1, types});
  for (std::size_t k = 1; k + 1 < end; k += 2) {
    const auto [ilo, ihi] = arguments::type_range(what, a.args[k], types);
    const auto [jlo, jhi] = arguments::type_range(what, a.args[k + 1], types);
    pairs_.push_back({ilo, ihi, jlo, jhi});
  }
}

// LAMMPS's ComputeRDF::compute_array and init_norm.
std::vector<double> ComputeRDF::array(Simulation& sim) {
  const std::string what = "compute " + id() + " rdf";
  const double force_cutoff = sim.force_cutoff();
  if (force_cutoff <= 0)
    throw ConfigError(what + ": g(r) needs the neighbor lists of a run; evaluate it during or " +
                      "after one");
  if (cutoff_ > force_cutoff && force_cutoff > 0)
    throw ConfigError(what + ": cutoff " + std::to_string(cutoff_) + " exceeds the pair cutoff " +
                      std::to_string(force_cutoff) +
                      "; md_ipu counts pairs from the force's neighbor lists");
  const int types = sim.types();
  const std::size_t npairs = pairs_.size(), nbin = static_cast<std::size_t>(bins_);
  // Which histograms a pair of types counts in.
  std::vector<std::vector<std::size_t>> histograms(
      static_cast<std::size_t>((types + 1) * (types + 1)));
  for (std::size_t m = 0; m < npairs; ++m)
    for (int i = pairs_[m].ilo; i <= pairs_[m].ihi; ++i)
      for (int j = pairs_[m].jlo; j <= pairs_[m].jhi; ++j)
        histograms[static_cast<std::size_t>(i * (types + 1) + j)].push_back(m);
  // Counts of each type first (for the normalisation), then the histograms.
  const std::size_t ntypes = static_cast<std::size_t>(types) + 1;
  const double delr_cutoff = cutoff_ > 0 ? cutoff_ : force_cutoff;
  const double delr = delr_cutoff / bins_, inverse = 1.0 / delr;
  const auto counts = sim.reduce_atoms("md.compute_rdf_types", ReduceOp::sum, ntypes,
                                       [&](const AtomsView& a, std::span<double> out) {
                                         for (std::size_t i = 0; i < a.id.size(); ++i)
                                           out[static_cast<std::size_t>(a.type[i])] += 1;
                                       });
  const auto hist = sim.reduce_pairs(
      "md.compute_rdf", npairs * nbin, [&](const Simulation::PairsView& p, std::span<double> out) {
        auto tally = [&](int ti, int tj, std::size_t bin) {
          for (std::size_t m : histograms[static_cast<std::size_t>(ti * (types + 1) + tj)])
            out[m * nbin + bin] += 1.0;
        };
        const auto pair = [&](std::size_t i, std::size_t j) {
          const double dx = p.x[3 * i] - p.x[3 * j], dy = p.x[3 * i + 1] - p.x[3 * j + 1],
                       dz = p.x[3 * i + 2] - p.x[3 * j + 2];
          const auto bin =
              static_cast<std::size_t>(std::sqrt(dx * dx + dy * dy + dz * dz) * inverse);
          if (bin >= nbin) return;
          tally(p.type[i], p.type[j], bin);
          if (!p.full) tally(p.type[j], p.type[i], bin);
        };
        // Special pairs count unless both their weights are 0 (LAMMPS's ComputeRDF).
        for (std::size_t i = 0; i < static_cast<std::size_t>(p.nlocal); ++i)
          p.for_each_neighbor(i, /*skip_zero_weights=*/true, [&](std::size_t j) { pair(i, j); });
      });
  const Box& box = sim.box();
  const bool three = sim.dimension() == 3;
  const double constant = three ? 4.0 * M_PI / (3.0 * box.length(0) * box.length(1) * box.length(2))
                                : M_PI / (box.length(0) * box.length(1));
  const std::size_t columns = array_columns();
  std::vector<double> out(nbin * columns, 0.0);
  for (std::size_t b = 0; b < nbin; ++b) out[b * columns] = (static_cast<double>(b) + 0.5) * delr;
  for (std::size_t m = 0; m < npairs; ++m) {
    double icount = 0, jcount = 0, duplicates = 0;
    for (int i = pairs_[m].ilo; i <= pairs_[m].ihi; ++i)
      icount += counts[static_cast<std::size_t>(i)];
    for (int j = pairs_[m].jlo; j <= pairs_[m].jhi; ++j)
      jcount += counts[static_cast<std::size_t>(j)];
    for (int i = pairs_[m].ilo; i <= pairs_[m].ihi; ++i)
      for (int j = pairs_[m].jlo; j <= pairs_[m].jhi; ++j)
        if (i == j) duplicates += counts[static_cast<std::size_t>(i)];
    const double normfac = icount > 0 ? jcount - duplicates / icount : 0.0;
    double ncoord = 0.0;
    for (std::size_t b = 0; b < nbin; ++b) {
      const double rlower = static_cast<double>(b) * delr,
                   rupper = static_cast<double>(b + 1) * delr;
      const double vfrac = three ? constant * (rupper * rupper * rupper - rlower * rlower * rlower)
                                 : constant * (rupper * rupper - rlower * rlower);
      const double gr =
          vfrac * normfac != 0.0 ? hist[m * nbin + b] / (vfrac * normfac * icount) : 0.0;
      if (icount != 0) ncoord += gr * vfrac * normfac;
      out[b * columns + 1 + 2 * m] = gr;
      out[b * columns + 2 + 2 * m] = ncoord;
    }
  }
  return out;
}

}  // namespace tessera::md
