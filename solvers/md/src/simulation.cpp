#include "tessera/md/simulation.hpp"

#include <mpi.h>

#include <Eigen/Dense>
#include <algorithm>
#include <boost/random/linear_congruential.hpp>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "charged_bytes.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/format.hpp"
#include "tessera/core/host_memory.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/core/stop_signal.hpp"
#include "tessera/md/kernel_work.hpp"
#include "tessera/md/pair_lj_cut.hpp"
#include "tessera/md/random_park.hpp"

namespace tessera::md {
namespace {

std::string fmt_id(std::int64_t id) { return std::to_string(id); }
std::string fmt_double(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// Sets a flag for its lifetime, however the scope ends.
struct Running {
  bool& flag;
  explicit Running(bool& f) : flag(f) { flag = true; }
  ~Running() { flag = false; }
};
}  // namespace

// The neighbors of owned atom i at list[begin[i] .. begin[i + 1]), its weighted special pairs at
// special_list[2 special_begin[i] ..] (PairTile's).
struct Simulation::NeighborList {
  explicit NeighborList(Tile& t)
      : begin(t.make_vector<int>("md.neighbor_list")),
        list(t.make_vector<int>("md.neighbor_list")),
        special_begin(t.make_vector<int>("md.special_list")),
        special_list(t.make_vector<int>("md.special_list")) {}
  TileVector<int> begin, list, special_begin, special_list;
};

struct Simulation::TileAtoms {
  explicit TileAtoms(Tile& t)
      : v(t.make_vector<double>("md.v")),
        f(t.make_vector<double>("md.f")),
        x_build(t.make_vector<double>("md.x_at_build")),
        id(t.make_vector<std::int64_t>("md.id")),
        image(t.make_vector<std::int32_t>("md.image")),
        noise(t.make_vector<std::uint32_t>("md.langevin_state")),
        mask(t.make_vector<std::uint32_t>("md.group_mask")),
        extra(t.make_vector<double>("md.per_atom_vectors")),
        eatom(t.make_vector<double>("md.per_atom_energy")),
        vatom(t.make_vector<double>("md.per_atom_virial")),
        pair_forward(t.make_vector<double>("md.pair_forward")),
        predicted(t.make_vector<double>("md.constraint_predicted")),
        send_atom(t.make_vector<int>("md.ghost_send_list")),
        send_begin(t.make_vector<int>("md.ghost_send_list")),
        pairs(t),
        occasional(t),
        bin_head(t.make_vector<int>("md.bins")),
        bin_next(t.make_vector<int>("md.bins")),
        bonds(t.make_vector<BondEntry>("md.bond_list")),
        angles(t.make_vector<AngleEntry>("md.angle_list")),
        dihedrals(t.make_vector<DihedralEntry>("md.dihedral_list")),
        impropers(t.make_vector<ImproperEntry>("md.improper_list")),
        pair_tables(t.memory(), "md.pair_tables") {}
  int nlocal = 0, nghost = 0;
  TileVector<double> v, f, x_build;
  TileVector<std::int64_t> id;
  TileVector<std::int32_t> image;
  TileVector<std::uint32_t> noise;
  TileVector<std::uint32_t> mask;   // the groups the atom is in, a bit per group (bit 0: all)
  TileVector<double> extra;         // per_atom_width_ values per atom (add_per_atom)
  TileVector<double> eatom, vatom;  // per-atom energy (1) and virial (6) at tally_step_
  TileVector<double> pair_forward;  // Pair::forward_per_atom() values per atom, this step's
  TileVector<double> predicted;     // a constraint fix's predicted positions, 3 per atom
  TileVector<int> send_atom, send_begin;
  NeighborList pairs;       // the pair style's, from each rebuild
  NeighborList occasional;  // a compute's full list, built when it asks (reduce_pairs)
  TileVector<int> bin_head, bin_next;
  // The bonded terms this tile computes, from each rebuild.
  TileVector<BondEntry> bonds;
  TileVector<AngleEntry> angles;
  TileVector<DihedralEntry> dihedrals;
  TileVector<ImproperEntry> impropers;
  ChargedBytes pair_tables;  // the pair style's replicated tables (Pair::replicated_bytes)
  double pe = 0, ke = 0;
  std::array<double, term_kinds> bonded_energy{};                 // in pe, by TermKind
  std::array<std::array<double, 6>, term_kinds> bonded_virial{};  // in virial
  double evdwl = 0, ecoul = 0;  // pe's parts (LAMMPS's eng_vdwl and eng_coul)
  std::array<double, 6> virial{}, ke_tensor{};
  double max_displacement_sq = 0;
  // Wall seconds in the force supersteps so far: all of them, and their neighbor-list rebuilds
  // and bonded terms (the timing breakdown's split of md.force, as differences over a run).
  ForcePhaseSeconds force_seconds;
};

Simulation::Simulation(Runtime& runtime, Units units)
    : runtime_(runtime), units_(std::move(units)), dt_(units_.dt) {
  neighbor_.skin = units_.skin;
  x_ = runtime_.create_variable<double>("md.x", 0);
  type_ = runtime_.create_variable<std::int32_t>("md.type", 0);
  send_x_ = runtime_.create_variable<double>("md.ghost_send_x", 0);
  send_type_ = runtime_.create_variable<std::int32_t>("md.ghost_send_type", 0);
  q_ = runtime_.create_variable<double>("md.q", 0);
  send_q_ = runtime_.create_variable<double>("md.ghost_send_q", 0);
  ghost_tag_ = runtime_.create_variable<std::int64_t>("md.ghost_id", 0);
  send_tag_ = runtime_.create_variable<std::int64_t>("md.ghost_send_id", 0);
  ghost_mask_ = runtime_.create_variable<std::uint32_t>("md.ghost_mask", 0);
  send_mask_ = runtime_.create_variable<std::uint32_t>("md.ghost_send_mask", 0);
  ghost_f_ = runtime_.create_variable<double>("md.ghost_f", 0);
  send_f_ = runtime_.create_variable<double>("md.ghost_returned_f", 0);
  ghost_extra_ = runtime_.create_variable<double>("md.ghost_extra", 0);
  send_extra_ = runtime_.create_variable<double>("md.returned_extra", 0);
  ghost_tally_ = runtime_.create_variable<double>("md.ghost_tally", 0);
  send_tally_ = runtime_.create_variable<double>("md.returned_tally", 0);
  send_forward_ = runtime_.create_variable<double>("md.pair_send_forward", 0);
  ghost_forward_ = runtime_.create_variable<double>("md.pair_ghost_forward", 0);
  send_predicted_ = runtime_.create_variable<double>("md.constraint_send_predicted", 0);
  ghost_predicted_ = runtime_.create_variable<double>("md.constraint_ghost_predicted", 0);
  tiles_.resize(runtime_.local_tiles().size());
  require_host_memory(static_cast<double>(tiles_.size()) * sizeof(TileAtoms),
                      "md's state of " + std::to_string(tiles_.size()) + " tiles on this rank",
                      "use fewer tiles (--tiles-per-ipu, --ipus) or more ranks");
  runtime_.superstep("md.init", [&](Tile& t) {
    tiles_[static_cast<std::size_t>(t.id() - runtime_.first_tile())] =
        std::make_unique<TileAtoms>(t);
  });
}

// The tiles' memory goes back to the runtime, which outlives this system (a script's clear
// builds the next one on it).
Simulation::~Simulation() {
  for (auto v :
       {x_, send_x_, q_, send_q_, ghost_f_, send_f_, ghost_extra_, send_extra_, ghost_tally_,
        send_tally_, send_forward_, ghost_forward_, send_predicted_, ghost_predicted_})
    runtime_.destroy_variable(v);
  runtime_.destroy_variable(type_);
  runtime_.destroy_variable(send_type_);
  runtime_.destroy_variable(ghost_tag_);
  runtime_.destroy_variable(send_tag_);
  runtime_.destroy_variable(ghost_mask_);
  runtime_.destroy_variable(send_mask_);
}

Simulation::ForcePhaseSeconds Simulation::force_phase_seconds() const {
  ForcePhaseSeconds sum;
  for (const auto& s : tiles_)
    if (s) sum += s->force_seconds;
  return sum;
}

Simulation::NeighborCounts Simulation::neighbor_counts() const {
  NeighborCounts sum;
  const bool specials = molecular() && topology_handle_ != 0 && topology_.specials > 0;
  const std::size_t at = specials ? per_atom_offset(topology_handle_) + topology_.specials_at() : 0;
  for (const auto& s : tiles_) {
    if (!s) continue;
    sum.nlocal += s->nlocal;
    sum.nghost += s->nghost;
    if (!s->pairs.begin.empty())
      sum.pairs += s->pairs.begin[static_cast<std::size_t>(s->nlocal)] +
                   static_cast<double>(s->pairs.special_list.size() / 2);
    if (!specials) continue;
    for (std::size_t i = 0; i < static_cast<std::size_t>(s->nlocal); ++i)
      for (std::size_t level = 0; level < 3; ++level)
        sum.specials += s->extra[i * per_atom_width_ + at + level];
  }
  return sum;
}

Simulation::TileAtoms& Simulation::state(const Tile& t) {
  return *tiles_[static_cast<std::size_t>(t.id() - runtime_.first_tile())];
}

void Simulation::set_units(const Units& units) {
  changed();
  if (has_box()) throw ConfigError("units must come before the simulation box is defined");
  units_ = units;
  dt_ = units_.dt;
  neighbor_.skin = units_.skin;
}

void Simulation::require_box(const char* command) const {
  if (!has_box())
    throw ConfigError(std::string(command) +
                      " before the simulation box is defined; use create_box or read_data first");
}

void Simulation::set_atom_style(AtomStyle style) {
  changed();
  if (has_box())
    throw ConfigError(
        "atom_style: the simulation box is already defined; put atom_style before it is "
        "created (create_box, read_data or read_restart)");
  atom_style_ = style;
}

void Simulation::set_topology_types(const std::array<int, term_kinds>& types) {
  changed();
  for (const TermKind kind : all_term_kinds)
    if (types[static_cast<std::size_t>(kind)] > 0 && !has_terms(atom_style_, kind))
      throw ConfigError(std::string("atom_style ") + atom_style_name(atom_style_) + " has no " +
                        info(kind).name + "s; " + atom_styles_with(kind));
  term_types_ = types;
}

void Simulation::set_bond(std::unique_ptr<Bond> bond) { changed(), bond_ = std::move(bond); }

void Simulation::set_angle(std::unique_ptr<Angle> angle) { changed(), angle_ = std::move(angle); }

void Simulation::set_dihedral(std::unique_ptr<Dihedral> dihedral) {
  changed(), dihedral_ = std::move(dihedral);
}

void Simulation::set_improper(std::unique_ptr<Improper> improper) {
  changed(), improper_ = std::move(improper);
}

void Simulation::set_topology(const std::map<std::int64_t, AtomTopology>& atoms) {
  changed();
  if (!molecular())
    throw ConfigError(std::string("atom_style ") + atom_style_name(atom_style_) +
                      " carries no molecular topology");
  for (const auto& [id, a] : atoms)
    for (const TermKind kind : all_term_kinds)
      for (const auto& term : a.of(kind))
        if (term.type < 1 || term.type > topology_types(kind)) {
          std::string ids;
          for (std::size_t n = 0; n < info(kind).atoms; ++n)
            ids.append(" ").append(std::to_string(term.atoms[n]));
          throw ConfigError(std::string(info(kind).name) + " of atoms" + ids + " has type " +
                            std::to_string(term.type) + ", out of range 1.." +
                            std::to_string(topology_types(kind)));
        }
  if (topology_handle_ != 0) remove_per_atom(topology_handle_);
  topology_ = TopologyLayout::fitting(atoms);
  topology_handle_ = add_per_atom(topology_.width());
  const std::size_t at = per_atom_offset(topology_handle_);
  for_each_tile("md.set_topology", [&](FixTile& t) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(t.nlocal); ++i)
      if (const auto it = atoms.find(t.id[i]); it != atoms.end())
        topology_.encode(it->second,
                         t.per_atom.subspan(i * t.per_atom_width + at, topology_.width()));
  });
}

void Simulation::set_special_bonds(const SpecialBonds& special) {
  changed();
  special_ = special;
  if (topology_handle_ == 0) return;
  std::map<std::int64_t, AtomTopology> atoms = gather_topology(/*every_rank=*/true);
  build_special(atoms, special_);
  set_topology(atoms);
}

std::map<std::int64_t, std::int64_t> Simulation::gather_molecules() {
  std::map<std::int64_t, std::int64_t> out;
  const auto column = molecule_column();
  if (!column) return out;
  const std::vector<double> pairs =
      runtime_.collect<double>("md.gather_molecules", [&](Tile& t, std::vector<double>& values) {
        TileAtoms& s = state(t);
        for (std::size_t i = 0; i < static_cast<std::size_t>(s.nlocal); ++i)
          values.insert(values.end(),
                        {static_cast<double>(s.id[i]), s.extra[i * per_atom_width_ + *column]});
      });
  for (std::size_t k = 0; k + 1 < pairs.size(); k += 2)
    out.emplace(static_cast<std::int64_t>(pairs[k]), static_cast<std::int64_t>(pairs[k + 1]));
  return out;
}

std::map<std::int64_t, AtomTopology> Simulation::gather_topology(bool every_rank) {
  std::map<std::int64_t, AtomTopology> out;
  if (topology_handle_ == 0) return out;
  const std::size_t at = per_atom_offset(topology_handle_);
  const std::size_t width = topology_.width();
  // Each atom's id, then its row.
  std::vector<double> rows =
      runtime_.collect<double>("md.gather_topology", [&](Tile& t, std::vector<double>& values) {
        TileAtoms& s = state(t);
        for (std::size_t i = 0; i < static_cast<std::size_t>(s.nlocal); ++i) {
          values.push_back(static_cast<double>(s.id[i]));
          const auto row = s.extra.begin() + static_cast<std::ptrdiff_t>(i * per_atom_width_ + at);
          values.insert(values.end(), row, row + static_cast<std::ptrdiff_t>(width));
        }
      });
  if (every_rank) {  // rank 0's rows to the others
    unsigned long long count = rows.size();
    MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG_LONG, 0, runtime_.comm());
    if (count > static_cast<unsigned long long>(std::numeric_limits<int>::max()))
      throw Error("the molecular topology is too large to send in one message (" +
                  std::to_string(count) + " values)");
    rows.resize(count);
    MPI_Bcast(rows.data(), static_cast<int>(count), MPI_DOUBLE, 0, runtime_.comm());
  }
  for (std::size_t k = 0; k + width < rows.size(); k += width + 1)
    out.emplace(static_cast<std::int64_t>(rows[k]),
                topology_.decode(std::span<const double>(&rows[k + 1], width),
                                 static_cast<std::int64_t>(rows[k])));
  return out;
}

void Simulation::set_boundary(const Boundary& boundary) {
  changed();
  if (has_box())
    throw ConfigError(
        "boundary: the simulation box is already defined; put boundary before it "
        "is created (create_box, read_data or read_restart)");
  if (dimension_ == 2 && !boundary.periodic(2))
    throw ConfigError("boundary: a 2-d simulation must be periodic in z");
  boundary_ = boundary;
}

void Simulation::set_tilt_large(bool large) {
  if (has_box())
    throw ConfigError("box: the simulation box is already defined (use box before it)");
  tilt_large_ = large;
}

std::array<bool, 3> Simulation::periodicity() const { return boundary_.periodicity(); }

void Simulation::create_box(int types, const Box& box_in, bool expand) {
  changed();
  Box box = box_in;
  if (has_box()) throw ConfigError("create_box: the simulation box is already defined");
  if (types < 1) throw ConfigError("create_box: the number of atom types must be at least 1");
  for (int d = 0; d < 3; ++d)
    if (!(box.length(d) > 0)) throw ConfigError("create_box: the box has zero or negative extent");
  if (!std::isfinite(box.volume()))
    throw ConfigError("create_box: the box's volume is not finite; check the region's bounds");
  if (box.triclinic) {
    // LAMMPS's Domain::set_initial_box checks.
    if (dimension_ == 2 && (box.xz != 0.0 || box.yz != 0.0))
      throw ConfigError("a 2-d box cannot be tilted in z (xz and yz must be 0)");
    if (skew_too_large(box, periodicity()) && !tilt_large_)
      throw ConfigError(
          "the triclinic box's skew is too large (xy and xz at most half of lx, yz "
          "at most half of ly in periodic dimensions, LAMMPS's limit); use an equivalent box "
          "with smaller tilt factors, or 'box tilt large' before it to allow it");
    if (boundary_.any_shrinks())
      throw ConfigError("md_ipu does not shrink-wrap a triclinic box; use boundary p or f");
  }
  // Tables per type pair, as lj/cut keeps them: the coefficients and what pair_coeff set, (N+1)^2
  // each, and the masses; refused up front rather than allocated until killed.
  const double n1 = static_cast<double>(types) + 1;
  require_host_memory(
      n1 * n1 * (sizeof(PairLJCut::Coeff) + sizeof(PairLJCut::Setting)) + n1 * (sizeof(double) + 1),
      "create_box " + std::to_string(types) + ": the tables of " + std::to_string(types) +
          " atom types (the pair coefficients of every pair of types)",
      "use fewer atom types");
  if (expand)
    for (std::size_t d = 0; d < 3; ++d) {
      shrink_.small[d] = 1.0e-4 * box.length(static_cast<int>(d));  // LAMMPS's SMALL
      if (boundary_.face[d][0] == 's') box.lo[d] -= shrink_.small[d];
      if (boundary_.face[d][1] == 's') box.hi[d] += shrink_.small[d];
      shrink_.min_lo[d] = box.lo[d];
      shrink_.min_hi[d] = box.hi[d];
    }
  types_ = types;
  box_ = box;
  mass_.assign(static_cast<std::size_t>(types) + 1, 0.0);
  mass_set_.assign(static_cast<std::size_t>(types) + 1, false);
  domain_ = Domain(box_, runtime_.target().total_tiles(), 0.0, dimension_, periodicity());
}

