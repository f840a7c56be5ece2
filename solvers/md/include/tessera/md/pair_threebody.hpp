// PairThreeBody<Potential>: a many-body style of two-body terms and three-body terms about each
// atom, with parameters per element triplet from a LAMMPS potential file, as LAMMPS writes sw
// and vashishta (MANYBODY/pair_sw.cpp, pair_vashishta.cpp): everything but the formulas is
// shared here, and each style is a Potential type beside it (pair_sw.hpp, pair_vashishta.hpp).
//
//   pair_style NAME      pair_coeff * * FILE E1 ... EN (an element per type)
// Files tagged `UNITS: metal` run in units real with LAMMPS's conversion; a path that cannot be
// read is looked for in $LAMMPS_POTENTIALS. A restart file records the pair_coeff and reads the
// file again (LAMMPS keeps nothing of these styles in restart files; its users give the pair
// commands again, which md_ipu takes too).
//
// The kernel walks each owned atom's full neighbor list as LAMMPS does: the two-body term of
// each pair within the I-J cutoff that LAMMPS's rule of ids gives the atom (so each pair once,
// with LAMMPS's choice of the I-J-J or J-I-I entry), then the three-body term of every pair j < k
// of its short list (the neighbors within the short cutoff) whose legs are within their I-J and
// I-K three-body cutoffs; forces on ghosts go back to their owners. Energies and virials are
// tallied as LAMMPS's ev_tally and ev_tally3 (per atom too: pe/atom, stress/atom).
//
// A Potential provides:
//   static constexpr const char* name, * file_kind;  the style, and its files in messages
//   static constexpr std::size_t words;              words per file entry, elements included
//   static constexpr bool global_short;               the short list within the largest
//       three-body cutoff (vashishta) rather than within each pair's two-body cutoff (sw)
//   struct Param { double cutsq, cut3sq; ... };      an entry's parameters and derived values
//   static std::string convert_and_check(std::vector<double>& v, double conversion);
//       the entry's numbers (after the three elements) with energies multiplied by the
//       metal<->real `conversion`, and what is illegal about them ("" when nothing)
//   static Param make(const std::vector<double>& v, const Units& units);  (LAMMPS's
//       setup_params)
//   static double twobody(const Param& ij, double rsq, double& energy);
//       returns fpair (the force on i is fpair * (x_i - x_j)) and the energy
//   static void threebody(const Param& ij, const Param& ik, const Param& ijk, double rsq1,
//                         double rsq2, const double* delr1, const double* delr2, double* fj,
//                         double* fk, double& energy);
//   static constexpr KernelWork pair_work, triplet_work, list_work (kernel_work.hpp)
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/md/pair.hpp"

namespace tessera::md {

namespace threebody {

// The elements a pair_coeff names: each type's element and each element triplet's entry of the
// file (LAMMPS's map and elem3param).
struct Elements {
  std::vector<int> type_element;  // per type (1-based; [0] unused)
  std::size_t count = 0;
  std::vector<int> elem3param;  // (i * count + j) * count + k -> entry
  bool covers(int types) const {
    return type_element.size() == static_cast<std::size_t>(types) + 1;
  }
  // Whether the type has an element (not NULL), and the pair's both.
  bool mapped(std::int32_t type) const {
    return static_cast<std::size_t>(type) < type_element.size() &&
           type_element[static_cast<std::size_t>(type)] >= 0;
  }
  std::size_t of_type(std::int32_t type) const {
    return static_cast<std::size_t>(type_element[static_cast<std::size_t>(type)]);
  }
  std::size_t entry(std::size_t i, std::size_t j, std::size_t k) const {
    return static_cast<std::size_t>(elem3param[(i * count + j) * count + k]);
  }
};
// A pair_coeff's file read for the elements it names (pair_threebody.cpp).
struct Table {
  Elements elements;
  std::vector<std::vector<double>> entries;  // each entry's numbers, converted
};
// Per tile, in the tile's memory: the neighbors of the atom at hand within the short cutoff
// (LAMMPS's neighshort). reset at init, for the rank's tiles.
class ShortLists {
 public:
  void reset(std::size_t tiles) {
    lists_.clear();
    lists_.resize(tiles);
  }
  TileVector<int>& of(PairTile& t) {
    auto& list = lists_[t.slot];
    if (!list) list = std::make_unique<TileVector<int>>(t.tile.make_vector<int>("md.short_list"));
    return *list;
  }

