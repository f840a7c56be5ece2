#include "tessera/md/fix_deposit.hpp"

#include <algorithm>
#include <cmath>

#include "arguments.hpp"
#include "tessera/md/region.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

namespace {

const char* const usage =
    "fix ID GROUP deposit N TYPE M SEED region REGION-ID [id max|next] [global LO HI] [local LO "
    "HI DELTA] [near R] [attempt Q] [rate V] [vx LO HI] [vy LO HI] [vz LO HI] [gaussian X Y Z "
    "SIGMA] [target X Y Z] [units box|lattice]";

}  // namespace

FixDeposit::FixDeposit(const FixArguments& a)
    : Fix(a.id, a.group), what_("fix " + a.id + " deposit"), random_(1), print_(a.print) {
  arguments::need(a.args, 4, usage);
  if (!a.sim) arguments::bad(what_ + ": needs the simulation box");
  Simulation& sim = *a.sim;
  if (sim.box().triclinic)
    arguments::bad(what_ + ": md_ipu deposits into orthogonal boxes only (this one is triclinic)");
  count_ = arguments::integer(what_ + " N", a.args[0], 0, arguments::int_max);
  type_ = static_cast<int>(arguments::integer(what_ + " TYPE", a.args[1], 1, sim.types()));
  every_ = arguments::integer(what_ + " M", a.args[2], 1, arguments::int_max);
  const std::string seed_message = what_ + ": the seed must be a positive integer";
  random_ = RandomPark(
      static_cast<int>(arguments::seed_value(what_, a.args[3], seed_message.c_str())));
  bool lattice_units = true;
  for (std::size_t k = 4; k < a.args.size();) {
    const std::string& key = a.args[k];
    const auto values = [&](std::size_t n) {
      if (k + n >= a.args.size())
        arguments::bad(what_ + ": " + key + " needs " + std::to_string(n) + " value" +
                       (n == 1 ? "" : "s") + "; usage: " + usage);
      std::size_t at = k + 1;
      k += n + 1;
      return at;
    };
    const auto real = [&](std::size_t at) { return arguments::number(what_ + " " + key, a.args[at]); };
    if (key == "region") {
      const std::size_t at = values(1);
      if (!a.region) arguments::bad(what_ + ": no regions here");
      region_ = a.region(a.args[at]);
    } else if (key == "id") {
      const std::size_t at = values(1);
      if (a.args[at] != "max" && a.args[at] != "next")
        arguments::bad(what_ + ": id must be max or next, got '" + a.args[at] + "'");
      id_next_ = a.args[at] == "next";
    } else if (key == "global") {
      const std::size_t at = values(2);
      height_ = Height::global, lo_ = real(at), hi_ = real(at + 1);
    } else if (key == "local") {
      const std::size_t at = values(3);
      height_ = Height::local, lo_ = real(at), hi_ = real(at + 1);
      delta_sq_ = real(at + 2) * real(at + 2);
    } else if (key == "near") {
      const std::size_t at = values(1);
      near_sq_ = real(at) * real(at);
    } else if (key == "attempt") {
      const std::size_t at = values(1);
      attempts_ = static_cast<int>(
          arguments::integer(what_ + " attempt", a.args[at], 0, arguments::int_max));
    } else if (key == "rate") {
      const std::size_t at = values(1);
      rate_given_ = true, rate_ = real(at);
    } else if (key == "vx" || key == "vy" || key == "vz") {
      const std::size_t at = values(2);
      const auto d = static_cast<std::size_t>(key[1] - 'x');
      v_lo_[d] = real(at), v_hi_[d] = real(at + 1);
    } else if (key == "gaussian") {
      const std::size_t at = values(4);
      gaussian_ = true;
      for (std::size_t d = 0; d < 3; ++d) centre_[d] = real(at + d);
      sigma_ = real(at + 3);
    } else if (key == "target") {
      const std::size_t at = values(3);
      aimed_ = true;
      for (std::size_t d = 0; d < 3; ++d) target_[d] = real(at + d);
    } else if (key == "units") {
      const std::size_t at = values(1);
      if (a.args[at] != "box" && a.args[at] != "lattice")
        arguments::bad(what_ + ": units must be box or lattice, got '" + a.args[at] + "'");
      lattice_units = a.args[at] == "lattice";
    } else if (key == "mol" || key == "molfrac" || key == "rigid" || key == "shake" ||
               key == "orient") {
      arguments::bad(what_ + ": " + key +
                     " inserts molecules (molecule templates), which md_ipu does not read yet; it "
                     "deposits single atoms");
    } else {
      arguments::bad(what_ + ": unknown keyword '" + key + "'; usage: " + usage);
    }
  }
  if (!region_) arguments::bad(what_ + ": give the insertion region (region REGION-ID)");
  extent_ = region_->extent();
  const Box& box = sim.box();
  for (std::size_t d = 0; d < 3; ++d)
    if (extent_.lo[d] < box.lo[d] || extent_.hi[d] > box.hi[d])
      arguments::bad(what_ + ": the region extends outside the simulation box in " +
                     std::string(1, "xyz"[d]) + " (LAMMPS's \"Deposition region extends outside " +
                     "simulation box\"); bound it inside the box");
  // LAMMPS scales every distance and velocity by the lattice spacings, the heights by the
  // vertical one (y in 2-d) and the sideways distances by x's.
  const std::array<double, 3> scale =
      lattice_units ? a.lattice : std::array<double, 3>{1.0, 1.0, 1.0};
  const double up = scale[sim.dimension() == 2 ? 1 : 2];
  lo_ *= up, hi_ *= up, rate_ *= up;
  delta_sq_ *= scale[0] * scale[0];
  near_sq_ *= scale[0] * scale[0];
  sigma_ *= scale[0];
  for (std::size_t d = 0; d < 3; ++d) {
    v_lo_[d] *= scale[d], v_hi_[d] *= scale[d];
    centre_[d] *= scale[d], target_[d] *= scale[d];
  }
  if (id_next_) max_id_ = largest_id(sim);
  // LAMMPS warms its stream up so that runs with consecutive seeds do not start alike.
  for (int k = 0; k < 30; ++k) random_.uniform();
  next_ = sim.step() + 1;
  first_ = next_ - every_;
}