void Simulation::set_mass(int type, double mass) {
  changed();
  require_box("mass");
  if (type < 1 || type > types_)
    throw ConfigError("mass: atom type " + std::to_string(type) + " is out of range 1.." +
                      std::to_string(types_));
  if (!(mass > 0)) throw ConfigError("mass: the mass must be positive");
  mass_[static_cast<std::size_t>(type)] = mass;
  mass_set_[static_cast<std::size_t>(type)] = true;
}

// Per atom at least: on the host, the records that create them (twice: the list and the
// buckets by tile) and the per-tile arrays; on a tile, the arrays of an owned atom (x, v, f,
// x at the last build, id, type, image flags, noise state).
void Simulation::require_room_for_atoms(double count, const std::string& what, bool exact) const {
  const double now = static_cast<double>(natoms_);
  constexpr double tile_bytes_per_atom = 4 * 3 * sizeof(double) + sizeof(std::int64_t) +
                                         sizeof(std::int32_t) * 4 + sizeof(std::uint32_t);
  const std::string n = std::to_string(static_cast<long long>(std::min(count, 9.2e18)));
  require_host_memory((now + count) * (2 * sizeof(AtomRecord) + tile_bytes_per_atom),
                      what + " (" + n + " atoms)",
                      "create fewer atoms, or run on more ranks or nodes");
  const Target& target = runtime_.target();
  if (exact && target.tile_memory_bytes > 0) {
    const double total =
        static_cast<double>(target.tile_memory_bytes) * static_cast<double>(target.total_tiles());
    const double need = (now + count) * tile_bytes_per_atom;
    if (need > total)
      throw ConfigError(what + " (" + n + " atoms) needs at least " + format_bytes(need) +
                        " of tile memory, more than the " + format_bytes(total) + " of target '" +
                        target.name + "' (" + std::to_string(target.total_tiles()) + " tiles of " +
                        format_bytes(static_cast<double>(target.tile_memory_bytes)) +
                        "); create fewer atoms or use a larger target (--ipus, pod16, ...)");
  }
}

void Simulation::add_atoms(std::vector<AtomRecord> atoms) {
  tally_step_ = -1;  // the atoms' per-atom tallies no longer fit them
  changed();
  require_box("create_atoms");
  require_room_for_atoms(static_cast<double>(atoms.size()), "adding atoms", true);
  for (auto& a : atoms) {
    if (a.type < 1 || a.type > types_)
      throw ConfigError("atom type " + std::to_string(a.type) + " is out of range 1.." +
                        std::to_string(types_));
    // Periodic boundaries: atoms just outside the box (within one box length, as a
    // previous run leaves them) are wrapped in, as LAMMPS does; farther away is an error.
    // A shrink-wrapped face follows the atoms (at the next run's setup); a fixed one does not.
    // In a triclinic box, in fractional coordinates.
    const auto [c, c_lo, c_hi] = face_coordinates(box_, a.x);
    for (int d = 0; d < 3; ++d) {
      const auto i = static_cast<std::size_t>(d);
      const double l = c_hi[i] - c_lo[i];
      if ((boundary_.face[i][0] == 'f' && c[i] < c_lo[i]) ||
          (boundary_.face[i][1] == 'f' && c[i] >= c_hi[i]))
        throw ConfigError("atom " + fmt_id(a.id) + " is outside the box's fixed " + "xyz"[d] +
                          " faces (" + fmt_double(box_.lo[i]) + " " + fmt_double(box_.hi[i]) +
                          ") at " + "xyz"[d] + " = " + fmt_double(a.x[i]) +
                          "; LAMMPS would lose it: check the coordinates or the boundary");
      const double below = boundary_.shrinks(i, 0) ? 1e300 : l;
      const double above = boundary_.shrinks(i, 1) ? 1e300 : l;
      if (!std::isfinite(c[i]) || c[i] < c_lo[i] - below || c[i] >= c_hi[i] + above) {
        std::ostringstream msg;
        msg << "atom " << a.id << " at (" << a.x[0] << ", " << a.x[1] << ", " << a.x[2]
            << ") is outside the box (" << box_.lo[0] << " " << box_.hi[0] << ", " << box_.lo[1]
            << " " << box_.hi[1] << ", " << box_.lo[2] << " " << box_.hi[2]
            << ") by more than a box length; check the box bounds and the coordinates and their "
               "units";
        throw ConfigError(msg.str());
      }
    }
    for (std::size_t d = 0; d < 3; ++d)
      if (!std::isfinite(a.v[d]))
        throw ConfigError("atom " + fmt_id(a.id) + " has a non-finite velocity; check the input");
    {
      int image[3] = {a.image[0], a.image[1], a.image[2]};
      if (!domain_.wrap(a.x.data(), image))
        throw ConfigError("atom " + fmt_id(a.id) +
                          ": its image flags would leave the range of a 32-bit integer");
      for (std::size_t d = 0; d < 3; ++d) a.image[d] = image[d];
    }
    if (a.id == 0) a.id = ++max_id_;
    max_id_ = std::max(max_id_, a.id);
    if (a.noise == 0) a.noise = 1;
    a.mask |= 1u;  // every atom is in group all
  }
  natoms_ += static_cast<std::int64_t>(atoms.size());
  // Bucket by owner on the host, then every tile appends its bucket.
  std::vector<std::vector<AtomRecord>> buckets(
      static_cast<std::size_t>(runtime_.target().total_tiles()));
  for (const auto& a : atoms)
    buckets[static_cast<std::size_t>(domain_.owner_of_position(a.x))].push_back(a);
  runtime_.superstep("md.add_atoms", [&](Tile& t) {
    TileAtoms& s = state(t);
    const auto& bucket = buckets[static_cast<std::size_t>(t.id())];
    const std::size_t first = static_cast<std::size_t>(s.nlocal);
    const std::size_t n = first + bucket.size();
    s.nghost = 0;  // ghosts are rebuilt at the next run
    t.resize(x_, 3 * n);
    t.resize(type_, n);
    if (charged()) t.resize(q_, n);
    auto x = t.get(x_);
    auto type = t.get(type_);
    auto q = t.get(q_);
    std::size_t k = first;
    for (const auto& a : bucket) {
      for (std::size_t d = 0; d < 3; ++d) x[3 * k + d] = a.x[d];
      type[k] = a.type;
      if (charged()) q[k] = a.q;
      s.id.push_back(a.id);
      s.image.insert(s.image.end(), a.image.begin(), a.image.end());
      s.noise.push_back(a.noise);
      s.mask.push_back(a.mask);
      s.v.insert(s.v.end(), a.v.begin(), a.v.end());
      ++k;
    }
    s.extra.resize(per_atom_width_ * n, 0.0);
    s.nlocal = static_cast<int>(n);
  });
}

void Simulation::insert_atoms(std::vector<AtomRecord> atoms) {
  // add_atoms appends each tile's new atoms after its others.
  std::vector<int> before;
  for (const auto& t : runtime_.local_tiles()) before.push_back(state(*t).nlocal);
  add_atoms(std::move(atoms));
  runtime_.superstep("md.insert_atoms_start", [&](Tile& t) {
    const auto first =
        static_cast<std::size_t>(before[static_cast<std::size_t>(t.id() - runtime_.first_tile())]);
    FixTile view = fix_view(t, step_);
    const std::size_t n = static_cast<std::size_t>(view.nlocal) - first;
    if (n == 0) return;
    view.nlocal = static_cast<int>(n);
    view.x = view.x.subspan(3 * first);
    view.v = view.v.subspan(3 * first);
    view.f = {};
    view.type = view.type.subspan(first);
    view.id = view.id.subspan(first);
    view.noise = view.noise.subspan(first);
    view.mask = view.mask.subspan(first);
    view.image = view.image.subspan(3 * first);
    view.per_atom = view.per_atom.subspan(per_atom_width_ * first);
    for (auto& fix : fixes_) fix->start_atoms(view);
  });
}

std::vector<AtomRecord> Simulation::gather_atoms(Positions positions) {
  apply_pending_scale();
  std::vector<AtomRecord> all =
      runtime_.collect<AtomRecord>("md.gather_atoms", [&](Tile& t, std::vector<AtomRecord>& out) {
        TileAtoms& s = state(t);
        const auto x = t.get(x_);
        const auto type = t.get(type_);
        const auto q = t.get(q_);
        for (int i = 0; i < s.nlocal; ++i) {
          const auto u = static_cast<std::size_t>(i);
          AtomRecord a;
          a.id = s.id[u];
          a.type = type[u];
          if (charged()) a.q = q[u];
          a.noise = s.noise[u];
          a.mask = s.mask[u];
          for (std::size_t d = 0; d < 3; ++d) {
            a.x[d] = x[3 * u + d];
            a.v[d] = s.v[3 * u + d];
            a.f[d] = 3 * u + d < s.f.size() ? s.f[3 * u + d] : 0.0;
            a.image[d] = s.image[3 * u + d];
          }
          out.push_back(a);
        }
      });
  std::sort(all.begin(), all.end(),
            [](const AtomRecord& a, const AtomRecord& b) { return a.id < b.id; });
  if (positions == Positions::as_stored) return all;
  // Positions inside the box (the same wrap a rebuild makes).
  for (auto& a : all) {
    int image[3] = {a.image[0], a.image[1], a.image[2]};
    if (!domain_.wrap(a.x.data(), image))
      throw Error("atom " + fmt_id(a.id) + " is " + std::to_string(a.x[0]) + ", " +
                  std::to_string(a.x[1]) + ", " + std::to_string(a.x[2]) +
                  ": too far from the box to count its images at step " + std::to_string(step_) +
                  "; the system blew up");
    for (std::size_t d = 0; d < 3; ++d) a.image[d] = image[d];
  }
  return all;
}

void Simulation::set_atoms(std::vector<AtomRecord> atoms) {
  tally_step_ = -1;  // the atoms' per-atom tallies no longer fit them
  changed();
  runtime_.superstep("md.clear_atoms", [&](Tile& t) {
    TileAtoms& s = state(t);
    s.nlocal = s.nghost = 0;
    s.v.clear(), s.id.clear(), s.image.clear(), s.noise.clear(), s.mask.clear(), s.extra.clear();
    t.resize(x_, 0);
    t.resize(type_, 0);
    t.resize(q_, 0);
  });
  natoms_ = 0;
  max_id_ = 0;
  add_atoms(std::move(atoms));
}

// ---- fixes -------------------------------------------------------------------------------

void Simulation::add_fix(std::unique_ptr<Fix> fix, bool start_atoms) {
  changed();
  const std::string& id = fix->id();
  const std::string what = "fix " + id + " " + fix->style();
  const int bit = fix->group().empty() ? -1 : group_bit(fix->group());
  if (bit < 0)
    throw ConfigError(what + ": there is no group " + fix->group() + "; define it with group");
  fix->set_group_bit(bit);
  for (auto& existing : fixes_) {
    if (existing->id() == id) {
      if (existing->style() != fix->style())
        throw ConfigError(what + ": fix " + id + " is a " + existing->style() +
                          " fix; unfix it first or choose another ID");
      continue;
    }
    // LAMMPS only warns when an atom is integrated twice; that is refused here for one group.
    if (existing->integrates() && fix->integrates() && existing->group() == fix->group())
      throw ConfigError(what + ": fix " + existing->id() + " " + existing->style() +
                        " already integrates the group " + fix->group() + "; unfix it first");
  }
  fix_state_restored_ = false;
  if (const auto saved = fix_states_.find(id);
      saved != fix_states_.end() && saved->second.style == fix->style()) {
    fix->restore_state(saved->second.state, what + " (its state in the restart file)");
    fix_states_.erase(saved);
    fix_state_restored_ = true;
  }
  if (start_atoms)
    runtime_.superstep("md.fix_start_atoms", [&](Tile& t) {
      FixTile view = fix_view(t, step_);
      fix->start_atoms(view);
    });
  for (auto& existing : fixes_)
    if (existing->id() == id) {
      existing->release(*this);
      existing = std::move(fix);
      return;
    }
  fixes_.push_back(std::move(fix));
}

void Simulation::unfix(const std::string& id) {
  changed();
  for (auto it = fixes_.begin(); it != fixes_.end(); ++it)
    if ((*it)->id() == id) {
      (*it)->release(*this);
      fixes_.erase(it);
      return;
    }
  throw ConfigError("unfix " + id + ": no fix with this ID");
}

void Simulation::add_compute(std::unique_ptr<Compute> compute) {
  const std::string what = "compute " + compute->id() + " " + compute->style();
  if (find_compute(compute->id()))
    throw ConfigError(what + ": compute ID " + compute->id() +
                      " is in use; uncompute it first or choose another ID");
  const int bit = group_bit(compute->group());
  if (bit < 0)
    throw ConfigError(what + ": there is no group " + compute->group() + "; define it with group");
  compute->set_group_bit(bit);
  // The next run sets up with the per-atom tallies on.
  if (compute->needs_per_atom_tally() && !tally_wanted_) changed();
  computes_.push_back(std::move(compute));
}

void Simulation::uncompute(const std::string& id) {
  for (auto it = computes_.begin(); it != computes_.end(); ++it)
    if ((*it)->id() == id) {
      (*it)->release(*this);
      computes_.erase(it);
      return;
    }
  throw ConfigError("uncompute " + id + ": no compute with this ID");
}

Compute* Simulation::find_compute(const std::string& id) {
  for (auto& c : computes_)
    if (c->id() == id) return c.get();
  return nullptr;
}

int Simulation::add_per_atom(std::size_t width) {
  const int handle = next_per_atom_handle_++;
  const std::size_t old = per_atom_width_;
  per_atom_.push_back({handle, width});
  relayout_per_atom(old, old, 0, width);
  return handle;
}

void Simulation::remove_per_atom(int handle) {
  const std::size_t at = per_atom_offset(handle);
  std::size_t width = 0;
  for (auto it = per_atom_.begin(); it != per_atom_.end(); ++it)
    if (it->first == handle) {
      width = it->second;
      per_atom_.erase(it);
      break;
    }
  relayout_per_atom(per_atom_width_, at, width, 0);
}

void Simulation::add_custom_property(const std::string& name, const CustomProperty& property) {
  if (!custom_properties_.emplace(name, property).second)
    throw ConfigError("the custom per-atom property '" + name +
                      "' exists already (fix property/atom names must differ)");
}

void Simulation::remove_custom_property(const std::string& name) { custom_properties_.erase(name); }

const Simulation::CustomProperty* Simulation::custom_property(const std::string& name) const {
  const auto it = custom_properties_.find(name);
  return it == custom_properties_.end() ? nullptr : &it->second;
}

std::optional<Simulation::CustomReference> Simulation::custom_reference(
    const std::string& word, const std::string& where) const {
  const bool two = word.rfind("i2_", 0) == 0 || word.rfind("d2_", 0) == 0;
  if (!two && word.rfind("i_", 0) != 0 && word.rfind("d_", 0) != 0) return std::nullopt;
  CustomReference r;
  r.name = word.substr(two ? 3 : 2);
  r.integer = word[0] == 'i';
  if (two) {
    const auto open = r.name.find('[');
    const auto close = r.name.size() - 1;
    char* end = nullptr;
    const long k = open == std::string::npos || r.name[close] != ']'
                       ? 0
                       : std::strtol(r.name.c_str() + open + 1, &end, 10);
    if (k < 1 || end != r.name.c_str() + close)
      throw ConfigError(where + ": " + word + " needs its column as [K], K from 1");
    r.element = static_cast<std::size_t>(k - 1);
    r.name.resize(open);
  }
  const CustomProperty* p = custom_property(r.name);
  if (p == nullptr)
    throw ConfigError(where + ": there is no custom per-atom property '" + r.name +
                      "'; make it with fix property/atom");
  if (p->integer != r.integer || p->array != two)
    throw ConfigError(where + ": " + word + " does not match the property fix property/atom " +
                      "made (" + (p->integer ? "i" : "d") + (p->array ? "2_" : "_") + r.name + ")");
  if (r.element >= p->columns)
    throw ConfigError(where + ": " + word + " is past the property's " +
                      std::to_string(p->columns) + " columns");
  return r;
}

std::size_t Simulation::custom_column(const CustomReference& r, const std::string& where) const {
  const CustomProperty* p = custom_property(r.name);
  if (p == nullptr)
    throw ConfigError(where + ": the custom per-atom property '" + r.name +
                      "' is gone (its fix property/atom was unfixed)");
  return per_atom_offset(p->handle) + p->offset + r.element;
}

std::size_t Simulation::per_atom_offset(int handle) const {
  std::size_t offset = 0;
  for (const auto& [h, width] : per_atom_) {
    if (h == handle) return offset;
    offset += width;
  }
  throw std::logic_error("per_atom_offset: no such per-atom vectors");
}

// Columns [at, at + removed) of each atom's per-atom values give way to `added` zeros.
void Simulation::relayout_per_atom(std::size_t old_width, std::size_t at, std::size_t removed,
                                   std::size_t added) {
  const std::size_t width = old_width - removed + added;
  runtime_.superstep("md.per_atom_vectors", [&](Tile& t) {
    TileAtoms& s = state(t);
    const auto n = static_cast<std::size_t>(s.nlocal);
    std::vector<double> values(width * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      const double* from = s.extra.data() + old_width * i;
      double* to = values.data() + width * i;
      std::copy(from, from + at, to);
      std::copy(from + at + removed, from + old_width, to + at + added);
    }
    s.extra.assign(values.begin(), values.end());
  });
  per_atom_width_ = width;
}