 private:
  std::vector<std::unique_ptr<TileVector<int>>> lists_;
};
Table read(const PairContext& context, const std::vector<std::string>& args, int types,
           const std::string& style, const std::string& file_kind, std::size_t words,
           const std::function<std::string(std::vector<double>&, double)>& check);
// The per-atom helpers the kernels share.
bool computes_pair(std::int64_t itag, std::int64_t jtag, const double* xi, const double* xj);
std::int64_t atom_id(const PairTile& t, std::size_t a);
double* atom_force(PairTile& t, std::size_t a);
void tally_atom(PairTile& t, std::size_t a, double e, const double* v, double share);
[[noreturn]] void no_coeff(const std::string& style, int types);
// Refuses a run whose element map misses the box's types or leaves an active type NULL.
void check_elements(const std::string& style, const Elements& elements, int types,
                    const std::function<bool(int)>& active_type);
// A two-body term of atoms i and j: fpair * del (del = x_i - x_j) added to fi and taken from fj
// (accumulators of i's and j's forces), and with EnergyVirial its energy and virial (LAMMPS's
// ev_tally; PerAtom: half to each atom).
template <bool EnergyVirial, bool PerAtom>
inline void add_pair(PairTile& t, std::size_t i, std::size_t j, const double* del, double fpair,
                     double evdwl, double* fi, double* fj, double& energy,
                     std::array<double, 6>& w) {
  for (int a = 0; a < 3; ++a) fi[a] += del[a] * fpair, fj[a] -= del[a] * fpair;
  if constexpr (EnergyVirial) {
    const double v[6] = {del[0] * del[0] * fpair, del[1] * del[1] * fpair, del[2] * del[2] * fpair,
                         del[0] * del[1] * fpair, del[0] * del[2] * fpair, del[1] * del[2] * fpair};
    energy += evdwl;
    for (std::size_t c = 0; c < 6; ++c) w[c] += v[c];
    if constexpr (PerAtom) tally_atom(t, i, evdwl, v, 0.5), tally_atom(t, j, evdwl, v, 0.5);
  }
}
// A three-body term's energy and virial from the forces fj, fk on j and k (delr1 = x_j - x_i,
// delr2 = x_k - x_i): LAMMPS's ev_tally3 (v_tally3 with no energy), a third to each atom.
template <bool PerAtom>
inline void tally_triplet(PairTile& t, std::size_t i, std::size_t j, std::size_t k,
                          const double* delr1, const double* delr2, const double* fj,
                          const double* fk, double evdwl, double& energy,
                          std::array<double, 6>& w) {
  const double v[6] = {delr1[0] * fj[0] + delr2[0] * fk[0], delr1[1] * fj[1] + delr2[1] * fk[1],
                       delr1[2] * fj[2] + delr2[2] * fk[2], delr1[0] * fj[1] + delr2[0] * fk[1],
                       delr1[0] * fj[2] + delr2[0] * fk[2], delr1[1] * fj[2] + delr2[1] * fk[2]};
  energy += evdwl;
  for (std::size_t c = 0; c < 6; ++c) w[c] += v[c];
  if constexpr (PerAtom) {
    constexpr double third = 1.0 / 3.0;
    tally_atom(t, i, evdwl, v, third), tally_atom(t, j, evdwl, v, third);
    tally_atom(t, k, evdwl, v, third);
  }
}
// sw's and vashishta's three-body geometry: a leg of length sqrt(rsq) with the factor
// exp(g / (r - a)) and what its force needs, and the forces on j and k of an angular term whose
// radial factor is facrad and angular derivative facang (cs the angle's cosine, rinv12 =
// 1 / (r1 r2)); LAMMPS's threebody() of both styles.
struct Leg {
  double r, rinvsq, gsrainvsq, expgsrainv;
  Leg(double rsq, double a, double g) : r(std::sqrt(rsq)), rinvsq(1.0 / rsq) {
    const double rainv = 1.0 / (r - a);
    const double gsrainv = g * rainv;
    gsrainvsq = gsrainv * rainv / r;
    expgsrainv = std::exp(gsrainv);
  }
};
inline void angular_forces(const double* delr1, const double* delr2, const Leg& l1, const Leg& l2,
                           double cs, double rinv12, double facrad, double facang, double* fj,
                           double* fk) {
  const double frad1 = facrad * l1.gsrainvsq, frad2 = facrad * l2.gsrainvsq;
  const double facang12 = rinv12 * facang;
  const double csfacang = cs * facang;
  const double csfac1 = l1.rinvsq * csfacang;
  for (int a = 0; a < 3; ++a) fj[a] = delr1[a] * (frad1 + csfac1) - delr2[a] * facang12;
  const double csfac2 = l2.rinvsq * csfacang;
  for (int a = 0; a < 3; ++a) fk[a] = delr2[a] * (frad2 + csfac2) - delr1[a] * facang12;
}

// The pair_coeff a restart file's section recorded.
std::vector<std::string> restored_coeff(const nlohmann::json& section,
                                        const detail::RestartHeader& header);

}  // namespace threebody

template <class Potential>
class PairThreeBody final : public Pair {
 public:
  using Param = typename Potential::Param;
  explicit PairThreeBody(const PairContext& context) : context_(context) {}

