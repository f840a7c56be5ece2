#include "tessera/md/compute_pressure.hpp"

#include <algorithm>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputePressure::ComputePressure(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " pressure";
  if (a.group != "all") throw ConfigError(what + " must use the group all");
  if (a.args.empty())
    throw ConfigError(what + ": give the temperature compute's ID (or NULL) after pressure");
  if (a.args[0] != "NULL") {
    temperature_ = a.args[0];
    const Compute* t = a.sim ? a.sim->find_compute(a.args[0]) : nullptr;
    if (!t) throw ConfigError(what + ": there is no compute " + a.args[0] + " to take T from");
    if (!t->is_temperature())
      throw ConfigError(what + ": compute " + a.args[0] + " (" + t->style() +
                        ") does not compute a temperature");
  }
  terms_ = virial_terms(what, a.args, 1);
  if (terms_.ke && !temperature_)
    throw ConfigError(what +
                      ": the kinetic part (ke, or no keywords) needs a temperature "
                      "compute, not NULL");
}

std::array<double, 6> ComputePressure::virial(Simulation& sim) const {
  const Thermo th = sim.thermo();
  std::array<double, 6> w{};
  // th.virial holds the pair, bonded and kspace terms' (LAMMPS's keywords pair, bond, angle,
  // dihedral, improper, kspace), the others also on their own.
  const VirialTerms& on = terms_;
  const bool all = on.pair && on.kspace &&
                   std::all_of(on.bonded.begin(), on.bonded.end(), [](bool b) { return b; });
  for (std::size_t k = 0; k < 6; ++k) {
    double pair = th.virial[k] - th.kspace_virial[k], bonded = 0.0;
    for (std::size_t kind = 0; kind < term_kinds; ++kind) {
      pair -= th.bonded_virial[kind][k];
      if (on.bonded[kind]) bonded += th.bonded_virial[kind][k];
    }
    const double interactions =
        all ? th.virial[k]
            : (on.pair ? pair : 0.0) + bonded + (on.kspace ? th.kspace_virial[k] : 0.0);
    w[k] = interactions + (on.fix ? th.fix_virial[k] : 0.0);
  }
  return w;
}

bool ComputePressure::any_virial() const {
  return terms_.pair || terms_.fix || terms_.kspace ||
         std::any_of(terms_.bonded.begin(), terms_.bonded.end(), [](bool b) { return b; });
}

Compute& ComputePressure::temperature(Simulation& sim) const {
  Compute* t = sim.find_compute(*temperature_);
  if (!t)
    throw ConfigError("compute " + id() + " pressure: its temperature compute " + *temperature_ +
                      " no longer exists");
  return *t;
}

double ComputePressure::scalar(Simulation& sim) {
  const int d = sim.dimension();
  double sum = 0;
  if (any_virial()) {
    const auto virial = this->virial(sim);
    for (std::size_t k = 0; k < static_cast<std::size_t>(d); ++k) sum += virial[k];
  }
  if (terms_.ke) {
    Compute& t = temperature(sim);
    const double value = t.scalar(sim);
    sum = t.dof(sim) * sim.units().boltz * value + sum;
  }
  return sum / d / sim.volume() * sim.units().nktv2p;
}

std::vector<double> ComputePressure::vector(Simulation& sim) {
  std::vector<double> p(6, 0.0);
  if (any_virial()) {
    const auto w = virial(sim);
    p.assign(w.begin(), w.end());
  }
  if (terms_.ke) {
    const auto ke = temperature(sim).vector(sim);
    for (std::size_t k = 0; k < 6; ++k) p[k] = ke[k] + p[k];
  }
  const double scale = sim.units().nktv2p / sim.volume();
  for (auto& value : p) value *= scale;
  if (sim.dimension() == 2) p[2] = p[4] = p[5] = 0.0;
  return p;
}

}  // namespace tessera::md