std::vector<double> Simulation::reduce_atoms(
    std::string_view name, ReduceOp op, std::size_t count,
    const std::function<void(const AtomsView&, std::span<double>)>& fill) {
  apply_pending_scale();
  return runtime_.all_reduce<double>(name, op, count, [&](Tile& t, std::span<double> out) {
    std::fill(out.begin(), out.end(), 0.0);
    fill(atoms_view(t), out);
  });
}

std::vector<double> Simulation::gather_atoms(
    std::string_view name, std::size_t count,
    const std::function<void(const AtomsView&, std::span<double>)>& fill) {
  apply_pending_scale();
  return runtime_.gather<double>(name, count, [&](Tile& t, std::span<double> out) {
    std::fill(out.begin(), out.end(), 0.0);
    fill(atoms_view(t), out);
  });
}

void Simulation::store_per_atom(
    std::string_view name, std::size_t column,
    const std::function<void(const AtomsView&, std::span<double>)>& fill) {
  apply_pending_scale();
  runtime_.superstep(name, [&](Tile& t) {
    TileAtoms& s = state(t);
    std::vector<double> values(static_cast<std::size_t>(s.nlocal));
    fill(atoms_view(t), values);
    for (std::size_t i = 0; i < values.size(); ++i)
      s.extra[per_atom_width_ * i + column] = values[i];
  });
}

std::vector<double> Simulation::reduce_pairs(
    std::string_view name, std::size_t count,
    const std::function<void(const PairsView&, std::span<double>)>& fill, double full_cutoff) {
  if (force_cutoff_ <= 0)
    throw ConfigError(
        std::string(name) +
        ": there are no neighbor lists before a run; evaluate it during or after one");
  apply_pending_scale();
  const bool pair_full = pair_ && pair_->full_list();
  return runtime_.all_reduce<double>(
      name, ReduceOp::sum, count, [&](Tile& t, std::span<double> out) {
        std::fill(out.begin(), out.end(), 0.0);
        TileAtoms& s = state(t);
        NeighborList* list = &s.pairs;
        if (full_cutoff > 0 && !pair_full) {
          list = &s.occasional;
          build_neighbor_list(t, true, full_cutoff, *list);
        }
        PairsView view;
        view.nlocal = s.nlocal;
        view.x = t.get(x_);
        view.type = t.get(type_);
        view.mask =
            std::span<const std::uint32_t>(s.mask.data(), static_cast<std::size_t>(s.nlocal));
        view.begin = std::span<const int>(list->begin.data(), list->begin.size());
        view.list = std::span<const int>(list->list.data(), list->list.size());
        view.full = full_cutoff > 0 || pair_full;
        view.tile = t.id();
        view.id = std::span<const std::int64_t>(s.id.data(), static_cast<std::size_t>(s.nlocal));
        view.ghost_id = t.get(ghost_tag_);
        if (!list->special_list.empty()) {
          view.special_begin =
              std::span<const int>(list->special_begin.data(), list->special_begin.size());
          view.special_list =
              std::span<const int>(list->special_list.data(), list->special_list.size());
          view.special = &special_;
        }
        fill(view, out);
      });
}

AtomsView Simulation::atoms_view(Tile& t) {
  TileAtoms& s = state(t);
  const auto n = static_cast<std::size_t>(s.nlocal);
  AtomsView view(t);
  view.nlocal = s.nlocal;
  view.x = t.get(x_).subspan(0, 3 * n);
  view.v = std::span<const double>(s.v.data(), 3 * n);
  view.f = std::span<const double>(s.f.data(), std::min(s.f.size(), 3 * n));
  view.type = t.get(type_).subspan(0, n);
  if (charged()) view.q = t.get(q_).subspan(0, n);
  view.image = std::span<const std::int32_t>(s.image.data(), 3 * n);
  view.id = std::span<const std::int64_t>(s.id.data(), n);
  view.mask = std::span<const std::uint32_t>(s.mask.data(), n);
  view.mass = std::span<const double>(mass_.data(), mass_.size());
  view.units = &units_;
  view.box = &box_;
  view.boundary = &boundary_;
  view.per_atom = std::span<const double>(s.extra.data(), per_atom_width_ * n);
  view.per_atom_width = per_atom_width_;
  if (per_atom_tallied()) {
    view.eatom = std::span<const double>(s.eatom.data(), n);
    view.vatom = std::span<const double>(s.vatom.data(), 6 * n);
  }
  return view;
}

int Simulation::group_bit(const std::string& name) const {
  for (std::size_t k = 0; k < groups_.size(); ++k)
    if (groups_[k] == name) return static_cast<int>(k);
  return -1;
}

std::int64_t Simulation::add_to_group(const std::string& name,
                                      const std::function<bool(const GroupAtom&)>& select) {
  changed();
  int bit = group_bit(name);
  if (bit < 0) {
    if (groups_.size() >= 32)
      throw ConfigError("group " + name + ": there are 32 groups already, the most there can be");
    groups_.push_back(name);
    bit = static_cast<int>(groups_.size()) - 1;
  }
  const std::uint32_t flag = 1u << bit;
  runtime_.superstep("md.group", [&](Tile& t) {
    TileAtoms& s = state(t);
    const auto x = t.get(x_);
    const auto type = t.get(type_);
    for (std::size_t i = 0; i < static_cast<std::size_t>(s.nlocal); ++i) {
      const GroupAtom a{s.id[i], type[i], {x[3 * i], x[3 * i + 1], x[3 * i + 2]}, s.mask[i]};
      if (select(a)) s.mask[i] |= flag;
    }
  });
  return static_cast<std::int64_t>(
      runtime_.all_reduce<double>("md.group_count", ReduceOp::sum, [&](Tile& t) {
        const TileAtoms& s = state(t);
        double n = 0;
        for (std::size_t i = 0; i < static_cast<std::size_t>(s.nlocal); ++i)
          n += (s.mask[i] & flag) ? 1.0 : 0.0;
        return n;
      }));
}

bool Simulation::wrap_position(std::span<double> x, std::span<std::int32_t> image) const {
  int counts[3] = {image[0], image[1], image[2]};
  double at[3] = {x[0], x[1], x[2]};
  if (!domain_.wrap(at, counts)) return false;
  for (std::size_t d = 0; d < 3; ++d) x[d] = at[d], image[d] = counts[d];
  return true;
}

std::int64_t Simulation::change_atoms(const std::function<bool(const GroupAtom&)>& select,
                                      const std::function<bool(AtomChange&)>& change,
                                      const std::vector<AtomValues>& sources) {
  tally_step_ = -1;  // the atoms' per-atom tallies no longer fit them
  changed();
  apply_pending_scale();  // the velocities changed are those of now
  const auto counts = runtime_.all_reduce<double>("md.set", ReduceOp::sum, [&](Tile& t) {
    TileAtoms& s = state(t);
    const auto nlocal = static_cast<std::size_t>(s.nlocal);
    // Every source over the tile's atoms before any changes (atom i's values at [i * count]).
    const std::size_t count = sources.size();
    std::vector<double> values(count * nlocal);
    if (count > 0) {
      const AtomsView view = atoms_view(t);
      std::vector<double> column(nlocal);
      for (std::size_t k = 0; k < count; ++k) {
        sources[k](view, column);
        for (std::size_t i = 0; i < nlocal; ++i) values[i * count + k] = column[i];
      }
    }
    auto x = t.get(x_);
    auto type = t.get(type_);
    auto q = t.get(q_);
    const std::size_t w = per_atom_width_;
    double n = 0;
    for (std::size_t i = 0; i < nlocal; ++i) {
      const GroupAtom a{s.id[i], type[i], {x[3 * i], x[3 * i + 1], x[3 * i + 2]}, s.mask[i]};
      if (!select(a)) continue;
      AtomChange c{s.id[i],
                   type[i],
                   x.subspan(3 * i, 3),
                   std::span<double>(s.v.data() + 3 * i, 3),
                   s.mask[i],
                   std::span<std::int32_t>(s.image.data() + 3 * i, 3),
                   charged() ? q.subspan(i, 1) : std::span<double>(),
                   std::span<double>(s.extra.data() + w * i, w),
                   std::span<const double>(values.data() + count * i, count)};
      n += change(c) ? 1.0 : 0.0;
    }
    return n;
  });
  return static_cast<std::int64_t>(counts);
}

// The tile's own atoms but those marked, in order (ghosts dropped until the next rebuild).
void Simulation::keep_atoms(Tile& t, const std::vector<bool>& leaves) {
  TileAtoms& s = state(t);
  auto x = t.get(x_);
  auto type = t.get(type_);
  auto q = t.get(q_);
  const bool charges = charged();
  const std::size_t w = per_atom_width_;
  std::size_t keep = 0;
  for (std::size_t u = 0; u < static_cast<std::size_t>(s.nlocal); ++u) {
    if (leaves[u]) continue;
    for (std::size_t d = 0; d < 3; ++d) {
      x[3 * keep + d] = x[3 * u + d];
      s.v[3 * keep + d] = s.v[3 * u + d];
      s.image[3 * keep + d] = s.image[3 * u + d];
    }
    type[keep] = type[u];
    if (charges) q[keep] = q[u];
    s.id[keep] = s.id[u];
    s.noise[keep] = s.noise[u];
    s.mask[keep] = s.mask[u];
    for (std::size_t c = 0; c < w; ++c) s.extra[w * keep + c] = s.extra[w * u + c];
    ++keep;
  }
  s.nlocal = static_cast<int>(keep);
  s.nghost = 0;
  t.resize(x_, 3 * keep);
  t.resize(type_, keep);
  if (charges) t.resize(q_, keep);
  s.v.resize(3 * keep), s.image.resize(3 * keep), s.id.resize(keep), s.noise.resize(keep);
  s.mask.resize(keep), s.extra.resize(w * keep);
}

std::int64_t Simulation::delete_atoms(const std::function<bool(const GroupAtom&)>& select,
                                      bool compress) {
  tally_step_ = -1;  // the atoms' per-atom tallies no longer fit them
  changed();
  apply_pending_scale();
  const std::int64_t ids_before = max_id_;
  // 1. Each tile keeps the atoms not selected, in order, and counts the others.
  std::vector<std::vector<std::int64_t>> gone(tiles_.size());
  const auto removed = runtime_.gather<int>("md.delete_atoms", [&](Tile& t) {
    TileAtoms& s = state(t);
    auto x = t.get(x_);
    auto type = t.get(type_);
    auto& mine = gone[static_cast<std::size_t>(t.id() - runtime_.first_tile())];
    std::vector<bool> leaves(static_cast<std::size_t>(s.nlocal), false);
    for (std::size_t u = 0; u < leaves.size(); ++u) {
      const GroupAtom a{s.id[u], type[u], {x[3 * u], x[3 * u + 1], x[3 * u + 2]}, s.mask[u]};
      if (select(a)) leaves[u] = true, mine.push_back(s.id[u]);
    }
    keep_atoms(t, leaves);
    return static_cast<int>(mine.size());
  });
  std::int64_t total = 0;
  int most = 0;
  for (const int n : removed) total += n, most = std::max(most, n);
  natoms_ -= total;
  if (!compress || total == 0) return total;
  // 2. Every rank learns the deleted ids (padded to the longest tile's list), then each atom's
  //    new id is its old one less the deleted ids below it.
  const auto all = runtime_.gather<std::int64_t>(
      "md.deleted_ids", static_cast<std::size_t>(most), [&](Tile& t, std::span<std::int64_t> out) {
        const auto& mine = gone[static_cast<std::size_t>(t.id() - runtime_.first_tile())];
        std::fill(out.begin(), out.end(), std::int64_t{0});
        std::copy(mine.begin(), mine.end(), out.begin());
      });
  std::vector<std::int64_t> deleted;
  for (const auto id : all)
    if (id > 0) deleted.push_back(id);
  std::sort(deleted.begin(), deleted.end());
  if (ids_before == natoms_ + total) {
    // Ids were 1..N: number the rest as LAMMPS's DeleteAtoms and tag_extend do on one
    // processor, whose atoms are stored in id order when they have just been numbered: each
    // deleted atom's slot takes the last atom, then the atoms are numbered in slot order.
    std::vector<std::int64_t> slots(static_cast<std::size_t>(ids_before));
    for (std::size_t k = 0; k < slots.size(); ++k) slots[k] = static_cast<std::int64_t>(k) + 1;
    std::size_t n = slots.size(), k = 0;
    while (k < n) {
      if (std::binary_search(deleted.begin(), deleted.end(), slots[k]))
        slots[k] = slots[--n];
      else
        ++k;
    }
    std::vector<std::int64_t> renumber(slots.size() + 1, 0);
    for (std::size_t j = 0; j < n; ++j)
      renumber[static_cast<std::size_t>(slots[j])] = static_cast<std::int64_t>(j) + 1;
    runtime_.superstep("md.compress_ids", [&](Tile& t) {
      for (auto& id : state(t).id) id = renumber[static_cast<std::size_t>(id)];
    });
  } else {
    // Ids with gaps: the rest keep their order.
    runtime_.superstep("md.compress_ids", [&](Tile& t) {
      for (auto& id : state(t).id)
        id -= static_cast<std::int64_t>(std::lower_bound(deleted.begin(), deleted.end(), id) -
                                        deleted.begin());
    });
  }
  max_id_ = static_cast<std::int64_t>(
      runtime_.all_reduce<double>("md.max_id", ReduceOp::max, [&](Tile& t) {
        double most_id = 0;
        for (const auto id : state(t).id) most_id = std::max(most_id, static_cast<double>(id));
        return most_id;
      }));
  return total;
}

void Simulation::clear_group(const std::string& name) {
  changed();
  const int bit = group_bit(name);
  if (bit < 0) throw ConfigError("group " + name + ": there is no such group");
  if (bit == 0) throw ConfigError("group all cannot be cleared");
  const std::uint32_t keep = ~(1u << bit);
  runtime_.superstep("md.group_clear", [&](Tile& t) {
    for (auto& m : state(t).mask) m &= keep;
  });
}

void Simulation::delete_group(const std::string& name) {
  for (const auto& fix : fixes_)
    if (fix->group() == name)
      throw ConfigError("group " + name + " delete: fix " + fix->id() +
                        " acts on it; unfix it first");
  for (const auto& compute : computes_)
    if (compute->group() == name)
      throw ConfigError("group " + name + " delete: compute " + compute->id() +
                        " acts on it; uncompute it first");
  for (const auto& [g1, g2] : neighbor_.exclude_groups)
    if (groups_[static_cast<std::size_t>(g1)] == name ||
        groups_[static_cast<std::size_t>(g2)] == name)
      throw ConfigError("group " + name +
                        " delete: neigh_modify exclude group uses it; use "
                        "neigh_modify exclude none first");
  clear_group(name);
  // The bit stays taken (atoms' masks keep their layout); the name is free for a new group.
  groups_[static_cast<std::size_t>(group_bit(name))] = "";
}

bool Simulation::integrated() const {
  for (const auto& f : fixes_)
    if (f->integrates()) return true;
  return false;
}

FixTile Simulation::fix_view(Tile& t, std::int64_t step) {
  TileAtoms& s = state(t);
  FixTile view(t, step);
  view.ramp = ramp_at(step);
  view.dt = dt_;
  view.units = &units_;
  view.nlocal = s.nlocal;
  const auto n = static_cast<std::size_t>(s.nlocal);
  view.x = t.get(x_).subspan(0, 3 * n);
  view.v = std::span<double>(s.v.data(), 3 * n);
  view.f = std::span<double>(s.f.data(), std::min(s.f.size(), 3 * n));
  view.type = t.get(type_).subspan(0, n);
  view.id = std::span<const std::int64_t>(s.id.data(), n);
  view.noise = std::span<std::uint32_t>(s.noise.data(), n);
  view.mask = std::span<const std::uint32_t>(s.mask.data(), n);
  view.mass = std::span<const double>(mass_.data(), mass_.size());
  view.image = std::span<const std::int32_t>(s.image.data(), 3 * n);
  view.per_atom = std::span<double>(s.extra.data(), per_atom_width_ * n);
  view.per_atom_width = per_atom_width_;
  view.setup = setting_up_;
  if (constrained()) {
    const auto ghosts = static_cast<std::size_t>(s.nghost);
    view.nghost = s.nghost;
    view.ghost_x = t.get(x_).subspan(3 * n, 3 * ghosts);
    view.ghost_type = t.get(type_).subspan(n, ghosts);
    view.ghost_id = t.get(ghost_tag_);
    view.ghost_predicted = t.get(ghost_predicted_);
    view.predicted = std::span<const double>(s.predicted.data(), s.predicted.size());
    view.builds = static_cast<std::uint64_t>(builds_);
  }
  return view;
}

double Simulation::ramp_at(std::int64_t step) const {
  if (run_end_ <= run_begin_) return 0.0;
  return static_cast<double>(step - run_begin_) / static_cast<double>(run_end_ - run_begin_);
}

double Simulation::ramp_fraction() const { return ramp_at(step_); }

// ---- thermodynamics ----------------------------------------------------------------------

double Simulation::temperature(double ke) const {
  const double dof_value = dof();
  return dof_value > 0 ? 2.0 * ke / (dof_value * units_.boltz) : 0.0;
}

// LAMMPS's compute pressure: (dof kB T + the virial's trace) / (dimension * volume), over the
// xx and yy components and the area in 2-d.
double Simulation::pressure(const Thermo& t) const {
  const auto w = t.total_virial();
  if (dimension_ == 2) return (2.0 * t.ke + w[0] + w[1]) / 2.0 / volume() * units_.nktv2p;
  return (2.0 * t.ke + w[0] + w[1] + w[2]) / 3.0 / box_.volume() * units_.nktv2p;
}

