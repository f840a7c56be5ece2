// Pair: a pair style, as LAMMPS's Pair class, one of an open family made by name
// (pair_styles(): `pair_style lj/cut 2.5` makes the style registered as "lj/cut").
//
// Life cycle, as LAMMPS's: settings (the words of pair_style after the name) -> coeff (each
// pair_coeff) -> modify (pair_modify) -> init (at each run's setup: checks the coefficients,
// builds the tables and returns the cutoff) -> compute (each step, on every tile, inside the
// force superstep, so concurrently on different tiles: compute may write only to its PairTile
// and to the state it keeps for that tile). A restart file keeps the style's own section
// (restart_section, restored by restore), and a data file its Pair Coeffs (write_data_coeffs,
// data_coeff).
//
// Units are those of the simulation (units.hpp); forces in force units, energies in energy
// units, the virial as sum r_a f_b over pairs (xx yy zz xy xz yz, energy units).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/registry.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/md/topology.hpp"
#include "tessera/md/units.hpp"

namespace tessera::md {

namespace detail {
class RestartHeader;
}

// What a style may need when it is made: the units, a reader for files it loads (rank 0
// reads them and sends them to every rank; see shared_input.hpp), the setter of a type's
// mass (for styles whose files carry the masses, as LAMMPS's pair_coeff of eam sets them) and
// where to warn.
struct PairContext {
  Units units;
  // A file's text by its path. When it cannot be read, throws ConfigError "cannot open KIND
  // 'PATH': why" followed by `hint`.
  std::function<std::string(const std::string& path, const std::string& kind,
                            const std::string& hint)>
      read_file;
  std::function<void(int type, double mass)> set_mass;
  // Where a style prints a warning (whole lines, LAMMPS's "WARNING: ..."); may be empty.
  std::function<void(const std::string& text)> warn;
};

// One tile's atoms and lists as compute sees them. Atoms 0..nlocal-1 are the tile's own,
// nlocal..nlocal+nghost-1 its ghosts (periodic images or other tiles' atoms, already shifted).
struct PairTile {
  PairTile(Tile& tile, std::size_t slot, std::int64_t step) : tile(tile), slot(slot), step(step) {}
  Tile& tile;
  std::size_t slot;  // this tile's index among the rank's tiles (for per-tile state)
  std::int64_t step;
  int nlocal = 0, nghost = 0;
  std::span<const double> x;           // 3 per atom
  std::span<const std::int32_t> type;  // per atom, 1-based
  std::span<const double> q;           // per atom, charge units; empty unless atom_style charge
  std::span<const std::int64_t> id, ghost_id;  // the owned atoms' ids, the ghosts'
  // Neighbors of owned atom i: list[begin[i] .. begin[i + 1]), a half list (each pair once, a
  // ghost pair on one side only) unless the style asks for a full one.
  std::span<const int> begin, list;
  // Pairs of special neighbors (special_bonds) that a style which weighs them computes with
  // their weights, kept out of `list`: of owned atom i, entries special_begin[i] ..
  // special_begin[i + 1] of special_list, each two ints (the neighbor, its level: 1 for 1-2, 2
  // for 1-3, 3 for 1-4), weighed by special->lj[level] and special->coul[level]. Empty unless the
  // style weighs specials and some weight is neither 0 nor 1 or a kspace style needs the excluded
  // pairs' Coulomb taken out (LAMMPS's special_flag 2).
  std::span<const int> special_begin, special_list;
  const SpecialBonds* special = nullptr;
  bool lists_rebuilt = false;  // the lists are new this step
  bool energy_virial = false;  // thermo wants the energy and virial this step
  // Outputs. Forces on owned atoms and on ghosts (returned to their owners) come zeroed.
  std::span<double> f, ghost_f;
  // The energy in LAMMPS's two parts: Coulomb (eng_coul) and all else (eng_vdwl).
  double energy = 0, energy_coul = 0;
  std::array<double, 6> virial{};
  // At an extra_due step: extra_per_ghost() more doubles per ghost, returned with the forces.
  std::span<double> ghost_extra;
  // At a step where per-atom energies and virials are wanted (per_atom; only for a style that
  // tallies_per_atom): each pair's energy and virial split in halves onto its two atoms, as
  // LAMMPS's ev_tally with newton on. Owned atoms' in eatom (1 each) and vatom (6 each, xx yy zz
  // xy xz yz), ghosts' in ghost_tally (7 each: energy, then the virial), returned to their
  // owners with the forces. All come zeroed.
  bool per_atom = false;
  std::span<double> eatom, vatom, ghost_tally;
  // A style with forward_per_atom() values: those compute_forward gave the owned atoms, and
  // those of the ghosts, as their owners computed them.
  std::span<const double> forward, ghost_forward;
};

// What a CHARMM pair style gives dihedral_style charmm for the 1-4 pairs it computes (LAMMPS's
// Pair::extract of lj14_1..lj14_4 and implicit), after init.
struct CharmmOneFour {
  std::size_t width = 0;  // types + 1
  // Per type pair [i * width + j]: 48 e s^12, 24 e s^6, 4 e s^12 and 4 e s^6 of the pair's 1-4
  // epsilon e and sigma s.
  std::vector<std::array<double, 4>> lj14;
  bool implicit = false;  // Coulomb's 1/r becomes 1/r^2 (a distance-dependent dielectric)
  double qqrd2e = 0;      // Coulomb's constant over the dielectric constant
  // A force-switched style's (lj/charmmfsw/coul/long) cutoffs, which dihedral charmmfsw shifts
  // its 1-4 energies by (LAMMPS's extract of cut_lj_inner, cut_lj and cut_coul); unset for
  // the others.
  bool force_switched = false;
  double cut_lj_inner = 0, cut_lj = 0, cut_coul = 0;
  // Its Coulomb term is a kspace sum's real-space part (LAMMPS's dihedflag): the 1-4 pairs' then
  // plain; otherwise force-shifted as the pair style's (lj/charmmfsw/coul/charmmfsh).
  bool long_range = true;
};

class Pair {
 public:
  virtual ~Pair() = default;