  std::string style() const override { return Potential::name; }
  void settings(const std::vector<std::string>& args) override {
    if (!args.empty())
      throw ConfigError(std::string("pair_style ") + Potential::name + " takes no arguments");
  }
  void coeff(const std::vector<std::string>& args, int types) override {
    threebody::Table table =
        threebody::read(context_, args, types, Potential::name, Potential::file_kind,
                        Potential::words, &Potential::convert_and_check);
    params_.clear();
    cutmax_ = 0;
    shortsq_ = 0;
    for (const auto& v : table.entries) {
      params_.push_back(Potential::make(v, context_.units));
      cutmax_ =
          std::max({cutmax_, std::sqrt(params_.back().cutsq), std::sqrt(params_.back().cut3sq)});
      shortsq_ = std::max(shortsq_, params_.back().cut3sq);
    }
    elements_ = std::move(table.elements);
    coeff_call_ = args;
  }
  double init(int types, std::size_t tiles) override {
    if (params_.empty()) threebody::no_coeff(Potential::name, types);
    threebody::check_elements(Potential::name, elements_, types,
                              [&](int i) { return active_type(i, types); });
    short_.reset(tiles);
    return cutmax_;
  }
  bool has_coeff(int i, int j) const override { return elements_.mapped(i) && elements_.mapped(j); }
  bool full_list() const override { return true; }
  bool tallies_per_atom() const override { return true; }
  void compute(PairTile& t) override {
    TileVector<int>& shortlist = short_.of(t);
    with_tally_flags(t, [&]<bool E, bool P>() { kernel<E, P>(t, shortlist); });
  }
  nlohmann::json restart_section() const override {
    return {{"style", style()}, {"coeff", coeff_call_}};
  }
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               int types) override {
    coeff(threebody::restored_coeff(section, header), types);
  }

 private:
  template <bool EnergyVirial, bool PerAtom>
  void kernel(PairTile& t, TileVector<int>& shortlist) const;

  PairContext context_;
  std::vector<std::string> coeff_call_;
  threebody::Elements elements_;
  std::vector<Param> params_;
  double cutmax_ = 0, shortsq_ = 0;
  threebody::ShortLists short_;
};

