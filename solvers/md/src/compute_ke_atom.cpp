#include "tessera/md/compute_ke_atom.hpp"

namespace tessera::md {

ComputeKEAtom::ComputeKEAtom(const ComputeArguments& a) : Compute(a.id, a.group) {
  if (!a.args.empty())
    throw ConfigError("compute " + a.id + " ke/atom takes no arguments, got '" + a.args[0] + "'");
}

void ComputeKEAtom::peratom(const AtomsView& a, std::span<double> out) const {
  const double half_mvv2e = 0.5 * a.units->mvv2e;
  for (std::size_t i = 0; i < a.id.size(); ++i) {
    const double* v = &a.v[3 * i];
    out[i] = in_group(a, i) ? half_mvv2e * a.mass[static_cast<std::size_t>(a.type[i])] *
                                  (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
                            : 0.0;
  }
}

}  // namespace tessera::md
