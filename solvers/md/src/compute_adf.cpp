#include "tessera/md/compute_adf.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeADF::ComputeADF(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " adf";
  if (a.args.empty())
    throw ConfigError(what + ": usage: compute ID all adf NBIN [I J K RINNERJ ROUTERJ RINNERK " +
                      "ROUTERK ...] [ordinate degree|radian|cosine]");
  if (a.group != "all")
    throw ConfigError(what + ": md_ipu computes angles over the group all only, not " + a.group);
  bins_ = static_cast<int>(arguments::integer(what + " NBIN", a.args[0], 1, arguments::int_max));
  std::size_t end = a.args.size();
  for (std::size_t k = 1; k < a.args.size(); ++k)
    if (a.args[k] == "ordinate") {
      if (k + 2 != a.args.size())
        throw ConfigError(what + ": ordinate degree|radian|cosine comes last");
      const std::string& o = a.args[k + 1];
      if (o == "degree")
        ordinate_ = Ordinate::degree;
      else if (o == "radian")
        ordinate_ = Ordinate::radian;
      else if (o == "cosine")
        ordinate_ = Ordinate::cosine;
      else
        throw ConfigError(what + ": ordinate is degree, radian or cosine, not " + o);
      end = k;
      break;
    }
  const int types = a.sim ? a.sim->types() : 1;
  if ((end - 1) % 7 != 0)
    throw ConfigError(what + ": triples come as I J K RINNERJ ROUTERJ RINNERK ROUTERK");
  cutoffs_given_ = end > 1;
  if (!cutoffs_given_) triples_.push_back({1, types, 1, types, 1, types});
  for (std::size_t k = 1; k + 6 < end; k += 7) {
    Triple t{};
    std::tie(t.ilo, t.ihi) = arguments::type_range(what, a.args[k], types);
    std::tie(t.jlo, t.jhi) = arguments::type_range(what, a.args[k + 1], types);
    std::tie(t.klo, t.khi) = arguments::type_range(what, a.args[k + 2], types);
    t.inner_j = arguments::number(what + " RINNERJ", a.args[k + 3]);
    t.outer_j = arguments::number(what + " ROUTERJ", a.args[k + 4]);
    t.inner_k = arguments::number(what + " RINNERK", a.args[k + 5]);
    t.outer_k = arguments::number(what + " ROUTERK", a.args[k + 6]);
    if (t.inner_j < 0 || t.inner_j >= t.outer_j || t.inner_k < 0 || t.inner_k >= t.outer_k)
      throw ConfigError(what + ": each inner cutoff must be at least 0 and below its outer one, " +
                        "not " + a.args[k + 3] + " " + a.args[k + 4] + " " + a.args[k + 5] + " " +
                        a.args[k + 6]);
    triples_.push_back(t);
  }
}