template <class Potential>
template <bool EnergyVirial, bool PerAtom>
void PairThreeBody<Potential>::kernel(PairTile& t, TileVector<int>& shortlist) const {
  using threebody::atom_force;
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const double* x = t.x.data();
  const std::int32_t* type = t.type.data();
  double energy = 0;
  std::array<double, 6> w{};
  std::uint64_t pairs = 0, triplets = 0;
  const auto element = [&](std::size_t a) { return elements_.of_type(type[a]); };
  const auto param = [&](std::size_t i, std::size_t j, std::size_t k) -> const Param& {
    return params_[elements_.entry(i, j, k)];
  };

  for (std::size_t i = 0; i < nlocal; ++i) {
    if (!elements_.mapped(type[i])) continue;  // NULL under pair_style hybrid
    const std::int64_t itag = t.id[i];
    const std::size_t ie = element(i);
    const double xtmp = x[3 * i], ytmp = x[3 * i + 1], ztmp = x[3 * i + 2];
    double fi[3] = {0, 0, 0};
    shortlist.clear();

    // Two-body terms, each pair once; the short list kept.
    for (int n = t.begin[i]; n < t.begin[i + 1]; ++n) {
      const auto j = static_cast<std::size_t>(t.list[static_cast<std::size_t>(n)]);
      const double del[3] = {xtmp - x[3 * j], ytmp - x[3 * j + 1], ztmp - x[3 * j + 2]};
      const double rsq = del[0] * del[0] + del[1] * del[1] + del[2] * del[2];
      const Param& ij = param(ie, element(j), element(j));
      if (rsq < (Potential::global_short ? shortsq_ : ij.cutsq))
        shortlist.push_back(static_cast<int>(j));
      if (rsq >= ij.cutsq ||
          !threebody::computes_pair(itag, threebody::atom_id(t, j), x + 3 * i, x + 3 * j))
        continue;
      double evdwl = 0;
      const double fpair = Potential::twobody(ij, rsq, evdwl);
      ++pairs;
      threebody::add_pair<EnergyVirial, PerAtom>(t, i, j, del, fpair, evdwl, fi, atom_force(t, j),
                                                 energy, w);
    }

    // Three-body terms of each pair j < k of the short list, i at the vertex.
    const std::size_t numshort = shortlist.size();
    for (std::size_t jj = 0; jj + 1 < numshort; ++jj) {
      const auto j = static_cast<std::size_t>(shortlist[jj]);
      const std::size_t je = element(j);
      const Param& ij = param(ie, je, je);
      const double delr1[3] = {x[3 * j] - xtmp, x[3 * j + 1] - ytmp, x[3 * j + 2] - ztmp};
      const double rsq1 = delr1[0] * delr1[0] + delr1[1] * delr1[1] + delr1[2] * delr1[2];
      if (rsq1 >= ij.cut3sq) continue;
      double fjsum[3] = {0, 0, 0};
      for (std::size_t kk = jj + 1; kk < numshort; ++kk) {
        const auto k = static_cast<std::size_t>(shortlist[kk]);
        const std::size_t ke = element(k);
        const Param& ik = param(ie, ke, ke);
        const double delr2[3] = {x[3 * k] - xtmp, x[3 * k + 1] - ytmp, x[3 * k + 2] - ztmp};
        const double rsq2 = delr2[0] * delr2[0] + delr2[1] * delr2[1] + delr2[2] * delr2[2];
        if (rsq2 >= ik.cut3sq) continue;
        double fj[3], fk[3], evdwl = 0;
        Potential::threebody(ij, ik, param(ie, je, ke), rsq1, rsq2, delr1, delr2, fj, fk, evdwl);
        ++triplets;
        double* fkp = atom_force(t, k);
        for (int a = 0; a < 3; ++a) fi[a] -= fj[a] + fk[a], fjsum[a] += fj[a], fkp[a] += fk[a];
        if constexpr (EnergyVirial)
          threebody::tally_triplet<PerAtom>(t, i, j, k, delr1, delr2, fj, fk, evdwl, energy, w);
      }
      double* fjp = atom_force(t, j);
      for (int a = 0; a < 3; ++a) fjp[a] += fjsum[a];
    }
    for (int a = 0; a < 3; ++a) t.f[3 * i + a] += fi[a];
  }
  if constexpr (EnergyVirial) {
    t.energy = energy;
    t.virial = w;
  }
  t.tile.charge(Potential::list_work, static_cast<std::uint64_t>(t.begin[nlocal]));
  t.tile.charge(Potential::pair_work, pairs);
  t.tile.charge(Potential::triplet_work, triplets);
}

}  // namespace tessera::md