void Simulation::set_dimension(int dimension) {
  changed();
  if (has_box())
    throw ConfigError(
        "dimension: the simulation box is already defined; put "
        "dimension before it is created (create_box or read_data)");
  if (dimension != 2 && dimension != 3) throw ConfigError("dimension: use 2 or 3");
  dimension_ = dimension;
}

double Simulation::temperature_now() {
  const double ke = runtime_.all_reduce<double>("md.kinetic_energy", ReduceOp::sum, [&](Tile& t) {
    TileAtoms& s = state(t);
    const auto type = t.get(type_);
    double sum = 0;
    for (std::size_t u = 0; u < static_cast<std::size_t>(s.nlocal); ++u) {
      const double* v = &s.v[3 * u];
      sum += mass_[static_cast<std::size_t>(type[u])] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    return 0.5 * units_.mvv2e * sum;
  });
  return temperature(ke);
}

double Simulation::step_temperature() {
  // The kinetic energy each tile summed after its second half-kick.
  return temperature(runtime_.all_reduce<double>("md.kinetic_energy", ReduceOp::sum,
                                                 [&](Tile& t) { return state(t).ke; }));
}

Thermo Simulation::thermo() {
  const auto sums = runtime_.all_reduce<double>(
      "md.thermo", ReduceOp::sum, 22 + 7 * term_kinds, [&](Tile& t, std::span<double> out) {
        TileAtoms& s = state(t);
        out[0] = s.ke;
        out[1] = s.pe;
        out[20] = s.evdwl;
        out[21] = s.ecoul;
        for (std::size_t kind = 0; kind < term_kinds; ++kind) {
          out[22 + 7 * kind] = s.bonded_energy[kind];
          for (std::size_t k = 0; k < 6; ++k) out[23 + 7 * kind + k] = s.bonded_virial[kind][k];
        }
        for (const auto& fix : fixes_) {
          if (minimizing_ && !fix->acts_in_minimize()) continue;
          if (fix->energy_in_pe()) out[1] += fix->tile_energy(t);
          if (fix->virial_in_pressure()) {
            const auto w = fix->tile_virial(t);
            for (std::size_t k = 0; k < 6; ++k) out[14 + k] += w[k];
          }
        }
        for (std::size_t k = 0; k < 6; ++k) out[2 + k] = s.virial[k], out[8 + k] = s.ke_tensor[k];
      });
  // Velocities may still owe the thermostat's last scaling (applied lazily).
  const double scale2 = pending_scale_ * pending_scale_;
  Thermo th;
  th.ke = sums[0] * scale2;
  th.pe = sums[1];
  th.evdwl = sums[20];
  th.ecoul = sums[21];
  for (std::size_t kind = 0; kind < term_kinds; ++kind) {
    th.bonded_energy[kind] = sums[22 + 7 * kind];
    for (std::size_t k = 0; k < 6; ++k) th.bonded_virial[kind][k] = sums[23 + 7 * kind + k];
  }
  for (std::size_t k = 0; k < 6; ++k)
    th.virial[k] = sums[2 + k], th.ke_tensor[k] = sums[8 + k] * scale2,
    th.fix_virial[k] = sums[14 + k];
  if (kspace_) {
    th.elong = kspace_energy_;
    th.pe += kspace_energy_;
    for (std::size_t k = 0; k < 6; ++k) th.virial[k] += kspace_virial_[k];
    th.kspace_virial = kspace_virial_;
  }
  if (tail_) {  // over the volume now, as LAMMPS's compute pe and pressure add it
    const double volume = box_.volume();
    th.pe += (*tail_)[0] / volume;
    th.evdwl += (*tail_)[0] / volume;
    for (std::size_t k = 0; k < 3; ++k) th.virial[k] += (*tail_)[1] / volume;
  }
  th.natoms = natoms_;
  bool finite = std::isfinite(th.ke) && std::isfinite(th.pe);
  for (std::size_t k = 0; k < 6; ++k)
    finite = finite && std::isfinite(th.virial[k]) && std::isfinite(th.ke_tensor[k]) &&
             std::isfinite(th.fix_virial[k]);
  if (!finite) report_non_finite("the thermodynamic output");
  return th;
}

// Every rank reduces the same values, so the error is collective.
void Simulation::report_non_finite(const std::string& what) {
  const double bad_id = runtime_.all_reduce<double>("md.non_finite", ReduceOp::min, [&](Tile& t) {
    TileAtoms& s = state(t);
    const auto x = t.get(x_);
    const auto type = t.get(type_);
    double first = std::numeric_limits<double>::infinity();
    for (std::size_t u = 0; u < static_cast<std::size_t>(s.nlocal); ++u) {
      const double m = mass_[static_cast<std::size_t>(type[u])];
      bool ok = true;
      for (std::size_t d = 0; d < 3; ++d) {
        const double f = 3 * u + d < s.f.size() ? s.f[3 * u + d] : 0.0;
        ok = ok && std::isfinite(x[3 * u + d]) && std::isfinite(s.v[3 * u + d]) &&
             std::isfinite(f) && std::isfinite(units_.mvv2e * m * s.v[3 * u + d] * s.v[3 * u + d]);
      }
      if (!ok) first = std::min(first, static_cast<double>(s.id[u]));
    }
    return first;
  });
  std::string message = what + " is not finite at step " + std::to_string(step_);
  if (std::isfinite(bad_id))
    message += ": atom " + fmt_id(static_cast<std::int64_t>(bad_id)) +
               " is the first whose position, velocity, force or kinetic energy is not finite";
  message +=
      "; the system blew up, or a mass or velocity is too large; check the input, or reduce the "
      "timestep";
  Error e(message);
  e.set_collective();
  throw e;
}

void Simulation::apply_pending_scale() {
  if (pending_scale_ == 1.0) return;
  const double factor = pending_scale_;
  runtime_.superstep("md.velocity_scale_pending", [&](Tile& t) {
    TileAtoms& s = state(t);
    for (auto& value : s.v) value *= factor;
    // The kinetic sums of the step are those thermo reads at a continued run's first step.
    s.ke *= factor * factor;
    for (auto& k : s.ke_tensor) k *= factor * factor;
  });
  pending_scale_ = 1.0;
}

// ---- the run -----------------------------------------------------------------------------

void Simulation::setup_run() {
  require_box("run");
  if (natoms_ == 0)
    throw ConfigError("run: the system has no atoms; use create_atoms or read_data");
  for (int type = 1; type <= types_; ++type)
    if (!mass_set_[static_cast<std::size_t>(type)])
      throw ConfigError("run: no mass is set for atom type " + std::to_string(type) +
                        "; add a mass command");
  if (!pair_) throw ConfigError("run: no pair style is defined; add pair_style lj/cut RC");
  if (pair_->needs_charges() && !charged())
    throw ConfigError("run: pair style " + pair_->style() +
                      " requires atom attribute q; use atom_style charge before the box");
  // A restart file's fix states go to fixes defined before the first run only (LAMMPS's
  // Modify::init discards them).
  fix_states_.clear();
  pair_->set_dielectric(dielectric_);
  init_kspace();
  const double cutoff = pair_->init(types_, tiles_.size());
  // Every tile holds the style's tables, as an IPU program would.
  const std::size_t table_bytes = pair_->replicated_bytes();
  runtime_.superstep("md.pair_tables", [&](Tile& t) { state(t).pair_tables.set(table_bytes); });
  // The tail correction's constants from the atoms each type has now (LAMMPS's init_one).
  const auto type_counts =
      reduce_atoms("md.type_counts", ReduceOp::sum, static_cast<std::size_t>(types_ + 1),
                   [](const AtomsView& a, std::span<double> out) {
                     for (std::size_t i = 0; i < a.id.size(); ++i)
                       out[static_cast<std::size_t>(a.type[i])] += 1;
                   });
  tail_ = pair_->tail_correction(type_counts);
  init_topology();
  tally_wanted_ = false;
  for (const auto& c : computes_)
    if (c->needs_per_atom_tally()) {
      if (!pair_->tallies_per_atom())
        throw ConfigError("run: compute " + c->id() + " " + c->style() +
                          " needs per-atom energies and virials, which pair style " +
                          pair_->style() + " does not compute");
      tally_wanted_ = true;
    }
  if (!(neighbor_.skin >= 0) || !std::isfinite(neighbor_.skin))
    throw ConfigError("neighbor: the skin must be finite and not negative");
  // neighbor() is writable by library callers: every = 0 would divide by zero in the loop.
  if (neighbor_.every < 1 || neighbor_.delay < 0)
    throw ConfigError("neigh_modify: every must be at least 1 and delay not negative");
  const double ghost_cutoff = cutoff + neighbor_.skin;
  for (int d = 0; d < dimension_; ++d)
    if (boundary_.periodic(static_cast<std::size_t>(d)) && box_.length(d) <= ghost_cutoff)
      throw ConfigError("run: the box (" + std::to_string(box_.length(d)) +
                        ") is not longer than the cutoff plus skin (" +
                        std::to_string(ghost_cutoff) + ") in dimension " + "xyz"[d] +
                        "; use a larger box or a shorter cutoff");
  ghost_cutoff_ = ghost_cutoff;
  force_cutoff_ = cutoff;
  domain_ = Domain(box_, runtime_.target().total_tiles(), ghost_cutoff, dimension_, periodicity());
  if (kspace_) kspace_->prepare(runtime_, domain_, neighbor_.skin);
  apply_pending_scale();
  for (auto& fix : fixes_)
    if (!minimizing_ || fix->acts_in_minimize()) fix->init(*this);
  fix_dof_ = 0;
  for (auto& fix : fixes_)
    if (!minimizing_ || fix->acts_in_minimize()) fix_dof_ += fix->dof_removed(*this, 1u);
  rebuild(true);
  setting_up_ = true;
  try {
    force_and_integrate_second(true, /*integrate=*/false, /*energy_virial=*/true,
                               /*defer=*/false);
  } catch (...) {
    setting_up_ = false;
    throw;
  }
  setting_up_ = false;
  pair_->end_of_step(runtime_, step_, natoms_);
  // Computes before fixes: a thermostat's setup reads its temperature's degrees of freedom.
  for (auto& c : computes_) c->setup(*this);
  for (auto& fix : fixes_)
    if (!minimizing_ || fix->acts_in_minimize()) fix->setup(*this);
}

void Simulation::init_topology() {
  special_pair_.fill(SpecialPair::ordinary);
  if (!molecular()) return;
  // As LAMMPS's Force::init, a style missing for topology the atoms have is a warning, and those
  // terms are left out.
  std::vector<double> counts(term_kinds, 0.0);
  if (topology_handle_ != 0) {
    const std::size_t at = per_atom_offset(topology_handle_);
    counts = reduce_atoms("md.topology_counts", ReduceOp::sum, term_kinds,
                          [&](const AtomsView& a, std::span<double> out) {
                            for (std::size_t i = 0; i < a.id.size(); ++i) {
                              const auto row =
                                  a.per_atom.subspan(i * a.per_atom_width + at, topology_.width());
                              for (const TermKind kind : all_term_kinds)
                                out[static_cast<std::size_t>(kind)] +=
                                    static_cast<double>(topology_.count(row, kind));
                            }
                          });
  }
  std::as_const(*this).for_each_bonded_style([&](const auto* style, TermKind kind) {
    if (counts[static_cast<std::size_t>(kind)] > 0 && !style)
      log(std::string("WARNING: ") + info(kind).section + " are defined but no " + info(kind).name +
          " style is set\n");
  });
  const auto setup = [&](TermKind kind) {
    return BondedSetup{topology_types(kind), pair_.get(), special_};
  };
  if (bond_) bond_->init(setup(TermKind::bond));
  if (angle_) angle_->init(setup(TermKind::angle));
  if (dihedral_) dihedral_->init(setup(TermKind::dihedral));
  if (improper_) improper_->init(setup(TermKind::improper));
  // LAMMPS's Neighbor::init: special pairs of weights 0 and 0 are left out and of 1 and 1 kept,
  // unless a kspace style needs them listed to take the excluded Coulomb part out (special_flag
  // 2); the others are listed with their weights, which LAMMPS's many-body styles ignore.
  const Pair::SpecialWeights weighs = pair_->special_weights();
  for (std::size_t level = 1; level <= 3; ++level) {
    const double lj = special_.lj[level], coul = special_.coul[level];
    SpecialPair& mode = special_pair_[level];
    if (lj == 1.0 && coul == 1.0)
      mode = SpecialPair::ordinary;
    else if (!kspace_ && lj == 0.0 && coul == 0.0)
      mode = SpecialPair::dropped;
    else if (weighs == Pair::SpecialWeights::weighed)
      mode = SpecialPair::weighted;
    else if (weighs == Pair::SpecialWeights::refused && topology_.specials > 0)
      throw ConfigError("run: pair style " + pair_->style() +
                        " cannot weigh special_bonds pairs yet: give special_bonds weights of 0 " +
                        "or 1 (1-" + std::to_string(level + 1) + " neighbors have lj " +
                        fmt_double(lj) + " and coul " + fmt_double(coul) +
                        (kspace_ ? ", and a kspace style needs them weighed)" : ")"));
    else
      mode = SpecialPair::ordinary;
  }
}

void Simulation::evaluate_snapshot() {
  const Running running(running_);  // in_run() while the computes are evaluated
  changed();
  setup_run();
  for (auto& fix : fixes_)
    if (step_ % fix->end_of_step_every() == 0) fix->end_of_step(*this);
}

void Simulation::begin_minimize() {
  saved_neighbor_ = neighbor_;
  neighbor_.every = 1, neighbor_.delay = 0, neighbor_.check = true;
  for (const auto& fix : fixes_)
    if (fix->constrains())
      throw ConfigError("fix " + fix->id() + " " + fix->style() +
                        " cannot be used with minimization (as LAMMPS's: its constraints turn "
                        "off bonds that count in the energy); unfix it first");
  minimizing_ = true;
  try {
    setup_run();
  } catch (...) {
    end_minimize();
    throw;
  }
  // The builds are counted from here, as LAMMPS's Min::setup resets them.
  builds_at_run_start_ = builds_;
  dangerous_at_run_start_ = dangerous_;
}

void Simulation::end_minimize() {
  neighbor_ = saved_neighbor_;
  minimizing_ = false;
  changed();  // the next run sets up anew
}

Simulation::MinEnergy Simulation::min_energy_force(const std::function<void(FixTile&)>& move) {
  runtime_.superstep("md.min_move", [&](Tile& t) {
    TileAtoms& s = state(t);
    FixTile view = fix_view(t, step_);
    move(view);
    const auto x = t.get(x_);
    double moved = 0;
    for (std::size_t u = 0; neighbor_.check && u < static_cast<std::size_t>(s.nlocal); ++u) {
      const double dx = x[3 * u] - s.x_build[3 * u], dy = x[3 * u + 1] - s.x_build[3 * u + 1],
                   dz = x[3 * u + 2] - s.x_build[3 * u + 2];
      moved = std::max(moved, dx * dx + dy * dy + dz * dz);
    }
    s.max_displacement_sq = moved;
    t.charge(integrate_work, static_cast<std::uint64_t>(s.nlocal));
  });
  ++since_build_;
  const bool built = decide_rebuild();
  if (built)
    rebuild(false);
  else
    forward_ghosts();
  force_and_integrate_second(built, /*integrate=*/false, /*energy_virial=*/true, /*defer=*/false);
  pair_->end_of_step(runtime_, step_, natoms_);
  return {thermo().pe, built};
}

void Simulation::for_each_tile(std::string_view name, const std::function<void(FixTile&)>& fn) {
  runtime_.superstep(name, [&](Tile& t) {
    FixTile view = fix_view(t, step_);
    fn(view);
  });
}

void Simulation::observe(bool first, bool last) {
  for (auto& o : observers_)
    if (first || last || (o->every() > 0 && step_ % o->every() == 0))
      o->observe(*this, first, last);
}

bool Simulation::rebuild_forced() const {
  for (const auto& fix : fixes_)
    if (fix->rebuilds_at(step_)) return true;
  return false;
}

bool Simulation::decide_rebuild() {
  if (rebuild_forced()) return true;
  // LAMMPS's Neighbor::decide: every `every` steps once `delay` steps have passed,
  // and, with check yes, only if some atom moved more than half the skin.
  if (!(since_build_ >= neighbor_.delay && since_build_ % neighbor_.every == 0)) return false;
  if (neighbor_.once) return false;
  if (!neighbor_.check) return true;
  const double moved = runtime_.all_reduce<double>(
      "md.neighbor_check", ReduceOp::max, [&](Tile& t) { return state(t).max_displacement_sq; });
  double trigger_sq = 0.25 * neighbor_.skin * neighbor_.skin;
  // When a fix may change the box (LAMMPS's boxcheck, with a periodic dimension), the skin is
  // reduced by how far the box's lower and upper corners moved since the lists were built.
  bool box_may_change = false;
  for (const auto& fix : fixes_) box_may_change = box_may_change || fix->changes_box();
  const auto periodic = periodicity();
  if (box_may_change && (periodic[0] || periodic[1] || (dimension_ == 3 && periodic[2]))) {
    double delta1 = 0, delta2 = 0;
    if (box_.triclinic || box_at_build_.triclinic) {
      // The two largest moves of the box's eight corners, found as LAMMPS finds them (its
      // `else if` keeps a corner that equals the largest out of the second place).
      const BoxMatrix now(box_), then(box_at_build_);
      for (int corner = 0; corner < 8; ++corner) {
        const double f[3] = {static_cast<double>(corner & 1),
                             static_cast<double>((corner >> 1) & 1),
                             static_cast<double>((corner >> 2) & 1)};
        double a[3], b[3];
        now.to_cartesian(f, a);
        then.to_cartesian(f, b);
        const double moved =
            std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                      (a[2] - b[2]) * (a[2] - b[2]));
        if (moved > delta1)
          delta1 = moved;
        else if (moved > delta2)
          delta2 = moved;
      }
    } else {
      double lo_sq = 0, hi_sq = 0;
      for (std::size_t d = 0; d < 3; ++d) {
        const double dlo = box_.lo[d] - box_at_build_.lo[d], dhi = box_.hi[d] - box_at_build_.hi[d];
        lo_sq += dlo * dlo, hi_sq += dhi * dhi;
      }
      delta1 = std::sqrt(lo_sq), delta2 = std::sqrt(hi_sq);
    }
    const double delta = std::max(0.0, 0.5 * (neighbor_.skin - (delta1 + delta2)));
    trigger_sq = delta * delta;
  }
  const bool build = moved > trigger_sq;
  if (build && since_build_ == std::max<std::int64_t>(neighbor_.every, neighbor_.delay))
    ++dangerous_;
  return build;
}