// LAMMPS's write_restart list: the generator's state, the count and the schedule.
nlohmann::json FixDeposit::global_state() const {
  return {{"random", random_.state()}, {"inserted", inserted_}, {"first", first_}, {"next", next_}};
}

void FixDeposit::restore_state(const nlohmann::json& state, const std::string& where) {
  const auto integer = [&](const char* key) -> std::int64_t {
    if (!state.is_object() || !state.contains(key) || !state[key].is_number_integer())
      arguments::bad(where + ": " + key + " is missing or not an integer");
    return state[key].get<std::int64_t>();
  };
  const std::int64_t random = integer("random");
  if (random < 1 || random > 2147483646)
    arguments::bad(where + ": the random state " + std::to_string(random) +
                   " is outside 1..2147483646");
  random_.reset(static_cast<int>(random));
  inserted_ = integer("inserted");
  first_ = integer("first");
  next_ = integer("next");
}

// LAMMPS's setup_pre_exchange: the next insertion on the schedule from the first.
void FixDeposit::setup(Simulation& sim) {
  if (sim.has_per_atom_vectors())
    arguments::bad(what_ + ": fixes or computes keep per-atom values (compute msd's origins, fix " +
                   "property/atom's properties, a minimizer's state) that md_ipu cannot start " +
                   "for an atom inserted during the run; unfix or uncompute them for the deposit");
  next_ = inserted_ < count_ ? first_ + ((sim.step() - first_) / every_) * every_ + every_ : 0;
}

std::int64_t FixDeposit::largest_id(Simulation& sim) const {
  const auto most = sim.reduce_atoms("md.fix_deposit_max_id", ReduceOp::max, 1,
                                     [](const AtomsView& a, std::span<double> out) {
                                       for (const std::int64_t id : a.id)
                                         out[0] = std::max(out[0], static_cast<double>(id));
                                     });
  return static_cast<std::int64_t>(most[0]);
}

bool FixDeposit::has_atom(Simulation& sim, std::int64_t id) const {
  const auto found = sim.reduce_atoms("md.fix_deposit_id_taken", ReduceOp::max, 1,
                                      [id](const AtomsView& a, std::span<double> out) {
                                        for (const std::int64_t own : a.id)
                                          if (own == id) out[0] = 1;
                                      });
  return found[0] > 0;
}

std::array<double, 3> FixDeposit::draw_position() {
  std::array<double, 3> p{};
  do {
    for (std::size_t d = 0; d < 3; ++d)
      p[d] = gaussian_ ? centre_[d] + random_.gaussian() * sigma_
                       : extent_.lo[d] + random_.uniform() * (extent_.hi[d] - extent_.lo[d]);
  } while (!region_->matches(p));
  return p;
}