  // The name the style is registered under.
  virtual std::string style() const = 0;
  // pair_style NAME ARGS...: the ARGS. Called again when pair_style names the same style, as
  // LAMMPS does (its coefficients are kept).
  virtual void settings(const std::vector<std::string>& args) = 0;
  // pair_coeff ARGS... for a box of `types` atom types.
  virtual void coeff(const std::vector<std::string>& args, int types) = 0;
  // pair_modify ARGS...; the default refuses any.
  virtual void modify(const std::vector<std::string>& args);
  // Whether pair_coeff has given the type pair i <= j what it needs (LAMMPS's setflag[i][j];
  // pair_style hybrid maps a pair to the sub-style that has it).
  virtual bool has_coeff(int i, int j) const = 0;
  // Under pair_style hybrid, before init: the type pairs this style computes (`pairs[i * (types +
  // 1) + j]`, both orders). init then checks and builds those alone, and compute's lists hold
  // only them. Empty (the default): every pair.
  void set_active_pairs(std::vector<bool> pairs) { active_pairs_ = std::move(pairs); }
  // Checks that every pair of the `types` types has coefficients and builds the tables; returns
  // the largest cutoff. `tiles` is the number of tiles on this rank. Throws ConfigError.
  virtual double init(int types, std::size_t tiles) = 0;
  // LAMMPS's long-range tail correction (pair_modify tail yes), after init: the energy and the
  // pressure-virial constants (etail, ptail; divided by the volume they add to the potential
  // energy and to each diagonal virial element), from the number of atoms of each type
  // (type_counts[t], t = 1..types); nothing when it is off.
  virtual std::optional<std::array<double, 2>> tail_correction(
      std::span<const double> /*type_counts*/) const {
    return std::nullopt;
  }
  // Whether compute fills PairTile's per-atom tallies when asked (LAMMPS's eflag_atom and
  // vflag_atom), so that compute pe/atom and stress/atom can be used.
  virtual bool tallies_per_atom() const { return false; }
  // Bytes of the tables every tile holds for the style after init (replicated per tile, as an
  // IPU program keeps them): the setup charges them to each tile's memory.
  virtual std::size_t replicated_bytes() const { return 0; }
  // Whether the style needs the atoms' charges (atom_style charge); a run refuses it without.
  virtual bool needs_charges() const { return false; }
  // A style whose Coulomb term is the real-space part of a kspace style's sum (LAMMPS's
  // ewaldflag): its Coulomb cutoff, which the kspace style's accuracy estimate uses; nothing for
  // the others. set_g_ewald gives it the kspace style's splitting parameter before init.
  virtual std::optional<double> long_range_cutoff() const { return std::nullopt; }
  virtual void set_g_ewald(double /*g_ewald*/) {}
  // LAMMPS's dielectric command, before each run's init: the Coulomb styles divide Coulomb's
  // constant by it (qqrd2e = qqr2e / dielectric).
  virtual void set_dielectric(double /*dielectric*/) {}
  // A style that replaces the units' Coulomb constant while it is the pair style, as LAMMPS's
  // CHARMM force-switched styles take CHARMM's 332.0716 in units real (the kspace style uses it
  // too); nothing for the others.
  virtual std::optional<double> coulomb_constant() const { return std::nullopt; }
  // A CHARMM style's 1-4 coefficients, after init; nothing for the others.
  virtual const CharmmOneFour* charmm_one_four() const { return nullptr; }
  // A full neighbor list (every neighbor of each owned atom) rather than a half one.
  virtual bool full_list() const { return false; }
  // What the style does with special_bonds' weights: weighs each special pair's terms (the
  // pairwise styles, from PairTile::special_list), computes special neighbors whose weights are
  // not both 0 as any other pair (LAMMPS's many-body styles, which ignore the weights), or
  // cannot take weights other than 0 and 1 yet (a run refuses them).
  enum class SpecialWeights { weighed, unweighted, refused };
  virtual SpecialWeights special_weights() const { return SpecialWeights::unweighted; }
  // Forces (and, when asked, energy and virial) of the tile's atoms.
  virtual void compute(PairTile& t) = 0;
  // Values per atom that the style computes for the owned atoms before the forces and needs
  // on their ghost copies too (LAMMPS's forward_comm_pair: EAM's F'(rho)); 0: none. Then each
  // step compute_forward runs first, in a superstep of its own, with the PairTile compute gets
  // (its outputs unused), and fills `owned` (forward_per_atom() per owned atom); compute then
  // finds them in PairTile::forward and the ghosts' in PairTile::ghost_forward.
  virtual std::size_t forward_per_atom() const { return 0; }
  virtual void compute_forward(PairTile& /*t*/, std::span<double> /*owned*/) {}

