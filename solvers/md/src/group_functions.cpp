#include "group_functions.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "arguments.hpp"

namespace tessera::md {
namespace {

const std::array<const char*, 9> supported{"count", "mass",  "charge",   "xcm", "vcm",
                                           "fcm",   "bound", "gyration", "ke"};
const std::array<const char*, 4> refused{"angmom", "torque", "inertia", "omega"};

// The arguments of "name(a, b, ...)", blanks removed.
std::vector<std::string> call_arguments(const std::string& call, std::size_t open) {
  std::vector<std::string> args;
  std::string arg;
  for (char c : call.substr(open + 1, call.size() - open - 2)) {
    if (c == ',') {
      args.push_back(arg);
      arg.clear();
    } else if (c != ' ' && c != '\t') {
      arg += c;
    }
  }
  args.push_back(arg);
  return args;
}

}  // namespace

bool is_mask_function(const std::string& name) {
  return name == "gmask" || name == "rmask" || name == "grmask";
}

std::optional<AtomValues> mask_function(
    Simulation& sim, const std::string& call, const std::string& where,
    const std::function<const Region&(const std::string& id)>& find_region) {
  const auto open = call.find('(');
  if (open == std::string::npos || call.back() != ')') return std::nullopt;
  const std::string name = call.substr(0, open);
  if (!is_mask_function(name)) return std::nullopt;
  const std::string what = where + ": " + call;
  const auto args = call_arguments(call, open);
  const std::size_t wanted = name == "grmask" ? 2 : 1;
  if (args.size() != wanted)
    arguments::bad(what + ": " + name + "() takes " +
                   (name == "gmask" ? "a group" : name == "rmask" ? "a region" : "a group and a region"));
  std::uint32_t mask = 0;
  if (name != "rmask") {
    const int bit = sim.group_bit(args[0]);
    if (bit < 0) arguments::bad(what + ": there is no group " + args[0]);
    mask = 1u << bit;
  }
  const Region* region = name != "gmask" ? &find_region(args.back()) : nullptr;
  return AtomValues([mask, region](const AtomsView& a, std::span<double> out) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      const bool in_group = mask == 0 || (a.mask[i] & mask) != 0;
      const bool in_region =
          !region || region->matches({a.x[3 * i], a.x[3 * i + 1], a.x[3 * i + 2]});
      out[i] = in_group && in_region ? 1.0 : 0.0;
    }
  });
}

bool is_group_function(const std::string& name) {
  for (const char* f : supported)
    if (name == f) return true;
  for (const char* f : refused)
    if (name == f) return true;
  return false;
}

