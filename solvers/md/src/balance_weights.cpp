#include "balance_weights.hpp"

#include <algorithm>

#include "arguments.hpp"

namespace tessera::md {

BalanceSettings parse_balance(const Simulation& sim, const std::vector<std::string>& a,
                              std::size_t k, bool fix, const AtomVariables& variables,
                              const std::string& what) {
  using arguments::bad;
  const auto need = [&](std::size_t n, const std::string& usage) {
    if (k + n > a.size()) bad(what + ": " + usage);
  };
  BalanceSettings s;
  // The style and its arguments.
  const auto dimensions = [&](const std::string& dims) {
    if (dims.empty() || dims.size() > 3) bad(what + ": shift needs x, y, z or a mix such as xy");
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] != 'x' && dims[i] != 'y' && dims[i] != 'z')
        bad(what + ": shift dimensions '" + dims + "' may hold only x, y and z");
      if (dims[i] == 'z' && sim.dimension() == 2)
        bad(what + ": shift z is invalid in a 2-d simulation");
      if (dims.find(dims[i], i + 1) != std::string::npos)
        bad(what + ": shift dimensions '" + dims + "' repeat one");
    }
  };
  need(1, fix ? "needs a style: shift or rcb" : "needs a style: x, y, z, shift or rcb");
  if (a[k] == "shift") {
    need(4, "shift needs DIMS NITER STOPTHRESH");
    dimensions(a[k + 1]);
    arguments::integer(what + " shift NITER", a[k + 2], 1, arguments::int_max);
    if (arguments::number(what + " shift STOPTHRESH", a[k + 3]) < 1.0)
      bad(what + ": shift STOPTHRESH must be at least 1.0");
    k += 4;
  } else if (a[k] == "rcb") {
    s.rcb = true;
    ++k;
  } else if (!fix && (a[k] == "x" || a[k] == "y" || a[k] == "z")) {
    while (k < a.size() && (a[k] == "x" || a[k] == "y" || a[k] == "z")) {
      if (a[k] == "z" && sim.dimension() == 2) bad(what + ": z is invalid in a 2-d simulation");
      need(2, a[k] + " needs uniform or the fractions where the processors split");
      std::size_t j = k + 1;
      if (a[j] == "uniform") {
        ++j;
      } else {
        double previous = 0;
        for (; j < a.size() && a[j] != "x" && a[j] != "y" && a[j] != "z" && a[j] != "weight" &&
               a[j] != "out";
             ++j) {
          const double f = arguments::number(what + " " + a[k], a[j]);
          if (!(f > previous && f < 1.0))
            bad(what + ": the fractions of " + a[k] + " must rise strictly between 0 and 1");
          previous = f;
        }
        if (j == k + 1) bad(what + ": " + a[k] + " needs uniform or fractions");
      }
      k = j;
    }
  } else {
    bad(what + ": unknown style '" + a[k] +
        (fix ? "'; use shift or rcb" : "'; use x, y, z, shift or rcb"));
  }
  // The keywords.
  while (k < a.size()) {
    if (a[k] == "out")
      bad(what +
          ": out is not supported: md_ipu's tile grid is fixed by the target, so there "
          "are no moved boundaries to write");
    if (a[k] != "weight") bad(what + ": unknown keyword '" + a[k] + "'; use weight or out");
    need(2, "weight needs group, neigh, time, var or store");
    const std::string& style = a[k + 1];
    k += 2;
    if (style == "group") {
      need(1, "weight group needs N and N pairs of GROUP FACTOR");
      const auto n =
          static_cast<std::size_t>(arguments::integer(what + " weight group N", a[k], 1, 32));
      need(1 + 2 * n, "weight group needs " + std::to_string(n) + " pairs of GROUP FACTOR");
      for (std::size_t g = 0; g < n; ++g) {
        const std::string& group = a[k + 1 + 2 * g];
        const int bit = sim.group_bit(group);
        if (bit < 0) bad(what + ": weight group: there is no group " + group);
        const double factor = arguments::number(what + " weight group " + group, a[k + 2 + 2 * g]);
        if (!(factor > 0)) bad(what + ": weight group " + group + ": the factor must be positive");
        s.group_factors.emplace_back(1u << bit, factor);
      }
      k += 1 + 2 * n;
    } else if (style == "neigh" || style == "time") {
      need(1, "weight " + style + " needs a factor");
      const double factor = arguments::number(what + " weight " + style, a[k]);
      if (!(factor > 0 && factor <= 1.0))
        bad(what + ": weight " + style + ": the factor must be in (0, 1]");
      s.measured = true;
      ++k;
    } else if (style == "var") {
      need(1, "weight var needs an atom-style variable's name");
      variables.check(a[k], what + " weight var");
      s.variable = a[k];
      ++k;
    } else if (style == "store") {
      need(1, "weight store needs a d_NAME property's name");
      s.store = sim.custom_reference("d_" + a[k], what + " weight store");
      ++k;
    } else {
      bad(what + ": unknown weight style '" + style + "'; use group, neigh, time, var or store");
    }
  }
  return s;
}

TileLoads balance_loads(Simulation& sim, const BalanceSettings& s, const AtomVariables& variables,
                        const std::string& what) {
  AtomValues variable;
  if (!s.variable.empty()) variable = variables.bind(s.variable);
  const auto weigh = [&](const AtomsView& atoms, std::span<double> out) {
    if (variable)
      variable(atoms, out);
    else
      std::fill(out.begin(), out.end(), 1.0);
    for (std::size_t i = 0; i < out.size(); ++i)
      for (const auto& [mask, factor] : s.group_factors)
        if (atoms.mask[i] & mask) out[i] *= factor;
  };
  // Each tile's load and its count of weights that are not positive; then the weights stored
  // (after: the variable may read the stored ones).
  const std::vector<double> tiles =
      sim.gather_atoms("md.balance_loads", 2, [&](const AtomsView& atoms, std::span<double> out) {
        std::vector<double> w(atoms.id.size());
        weigh(atoms, w);
        for (const double x : w) {
          out[0] += x;
          if (!(x > 0)) out[1] += 1;
        }
      });
  if (s.store) sim.store_per_atom("md.balance_store", sim.custom_column(*s.store, what), weigh);
  TileLoads loads;
  double total = 0;
  for (std::size_t t = 0; t < tiles.size(); t += 2) {
    if (tiles[t + 1] > 0) throw ConfigError(what + ": an atom's balance weight is not positive");
    loads.largest = std::max(loads.largest, tiles[t]);
    total += tiles[t];
  }
  const double mean = total / static_cast<double>(tiles.size() / 2);
  loads.imbalance = mean > 0 ? loads.largest / mean : 1.0;
  return loads;
}

}  // namespace tessera::md