  // Values per ghost that some steps return to the owners with the forces (after init; 0:
  // none), and whether `step` is one. At such a step compute fills PairTile::ghost_extra, and
  // fold_returned gets, in the superstep after the forces (concurrently over tiles), what came
  // back for each atom the tile sent as a ghost (`sent`, extra_per_ghost values each) and the
  // tile's complete forces `f`.
  virtual std::size_t extra_per_ghost() const { return 0; }
  virtual bool extra_due(std::int64_t /*step*/) const { return false; }
  virtual void fold_returned(Tile& /*tile*/, std::size_t /*slot*/, std::span<const int> /*sent*/,
                             std::span<const double> /*returned*/, std::span<const double> /*f*/) {}
  // After each step's forces are complete (and after a run's setup), on every rank: output of
  // the style's own (DeePMD-kit's model deviation). Collective.
  virtual void end_of_step(Runtime& /*runtime*/, std::int64_t /*step*/, std::int64_t /*natoms*/) {}
  // A run continued from a restart file: the style's outputs append rather than start anew.
  virtual void continue_outputs() {}

  // Its section of a restart file ({"style": NAME, ...}); restore reads one back for a box of
  // `types` types, checking each field as the command that set it (FormatError naming it).
  virtual nlohmann::json restart_section() const = 0;
  virtual void restore(const nlohmann::json& section, const detail::RestartHeader& header,
                       int types) = 0;
  // A data file's "Pair Coeffs # STYLE" section (nothing when the style has none to write), and
  // one of its lines ("TYPE COEFF...") read back.
  virtual void write_data_coeffs(std::ostream& /*out*/, int /*types*/) const {}
  virtual void data_coeff(const std::vector<std::string>& words, int types);

 protected:
  // Whether init should check and build type pair (i, j), and type i (in some active pair), for
  // a box of `types` types (set_active_pairs).
  bool active(int i, int j, int types) const {
    return active_pairs_.empty() ||
           active_pairs_[static_cast<std::size_t>(i) * (static_cast<std::size_t>(types) + 1) +
                         static_cast<std::size_t>(j)];
  }
  bool active_type(int i, int types) const {
    for (int j = 1; j <= types; ++j)
      if (active(i, j, types)) return true;
    return false;
  }

