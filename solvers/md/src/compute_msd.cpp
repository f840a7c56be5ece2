#include "tessera/md/compute_msd.hpp"

#include "arguments.hpp"
#include "tessera/md/compute_com.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeMSD::ComputeMSD(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " msd";
  for (std::size_t i = 0; i < a.args.size(); i += 2) {
    if (i + 1 >= a.args.size()) arguments::bad(what + ": keyword " + a.args[i] + " needs a value");
    if (a.args[i] == "com")
      com_ = arguments::yes_no(what + " com", a.args[i + 1]);
    else if (a.args[i] == "average") {
      if (arguments::yes_no(what + " average", a.args[i + 1]))
        arguments::bad(what + ": average yes is not supported");
    } else
      arguments::bad(what + ": unknown keyword '" + a.args[i] + "'; use com or average");
  }
  Simulation& sim = *a.sim;
  if (!sim.has_box()) arguments::bad(what + ": the simulation box is not defined yet");
  const int bit = sim.group_bit(a.group);
  if (bit < 0) arguments::bad(what + ": there is no group " + a.group + "; define it with group");
  set_group_bit(bit);
  // The reference: each atom's unwrapped position now (less the group's centre with com yes).
  const auto cm = center(sim);
  handle_ = sim.add_per_atom(3);
  const std::size_t at = sim.per_atom_offset(handle_);
  const Box box = sim.box();
  const std::uint32_t mask = group_mask();
  sim.for_each_tile("md.compute_msd_reference", [&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      if (!(t.mask[i] & mask)) continue;
      double* x0 = &t.per_atom[t.per_atom_width * i + at];
      for (std::size_t d = 0; d < 3; ++d)
        x0[d] = box.unwrapped(&t.x[3 * i], &t.image[3 * i], d) - cm[d];
    }
  });
}

void ComputeMSD::release(Simulation& sim) { sim.remove_per_atom(handle_); }

std::array<double, 3> ComputeMSD::center(Simulation& sim) const {
  if (!com_) return {0, 0, 0};
  return center_of_mass(sim, group_mask()).value_or(std::array<double, 3>{0, 0, 0});
}

std::vector<double> ComputeMSD::vector(Simulation& sim) {
  const auto cm = center(sim);
  const std::size_t at = sim.per_atom_offset(handle_);
  auto msd = sim.reduce_atoms("md.compute_msd", ReduceOp::sum, 5,
                              [&](const AtomsView& a, std::span<double> out) {
                                for (std::size_t i = 0; i < a.id.size(); ++i) {
                                  if (!in_group(a, i)) continue;
                                  const double* x0 = &a.per_atom[a.per_atom_width * i + at];
                                  const double dx = a.unwrapped(i, 0) - cm[0] - x0[0];
                                  const double dy = a.unwrapped(i, 1) - cm[1] - x0[1];
                                  const double dz = a.unwrapped(i, 2) - cm[2] - x0[2];
                                  out[0] += dx * dx, out[1] += dy * dy, out[2] += dz * dz;
                                  out[3] += dx * dx + dy * dy + dz * dz;
                                  out[4] += 1;
                                }
                              });
  const double n = msd[4];
  msd.resize(4);
  if (n > 0)
    for (auto& v : msd) v /= n;
  return msd;
}

}  // namespace tessera::md