std::optional<double> group_function(
    Simulation& sim, const std::string& call, const std::string& where,
    const std::function<const Region&(const std::string& id)>& find_region) {
  const auto open = call.find('(');
  if (open == std::string::npos || call.back() != ')') return std::nullopt;
  const std::string name = call.substr(0, open);
  if (!is_group_function(name)) return std::nullopt;
  const std::string what = where + ": " + call;
  for (const char* f : refused)
    if (name == f)
      arguments::bad(what + ": the group function " + name +
                     "() is not supported (md_ipu's atoms are not rigid bodies)");
  if (name == "charge" && !sim.charged())
    arguments::bad(what + ": the atoms carry no charges; use atom_style charge");
  const auto args = call_arguments(call, open);
  const bool directed = name == "xcm" || name == "vcm" || name == "fcm" || name == "bound";
  const std::size_t wanted = directed ? 2 : 1;
  if (args.size() != wanted && args.size() != wanted + 1)
    arguments::bad(what + ": " + name + "() takes " + (directed ? "a group, a " : "a group") +
                   (name == "bound" ? "direction"
                    : directed      ? "dimension"
                                    : "") +
                   " and optionally a region");
  const int bit = sim.group_bit(args[0]);
  if (bit < 0) arguments::bad(what + ": there is no group " + args[0]);
  const std::uint32_t mask = 1u << bit;
  const Region* region = args.size() > wanted ? &find_region(args.back()) : nullptr;
  std::size_t dim = 0;
  bool upper = false;
  if (name == "bound") {
    const std::string& e = args[1];
    if (e.size() != 4 || (e[0] != 'x' && e[0] != 'y' && e[0] != 'z') ||
        (e.substr(1) != "min" && e.substr(1) != "max"))
      arguments::bad(what + ": the direction must be xmin, xmax, ymin, ymax, zmin or zmax, not '" +
                     e + "'");
    dim = static_cast<std::size_t>(e[0] - 'x');
    upper = e.substr(1) == "max";
  } else if (directed) {
    dim = arguments::axis(what + ": the dimension", args[1]);
  }
  const auto counted = [&](const AtomsView& a, std::size_t i) {
    return (a.mask[i] & mask) != 0 &&
           (!region || region->matches({a.x[3 * i], a.x[3 * i + 1], a.x[3 * i + 2]}));
  };
  const auto mass_of = [](const AtomsView& a, std::size_t i) {
    return a.mass[static_cast<std::size_t>(a.type[i])];
  };
  if (name == "bound") {
    const double big = std::numeric_limits<double>::infinity();
    const auto found = sim.reduce_atoms("md.group_bound", upper ? ReduceOp::max : ReduceOp::min, 1,
                                        [&](const AtomsView& a, std::span<double> out) {
                                          out[0] = upper ? -big : big;
                                          for (std::size_t i = 0; i < a.id.size(); ++i)
                                            if (counted(a, i))
                                              out[0] = upper ? std::max(out[0], a.x[3 * i + dim])
                                                             : std::min(out[0], a.x[3 * i + dim]);
                                        });
    if (std::isinf(found[0])) arguments::bad(what + ": the group has no atoms to bound");
    return found[0];
  }
  // count, mass, sum m x_unwrapped (3), sum m v (3), sum f (3), sum m v^2, sum q.
  const auto sums = sim.reduce_atoms("md.group_function", ReduceOp::sum, 13,
                                     [&](const AtomsView& a, std::span<double> out) {
                                       for (std::size_t i = 0; i < a.id.size(); ++i) {
                                         if (!counted(a, i)) continue;
                                         const double m = mass_of(a, i);
                                         out[0] += 1;
                                         out[1] += m;
                                         if (!a.q.empty()) out[12] += a.q[i];
                                         for (std::size_t d = 0; d < 3; ++d) {
                                           out[2 + d] += m * a.unwrapped(i, d);
                                           out[5 + d] += m * a.v[3 * i + d];
                                           if (3 * i + d < a.f.size()) out[8 + d] += a.f[3 * i + d];
                                           out[11] += m * a.v[3 * i + d] * a.v[3 * i + d];
                                         }
                                       }
                                     });
  const double total_mass = sums[1];
  if (name == "count") return sums[0];
  if (name == "mass") return total_mass;
  if (name == "charge") return sums[12];
  if (name == "xcm") return total_mass > 0 ? sums[2 + dim] / total_mass : 0.0;
  if (name == "vcm") return total_mass > 0 ? sums[5 + dim] / total_mass : 0.0;
  if (name == "fcm") return sums[8 + dim];
  if (name == "ke") return 0.5 * sim.units().mvv2e * sums[11];
  // gyration: a second pass about the centre of mass.
  if (total_mass <= 0) return 0.0;
  const std::array<double, 3> cm{sums[2] / total_mass, sums[3] / total_mass, sums[4] / total_mass};
  const auto moment = sim.reduce_atoms("md.group_gyration", ReduceOp::sum, 1,
                                       [&](const AtomsView& a, std::span<double> out) {
                                         for (std::size_t i = 0; i < a.id.size(); ++i) {
                                           if (!counted(a, i)) continue;
                                           double r2 = 0;
                                           for (std::size_t d = 0; d < 3; ++d) {
                                             const double dx = a.unwrapped(i, d) - cm[d];
                                             r2 += dx * dx;
                                           }
                                           out[0] += mass_of(a, i) * r2;
                                         }
                                       });
  return std::sqrt(moment[0] / total_mass);
}

}  // namespace tessera::md
