#include "tessera/md/compute_vacf.hpp"

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeVACF::ComputeVACF(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " vacf";
  if (!a.args.empty()) arguments::bad(what + " takes no arguments, got '" + a.args[0] + "'");
  Simulation& sim = *a.sim;
  if (!sim.has_box()) arguments::bad(what + ": the simulation box is not defined yet");
  const int bit = sim.group_bit(a.group);
  if (bit < 0) arguments::bad(what + ": there is no group " + a.group + "; define it with group");
  set_group_bit(bit);
  handle_ = sim.add_per_atom(3);
  const std::size_t at = sim.per_atom_offset(handle_);
  const std::uint32_t mask = group_mask();
  sim.for_each_tile("md.compute_vacf_reference", [&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i) {
      double* v0 = &t.per_atom[t.per_atom_width * i + at];
      for (std::size_t d = 0; d < 3; ++d) v0[d] = (t.mask[i] & mask) ? t.v[3 * i + d] : 0.0;
    }
  });
}

void ComputeVACF::release(Simulation& sim) { sim.remove_per_atom(handle_); }

// LAMMPS's ComputeVACF::compute_vector.
std::vector<double> ComputeVACF::vector(Simulation& sim) {
  const std::size_t at = sim.per_atom_offset(handle_);
  auto vacf = sim.reduce_atoms(
      "md.compute_vacf", ReduceOp::sum, 5, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (!in_group(a, i)) continue;
          const double* v0 = &a.per_atom[a.per_atom_width * i + at];
          const double* v = &a.v[3 * i];
          const double x = v[0] * v0[0], y = v[1] * v0[1], z = v[2] * v0[2];
          out[0] += x, out[1] += y, out[2] += z;
          out[3] += x + y + z;
          out[4] += 1;
        }
      });
  const double n = vacf[4];
  vacf.resize(4);
  if (n > 0)
    for (auto& v : vacf) v /= n;
  return vacf;
}

}  // namespace tessera::md
