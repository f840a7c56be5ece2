#include "tessera/md/compute_heat_flux.hpp"

#include "tessera/core/error.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

namespace {
// The per-atom compute `id` of `style` that heat/flux reads (ConfigError otherwise).
Compute& source(Simulation* sim, const std::string& what, const std::string& id,
                const std::string& style) {
  Compute* c = sim ? sim->find_compute(id) : nullptr;
  if (!c) throw ConfigError(what + ": there is no compute " + id);
  if (c->style() != style)
    throw ConfigError(what + ": compute " + id + " is " + c->style() + ", not " + style);
  return *c;
}
}  // namespace

ComputeHeatFlux::ComputeHeatFlux(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " heat/flux";
  if (a.args.size() != 3)
    throw ConfigError(what + ": usage: compute ID GROUP heat/flux KE-ID PE-ID STRESS-ID");
  source(a.sim, what, a.args[0], "ke/atom");
  source(a.sim, what, a.args[1], "pe/atom");
  source(a.sim, what, a.args[2], "stress/atom");
  ke_ = a.args[0], pe_ = a.args[1], stress_ = a.args[2];
}

std::vector<double> ComputeHeatFlux::vector(Simulation& sim) {
  const std::string what = "compute " + id() + " heat/flux";
  Compute& ke = source(&sim, what, ke_, "ke/atom");
  Compute& pe = source(&sim, what, pe_, "pe/atom");
  Compute& stress = source(&sim, what, stress_, "stress/atom");
  ke.prepare_peratom(sim);
  pe.prepare_peratom(sim);
  stress.prepare_peratom(sim);
  const double nktv2p = sim.units().nktv2p;
  auto j = sim.reduce_atoms(
      "md.compute_heat_flux", ReduceOp::sum, 6, [&](const AtomsView& a, std::span<double> out) {
        const std::size_t n = a.id.size();
        std::vector<double> e_ke(n), e_pe(n), s(6 * n);
        ke.peratom(a, e_ke);
        pe.peratom(a, e_pe);
        stress.peratom(a, s);
        double jc[3] = {0, 0, 0}, jv[3] = {0, 0, 0};
        for (std::size_t i = 0; i < n; ++i) {
          if (!in_group(a, i)) continue;
          const double* v = &a.v[3 * i];
          const double* si = &s[6 * i];
          const double e = e_pe[i] + e_ke[i];
          for (std::size_t d = 0; d < 3; ++d) jc[d] += e * v[d];
          jv[0] -= si[0] * v[0] + si[3] * v[1] + si[4] * v[2];
          jv[1] -= si[3] * v[0] + si[1] * v[1] + si[5] * v[2];
          jv[2] -= si[4] * v[0] + si[5] * v[1] + si[2] * v[2];
        }
        for (std::size_t d = 0; d < 3; ++d) {
          out[d] = jc[d] + jv[d] / nktv2p;
          out[3 + d] = jc[d];
        }
      });
  return j;
}

}  // namespace tessera::md
