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

// A pair_coeff's file read for the elements it names (pair_threebody.cpp).
struct Table {
  std::vector<int> type_element;  // per type (1-based; [0] unused)
  std::size_t nelements = 0;
  std::vector<int> elem3param;               // (i * N + j) * N + k -> entry
  std::vector<std::vector<double>> entries;  // each entry's numbers, converted
};
// pair_coeff * * FILE E1 ... EN: the file's entries of `words` words whose three elements are
// all named, checked (check(values, conversion) converts them and says what is illegal, as in
// Potential::convert_and_check), every triplet needing exactly one. Throws ConfigError for the
// arguments, FormatError naming the file and line for the file.
Table read(const PairContext& context, const std::vector<std::string>& args, int types,
           const std::string& style, const std::string& file_kind, std::size_t words,
           const std::function<std::string(std::vector<double>&, double)>& check);
// The per-atom helpers the kernels share.
bool computes_pair(std::int64_t itag, std::int64_t jtag, const double* xi, const double* xj);
std::int64_t atom_id(const PairTile& t, std::size_t a);
double* atom_force(PairTile& t, std::size_t a);
void tally_atom(PairTile& t, std::size_t a, double e, const double* v, double share);
[[noreturn]] void no_coeff(const std::string& style, int types);
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
    type_element_ = std::move(table.type_element);
    nelements_ = table.nelements;
    elem3param_ = std::move(table.elem3param);
    coeff_call_ = args;
  }
  double init(int types, std::size_t tiles) override {
    if (params_.empty() || type_element_.size() != static_cast<std::size_t>(types) + 1)
      threebody::no_coeff(Potential::name, types);
    short_.clear();
    short_.resize(tiles);
    return cutmax_;
  }
  bool full_list() const override { return true; }
  bool tallies_per_atom() const override { return true; }
  void compute(PairTile& t) override {
    if (!short_[t.slot])
      short_[t.slot] =
          std::make_unique<TileVector<int>>(t.tile.make_vector<int>("md.threebody_short"));
    with_tally_flags(t, [&]<bool E, bool P>() { kernel<E, P>(t); });
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
  void kernel(PairTile& t) const;

  PairContext context_;
  std::vector<std::string> coeff_call_;
  std::vector<int> type_element_;
  std::size_t nelements_ = 0;
  std::vector<Param> params_;
  std::vector<int> elem3param_;
  double cutmax_ = 0, shortsq_ = 0;
  std::vector<std::unique_ptr<TileVector<int>>> short_;  // per tile: LAMMPS's neighshort
};

template <class Potential>
template <bool EnergyVirial, bool PerAtom>
void PairThreeBody<Potential>::kernel(PairTile& t) const {
  using threebody::atom_force;
  using threebody::tally_atom;
  const auto nlocal = static_cast<std::size_t>(t.nlocal);
  const std::size_t ne = nelements_;
  const double* x = t.x.data();
  const std::int32_t* type = t.type.data();
  TileVector<int>& shortlist = *short_[t.slot];
  double energy = 0;
  std::array<double, 6> w{};
  std::uint64_t pairs = 0, triplets = 0;
  const auto element = [&](std::size_t a) {
    return static_cast<std::size_t>(type_element_[static_cast<std::size_t>(type[a])]);
  };
  const auto param = [&](std::size_t i, std::size_t j, std::size_t k) -> const Param& {
    return params_[static_cast<std::size_t>(elem3param_[(i * ne + j) * ne + k])];
  };

  for (std::size_t i = 0; i < nlocal; ++i) {
    const std::int64_t itag = t.id[i];
    const std::size_t ie = element(i);
    const double xtmp = x[3 * i], ytmp = x[3 * i + 1], ztmp = x[3 * i + 2];
    double fxtmp = 0, fytmp = 0, fztmp = 0;
    shortlist.clear();

    // Two-body terms, each pair once; the short list kept.
    for (int n = t.begin[i]; n < t.begin[i + 1]; ++n) {
      const auto j = static_cast<std::size_t>(t.list[static_cast<std::size_t>(n)]);
      const double delx = xtmp - x[3 * j], dely = ytmp - x[3 * j + 1], delz = ztmp - x[3 * j + 2];
      const double rsq = delx * delx + dely * dely + delz * delz;
      const Param& ij = param(ie, element(j), element(j));
      if (rsq < (Potential::global_short ? shortsq_ : ij.cutsq))
        shortlist.push_back(static_cast<int>(j));
      if (rsq >= ij.cutsq ||
          !threebody::computes_pair(itag, threebody::atom_id(t, j), x + 3 * i, x + 3 * j))
        continue;
      double evdwl = 0;
      const double fpair = Potential::twobody(ij, rsq, evdwl);
      ++pairs;
      fxtmp += delx * fpair, fytmp += dely * fpair, fztmp += delz * fpair;
      double* fj = atom_force(t, j);
      fj[0] -= delx * fpair, fj[1] -= dely * fpair, fj[2] -= delz * fpair;
      if constexpr (EnergyVirial) {
        const double v[6] = {delx * delx * fpair, dely * dely * fpair, delz * delz * fpair,
                             delx * dely * fpair, delx * delz * fpair, dely * delz * fpair};
        energy += evdwl;
        for (std::size_t c = 0; c < 6; ++c) w[c] += v[c];
        if constexpr (PerAtom) tally_atom(t, i, evdwl, v, 0.5), tally_atom(t, j, evdwl, v, 0.5);
      }
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
      double fjx = 0, fjy = 0, fjz = 0;
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
        fxtmp -= fj[0] + fk[0], fytmp -= fj[1] + fk[1], fztmp -= fj[2] + fk[2];
        fjx += fj[0], fjy += fj[1], fjz += fj[2];
        double* fkp = atom_force(t, k);
        fkp[0] += fk[0], fkp[1] += fk[1], fkp[2] += fk[2];
        if constexpr (EnergyVirial) {
          const double v[6] = {
              delr1[0] * fj[0] + delr2[0] * fk[0], delr1[1] * fj[1] + delr2[1] * fk[1],
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
      }
      double* fjp = atom_force(t, j);
      fjp[0] += fjx, fjp[1] += fjy, fjp[2] += fjz;
    }
    t.f[3 * i] += fxtmp, t.f[3 * i + 1] += fytmp, t.f[3 * i + 2] += fztmp;
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