void Simulation::change_box(const Box& box) {
  if (kspace_ && in_run()) kspace_->box_changed(box);
  box_ = box;
  domain_.rescale(box);
  box_changed_ = true;
}

void Simulation::remap_atoms(bool migrate, const std::array<int, 3>& flips) {
  changed();
  const int m = flips[0], n = flips[1], p = flips[2];
  const BoxMatrix matrix(box_);
  const bool triclinic = box_.triclinic;
  runtime_.superstep("md.remap_atoms", [&](Tile& t) {
    TileAtoms& s = state(t);
    auto x = t.get(x_);
    for (std::size_t i = 0; i < static_cast<std::size_t>(s.nlocal); ++i) {
      int* image = &s.image[3 * i];
      image[1] -= p * image[2];
      image[0] -= m * image[1] + n * image[2];
      double* xi = &x[3 * i];
      if (triclinic) matrix.to_fraction(xi, xi);
      if (!domain_.wrap_rebuild(xi, image))
        throw Error("atom " + fmt_id(s.id[i]) +
                    " cannot be mapped into the box: its position is "
                    "not finite or too far away");
      for (std::size_t d = 0; d < 3; ++d) {
        if ((boundary_.face[d][0] == 'f' && xi[d] < domain_.lo_1d(d)) ||
            (boundary_.face[d][1] == 'f' && xi[d] >= domain_.hi_1d(d)))
          throw ConfigError("atom " + fmt_id(s.id[i]) + " is outside the box's fixed " + "xyz"[d] +
                            " faces after the box changed; LAMMPS would lose it");
      }
      if (triclinic) {
        matrix.to_cartesian(xi, xi);
        if (migrate) matrix.to_fraction(xi, xi), matrix.to_cartesian(xi, xi);
      }
    }
    t.charge(pack_work, static_cast<std::uint64_t>(s.nlocal));
  });
}

bool Simulation::change_boundary(const Boundary& boundary) {
  changed();
  if (dimension_ == 2 && !boundary.periodic(2))
    throw ConfigError("a 2-d simulation must be periodic in z");
  if (boundary.any_shrinks())
    throw ConfigError("md_ipu changes boundaries to p or f only (not s or m)");
  boundary_ = boundary;
  domain_ = Domain(box_, runtime_.target().total_tiles(), ghost_cutoff_, dimension_, periodicity());
  box_changed_ = true;
  const double reset =
      runtime_.all_reduce<double>("md.change_boundary", ReduceOp::sum, [&](Tile& t) {
        TileAtoms& s = state(t);
        double n = 0;
        for (std::size_t k = 0; k < s.image.size(); ++k)
          if (!boundary_.periodic(k % 3) && s.image[k] != 0) s.image[k] = 0, ++n;
        return n;
      });
  return reset > 0;
}

void Simulation::run(std::int64_t steps, const RunOptions& options) {
  if (steps < 0) throw ConfigError("run: the number of steps must not be negative");
  if (steps > std::numeric_limits<std::int64_t>::max() - step_)
    throw ConfigError("run: " + std::to_string(steps) + " steps from step " +
                      std::to_string(step_) + " would end beyond step " +
                      std::to_string(std::numeric_limits<std::int64_t>::max()) +
                      ", the largest a step can be; use reset_timestep with a smaller value");
  if (options.ramp_begin && *options.ramp_begin > step_)
    throw ConfigError("run: the start value " + std::to_string(*options.ramp_begin) +
                      " is after the run's first step " + std::to_string(step_));
  if (options.ramp_end && *options.ramp_end < step_ + steps)
    throw ConfigError("run: the stop value " + std::to_string(*options.ramp_end) +
                      " is before the run's last step " + std::to_string(step_ + steps));
  if (minimizing_) throw std::logic_error("run during a minimization");
  const auto wall_start = std::chrono::steady_clock::now();
  const Running running(running_);  // in_run() for the run's length, however it ends
  run_first_ = step_;
  run_begin_ = options.ramp_begin.value_or(step_);
  run_end_ = options.ramp_end.value_or(step_ + steps);
  stopped_by_ = 0;
  // Nothing changed since the last run ended: its lists, ghosts, forces (with the thermostat's)
  // and neighbor schedule are those a step after it would use, so carry on without a setup.
  // Anything else (a command between the runs, a restart file) sets up.
  const bool continuing = continuable_ && !options.setup;
  continuable_ = false;
  if (!continuing) {
    setup_run();
  } else {
    for (auto& c : computes_) c->setup(*this);
    for (auto& fix : fixes_) fix->continue_run(*this);
  }
  builds_at_run_start_ = builds_;
  dangerous_at_run_start_ = dangerous_;
  for (auto& o : observers_) o->observe(*this, true, steps == 0);
  std::int64_t done = 0;
  for (std::int64_t k = 0; k < steps; ++k, ++done) {
    ++step_;
    ++since_build_;
    const bool due = rebuild_forced() ||
                     (since_build_ >= neighbor_.delay && since_build_ % neighbor_.every == 0);
    // When no rebuild can happen this step, the ghost forward rides on the integration superstep.
    integrate_first(/*pack=*/!due);
    bool built = false;
    if (due) {
      built = decide_rebuild();
      if (built) {
        for (auto& fix : fixes_) fix->pre_exchange(*this);
        rebuild(false);
      } else {
        forward_ghosts();
      }
    }
    // A stop signal (collective: every rank sees the same) makes this step the run's last.
    stopped_by_ = stop_requested(runtime_.comm());
    const bool last = k + 1 == steps || stopped_by_ != 0;
    bool observed = last;
    for (auto& o : observers_) observed = observed || (o->every() > 0 && step_ % o->every() == 0);
    for (const auto& fix : fixes_)
      observed = observed || (fix->needs_energy() && step_ % fix->end_of_step_every() == 0);
    // The second half-kick waits for the next step's first superstep unless something looks
    // at the velocities first (observers, the thermostat, model deviation, the run's end).
    bool defer = !observed && !pair_->extra_due(step_) && !post_force_needs_sums();
    for (const auto& fix : fixes_)
      defer = defer && !(fix->needs_step_velocities() && step_ % fix->end_of_step_every() == 0);
    force_and_integrate_second(built, true, observed, defer);
    for (auto& fix : fixes_) fix->end_of_integrate(*this);
    pair_->end_of_step(runtime_, step_, natoms_);
    for (auto& fix : fixes_)
      if (step_ % fix->end_of_step_every() == 0) fix->end_of_step(*this);
    for (auto& o : observers_)
      if (last || (o->every() > 0 && step_ % o->every() == 0)) o->observe(*this, false, last);
    if (stopped_by_) {
      ++done;
      break;
    }
  }
  apply_pending_scale();
  continuable_ = true;
  last_run_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  last_run_steps_ = done;
}

void Simulation::integrate_first(bool pack) {
  // A fix's pre_integrate may read the velocities (reduce_atoms applies the pending scale).
  for (auto& fix : fixes_) fix->pre_integrate(*this);
  const double scale_before = pending_scale_;
  pending_scale_ = 1.0;
  const bool track = neighbor_.check;
  const Deferred finish = deferred_;
  deferred_.pending = false;
  // The step's start on a tile: the deferred end of the previous step, the pending scale.
  const auto begin = [&](Tile& t) {
    if (finish.pending)
      finish_step(t, finish.step, /*integrate=*/true, /*extra=*/false, /*kinetic=*/false);
    if (scale_before != 1.0) {
      TileAtoms& s = state(t);
      for (std::size_t k = 0; k < 3 * static_cast<std::size_t>(s.nlocal); ++k)
        s.v[k] *= scale_before;
    }
  };
  // A fix whose initial_integrate needs sums over every tile (fix recenter) splits the
  // superstep: the fixes before it integrate and its sums are reduced, then it and the next act.
  std::size_t first = 0;
  bool begun = false;
  for (std::size_t k = 0; k < fixes_.size(); ++k) {
    Fix& fix = *fixes_[k];
    const std::size_t n = fix.initial_integrate_sums();
    if (n == 0) continue;
    const auto sums = runtime_.all_reduce<double>("md.initial_integrate_sums", ReduceOp::sum, n,
                                                  [&](Tile& t, std::span<double> out) {
                                                    if (!begun) begin(t);
                                                    FixTile view = fix_view(t, step_);
                                                    for (std::size_t j = first; j < k; ++j)
                                                      fixes_[j]->initial_integrate(view);
                                                    std::fill(out.begin(), out.end(), 0.0);
                                                    fix.sum_initial_integrate(view, out);
                                                  });
    fix.set_initial_integrate_sums(sums);
    begun = true;
    first = k;
  }
  runtime_.superstep(
      "md.integrate",
      [&](Tile& t) {
        if (!begun) begin(t);
        TileAtoms& s = state(t);
        const std::size_t n = static_cast<std::size_t>(s.nlocal);
        FixTile view = fix_view(t, step_);
        for (std::size_t j = first; j < fixes_.size(); ++j) fixes_[j]->initial_integrate(view);
        for (auto& fix : fixes_) fix->post_integrate(view);
        if (track) {
          const auto x = t.get(x_);
          double moved = 0;
          for (std::size_t u = 0; u < n; ++u) {
            const double dx = x[3 * u] - s.x_build[3 * u], dy = x[3 * u + 1] - s.x_build[3 * u + 1],
                         dz = x[3 * u + 2] - s.x_build[3 * u + 2];
            moved = std::max(moved, dx * dx + dy * dy + dz * dz);
          }
          s.max_displacement_sq = moved;
        }
        t.charge(integrate_work, static_cast<std::uint64_t>(s.nlocal));
        if (pack) pack_ghost_positions(t);
      },
      pack ? std::initializer_list<const ExchangePlan*>{&*plan_x_}
           : std::initializer_list<const ExchangePlan*>{});
}

void Simulation::pack_ghost_positions(Tile& t, bool rebuild_coordinates) {
  TileAtoms& s = state(t);
  const auto x = t.get(x_);
  auto out = t.get(send_x_);
  const auto& segments = domain_.segments(t.id());
  std::size_t k = 0;
  for (std::size_t seg = 0; seg < segments.size(); ++seg) {
    const auto& shift = rebuild_coordinates ? segments[seg].rebuild_shift : segments[seg].shift;
    for (int n = s.send_begin[seg]; n < s.send_begin[seg + 1]; ++n) {
      const auto i = static_cast<std::size_t>(s.send_atom[static_cast<std::size_t>(n)]);
      out[k++] = x[3 * i] + shift[0];
      out[k++] = x[3 * i + 1] + shift[1];
      out[k++] = x[3 * i + 2] + shift[2];
    }
  }
  t.charge(pack_work, k / 3);
}

void Simulation::forward_ghosts() {
  runtime_.superstep("md.forward_ghosts", [&](Tile& t) { pack_ghost_positions(t); }, {&*plan_x_});
}

void Simulation::shrink_wrap() {
  // The extent of the atoms, as LAMMPS's: one max-reduction of (-min, max) per dimension.
  const auto extent = runtime_.all_reduce<double>(
      "md.shrink_wrap", ReduceOp::max, 6, [&](Tile& t, std::span<double> out) {
        TileAtoms& s = state(t);
        const auto x = t.get(x_);
        for (std::size_t d = 0; d < 3; ++d) out[2 * d] = out[2 * d + 1] = -1.0e20;
        for (std::size_t u = 0; u < static_cast<std::size_t>(s.nlocal); ++u)
          for (std::size_t d = 0; d < 3; ++d) {
            out[2 * d] = std::max(out[2 * d], -x[3 * u + d]);
            out[2 * d + 1] = std::max(out[2 * d + 1], x[3 * u + d]);
          }
      });
  for (std::size_t d = 0; d < 3; ++d) {
    const char lo = boundary_.face[d][0], hi = boundary_.face[d][1];
    if (lo == 's') box_.lo[d] = -extent[2 * d] - shrink_.small[d];
    if (lo == 'm') box_.lo[d] = std::min(-extent[2 * d] - shrink_.small[d], shrink_.min_lo[d]);
    if (hi == 's') box_.hi[d] = extent[2 * d + 1] + shrink_.small[d];
    if (hi == 'm') box_.hi[d] = std::max(extent[2 * d + 1] + shrink_.small[d], shrink_.min_hi[d]);
    if (!(box_.lo[d] < box_.hi[d]) || !std::isfinite(box_.length(static_cast<int>(d))))
      throw Error(std::string("shrink-wrapping gives the box no extent in ") + "xyz"[d] +
                  " at step " + std::to_string(step_) + "; the system blew up or has no atoms");
  }
  domain_ = domain_.resized(box_);
}

