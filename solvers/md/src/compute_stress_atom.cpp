#include "tessera/md/compute_stress_atom.hpp"

#include "tessera/core/error.hpp"
#include "tessera/md/compute_pe_atom.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

namespace {
Compute& temperature_compute(Simulation* sim, const std::string& what, const std::string& id) {
  Compute* t = sim ? sim->find_compute(id) : nullptr;
  if (!t) throw ConfigError(what + ": there is no compute " + id + " to take the bias from");
  if (!t->is_temperature())
    throw ConfigError(what + ": compute " + id + " (" + t->style() +
                      ") does not compute a temperature");
  if (t->removes_atom_bias())
    throw ConfigError(what + ": compute " + id + " (" + t->style() +
                      ") removes a bias that differs from atom to atom, which md_ipu's "
                      "stress/atom does not take off; use NULL, temp or temp/partial");
  return *t;
}
}  // namespace

ComputeStressAtom::ComputeStressAtom(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " stress/atom";
  if (a.args.empty())
    throw ConfigError(what + ": give the temperature compute's ID (or NULL) after stress/atom");
  if (a.args[0] != "NULL") {
    temperature_compute(a.sim, what, a.args[0]);
    temperature_ = a.args[0];
  }
  const VirialTerms terms = virial_terms(what, a.args, 1);
  ke_ = terms.ke, pair_ = terms.pair, fix_ = terms.fix, terms_ = terms;
}

void ComputeStressAtom::prepare_peratom(Simulation& sim) {
  const std::string what = "compute " + id() + " stress/atom";
  require_per_atom_tallies(sim, what);
  require_lumped_terms(sim, what, terms_);
  if (fix_)
    for (const auto& fix : sim.fixes())
      if (fix->virial_in_pressure())
        throw ConfigError(what + ": fix " + fix->id() + " " + fix->style() +
                          " adds a virial, whose per-atom share md_ipu does not tally; name the "
                          "terms (ke pair) or use fix_modify " +
                          fix->id() + " virial no");
  thermal_ = {true, true, true};
  if (temperature_) thermal_ = temperature_compute(&sim, what, *temperature_).thermal_components();
}

void ComputeStressAtom::peratom(const AtomsView& a, std::span<double> out) const {
  const double mvv2e = a.units->mvv2e, scale = -a.units->nktv2p;
  for (std::size_t i = 0; i < a.id.size(); ++i) {
    double* s = &out[6 * i];
    for (std::size_t k = 0; k < 6; ++k) s[k] = 0.0;
    if (!in_group(a, i)) continue;
    if (pair_)
      for (std::size_t k = 0; k < 6; ++k) s[k] = a.vatom[6 * i + k];
    if (ke_) {
      const double m = mvv2e * a.mass[static_cast<std::size_t>(a.type[i])];
      double v[3];
      for (std::size_t d = 0; d < 3; ++d) v[d] = thermal_[d] ? a.v[3 * i + d] : 0.0;
      s[0] += m * v[0] * v[0], s[1] += m * v[1] * v[1], s[2] += m * v[2] * v[2];
      s[3] += m * v[0] * v[1], s[4] += m * v[0] * v[2], s[5] += m * v[1] * v[2];
    }
    for (std::size_t k = 0; k < 6; ++k) s[k] *= scale;
  }
}

}  // namespace tessera::md