 private:
  std::vector<bool> active_pairs_;
};

// Calls f.template operator()<EnergyVirial, PerAtom>() with the flags this step asks for (energy
// and virial, and per-atom tallies, which imply them), so that a kernel compiled for each of the
// three combinations does only the work asked of it:
//   with_tally_flags(t, [&]<bool E, bool P>() { kernel<E, P>(t); });
template <class F>
void with_tally_flags(const PairTile& t, F&& f) {
  if (t.per_atom)
    f.template operator()<true, true>();
  else if (t.energy_virial)
    f.template operator()<true, false>();
  else
    f.template operator()<false, false>();
}

// A pair's per-atom share (PairTile::per_atom): `half` of its energy and half of its virial `v`
// (xx yy zz xy xz yz) onto owned atom i and onto j, owned or a ghost (its tally slot), as LAMMPS's
// ev_tally with newton on.
inline void tally_half_pair_onto_atoms(PairTile& t, std::size_t i, std::size_t j, double half,
                                       const std::array<double, 6>& v) {
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  t.eatom[i] += half;
  for (std::size_t k = 0; k < 6; ++k) t.vatom[6 * i + k] += 0.5 * v[k];
  if (j < nlocal) {
    t.eatom[j] += half;
    for (std::size_t k = 0; k < 6; ++k) t.vatom[6 * j + k] += 0.5 * v[k];
  } else {
    double* g = &t.ghost_tally[7 * (j - nlocal)];
    g[0] += half;
    for (std::size_t k = 0; k < 6; ++k) g[1 + k] += 0.5 * v[k];
  }
}

// A pair of a half list (i owned, j owned or a ghost): its virial (r_a f_b for the separation d and
// force factor fpair, xx yy zz xy xz yz) added to `w`, and with PerAtom `half` of its energy and
// half its virial onto each atom (ghost j's into its tally slot), as LAMMPS's ev_tally with
// newton on.
template <bool PerAtom>
inline void tally_half_pair(PairTile& t, std::size_t i, std::size_t j, double dx, double dy,
                            double dz, double fpair, double half, std::array<double, 6>& w) {
  const std::array<double, 6> v = {fpair * dx * dx, fpair * dy * dy, fpair * dz * dz,
                                   fpair * dx * dy, fpair * dx * dz, fpair * dy * dz};
  for (std::size_t k = 0; k < 6; ++k) w[k] += v[k];
  if constexpr (PerAtom) tally_half_pair_onto_atoms(t, i, j, half, v);
}

// A weighing style's special pairs (PairTile::special_list), after its kernel over the main list
// (their energy and virial add to the tile's): `force(i, j, rsq, lj, coul, evdwl, ecoul, fpair)`
// returns whether the pair is within its cutoff and then sets fpair (the force over r) and, with
// EnergyVirial, evdwl and ecoul, the weights lj and coul applied as the style applies them.
template <bool EnergyVirial, bool PerAtom, class Force>
void weighted_special_pairs(PairTile& t, Force&& force) {
  if (t.special_list.empty()) return;
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const auto& x = t.x;
  for (std::size_t i = 0; i < nlocal; ++i)
    for (int k = t.special_begin[i]; k < t.special_begin[i + 1]; ++k) {
      const auto j = static_cast<std::size_t>(t.special_list[2 * static_cast<std::size_t>(k)]);
      const auto level =
          static_cast<std::size_t>(t.special_list[2 * static_cast<std::size_t>(k) + 1]);
      const double dx = x[3 * i] - x[3 * j], dy = x[3 * i + 1] - x[3 * j + 1],
                   dz = x[3 * i + 2] - x[3 * j + 2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      double evdwl = 0, ecoul = 0, fpair = 0;
      if (!force(i, j, rsq, t.special->lj[level], t.special->coul[level], evdwl, ecoul, fpair))
        continue;
      t.f[3 * i] += dx * fpair, t.f[3 * i + 1] += dy * fpair, t.f[3 * i + 2] += dz * fpair;
      double* reacting = j < nlocal ? &t.f[3 * j] : &t.ghost_f[3 * (j - nlocal)];
      reacting[0] -= dx * fpair, reacting[1] -= dy * fpair, reacting[2] -= dz * fpair;
      if constexpr (EnergyVirial) {
        t.energy += evdwl;
        t.energy_coul += ecoul;
        tally_half_pair<PerAtom>(t, i, j, dx, dy, dz, fpair, 0.5 * (evdwl + ecoul), t.virial);
      }
    }
}

// The pair styles md_ipu has, by name.
const Registry<Pair, const PairContext&>& pair_styles();

}  // namespace tessera::md
