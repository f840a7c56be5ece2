#include "tessera/md/velocity.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "tessera/md/compute_com.hpp"
#include "tessera/md/compute_temp.hpp"
#include "tessera/md/random_park.hpp"

namespace tessera::md {
namespace {

std::uint32_t group_mask(const Simulation& sim, const std::string& group, const char* style) {
  const int bit = sim.group_bit(group);
  if (bit < 0)
    throw ConfigError(std::string("velocity ") + style + ": there is no group " + group +
                      "; define it with group");
  return 1u << bit;
}

void require_masses(const Simulation& sim, const char* style) {
  if (!sim.has_box())
    throw ConfigError("velocity: the simulation box is not defined; use create_box or read_data");
  for (int type = 1; type <= sim.types(); ++type)
    if (!(sim.mass(type) > 0))
      throw ConfigError(std::string("velocity ") + style + ": no mass is set for atom type " +
                        std::to_string(type) + "; add a mass command");
}

// The group's temperature now, or that of the compute `temp ID` names.
double temperature(Simulation& sim, const std::string& group, std::uint32_t mask,
                   const VelocityOptions& options, const char* style) {
  if (!options.temperature.empty()) {
    Compute* c = sim.find_compute(options.temperature);
    if (!c)
      throw ConfigError(std::string("velocity ") + style + " temp: there is no compute " +
                        options.temperature);
    if (!c->is_temperature())
      throw ConfigError(std::string("velocity ") + style + " temp: compute " + options.temperature +
                        " (" + c->style() + ") does not compute a temperature");
    c->setup(sim);
    return c->scalar(sim);
  }
  // LAMMPS's velocity makes a compute temp of the group for this, set up (its degrees of
  // freedom less those fixes such as fix shake remove) as LAMMPS's Velocity::create does.
  ComputeTemp temp(ComputeArguments{"velocity_temp", group, {}, &sim});
  int bit = 0;
  while ((1u << bit) != mask) ++bit;
  temp.set_group_bit(bit);
  temp.setup(sim);
  return temp.scalar(sim);
}

void rescale(Simulation& sim, std::uint32_t mask, double t_old, double t_new, const char* style) {
  if (!(t_old > 0))
    throw ConfigError(std::string("velocity ") + style +
                      ": the group's temperature is zero; use velocity create");
  const double factor = std::sqrt(t_new / t_old);
  sim.change_atoms([&](const Simulation::GroupAtom& a) { return (a.mask & mask) != 0; },
                   [&](Simulation::AtomChange& c) {
                     for (auto& value : c.v) value *= factor;
                     return true;
                   });
}

double unwrapped(const Box& box, std::span<const double> x, std::span<const std::int32_t> image,
                 std::size_t d) {
  return box.unwrapped(x.data(), image.data(), d);
}

// LAMMPS's Velocity::zero_momentum: the group's centre-of-mass velocity subtracted.
void zero_momentum(Simulation& sim, std::uint32_t mask) {
  const auto vcm = group_velocity(sim, mask);
  if (!vcm) return;
  sim.change_atoms([&](const Simulation::GroupAtom& a) { return (a.mask & mask) != 0; },
                   [&](Simulation::AtomChange& c) {
                     for (std::size_t d = 0; d < 3; ++d) c.v[d] -= (*vcm)[d];
                     return true;
                   });
}

// LAMMPS's Velocity::zero_rotation: the group's angular velocity about its centre of mass
// subtracted.
void zero_rotation(Simulation& sim, std::uint32_t mask) {
  const Box& box = sim.box();
  const auto rotation = group_rotation(sim, mask);
  if (!rotation) return;
  const std::array<double, 3> xcm = rotation->xcm, omega = rotation->omega;
  sim.change_atoms([&](const Simulation::GroupAtom& a) { return (a.mask & mask) != 0; },
                   [&](Simulation::AtomChange& a) {
                     const double dx = unwrapped(box, a.x, a.image, 0) - xcm[0],
                                  dy = unwrapped(box, a.x, a.image, 1) - xcm[1],
                                  dz = unwrapped(box, a.x, a.image, 2) - xcm[2];
                     a.v[0] -= omega[1] * dz - omega[2] * dy;
                     a.v[1] -= omega[2] * dx - omega[0] * dz;
                     a.v[2] -= omega[0] * dy - omega[1] * dx;
                     return true;
                   });
}

double lattice_scale(const VelocityOptions& options, const Lattice& lattice, int d) {
  return options.lattice_units ? lattice.spacing(d) : 1.0;
}

}  // namespace

void velocity_create(Simulation& sim, const std::string& group, double t_desired, int seed,
                     const VelocityOptions& options) {
  const std::uint32_t mask = group_mask(sim, group, "create");
  require_masses(sim, "create");
  if (!(t_desired >= 0)) throw ConfigError("velocity create: the temperature must not be negative");
  if (seed <= 0) throw ConfigError("velocity create: the seed must be a positive integer");
  if (options.sum)
    throw ConfigError(
        "velocity create sum yes is not supported; create, then add with set or "
        "ramp (sum yes)");
  std::vector<double> by_id;
  if (options.loop == "all") {
    // One generator over atom ids 1..N, as LAMMPS does (drawn for every atom, used for the
    // group's), so any decomposition gets the same velocities.
    const std::int64_t max_id = static_cast<std::int64_t>(sim.reduce_atoms(
        "md.velocity_max_id", ReduceOp::max, 1, [](const AtomsView& a, std::span<double> out) {
          for (const auto id : a.id) out[0] = std::max(out[0], static_cast<double>(id));
        })[0]);
    if (max_id != sim.natoms())
      throw ConfigError("velocity create loop all needs atom ids 1..N without gaps; use loop geom");
    RandomPark random(seed);
    by_id.resize(3 * static_cast<std::size_t>(sim.natoms()));
    for (auto& value : by_id) value = options.gaussian ? random.gaussian() : random.uniform() - 0.5;
  } else if (options.loop != "geom") {
    throw ConfigError(
        "velocity create loop " + options.loop +
        ": Tessera supports loop all and loop geom (loop local depends on the processor layout)");
  }
  const bool two_d = sim.dimension() == 2;
  sim.change_atoms([&](const Simulation::GroupAtom& a) { return (a.mask & mask) != 0; },
                   [&](Simulation::AtomChange& a) {
                     std::array<double, 3> triple{};
                     if (options.loop == "all") {
                       for (std::size_t d = 0; d < 3; ++d)
                         triple[d] = by_id[3 * static_cast<std::size_t>(a.id - 1) + d];
                     } else {
                       RandomPark random(1);  // one per atom: tiles run this concurrently
                       random.reseed(seed, {a.x[0], a.x[1], a.x[2]});
                       for (auto& value : triple)
                         value = options.gaussian ? random.gaussian() : random.uniform() - 0.5;
                     }
                     const double factor = 1.0 / std::sqrt(sim.mass(a.type));
                     for (std::size_t d = 0; d < 3; ++d) a.v[d] = triple[d] * factor;
                     if (two_d) a.v[2] = 0.0;  // LAMMPS draws vz, then zeroes it
                     return true;
                   });
  if (options.momentum) zero_momentum(sim, mask);
  if (options.rotation) zero_rotation(sim, mask);
  rescale(sim, mask, temperature(sim, group, mask, options, "create"), t_desired, "create");
}

void velocity_set(Simulation& sim, const std::string& group,
                  const std::array<std::optional<double>, 3>& v, const VelocityOptions& options,
                  const Lattice& lattice) {
  const std::uint32_t mask = group_mask(sim, group, "set");
  if (sim.dimension() == 2 && v[2] && *v[2] != 0.0)
    throw ConfigError("velocity set: a 2-d simulation cannot have a z velocity");
  std::array<std::optional<double>, 3> scaled = v;
  for (int d = 0; d < 3; ++d)
    if (scaled[static_cast<std::size_t>(d)])
      *scaled[static_cast<std::size_t>(d)] *= lattice_scale(options, lattice, d);
  sim.change_atoms([&](const Simulation::GroupAtom& a) { return (a.mask & mask) != 0; },
                   [&](Simulation::AtomChange& a) {
                     for (std::size_t d = 0; d < 3; ++d)
                       if (scaled[d]) a.v[d] = options.sum ? a.v[d] + *scaled[d] : *scaled[d];
                     return true;
                   });
}

void velocity_scale(Simulation& sim, const std::string& group, double t_desired,
                    const VelocityOptions& options) {
  const std::uint32_t mask = group_mask(sim, group, "scale");
  require_masses(sim, "scale");
  if (!(t_desired >= 0)) throw ConfigError("velocity scale: the temperature must not be negative");
  rescale(sim, mask, temperature(sim, group, mask, options, "scale"), t_desired, "scale");
}

void velocity_ramp(Simulation& sim, const std::string& group, int velocity_dim, double v_lo,
                   double v_hi, int coordinate_dim, double c_lo, double c_hi,
                   const VelocityOptions& options, const Lattice& lattice) {
  const std::uint32_t mask = group_mask(sim, group, "ramp");
  if (sim.dimension() == 2 && velocity_dim == 2)
    throw ConfigError("velocity ramp: a 2-d simulation cannot have a z velocity");
  const double vscale = lattice_scale(options, lattice, velocity_dim);
  const double cscale = lattice_scale(options, lattice, coordinate_dim);
  const double vlo = vscale * v_lo, vhi = vscale * v_hi;
  const double clo = cscale * c_lo, chi = cscale * c_hi;
  if (clo == chi) throw ConfigError("velocity ramp: the coordinate range is empty");
  const auto vd = static_cast<std::size_t>(velocity_dim);
  const auto cd = static_cast<std::size_t>(coordinate_dim);
  sim.change_atoms([&](const Simulation::GroupAtom& a) { return (a.mask & mask) != 0; },
                   [&](Simulation::AtomChange& a) {
                     double fraction = (a.x[cd] - clo) / (chi - clo);
                     fraction = std::min(std::max(fraction, 0.0), 1.0);
                     const double ramp = vlo + fraction * (vhi - vlo);
                     a.v[vd] = options.sum ? a.v[vd] + ramp : ramp;
                     return true;
                   });
}

void velocity_zero(Simulation& sim, const std::string& group, bool angular) {
  const std::uint32_t mask = group_mask(sim, group, "zero");
  require_masses(sim, "zero");
  if (angular)
    zero_rotation(sim, mask);
  else
    zero_momentum(sim, mask);
}

std::optional<std::array<double, 3>> group_velocity(Simulation& sim, std::uint32_t mask) {
  const auto p = sim.reduce_atoms("md.group_momentum", ReduceOp::sum, 4,
                                  [&](const AtomsView& a, std::span<double> out) {
                                    for (std::size_t i = 0; i < a.id.size(); ++i) {
                                      if (!(a.mask[i] & mask)) continue;
                                      const double m = a.mass[static_cast<std::size_t>(a.type[i])];
                                      for (std::size_t d = 0; d < 3; ++d)
                                        out[d] += a.v[3 * i + d] * m;
                                      out[3] += m;
                                    }
                                  });
  if (!(p[3] > 0)) return std::nullopt;
  return std::array<double, 3>{p[0] / p[3], p[1] / p[3], p[2] / p[3]};
}

std::optional<GroupRotation> group_rotation(Simulation& sim, std::uint32_t mask) {
  const auto center = center_of_mass(sim, mask);
  if (!center) return std::nullopt;
  const std::array<double, 3> xcm = *center;
  const auto li = sim.reduce_atoms(
      "md.group_angular_momentum", ReduceOp::sum, 9,
      [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (!(a.mask[i] & mask)) continue;
          const double m = a.mass[static_cast<std::size_t>(a.type[i])];
          const double dx = a.unwrapped(i, 0) - xcm[0], dy = a.unwrapped(i, 1) - xcm[1],
                       dz = a.unwrapped(i, 2) - xcm[2];
          const double* v = &a.v[3 * i];
          out[0] += m * (dy * v[2] - dz * v[1]);
          out[1] += m * (dz * v[0] - dx * v[2]);
          out[2] += m * (dx * v[1] - dy * v[0]);
          out[3] += m * (dy * dy + dz * dz), out[4] += m * (dx * dx + dz * dz),
              out[5] += m * (dx * dx + dy * dy);
          out[6] -= m * dx * dy, out[7] -= m * dy * dz, out[8] -= m * dx * dz;
        }
      });
  Eigen::Matrix3d inertia;
  inertia << li[3], li[6], li[8], li[6], li[4], li[7], li[8], li[7], li[5];
  const Eigen::Vector3d omega = inertia.fullPivLu().solve(Eigen::Vector3d(li[0], li[1], li[2]));
  return GroupRotation{xcm, {omega[0], omega[1], omega[2]}};
}

}  // namespace tessera::md