double FixDeposit::highest(Simulation& sim, const std::array<double, 3>& at,
                           std::size_t dim) const {
  const Box box = sim.box();
  const Boundary bc = sim.boundary();
  const bool local = height_ == Height::local, flat = sim.dimension() == 2;
  const double delta_sq = delta_sq_;
  const auto most = sim.reduce_atoms(
      "md.fix_deposit_highest", ReduceOp::max, 1, [&](const AtomsView& a, std::span<double> out) {
        out[0] = box.lo[dim];
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          if (local) {
            double dx = at[0] - a.x[3 * i], dy = at[1] - a.x[3 * i + 1];
            if (bc.periodic(0)) dx = minimum_image(dx, box.length(0));
            if (bc.periodic(1)) dy = minimum_image(dy, box.length(1));
            if ((flat ? dx * dx : dx * dx + dy * dy) > delta_sq) continue;
          }
          out[0] = std::max(out[0], a.x[3 * i + dim]);
        }
      });
  return most[0];
}

bool FixDeposit::crowded(Simulation& sim, const std::array<double, 3>& at) const {
  const Box box = sim.box();
  const Boundary bc = sim.boundary();
  const double near_sq = near_sq_;
  const auto flag = sim.reduce_atoms(
      "md.fix_deposit_near", ReduceOp::max, 1, [&](const AtomsView& a, std::span<double> out) {
        for (std::size_t i = 0; i < a.id.size(); ++i) {
          double r_sq = 0;
          for (std::size_t d = 0; d < 3; ++d) {
            double delta = at[d] - a.x[3 * i + d];
            if (bc.periodic(d)) delta = minimum_image(delta, box.length(static_cast<int>(d)));
            r_sq += delta * delta;
          }
          if (r_sq < near_sq) out[0] = 1;
        }
      });
  return flag[0] > 0;
}

// LAMMPS's FixDeposit::pre_exchange, one atom per insertion step.
void FixDeposit::pre_exchange(Simulation& sim) {
  if (next_ == 0 || sim.step() != next_) return;
  const std::size_t dim = sim.dimension() == 2 ? 1 : 2;
  const double offset =
      rate_given_ ? static_cast<double>(sim.step() - first_) * sim.timestep() * rate_ : 0.0;
  if (!id_next_) {
    max_id_ = largest_id(sim);
  } else if (const std::int64_t id = max_id_ + 1; has_atom(sim, id)) {
    // LAMMPS would make a second atom with this id; its pair rules, and md_ipu's, assume ids
    // are unique.
    arguments::bad(what_ + ": id next gives the atom id " + std::to_string(id) +
                   ", which an atom made since the fix was defined has (another fix deposit or "
                   "create_atoms); use id max");
  }
  bool success = false;
  for (int attempt = 0; attempt < attempts_ && !success; ++attempt) {
    std::array<double, 3> p = draw_position();
    p[dim] += offset;
    if (height_ != Height::none) p[dim] = highest(sim, p, dim) + lo_ + random_.uniform() * (hi_ - lo_);
    if (crowded(sim, p)) continue;
    std::array<double, 3> v{};
    for (std::size_t d = 0; d < 3; ++d) v[d] = v_lo_[d] + random_.uniform() * (v_hi_[d] - v_lo_[d]);
    if (aimed_) {
      const double speed = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      std::array<double, 3> to{};
      double r_sq = 0;
      for (std::size_t d = 0; d < 3; ++d) to[d] = target_[d] - p[d], r_sq += to[d] * to[d];
      if (r_sq > 0)
        for (std::size_t d = 0; d < 3; ++d) v[d] = to[d] / std::sqrt(r_sq) * speed;
    }
    const Box& box = sim.box();
    for (std::size_t d = 0; d < 3; ++d)
      if ((sim.boundary().face[d][0] == 'f' && p[d] < box.lo[d]) ||
          (sim.boundary().face[d][1] == 'f' && p[d] >= box.hi[d]))
        arguments::bad(what_ + ": at step " + std::to_string(sim.step()) + " it would place an " +
                       "atom at " + "xyz"[d] + " = " + std::to_string(p[d]) + ", beyond the " +
                       "box's fixed face (" + std::to_string(box.lo[d]) + " " +
                       std::to_string(box.hi[d]) + "), where LAMMPS loses it; lower the " +
                       "region, rate or heights, or make that face m or s");
    AtomRecord atom;
    atom.id = max_id_ + 1;
    atom.type = type_;
    atom.mask = 1u | group_mask();
    atom.x = p;
    atom.v = v;
    sim.insert_atoms({atom});
    success = true;
  }
  if (success) {
    ++inserted_;
    ++max_id_;
  } else if (print_ && sim.runtime().rank() == 0) {
    print_("WARNING: Particle deposition was unsuccessful\n");  // at each failure, as LAMMPS's
  }
  next_ = inserted_ < count_ ? next_ + every_ : 0;
}

}  // namespace tessera::md