// LAMMPS's ComputeADF::init and compute_array.
std::vector<double> ComputeADF::array(Simulation& sim) {
  const std::string what = "compute " + id() + " adf";
  const double force_cutoff = sim.force_cutoff();
  if (force_cutoff <= 0)
    throw ConfigError(what + ": angles need the neighbor lists of a run; evaluate it during or " +
                      "after one");
  std::vector<Triple> triples = triples_;
  if (!cutoffs_given_) triples[0].outer_j = triples[0].outer_k = force_cutoff;
  double outer = 0;
  for (const Triple& t : triples) outer = std::max({outer, t.outer_j, t.outer_k});
  for (const Triple& t : triples)
    if (std::max(t.outer_j, t.outer_k) > force_cutoff)
      throw ConfigError(what + ": outer cutoff " + std::to_string(std::max(t.outer_j, t.outer_k)) +
                        " exceeds the pair cutoff " + std::to_string(force_cutoff) +
                        ", beyond which the ghost atoms may not reach");
  const std::size_t ntriples = triples.size(), nbin = static_cast<std::size_t>(bins_);
  // The ordinate's bin width and origin (LAMMPS keeps the origin as an int: 0 or -1).
  double deltax = 0, deltaxinv = 0, x0 = 0;
  if (ordinate_ == Ordinate::cosine) {
    deltax = 2.0 / bins_, deltaxinv = 1.0 / deltax, x0 = -1.0;
  } else {
    deltax = ordinate_ == Ordinate::degree ? M_PI / bins_ * (180.0 / M_PI) : M_PI / bins_;
    deltaxinv = bins_ / M_PI;
  }
  // Which triples a type takes part in as I, J and K.
  const auto ntypes = static_cast<std::size_t>(sim.types()) + 1;
  std::vector<char> as_i(ntriples * ntypes), as_j(ntriples * ntypes), as_k(ntriples * ntypes);
  for (std::size_t m = 0; m < ntriples; ++m)
    for (std::size_t type = 1; type < ntypes; ++type) {
      const auto within = [&](int lo, int hi) {
        return static_cast<char>(static_cast<int>(type) >= lo && static_cast<int>(type) <= hi);
      };
      as_i[m * ntypes + type] = within(triples[m].ilo, triples[m].ihi);
      as_j[m * ntypes + type] = within(triples[m].jlo, triples[m].jhi);
      as_k[m * ntypes + type] = within(triples[m].klo, triples[m].khi);
    }
  // Each tile's histograms (ntriples x nbin) and then its central atoms per triple.
  const std::uint32_t groupbit = group_mask();
  const auto counts = sim.reduce_pairs(
      "md.compute_adf", ntriples * (nbin + 1),
      [&](const Simulation::PairsView& p, std::span<double> out) {
        // Per triple, the neighbors of atom i that are a J or a K: I-to-neighbor vector, 1/r,
        // and whether it is both; and which of them are J's and K's.
        struct Neighbor {
          double d[3], rinv;
          bool both;
        };
        std::vector<std::vector<Neighbor>> near(ntriples);
        std::vector<std::vector<std::size_t>> js(ntriples), ks(ntriples);
        const std::span<double> iatoms = out.subspan(ntriples * nbin);
        for (std::size_t i = 0; i < static_cast<std::size_t>(p.nlocal); ++i) {
          if (!(p.mask[i] & groupbit)) continue;
          const auto itype = static_cast<std::size_t>(p.type[i]);
          for (std::size_t m = 0; m < ntriples; ++m) {
            if (as_i[m * ntypes + itype]) iatoms[m] += 1;
            near[m].clear(), js[m].clear(), ks[m].clear();
          }
          const auto neighbor = [&](std::size_t j) {
            const double dx = p.x[3 * i] - p.x[3 * j], dy = p.x[3 * i + 1] - p.x[3 * j + 1],
                         dz = p.x[3 * i + 2] - p.x[3 * j + 2];
            const double rsq = dx * dx + dy * dy + dz * dz;
            const auto jtype = static_cast<std::size_t>(p.type[j]);
            for (std::size_t m = 0; m < ntriples; ++m) {
              if (!as_i[m * ntypes + itype]) continue;
              const Triple& t = triples[m];
              const bool is_j = as_j[m * ntypes + jtype] && rsq >= t.inner_j * t.inner_j &&
                                rsq <= t.outer_j * t.outer_j;
              const bool is_k = as_k[m * ntypes + jtype] && rsq >= t.inner_k * t.inner_k &&
                                rsq <= t.outer_k * t.outer_k;
              if (!is_j && !is_k) continue;
              if (is_j) js[m].push_back(near[m].size());
              if (is_k) ks[m].push_back(near[m].size());
              near[m].push_back({{dx, dy, dz}, 1.0 / std::sqrt(rsq), is_j && is_k});
            }
          };
          // Special pairs count unless both their weights are 0 (LAMMPS's ComputeADF).
          p.for_each_neighbor(i, /*skip_zero_weights=*/true, neighbor);
          // Each (J, K) pair once: a neighbor that is both a J and a K pairs with another such
          // in one order only.
          for (std::size_t m = 0; m < ntriples; ++m)
            for (const std::size_t a : js[m]) {
              const Neighbor& n1 = near[m][a];
              for (const std::size_t b : ks[m]) {
                const Neighbor& n2 = near[m][b];
                if (a == b || (a > b && n1.both && n2.both)) continue;
                double cs = (n1.d[0] * n2.d[0] + n1.d[1] * n2.d[1] + n1.d[2] * n2.d[2]) *
                            (n1.rinv * n2.rinv);
                int bin = 0;
                if (ordinate_ == Ordinate::cosine) {
                  bin = static_cast<int>((cs + 1.0) * deltaxinv);
                } else {
                  cs = std::clamp(cs, -1.0, 1.0);
                  bin = static_cast<int>(std::acos(cs) * deltaxinv);
                }
                if (bin < 0 || bin >= bins_) continue;
                out[m * nbin + static_cast<std::size_t>(bin)] += 1.0;
              }
            }
        }
      },
      outer);
  const std::size_t columns = array_columns();
  std::vector<double> out(nbin * columns, 0.0);
  for (std::size_t b = 0; b < nbin; ++b)
    out[b * columns] = x0 + (static_cast<double>(b) + 0.5) * deltax;
  for (std::size_t m = 0; m < ntriples; ++m) {
    double total = 0;
    for (std::size_t b = 0; b < nbin; ++b) total += counts[m * nbin + b];
    const double central = counts[ntriples * nbin + m];
    const double normfac1 = total > 0 ? 1.0 / deltax / total : 0.0;
    const double normfac2 = central > 0 ? 1.0 / central : 0.0;
    double cumulative = 0;
    for (std::size_t b = 0; b < nbin; ++b) {
      const double h = counts[m * nbin + b];
      cumulative += h * normfac2;
      out[b * columns + 1 + 2 * m] = h * normfac1;
      out[b * columns + 2 + 2 * m] = cumulative;
    }
  }
  return out;
}

}  // namespace tessera::md