void Simulation::rebuild(bool canonical_order) {
  since_build_ = 0;
  ++builds_;
  if (boundary_.any_shrinks()) shrink_wrap();
  if (box_changed_) domain_ = domain_.resized(box_), box_changed_ = false;
  box_at_build_ = box_;
  // In a triclinic box the positions are fractional from here until the ghosts have arrived
  // (rebuild coordinates, domain.hpp), as LAMMPS's are between its x2lamda and lamda2x. Not at
  // a run's setup (canonical_order): there positions stay Cartesian unless they wrap (their
  // fractions are worked out beside them), so that a run continued from a restart file, which
  // sets up, repeats the uninterrupted run bit for bit, as in an orthogonal box.
  const bool triclinic = box_.triclinic;
  const bool fractional = triclinic && !canonical_order;
  const BoxMatrix matrix(box_);
  // 1. Wrap positions into the box and send atoms that left their tile to their new owner.
  runtime_.superstep("md.migrate", [&](Tile& t) {
    TileAtoms& s = state(t);
    auto x = t.get(x_);
    auto type = t.get(type_);
    const auto q = t.get(q_);
    std::vector<std::pair<int, int>> leaving;  // (new owner, index)
    for (int i = 0; i < s.nlocal; ++i) {
      const auto u = static_cast<std::size_t>(i);
      double* xi = &x[3 * u];
      // Positions and velocities are checked here, at every reneighbouring (and forces at every
      // step, in finish_step; thermo sums at every thermo step, in thermo()): cheap next
      // to the pair kernel, which stays free of checks.
      const double* vi = &s.v[3 * u];
      if (!std::isfinite(xi[0]) || !std::isfinite(xi[1]) || !std::isfinite(xi[2]) ||
          !std::isfinite(vi[0]) || !std::isfinite(vi[1]) || !std::isfinite(vi[2]))
        throw Error(
            "atom " + fmt_id(s.id[u]) + " has a non-finite " +
            (std::isfinite(xi[0] + xi[1] + xi[2]) ? "velocity" : "position") + " at step " +
            std::to_string(step_) +
            ": the system blew up (overlapping atoms or too large a timestep); check the input "
            "coordinates and velocities, minimise first or reduce the timestep");
      int image[3] = {s.image[3 * u], s.image[3 * u + 1], s.image[3 * u + 2]};
      // c: the position in rebuild coordinates (xi itself unless set up triclinic).
      double setup_fraction[3];
      double* c = xi;
      if (fractional) matrix.to_fraction(xi, xi);
      if (triclinic && !fractional) matrix.to_fraction(xi, setup_fraction), c = setup_fraction;
      if (!domain_.wrap_rebuild(c, image))
        throw Error("atom " + fmt_id(s.id[u]) + " moved more than 2^31 box lengths by step " +
                    std::to_string(step_) +
                    ": the system blew up (a huge velocity or force); check the input velocities "
                    "or reduce the timestep");
      // fix deform remap v: an atom that crossed a periodic face takes on the velocity of the
      // face it now sits by (LAMMPS's Domain::pbc with deform_vremap).
      if (box_rate_.vremap_mask & s.mask[u]) {
        const auto& r = box_rate_.h_rate;
        const double n0 = image[0] - s.image[3 * u], n1 = image[1] - s.image[3 * u + 1],
                     n2 = image[2] - s.image[3 * u + 2];
        s.v[3 * u] -= n0 * r[0] + n1 * r[5] + n2 * r[4];
        s.v[3 * u + 1] -= n1 * r[1] + n2 * r[3];
        s.v[3 * u + 2] -= n2 * r[2];
      }
      if (c != xi && (image[0] != s.image[3 * u] || image[1] != s.image[3 * u + 1] ||
                      image[2] != s.image[3 * u + 2]))
        matrix.to_cartesian(c, xi);  // wrapped at the setup: back to Cartesian, moved
      for (std::size_t d = 0; d < 3; ++d) {
        s.image[3 * u + d] = image[d];
        // LAMMPS's Lost atoms (its default, thermo_modify lost error), at the rebuild.
        if (boundary_.face[d][0] == 'f' && c[d] < domain_.lo_1d(d))
          throw Error("atom " + fmt_id(s.id[u]) + " is lost: it left the box through its fixed " +
                      "xyz"[d] + "lo face by step " + std::to_string(step_) +
                      "; keep atoms in with a wall fix (fix wall/reflect) or use boundary s");
        if (boundary_.face[d][1] == 'f' && c[d] >= domain_.hi_1d(d))
          throw Error("atom " + fmt_id(s.id[u]) + " is lost: it left the box through its fixed " +
                      "xyz"[d] + "hi face by step " + std::to_string(step_) +
                      "; keep atoms in with a wall fix (fix wall/reflect) or use boundary s");
      }
      const int owner = domain_.owner({c[0], c[1], c[2]});
      if (owner != t.id()) leaving.emplace_back(owner, i);
    }
    std::stable_sort(leaving.begin(), leaving.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<AtomRecord> batch;
    std::vector<double> extras;
    const std::size_t w = per_atom_width_;
    for (std::size_t k = 0; k < leaving.size(); ++k) {
      const auto u = static_cast<std::size_t>(leaving[k].second);
      AtomRecord a;
      a.id = s.id[u];
      a.type = type[u];
      if (charged()) a.q = q[u];
      a.noise = s.noise[u];
      a.mask = s.mask[u];
      for (std::size_t d = 0; d < 3; ++d)
        a.x[d] = x[3 * u + d], a.v[d] = s.v[3 * u + d], a.image[d] = s.image[3 * u + d];
      batch.push_back(a);
      extras.insert(extras.end(), s.extra.begin() + static_cast<std::ptrdiff_t>(w * u),
                    s.extra.begin() + static_cast<std::ptrdiff_t>(w * (u + 1)));
      if (k + 1 == leaving.size() || leaving[k + 1].first != leaving[k].first) {
        t.post<AtomRecord>(leaving[k].first, batch);
        // The per-atom vectors follow in a second message to the same tile.
        if (w > 0) t.post<double>(leaving[k].first, extras);
        batch.clear();
        extras.clear();
      }
    }
    // Keep the others, in order.
    std::vector<bool> leaves(static_cast<std::size_t>(s.nlocal), false);
    for (const auto& l : leaving) leaves[static_cast<std::size_t>(l.second)] = true;
    keep_atoms(t, leaves);
  });

  // 2. Take in the arrivals, and list the atoms each ghost segment sends.
  const int nseg = domain_.segments_per_tile();
  const auto& reach = domain_.reach();
  runtime_.superstep("md.arrive", [&](Tile& t) {
    TileAtoms& s = state(t);
    const std::size_t w = per_atom_width_;
    // With per-atom vectors, each batch of atoms is followed by a message of their vectors.
    const std::size_t stride = w > 0 ? 2 : 1;
    const auto& inbox = t.inbox();
    std::size_t arriving = 0;
    for (std::size_t m = 0; m < inbox.size(); m += stride)
      arriving += inbox[m].as<AtomRecord>().size();
    const std::size_t n = static_cast<std::size_t>(s.nlocal) + arriving;
    t.resize(x_, 3 * n);
    t.resize(type_, n);
    if (charged()) t.resize(q_, n);
    auto x = t.get(x_);
    auto type = t.get(type_);
    auto q = t.get(q_);
    std::size_t k = static_cast<std::size_t>(s.nlocal);
    for (std::size_t m = 0; m < inbox.size(); m += stride) {
      if (w > 0) {
        const auto values = inbox[m + 1].as<double>();
        s.extra.insert(s.extra.end(), values.begin(), values.end());
      }
      for (const AtomRecord& a : inbox[m].as<AtomRecord>()) {
        for (std::size_t d = 0; d < 3; ++d) x[3 * k + d] = a.x[d];
        type[k] = a.type;
        if (charged()) q[k] = a.q;
        s.id.push_back(a.id);
        s.noise.push_back(a.noise);
        s.mask.push_back(a.mask);
        s.v.insert(s.v.end(), a.v.begin(), a.v.end());
        s.image.insert(s.image.end(), a.image.begin(), a.image.end());
        ++k;
      }
    }
    s.nlocal = static_cast<int>(n);
    // The positions in rebuild coordinates: x, or at a triclinic setup their fractions beside.
    std::vector<double> setup_fractions;
    const auto rebuild_positions = [&]() -> const double* {
      if (!triclinic || fractional) return x.data();
      setup_fractions.resize(3 * n);
      for (std::size_t i = 0; i < n; ++i) matrix.to_fraction(&x[3 * i], &setup_fractions[3 * i]);
      return setup_fractions.data();
    };
    const double* rc = rebuild_positions();
    if (canonical_order) {
      // A canonical order at the start of a run, so that a run continued from a
      // restart file does the same arithmetic in the same order as an uninterrupted
      // one: by spatial bin (half the neighbor cutoff, as LAMMPS sorts atoms for
      // cache locality), then by id.
      const auto lo = domain_.sub_lo(t.id()), hi = domain_.sub_hi(t.id());
      std::array<int, 3> bins{};
      for (std::size_t d = 0; d < 3; ++d)
        bins[d] = std::max(1, static_cast<int>((hi[d] - lo[d]) / (0.5 * reach[d])));
      std::vector<std::pair<long long, std::int64_t>> key(n);
      for (std::size_t i = 0; i < n; ++i) {
        long long cell = 0;
        for (std::size_t d = 3; d-- > 0;) {
          const int b =
              std::clamp(static_cast<int>((rc[3 * i + d] - lo[d]) / (hi[d] - lo[d]) * bins[d]), 0,
                         bins[d] - 1);
          cell = cell * bins[d] + b;
        }
        key[i] = {cell, s.id[i]};
      }
      std::vector<std::size_t> order(n);
      for (std::size_t i = 0; i < n; ++i) order[i] = i;
      std::sort(order.begin(), order.end(),
                [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
      auto permute = [&](auto& values, std::size_t width) {
        std::vector<std::decay_t<decltype(values[0])>> copy(
            values.begin(), values.begin() + static_cast<std::ptrdiff_t>(width * n));
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t d = 0; d < width; ++d)
            values[width * i + d] = copy[width * order[i] + d];
      };
      permute(x, 3), permute(type, 1), permute(s.v, 3), permute(s.image, 3), permute(s.id, 1),
          permute(s.noise, 1), permute(s.mask, 1);
      if (w > 0) permute(s.extra, w);
      if (charged()) permute(q, 1);
      rc = rebuild_positions();
    }
    s.send_atom.clear();
    s.send_begin.assign(1, 0);
    for (const auto& seg : domain_.segments(t.id())) {
      auto lo = domain_.sub_lo(seg.destination), hi = domain_.sub_hi(seg.destination);
      for (int i = 0; i < s.nlocal && seg.active; ++i) {
        const auto u = static_cast<std::size_t>(i);
        bool inside = true;
        for (std::size_t d = 0; d < 3 && inside; ++d) {
          const double p = rc[3 * u + d] + seg.rebuild_shift[d];
          inside = p >= lo[d] - reach[d] && p < hi[d] + reach[d];
        }
        if (inside) s.send_atom.push_back(i);
      }
      s.send_begin.push_back(static_cast<int>(s.send_atom.size()));
    }
    t.resize(send_x_, 3 * s.send_atom.size());
    t.resize(send_type_, s.send_atom.size());
    if (charged()) t.resize(send_q_, s.send_atom.size());
    t.charge(ghost_select_work,
             static_cast<std::uint64_t>(s.nlocal) * static_cast<std::uint64_t>(nseg));
  });
  const std::size_t width = static_cast<std::size_t>(nseg) + 1;
  const std::vector<int> counts =
      runtime_.gather<int>("md.ghost_counts", width, [&](Tile& t, std::span<int> out) {
        TileAtoms& s = state(t);
        for (std::size_t k = 0; k < static_cast<std::size_t>(nseg); ++k)
          out[k] = s.send_begin[k + 1] - s.send_begin[k];
        out[static_cast<std::size_t>(nseg)] = s.nlocal;
      });

  // 3. The ghost plans: segment k of tile s lands after the owned atoms of its
  //    destination, behind every segment from lower tiles (and lower k of tile s).
  const int tiles = runtime_.target().total_tiles();
  std::vector<int> ghosts(static_cast<std::size_t>(tiles), 0);
  ExchangePlanBuilder px("md.ghost_x"), pt("md.ghost_type"), pq("md.ghost_q"), pid("md.ghost_id"),
      pmask("md.ghost_mask"), pr("md.ghost_forces_back"), prm("md.ghost_extra_back"),
      ptally("md.ghost_tally_back"), pfwd("md.pair_forward"), ppredict("md.constraint_predicted");
  const bool masks = !neighbor_.exclude_groups.empty();
  // What the pair style returns besides forces (deepmd's other models' forces on ghosts).
  const std::size_t extra = pair_->extra_per_ghost();
  const std::size_t forward = pair_->forward_per_atom();
  const std::size_t predicted = constrained() ? 3 : 0;
  for (int src = 0; src < tiles; ++src) {
    std::size_t offset = 0;
    const auto& segments = domain_.segments(src);
    for (std::size_t k = 0; k < static_cast<std::size_t>(nseg); ++k) {
      const int c = counts[static_cast<std::size_t>(src) * width + k];
      if (c == 0) continue;
      const int dst = segments[k].destination;
      const std::size_t nlocal_dst =
          static_cast<std::size_t>(counts[static_cast<std::size_t>(dst) * width + width - 1]);
      const std::size_t at =
          nlocal_dst + static_cast<std::size_t>(ghosts[static_cast<std::size_t>(dst)]);
      px.copy(send_x_, src, 3 * offset, x_, dst, 3 * at, 3 * static_cast<std::size_t>(c));
      pt.copy(send_type_, src, offset, type_, dst, at, static_cast<std::size_t>(c));
      if (charged()) pq.copy(send_q_, src, offset, q_, dst, at, static_cast<std::size_t>(c));
      pid.copy(send_tag_, src, offset, ghost_tag_, dst, at - nlocal_dst,
               static_cast<std::size_t>(c));
      if (masks)
        pmask.copy(send_mask_, src, offset, ghost_mask_, dst, at - nlocal_dst,
                   static_cast<std::size_t>(c));
      // Newton's third law across tiles: forces on these ghosts go back to their owner.
      pr.copy(ghost_f_, dst, 3 * (at - nlocal_dst), send_f_, src, 3 * offset,
              3 * static_cast<std::size_t>(c));
      if (extra > 0)
        prm.copy(ghost_extra_, dst, extra * (at - nlocal_dst), send_extra_, src, extra * offset,
                 extra * static_cast<std::size_t>(c));
      if (forward > 0)
        pfwd.copy(send_forward_, src, forward * offset, ghost_forward_, dst,
                  forward * (at - nlocal_dst), forward * static_cast<std::size_t>(c));
      if (tally_wanted_)
        ptally.copy(ghost_tally_, dst, 7 * (at - nlocal_dst), send_tally_, src, 7 * offset,
                    7 * static_cast<std::size_t>(c));
      if (predicted > 0)
        ppredict.copy(send_predicted_, src, 3 * offset, ghost_predicted_, dst,
                      3 * (at - nlocal_dst), 3 * static_cast<std::size_t>(c));
      ghosts[static_cast<std::size_t>(dst)] += c;
      offset += static_cast<std::size_t>(c);
    }
  }
  plan_x_.emplace(runtime_.compile(px));
  plan_type_.emplace(runtime_.compile(pt));
  if (charged())
    plan_q_.emplace(runtime_.compile(pq));
  else
    plan_q_.reset();
  plan_tag_.emplace(runtime_.compile(pid));
  if (masks)
    plan_mask_.emplace(runtime_.compile(pmask));
  else
    plan_mask_.reset();
  plan_reverse_.emplace(runtime_.compile(pr));
  if (extra > 0)
    plan_reverse_extra_.emplace(runtime_.compile(prm));
  else
    plan_reverse_extra_.reset();
  if (tally_wanted_)
    plan_reverse_tally_.emplace(runtime_.compile(ptally));
  else
    plan_reverse_tally_.reset();
  if (forward > 0)
    plan_forward_.emplace(runtime_.compile(pfwd));
  else
    plan_forward_.reset();
  if (predicted > 0)
    plan_predicted_.emplace(runtime_.compile(ppredict));
  else
    plan_predicted_.reset();
  const std::size_t tally = tally_wanted_ ? 7 : 0;

  // 4. Make room for the ghosts and send them.
  const auto send_ghosts = [&](Tile& t) {
    TileAtoms& s = state(t);
    s.nghost = ghosts[static_cast<std::size_t>(t.id())];
    const std::size_t n = static_cast<std::size_t>(s.nlocal + s.nghost);
    t.resize(x_, 3 * n);
    t.resize(type_, n);
    if (charged()) t.resize(q_, n);
    const std::size_t ghosts_here = static_cast<std::size_t>(s.nghost);
    t.resize(ghost_tag_, ghosts_here);
    t.resize(ghost_f_, 3 * ghosts_here);
    t.resize(send_tag_, s.send_atom.size());
    t.resize(send_f_, 3 * s.send_atom.size());
    t.resize(ghost_extra_, extra * ghosts_here);
    t.resize(send_extra_, extra * s.send_atom.size());
    t.resize(ghost_tally_, tally * ghosts_here);
    t.resize(send_tally_, tally * s.send_atom.size());
    t.resize(ghost_forward_, forward * ghosts_here);
    t.resize(send_forward_, forward * s.send_atom.size());
    t.resize(ghost_predicted_, predicted * ghosts_here);
    t.resize(send_predicted_, predicted * s.send_atom.size());
    pack_ghost_positions(t, fractional);
    const auto type = t.get(type_);
    auto out = t.get(send_type_);
    auto tags = t.get(send_tag_);
    for (std::size_t k = 0; k < s.send_atom.size(); ++k) {
      const auto i = static_cast<std::size_t>(s.send_atom[k]);
      out[k] = type[i];
      tags[k] = s.id[i];
    }
    if (charged()) {
      const auto q = t.get(q_);
      auto send = t.get(send_q_);
      for (std::size_t k = 0; k < s.send_atom.size(); ++k)
        send[k] = q[static_cast<std::size_t>(s.send_atom[k])];
    }
    if (masks) {
      t.resize(ghost_mask_, ghosts_here);
      t.resize(send_mask_, s.send_atom.size());
      auto send = t.get(send_mask_);
      for (std::size_t k = 0; k < s.send_atom.size(); ++k)
        send[k] = s.mask[static_cast<std::size_t>(s.send_atom[k])];
    }
  };
  std::vector<const ExchangePlan*> ghost_plans{&*plan_x_, &*plan_type_, &*plan_tag_};
  if (masks) ghost_plans.push_back(&*plan_mask_);
  if (charged()) ghost_plans.push_back(&*plan_q_);
  runtime_.superstep("md.ghosts", send_ghosts, ghost_plans);
  if (fractional)
    runtime_.superstep("md.to_cartesian", [&](Tile& t) {
      TileAtoms& s = state(t);
      auto x = t.get(x_);
      const std::size_t n = static_cast<std::size_t>(s.nlocal + s.nghost);
      for (std::size_t i = 0; i < n; ++i) matrix.to_cartesian(&x[3 * i], &x[3 * i]);
      t.charge(pack_work, n);
    });
}

void Simulation::build_neighbor_list(Tile& t, bool full, double cutoff, NeighborList& out_list) {
  TileAtoms& s = state(t);
  const auto x = t.get(x_);
  const auto tag = t.get(ghost_tag_);
  const double rg = cutoff;
  const double rgsq = rg * rg;
  // Bins of at least half the neighbor cutoff (LAMMPS's default binsize) over the sub-box and
  // its ghost shell (their bounding box when triclinic), padded by the stencil's reach so that
  // no stencil bin needs a bounds check.
  std::array<double, 3> lo{}, hi{}, width{};
  domain_.ghost_bounds(t.id(), lo, hi);
  std::array<int, 3> bins{}, reach{}, padded{}, inner_lo{}, inner_hi{};
  // A cutoff much shorter than the atoms' spacing (a compute's list) would make far more bins
  // than atoms: they grow until there are at most 8 per atom.
  const std::size_t nall = static_cast<std::size_t>(s.nlocal + s.nghost);
  double binsize = 0.5 * rg;
  const double most = 8.0 * static_cast<double>(nall) + 27.0;
  const double bounds_volume = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  if (bounds_volume / (binsize * binsize * binsize) > most)
    binsize = std::cbrt(bounds_volume / most);
  for (std::size_t d = 0; d < 3; ++d) {
    const double extent = hi[d] - lo[d];
    bins[d] = std::max(1, static_cast<int>(extent / binsize));
    width[d] = extent / bins[d];
    reach[d] = static_cast<int>(std::ceil(rg / width[d]));
    padded[d] = bins[d] + 2 * reach[d];
    // Bins wholly inside the sub-box, one bin in from its faces: they hold no ghosts (in a
    // triclinic box no bin is known to be free of them).
    inner_lo[d] = static_cast<int>(std::ceil(domain_.ghost_cutoff() / width[d])) + 1;
    inner_hi[d] =
        domain_.triclinic()
            ? -1
            : static_cast<int>(std::floor((domain_.sub_hi(t.id())[d] - lo[d]) / width[d])) - 2;
  }
  auto bin_of = [&](std::size_t i) {
    std::array<int, 3> b{};
    for (std::size_t d = 0; d < 3; ++d)
      b[d] = std::clamp(static_cast<int>((x[3 * i + d] - lo[d]) / width[d]), 0, bins[d] - 1);
    return b;
  };
  auto cell_of = [&](const std::array<int, 3>& b) {
    return static_cast<std::size_t>(
        (b[0] + reach[0]) + padded[0] * ((b[1] + reach[1]) + padded[1] * (b[2] + reach[2])));
  };
  const std::size_t cells = static_cast<std::size_t>(padded[0]) * padded[1] * padded[2];
  s.bin_head.assign(2 * cells, -1);  // [cell]: first atom; [cells + cell]: first ghost
  s.bin_next.assign(nall, -1);
  // Insert from the back so that each bin lists its atoms in increasing order:
  // owned atoms first, then ghosts.
  for (std::size_t i = nall; i-- > 0;) {
    const std::size_t cell = cell_of(bin_of(i));
    s.bin_next[i] = s.bin_head[cell];
    s.bin_head[cell] = static_cast<int>(i);
    if (i >= static_cast<std::size_t>(s.nlocal)) s.bin_head[cells + cell] = static_cast<int>(i);
  }
  // Stencil: the bins whose nearest point lies within the cutoff. A half list holds
  // an owned pair once, by the atom in the lower bin (LAMMPS's half stencil); ghosts
  // are visited in every bin, and the id rule below picks one side of each ghost
  // pair. A full list holds every neighbor of each owned atom.
  struct Offset {
    std::ptrdiff_t cell;
    bool lower, own;
  };
  std::vector<Offset> stencil;
  for (int k = -reach[2]; k <= reach[2]; ++k)
    for (int j = -reach[1]; j <= reach[1]; ++j)
      for (int i = -reach[0]; i <= reach[0]; ++i) {
        auto gap = [](int n, double w) { return n == 0 ? 0.0 : (std::abs(n) - 1) * w; };
        const double dx = gap(i, width[0]), dy = gap(j, width[1]), dz = gap(k, width[2]);
        const bool lower = !full && (k < 0 || (k == 0 && (j < 0 || (j == 0 && i < 0))));
        if (dx * dx + dy * dy + dz * dz <= rgsq)
          stencil.push_back({i + static_cast<std::ptrdiff_t>(padded[0]) * (j + padded[1] * k),
                             lower, i == 0 && j == 0 && k == 0});
      }
  // Each candidate is written to the list and kept by advancing the end only when it lies
  // within the cutoff: no hard-to-predict branch per candidate. Room for one atom's worst case
  // (every other atom) is made before its candidates are visited. The list keeps its largest
  // size from build to build (neigh_begin[nlocal] is its length), and the first build sizes it
  // from the density, 5% over the mean, so that builds rarely grow it (a grown vector is zeroed
  // and faulted in) while its slack stays small beside the list (LAMMPS's pages waste less than
  // one page; 20% here made md_ipu's peak memory 4% over LAMMPS's at 256 000 atoms).
  const std::size_t nlocal = static_cast<std::size_t>(s.nlocal);
  if (out_list.list.empty()) {
    const double pairs_per_atom =
        (full ? 1.0 : 0.5) * 4.18879 * rgsq * rg * static_cast<double>(nall) / bounds_volume;
    out_list.list.resize(static_cast<std::size_t>(1.05 * pairs_per_atom * nlocal) + nall);
  }
  out_list.begin.resize(nlocal + 1);
  out_list.begin[0] = 0;
  // special_bonds: each candidate that is one of i's special neighbors (its topology row lists
  // them by id) is left out, kept, or moved to the weighted list, by its level.
  const bool specials = molecular() && topology_handle_ != 0 && topology_.specials > 0;
  const std::size_t special_at = specials ? per_atom_offset(topology_handle_) : 0;
  out_list.special_list.clear();
  out_list.special_begin.assign(specials ? nlocal + 1 : 0, 0);
  std::uint64_t special_checks = 0;
  std::size_t n = 0;
  std::uint64_t candidates = 0;
  const std::ptrdiff_t ghost_heads = static_cast<std::ptrdiff_t>(cells);
  const double* __restrict xp = x.data();
  const int* __restrict head = s.bin_head.data();
  const int* __restrict next = s.bin_next.data();
  const std::int64_t* __restrict ids = s.id.data();
  // Ghost j (an atom index, j >= nlocal) has id ghost_ids[j - nlocal]. (tag.data() - nlocal would
  // point before the array, and, with no ghosts on this tile, offset a null pointer: UB.)
  const std::int64_t* __restrict ghost_ids = tag.data();
  const int nl = s.nlocal;
  // neigh_modify exclude type: a table by type pair, filtered after each atom's candidates.
  const auto type = t.get(type_);
  const std::size_t ntypes = static_cast<std::size_t>(types_) + 1;
  std::vector<char> excluded;
  if (!neighbor_.exclude_types.empty()) {
    excluded.assign(ntypes * ntypes, 0);
    for (const auto& [a, b] : neighbor_.exclude_types)
      excluded[static_cast<std::size_t>(a) * ntypes + static_cast<std::size_t>(b)] =
          excluded[static_cast<std::size_t>(b) * ntypes + static_cast<std::size_t>(a)] = 1;
  }
  for (std::size_t i = 0; i < nlocal; ++i) {
    if (out_list.list.size() < n + nall)
      out_list.list.resize(std::max(out_list.list.size() * 3 / 2, n + nall));
    int* __restrict out = out_list.list.data();
    const auto b = bin_of(i);
    const auto cell = static_cast<std::ptrdiff_t>(cell_of(b));
    // The lower half of the stencil only holds ghosts; deep inside the sub-box it holds none.
    bool ghosts_near = false;
    for (std::size_t d = 0; d < 3; ++d)
      ghosts_near = ghosts_near || b[d] - reach[d] < inner_lo[d] || b[d] + reach[d] > inner_hi[d];
    const double xi = xp[3 * i], yi = xp[3 * i + 1], zi = xp[3 * i + 2];
    const std::int64_t id_i = ids[i];
    const std::size_t first = n;
    auto consider = [&](int j) {
      const auto u = static_cast<std::size_t>(j);
      const double dx = xi - xp[3 * u], dy = yi - xp[3 * u + 1], dz = zi - xp[3 * u + 2];
      out[n] = j;
      n += dx * dx + dy * dy + dz * dz <= rgsq;
    };
    for (const auto& o : stencil) {
      if (o.lower && !ghosts_near) continue;
      int j = head[o.lower ? ghost_heads + cell + o.cell : cell + o.cell];
      if (full) {
        for (; j >= 0; j = next[j])
          if (static_cast<std::size_t>(j) != i) consider(j);
        continue;
      }
      // Owned atoms come first in a bin: in i's own bin only those after i (the pair from
      // the other side is i's), elsewhere all.
      for (; j >= 0 && j < nl; j = next[j])
        if (!o.own || static_cast<std::size_t>(j) > i) consider(j);
      // A pair with a ghost is listed on one side only, the one whose atom has the smaller
      // id; the ghost's force goes back to its owner (LAMMPS's newton on).
      for (; j >= 0; j = next[j])
        if (id_i < ghost_ids[j - nl]) consider(j);
    }
    candidates += n - first;
    if (!excluded.empty()) {
      std::size_t kept = first;
      const auto ti = static_cast<std::size_t>(type[i]);
      for (std::size_t k = first; k < n; ++k)
        if (!excluded[ti * ntypes +
                      static_cast<std::size_t>(type[static_cast<std::size_t>(out[k])])])
          out[kept++] = out[k];
      n = kept;
    }
    if (!neighbor_.exclude_groups.empty()) {
      const auto ghost_mask = t.get(ghost_mask_);
      const auto mask_of = [&](int j) {
        return j < nl ? s.mask[static_cast<std::size_t>(j)]
                      : ghost_mask[static_cast<std::size_t>(j - nl)];
      };
      const std::uint32_t mi = s.mask[i];
      std::size_t kept = first;
      for (std::size_t k = first; k < n; ++k) {
        const std::uint32_t mj = mask_of(out[k]);
        bool drop = false;
        for (const auto& [g1, g2] : neighbor_.exclude_groups) {
          const std::uint32_t b1 = 1u << g1, b2 = 1u << g2;
          drop = drop || ((mi & b1) && (mj & b2)) || ((mi & b2) && (mj & b1));
        }
        if (!drop) out[kept++] = out[k];
      }
      n = kept;
    }
    if (specials) {
      const std::span<const double> row(&s.extra[i * per_atom_width_ + special_at],
                                        topology_.width());
      std::size_t kept = first;
      for (std::size_t k = first; k < n; ++k) {
        const int j = out[k];
        const std::int64_t id_j = j < nl ? ids[j] : ghost_ids[j - nl];
        const int level = topology_.special_level(row, id_j);
        const SpecialPair mode =
            level == 0 ? SpecialPair::ordinary : special_pair_[static_cast<std::size_t>(level)];
        if (mode == SpecialPair::ordinary) out[kept++] = j;
        if (mode == SpecialPair::weighted)
          out_list.special_list.push_back(j), out_list.special_list.push_back(level);
      }
      special_checks += n - first;
      n = kept;
      out_list.special_begin[i + 1] = static_cast<int>(out_list.special_list.size() / 2);
    }
    out_list.begin[i + 1] = static_cast<int>(n);
  }
  t.charge(list_work, candidates);
  if (specials) t.charge(special_filter_work, special_checks * topology_.specials);
}

void Simulation::compute_bonded(Tile& t, const PairTile& pt) {
  TileAtoms& s = state(t);
  BondedTile b;
  b.nlocal = pt.nlocal;
  b.x = pt.x;
  b.type = pt.type;
  b.q = pt.q;
  b.f = pt.f;
  b.ghost_f = pt.ghost_f;
  b.energy_virial = pt.energy_virial;
  b.per_atom = pt.per_atom;
  b.eatom = pt.eatom, b.vatom = pt.vatom, b.ghost_tally = pt.ghost_tally;
  // One style's terms on the tile; with energy_virial its energy and virial, in pe and virial.
  const auto compute = [&]<class Entry>(const BondedStyle<Entry>* style, TermKind kind,
                                        const TileVector<Entry>& terms) {
    const auto k = static_cast<std::size_t>(kind);
    if (pt.energy_virial) s.bonded_energy[k] = 0, s.bonded_virial[k] = {};
    if (!style) return;
    b.energy = 0, b.virial = {};
    style->compute(b, std::span<const Entry>(terms.data(), terms.size()));
    t.charge(style->work(), terms.size());
    if (!pt.energy_virial) return;
    s.bonded_energy[k] = b.energy, s.bonded_virial[k] = b.virial;
    s.pe += b.energy;
    for (std::size_t c = 0; c < 6; ++c) s.virial[c] += b.virial[c];
  };
  compute(bond_.get(), TermKind::bond, s.bonds);
  compute(angle_.get(), TermKind::angle, s.angles);
  compute(dihedral_.get(), TermKind::dihedral, s.dihedrals);
  compute(improper_.get(), TermKind::improper, s.impropers);
  // Pair terms the styles computed (dihedral charmm's 1-4 pairs) are the pair style's energy.
  if (!pt.energy_virial) return;
  s.evdwl += b.pair_vdwl, s.ecoul += b.pair_coul;
  s.pe += b.pair_vdwl + b.pair_coul;
  for (std::size_t c = 0; c < 6; ++c) s.virial[c] += b.pair_virial[c];
}

void Simulation::resolve_topology(Tile& t) {
  TileAtoms& s = state(t);
  s.bonds.clear();
  s.angles.clear();
  s.dihedrals.clear();
  s.impropers.clear();
  if (topology_handle_ == 0 || !has_bonded_style()) return;
  const auto x = t.get(x_);
  const auto ghost_ids = t.get(ghost_tag_);
  const auto nlocal = static_cast<std::size_t>(s.nlocal);
  const std::size_t nall = nlocal + static_cast<std::size_t>(s.nghost);
  // The tile's atoms by id (LAMMPS's atom->map), several images of one atom side by side.
  std::vector<std::pair<std::int64_t, int>> by_id(nall);
  for (std::size_t i = 0; i < nall; ++i)
    by_id[i] = {i < nlocal ? s.id[i] : ghost_ids[i - nlocal], static_cast<int>(i)};
  std::sort(by_id.begin(), by_id.end());
  // Atom `id`'s image nearest to atom `from` (LAMMPS's Domain::closest_image), or -1.
  const auto nearest = [&](std::int64_t id, int from) {
    auto it = std::lower_bound(by_id.begin(), by_id.end(), std::pair<std::int64_t, int>{id, -1});
    int best = -1;
    double best_rsq = 0;
    const auto f = static_cast<std::size_t>(from);
    for (; it != by_id.end() && it->first == id; ++it) {
      const auto j = static_cast<std::size_t>(it->second);
      const double dx = x[3 * f] - x[3 * j], dy = x[3 * f + 1] - x[3 * j + 1],
                   dz = x[3 * f + 2] - x[3 * j + 2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      if (best < 0 || rsq < best_rsq) best = it->second, best_rsq = rsq;
    }
    return best;
  };
  const std::size_t at = per_atom_offset(topology_handle_);
  std::uint64_t lookups = 0;
  // Each term of a kind the owned atom i keeps, its other atoms found nearest to i.
  const auto resolve = [&]<class Entry>(TermKind kind, const void* style, std::size_t i,
                                        std::span<const double> row, TileVector<Entry>& out) {
    if (!style) return;
    const TermKindInfo& k = info(kind);
    for (std::size_t n = 0; n < topology_.count(row, kind); ++n) {
      const double* e = topology_.term(row, kind, n);
      std::array<std::int64_t, 4> ids{};
      std::array<int, 4> index{};
      bool found = true;
      for (std::size_t a = 0, col = 1; a < k.atoms; ++a) {
        if (a == k.owner) {
          ids[a] = s.id[i], index[a] = static_cast<int>(i);
          continue;
        }
        ids[a] = static_cast<std::int64_t>(e[col++]);
        index[a] = nearest(ids[a], static_cast<int>(i));
        found = found && index[a] >= 0;
        ++lookups;
      }
      const std::span<const double> values(&s.extra[i * per_atom_width_], per_atom_width_);
      if (std::any_of(fixes_.begin(), fixes_.end(), [&](const auto& fix) {
            return fix->replaces_term(kind, std::span<const std::int64_t>(ids.data(), k.atoms),
                                      values);
          }))
        continue;
      if (!found) {
        std::string names;
        for (std::size_t a = 0; a < k.atoms; ++a) names.append(a ? " " : "").append(fmt_id(ids[a]));
        std::string what = k.section;  // "Bonds" -> LAMMPS's "Bond atoms missing"
        what.pop_back();
        throw Error(std::string(k.name) + " atoms " + names + " missing at step " +
                    std::to_string(step_) + " (LAMMPS: \"" + what +
                    " atoms missing\"): an atom is farther from its partner than the ghost " +
                    "cutoff (" + fmt_double(ghost_cutoff_) + "); the molecule blew apart or a " +
                    "bond is longer than the pair cutoff plus skin (lengthen it with a larger " +
                    "skin)");
      }
      const int type = static_cast<int>(e[0]);
      if constexpr (std::is_same_v<Entry, BondEntry>)
        out.push_back({index[0], index[1], type});
      else if constexpr (std::is_same_v<Entry, AngleEntry>)
        out.push_back({index[0], index[1], index[2], type});
      else
        out.push_back({index[0], index[1], index[2], index[3], type});
    }
  };
  for (std::size_t i = 0; i < nlocal; ++i) {
    const std::span<const double> row(&s.extra[i * per_atom_width_ + at], topology_.width());
    resolve(TermKind::bond, bond_.get(), i, row, s.bonds);
    resolve(TermKind::angle, angle_.get(), i, row, s.angles);
    resolve(TermKind::dihedral, dihedral_.get(), i, row, s.dihedrals);
    resolve(TermKind::improper, improper_.get(), i, row, s.impropers);
  }
  t.charge(topology_resolve_work, lookups + nall);
}

// LAMMPS's Force::init order: the kspace style first, so that the pair style has g_ewald.
void Simulation::init_kspace() {
  const std::optional<double> cutoff = pair_->long_range_cutoff();
  if (!kspace_) return;
  if (!cutoff)
    throw ConfigError("run: kspace_style " + kspace_->style() + " needs a pair style with a " +
                      "long-range Coulomb part (coul/long, lj/cut/coul/long), not " +
                      pair_->style());
  // Every long-range pair style needs charges: setup_run has refused a run without them.
  const auto charges = reduce_atoms("md.kspace_charges", ReduceOp::sum, 2,
                                    [](const AtomsView& a, std::span<double> out) {
                                      for (double q : a.q) out[0] += q, out[1] += q * q;
                                    });
  KSpaceSystem system;
  system.units = units_;
  system.units.qqr2e = pair_->coulomb_constant().value_or(units_.qqr2e);
  system.box = box_;
  system.boundary = boundary_;
  system.dimension = dimension_;
  system.natoms = static_cast<double>(natoms_);
  system.qsum = charges[0];
  system.qsqsum = charges[1];
  system.qqrd2e = system.units.qqr2e / dielectric_;
  system.cutoff = *cutoff;
  system.tiles = tiles_.size();
  std::string log;
  pair_->set_g_ewald(kspace_->init(system, log));
  if (log_) log_(log);
}

// The kspace style's supersteps (kspace.hpp): the forces on each tile's atoms (and their
// per-atom energies and virials when tallied).
void Simulation::compute_kspace(bool energy_virial) {
  const auto view = [&](Tile& t) {
    TileAtoms& s = state(t);
    const auto n = static_cast<std::size_t>(s.nlocal);
    KSpaceTile k(t, static_cast<std::size_t>(t.id() - runtime_.first_tile()));
    k.x = t.get(x_).subspan(0, 3 * n);
    k.q = t.get(q_).subspan(0, n);
    k.f = std::span<double>(s.f.data(), 3 * n);
    if (tally_now_) {
      k.per_atom = true;
      k.eatom = std::span<double>(s.eatom.data(), n);
      k.vatom = std::span<double>(s.vatom.data(), 6 * n);
    }
    return k;
  };
  kspace_->compute(runtime_, view, energy_virial, tally_now_, kspace_energy_, kspace_virial_);
}

void Simulation::force_and_integrate_second(bool build_lists, bool integrate, bool energy_virial,
                                            bool defer) {
  for (auto& fix : fixes_)
    if (!minimizing_ || fix->acts_in_minimize()) fix->pre_force(*this);
  // Forces: forces on ghosts (and what else the pair style returns) travel back to their
  // owners.
  const bool extra = pair_->extra_due(step_);
  tally_now_ = tally_wanted_ && energy_virial;
  tally_step_ = -1;
  const auto pair_tile = [&](Tile& t) {
    TileAtoms& s = state(t);
    PairTile pt(t, static_cast<std::size_t>(t.id() - runtime_.first_tile()), step_);
    pt.nlocal = s.nlocal;
    pt.nghost = s.nghost;
    pt.x = t.get(x_);
    pt.type = t.get(type_);
    pt.q = t.get(q_);
    pt.id = std::span<const std::int64_t>(s.id.data(), static_cast<std::size_t>(s.nlocal));
    pt.ghost_id = t.get(ghost_tag_);
    pt.begin = std::span<const int>(s.pairs.begin.data(), s.pairs.begin.size());
    pt.list = std::span<const int>(s.pairs.list.data(), s.pairs.list.size());
    pt.lists_rebuilt = build_lists;
    pt.energy_virial = energy_virial;
    return pt;
  };
  // The pair style's list, where the atoms were when it was built (for the skin check), and the
  // bonded terms each tile computes.
  const auto rebuild_lists = [&](Tile& t) {
    TileAtoms& s = state(t);
    build_neighbor_list(t, pair_->full_list(), domain_.ghost_cutoff(), s.pairs);
    // The positions at the build, for the skin check; without it (neigh_modify check no) none
    // are kept, as LAMMPS keeps xhold only for its distance check.
    if (neighbor_.check) {
      const auto x = t.get(x_);
      s.x_build.assign(x.begin(), x.begin() + 3 * s.nlocal);
    } else {
      s.x_build.clear();
      s.x_build.shrink_to_fit();
    }
    if (molecular()) resolve_topology(t);
  };
  // A style that needs values of its ghosts first (EAM's F'(rho)) computes them for its atoms
  // and sends them to their ghost copies in a superstep before the forces.
  const std::size_t forward = pair_->forward_per_atom();
  if (forward > 0)
    runtime_.superstep("md.pair_forward",
                       [&](Tile& t) {
                         TileAtoms& s = state(t);
                         const auto start = std::chrono::steady_clock::now();
                         if (build_lists) rebuild_lists(t);
                         s.force_seconds.forward_neighbor +=
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                                 .count();
                         PairTile pt = pair_tile(t);
                         auto& owned = s.pair_forward;
                         owned.assign(forward * static_cast<std::size_t>(s.nlocal), 0.0);
                         pair_->compute_forward(pt, owned);
                         auto send = t.get(send_forward_);
                         for (std::size_t k = 0; k < s.send_atom.size(); ++k)
                           for (std::size_t c = 0; c < forward; ++c)
                             send[forward * k + c] =
                                 owned[forward * static_cast<std::size_t>(s.send_atom[k]) + c];
                         t.charge(forward_pack_work, forward * s.send_atom.size());
                         s.force_seconds.forward_total +=
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                                 .count();
                       },
                       {&*plan_forward_});
  const auto force = [&](Tile& t) {
    TileAtoms& s = state(t);
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto seconds_since = [](Clock::time_point from) {
      return std::chrono::duration<double>(Clock::now() - from).count();
    };
    if (build_lists && forward == 0) {
      rebuild_lists(t);
      s.force_seconds.neighbor += seconds_since(start);
    }
    const auto ghost_force = t.get(ghost_f_);
    s.f.assign(3 * static_cast<std::size_t>(s.nlocal), 0.0);
    std::fill(ghost_force.begin(), ghost_force.end(), 0.0);
    PairTile pt = pair_tile(t);
    if (forward > 0) {
      pt.forward = std::span<const double>(s.pair_forward.data(), s.pair_forward.size());
      pt.ghost_forward = t.get(ghost_forward_);
    }
    pt.f = std::span<double>(s.f.data(), s.f.size());
    pt.ghost_f = ghost_force;
    if (extra) pt.ghost_extra = t.get(ghost_extra_);
    if (tally_now_) {
      s.eatom.assign(static_cast<std::size_t>(s.nlocal), 0.0);
      s.vatom.assign(6 * static_cast<std::size_t>(s.nlocal), 0.0);
      const auto ghost_tally = t.get(ghost_tally_);
      std::fill(ghost_tally.begin(), ghost_tally.end(), 0.0);
      pt.per_atom = true;
      pt.eatom = std::span<double>(s.eatom.data(), s.eatom.size());
      pt.vatom = std::span<double>(s.vatom.data(), s.vatom.size());
      pt.ghost_tally = ghost_tally;
    }
    if (!s.pairs.special_list.empty()) {
      pt.special_begin =
          std::span<const int>(s.pairs.special_begin.data(), s.pairs.special_begin.size());
      pt.special_list =
          std::span<const int>(s.pairs.special_list.data(), s.pairs.special_list.size());
      pt.special = &special_;
    }
    pair_->compute(pt);
    if (energy_virial) {
      s.pe = pt.energy + pt.energy_coul;
      s.evdwl = pt.energy;
      s.ecoul = pt.energy_coul;
      s.virial = pt.virial;
    }
    if (molecular()) {
      const auto bonded_start = Clock::now();
      compute_bonded(t, pt);
      s.force_seconds.bonded += seconds_since(bonded_start);
    }
    s.force_seconds.total += seconds_since(start);
  };
  if (extra && tally_now_)
    runtime_.superstep("md.force", force,
                       {&*plan_reverse_, &*plan_reverse_extra_, &*plan_reverse_tally_});
  else if (extra)
    runtime_.superstep("md.force", force, {&*plan_reverse_, &*plan_reverse_extra_});
  else if (tally_now_)
    runtime_.superstep("md.force", force, {&*plan_reverse_, &*plan_reverse_tally_});
  else
    runtime_.superstep("md.force", force, {&*plan_reverse_});
  if (kspace_) compute_kspace(energy_virial);
  // Add the returned forces, then Langevin and the second half-kick: now, or, when nothing
  // looks at the velocities before the next step, in the next step's first superstep.
  if (defer) {
    deferred_ = {true, step_};
    return;
  }
  // A fix whose post_force needs sums over its group (fix aveforce) splits the rest: the fixes
  // before it act, its sums are reduced, then it and the next act.
  std::size_t first = 0;
  bool folded = false;
  for (std::size_t k = 0; k < fixes_.size(); ++k) {
    Fix& fix = *fixes_[k];
    // A fix that constrains velocities sets itself up in its setup (setup_constraint).
    if (fix.constrains() && !minimizing_ && !(setting_up_ && fix.constrains_velocities())) {
      predict_for_constraint(k, first, folded, extra);
      folded = true;
      first = k;
    }
    const std::size_t n = fix.post_force_sums();
    if (n == 0 || (minimizing_ && !fix.acts_in_minimize())) continue;
    const auto sums = runtime_.all_reduce<double>("md.post_force_sums", ReduceOp::sum, n,
                                                  [&](Tile& t, std::span<double> out) {
                                                    if (!folded) fold_forces(t, step_, extra);
                                                    post_force_range(t, step_, first, k);
                                                    std::fill(out.begin(), out.end(), 0.0);
                                                    fix.sum_post_force(fix_view(t, step_), out);
                                                  });
    fix.set_post_force_sums(sums);
    folded = true;
    first = k;
  }
  // A fix whose final_integrate needs sums of the complete forces (fix rigid's forces and
  // torques on its bodies) splits the rest again: every post_force and the final_integrate of
  // the fixes before it, its sums reduced, then it and the next integrate.
  bool forced = false;
  std::size_t first_final = 0;
  for (std::size_t k = 0; integrate && k < fixes_.size(); ++k) {
    Fix& fix = *fixes_[k];
    const std::size_t n = fix.final_integrate_sums();
    if (n == 0) continue;
    const auto sums = runtime_.all_reduce<double>(
        "md.final_integrate_sums", ReduceOp::sum, n, [&](Tile& t, std::span<double> out) {
          if (!folded) fold_forces(t, step_, extra);
          if (!forced) post_force_range(t, step_, first, fixes_.size());
          FixTile view = fix_view(t, step_);
          for (std::size_t j = first_final; j < k; ++j) fixes_[j]->final_integrate(view);
          std::fill(out.begin(), out.end(), 0.0);
          fix.sum_final_integrate(view, out);
        });
    fix.set_final_integrate_sums(sums);
    folded = forced = true;
    first_final = k;
  }
  runtime_.superstep("md.integrate_second", [&](Tile& t) {
    if (!folded) fold_forces(t, step_, extra);
    if (!forced) post_force_range(t, step_, first, fixes_.size());
    finish_integrate(t, step_, integrate, /*kinetic=*/true, first_final);
  });
  if (tally_now_) tally_step_ = step_;
}

void Simulation::send_constraint_predictions(Tile& t, Fix& fix, bool velocities, bool correcting) {
  TileAtoms& s = state(t);
  const FixTile view = fix_view(t, step_);
  auto& own = s.predicted;
  own.assign(3 * static_cast<std::size_t>(s.nlocal), 0.0);
  const std::span<double> out_own(own.data(), own.size());
  if (velocities)
    fix.predict_velocities(view, correcting, out_own);
  else
    fix.predict_positions(view, correcting, out_own);
  auto out = t.get(send_predicted_);
  const auto& segments = domain_.segments(t.id());
  std::size_t n = 0;
  for (std::size_t seg = 0; seg < segments.size(); ++seg)
    for (int m = s.send_begin[seg]; m < s.send_begin[seg + 1]; ++m) {
      const auto i = static_cast<std::size_t>(s.send_atom[static_cast<std::size_t>(m)]);
      for (std::size_t d = 0; d < 3; ++d)
        out[3 * n + d] = own[3 * i + d] + (velocities ? 0.0 : segments[seg].shift[d]);
      ++n;
    }
  t.charge(pack_work, n);
}

void Simulation::predict_for_constraint(std::size_t k, std::size_t first, bool folded, bool extra) {
  Fix& fix = *fixes_[k];
  const bool velocities = fix.constrains_velocities();
  const auto begin = [&](Tile& t) {
    if (!folded) fold_forces(t, step_, extra);
    post_force_range(t, step_, first, k);
  };
  if (setting_up_) {
    correct_constrained(fix, begin);
    runtime_.superstep("md.constraint_predict",
                       [&](Tile& t) { send_constraint_predictions(t, fix, false, false); },
                       {&*plan_predicted_});
    return;
  }
  runtime_.superstep(velocities ? "md.constraint_velocities" : "md.constraint_predict",
                     [&](Tile& t) {
                       begin(t);
                       send_constraint_predictions(t, fix, velocities, false);
                     },
                     {&*plan_predicted_});
}

// LAMMPS's correct_coordinates (and, for a fix that constrains velocities, correct_velocities):
// the atoms moved onto the constraints, their ghosts sent again, then the velocities' components
// along the constraints removed. `begin` runs first on each tile.
void Simulation::correct_constrained(Fix& fix, const std::function<void(Tile&)>& begin) {
  runtime_.superstep("md.constraint_correct_predict",
                     [&](Tile& t) {
                       if (begin) begin(t);
                       send_constraint_predictions(t, fix, false, /*correcting=*/true);
                     },
                     {&*plan_predicted_});
  runtime_.superstep("md.constraint_correct", [&](Tile& t) {
    FixTile view = fix_view(t, step_);
    fix.correct_positions(view);
  });
  forward_ghosts();
  if (!fix.constrains_velocities()) return;
  runtime_.superstep("md.constraint_correct_velocities_send",
                     [&](Tile& t) { send_constraint_predictions(t, fix, true, true); },
                     {&*plan_predicted_});
  runtime_.superstep("md.constraint_correct_velocities", [&](Tile& t) {
    FixTile view = fix_view(t, step_);
    fix.correct_velocities(view);
  });
}

void Simulation::setup_constraint(Fix& fix) {
  apply_pending_scale();
  const Running setting_up(setting_up_);
  correct_constrained(fix, nullptr);
  constrain_positions(fix);
}

void Simulation::constrain_positions(Fix& fix) {
  apply_pending_scale();
  runtime_.superstep("md.constraint_predict",
                     [&](Tile& t) { send_constraint_predictions(t, fix, false, false); },
                     {&*plan_predicted_});
  runtime_.superstep("md.constraint_positions", [&](Tile& t) {
    FixTile view = fix_view(t, step_);
    fix.constrain_positions(view);
  });
}

bool Simulation::constrained() const {
  for (const auto& fix : fixes_)
    if (fix->constrains()) return true;
  return false;
}

// The end of a step on one tile: returned forces added in segment order (and the other models'
// the pair style's extra values, folded), the finite check, Langevin forces, v += dt/2 f/m and,
// when `kinetic`, the kinetic energy tensor.
void Simulation::finish_step(Tile& t, std::int64_t step, bool integrate, bool extra, bool kinetic) {
  fold_forces(t, step, extra);
  post_force_range(t, step, 0, fixes_.size());
  finish_integrate(t, step, integrate, kinetic);
}

void Simulation::fold_forces(Tile& t, std::int64_t step, bool extra) {
  TileAtoms& s = state(t);
  const auto back = t.get(send_f_);
  const std::size_t nlocal = static_cast<std::size_t>(s.nlocal);
  for (std::size_t k = 0; k < s.send_atom.size(); ++k) {
    const auto i = static_cast<std::size_t>(s.send_atom[k]);
    s.f[3 * i] += back[3 * k], s.f[3 * i + 1] += back[3 * k + 1], s.f[3 * i + 2] += back[3 * k + 2];
  }
  if (tally_now_) {
    const auto tally = t.get(send_tally_);
    for (std::size_t k = 0; k < s.send_atom.size(); ++k) {
      const auto i = static_cast<std::size_t>(s.send_atom[k]);
      s.eatom[i] += tally[7 * k];
      for (std::size_t c = 0; c < 6; ++c) s.vatom[6 * i + c] += tally[7 * k + 1 + c];
    }
  }
  if (extra)
    pair_->fold_returned(t, static_cast<std::size_t>(t.id() - runtime_.first_tile()),
                         std::span<const int>(s.send_atom.data(), s.send_atom.size()),
                         t.get(send_extra_), std::span<const double>(s.f.data(), 3 * nlocal));
  for (std::size_t i = 0; i < nlocal; ++i)
    if (!std::isfinite(s.f[3 * i]) || !std::isfinite(s.f[3 * i + 1]) ||
        !std::isfinite(s.f[3 * i + 2]))
      throw Error("atom " + fmt_id(s.id[i]) + " has a non-finite force at step " +
                  std::to_string(step) +
                  ": atoms overlap or the system blew up; check the input coordinates, or reduce "
                  "the timestep");
}

// post_force of fixes [first, last) at every step and, as LAMMPS's fixes' setup, in a run's
// setup too.
void Simulation::post_force_range(Tile& t, std::int64_t step, std::size_t first, std::size_t last) {
  FixTile view = fix_view(t, step);
  for (std::size_t k = first; k < last; ++k)
    if (!minimizing_ || fixes_[k]->acts_in_minimize()) fixes_[k]->post_force(view);
}

// The second half-kick (not in a run's setup, where `integrate` is false) and the kinetic sums.
void Simulation::finish_integrate(Tile& t, std::int64_t step, bool integrate, bool kinetic,
                                  std::size_t first_final) {
  TileAtoms& s = state(t);
  const std::size_t nlocal = static_cast<std::size_t>(s.nlocal);
  FixTile view = fix_view(t, step);
  if (integrate)
    for (std::size_t k = first_final; k < fixes_.size(); ++k) fixes_[k]->final_integrate(view);
  if (!kinetic) {
    t.charge(kick_work, nlocal);
    return;
  }
  sum_kinetic(t);
  t.charge(kick_kinetic_work, nlocal);
}

bool Simulation::post_force_needs_sums() const {
  for (const auto& fix : fixes_)
    if ((fix->post_force_sums() > 0 && (!minimizing_ || fix->acts_in_minimize())) ||
        ((fix->final_integrate_sums() > 0 || fix->constrains()) && !minimizing_))
      return true;
  return false;
}

void Simulation::sum_kinetic(Tile& t) {
  TileAtoms& s = state(t);
  const auto type = t.get(type_);
  std::array<double, 6> kt{};
  for (std::size_t i = 0; i < static_cast<std::size_t>(s.nlocal); ++i) {
    add_kinetic_tensor(kt.data(), mass_[static_cast<std::size_t>(type[i])], &s.v[3 * i]);
  }
  for (auto& k : kt) k *= units_.mvv2e;
  s.ke_tensor = kt;
  s.ke = 0.5 * (kt[0] + kt[1] + kt[2]);
}

void Simulation::adjust_velocities(std::string_view name,
                                   const std::function<void(FixTile&)>& change) {
  apply_pending_scale();
  runtime_.superstep(name, [&](Tile& t) {
    FixTile view = fix_view(t, step_);
    change(view);
    sum_kinetic(t);
    t.charge(kick_kinetic_work, static_cast<std::uint64_t>(state(t).nlocal));
  });
}

void Simulation::scale_thermal_velocities(std::uint32_t mask, double factor,
                                          const VelocityBias& bias) {
  apply_pending_scale();
  runtime_.superstep("md.velocity_scale_thermal", [&](Tile& t) {
    TileAtoms& s = state(t);
    const auto x = t.get(x_);
    for (std::size_t i = 0; i < static_cast<std::size_t>(s.nlocal); ++i) {
      if (!(s.mask[i] & mask)) continue;
      double* v = &s.v[3 * i];
      const auto b = bias.of(&x[3 * i], v);
      for (std::size_t d = 0; d < 3; ++d) v[d] = (v[d] - b[d]) * factor + b[d];
    }
    sum_kinetic(t);
    t.charge(kick_kinetic_work, static_cast<std::uint64_t>(s.nlocal));
  });
}

}  // namespace tessera::md
