// pair_style hybrid and hybrid/overlay: several pair styles at once, as LAMMPS's PairHybrid
// and PairHybridOverlay (pair_hybrid.cpp of the version Debian ships, 29 Sep 2021).
//
//   pair_style hybrid STYLE1 ARGS... STYLE2 ARGS...       (each type pair to one sub-style)
//   pair_style hybrid/overlay STYLE1 ARGS... STYLE2 ...   (a type pair may have several; summed)
//   pair_coeff I J STYLE [K] ARGS...    K: which of the sub-styles of that name (1, 2, ...)
//   pair_coeff I J none                 (hybrid: no interaction for these pairs)
//   pair_modify pair STYLE [K] ARGS...  (that sub-style's pair_modify) | pair_modify ARGS...
//                                       (every sub-style that takes them)
// A sub-style takes the type pairs its pair_coeff gave it coefficients for (a many-body style's
// `pair_coeff * * STYLE FILE E1 ... En` all pairs of types not NULL). With hybrid, a pair given
// to a second style leaves the first; with hybrid/overlay it is added. An unlike pair without
// pair_coeff takes the sub-style of its two like pairs when both have that one alone, which
// then mixes it (LAMMPS's rule); otherwise a run refuses it, as it refuses a sub-style no pair
// uses. Each sub-style computes from a neighbor list of its own pairs, filtered from the
// system's at each rebuild (a full list when any sub-style wants one; a half-list style then
// gets each pair once by LAMMPS's rule of the smaller id), its energy, virial and per-atom
// tallies added to the others'. At most one sub-style may send per-atom values to ghosts
// before the forces (eam's F'(rho)); deepmd cannot be a sub-style. A restart file keeps the
// settings and every pair_coeff and pair_modify since them (the files are read again); data
// files get no Pair Coeffs, as LAMMPS's, but read_data takes them ("TYPE STYLE [K] COEFF...").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tessera/md/pair.hpp"

namespace tessera::md {

class PairHybrid final : public Pair {
 public:
  using Variant = bool;  // overlay
  PairHybrid(const PairContext& context, bool overlay);

  std::string style() const override { return overlay_ ? "hybrid/overlay" : "hybrid"; }
  void settings(const std::vector<std::string>& args) override;
  void coeff(const std::vector<std::string>& args, int types) override;
  void modify(const std::vector<std::string>& args) override;
  bool has_coeff(int i, int j) const override;
  double init(int types, std::size_t tiles) override;
  std::optional<std::array<double, 2>> tail_correction(
      std::span<const double> type_counts) const override;
  bool tallies_per_atom() const override;
  std::size_t replicated_bytes() const override;  // the sub-styles'
  bool needs_charges() const override;
  std::optional<double> long_range_cutoff() const override;
  void set_g_ewald(double g_ewald) override;
  void set_dielectric(double dielectric) override;
  // The first sub-style's that has them, as LAMMPS's PairHybrid::extract.
  const CharmmOneFour* charmm_one_four() const override;
  std::optional<double> coulomb_constant() const override;
  bool full_list() const override;
  // Its sub-styles' lists are filtered from the system's main list alone: special pairs with
  // weights other than 0 and 1 are refused until the filter carries them.
  SpecialWeights special_weights() const override { return SpecialWeights::refused; }
  void compute(PairTile& t) override;
  std::size_t forward_per_atom() const override;
  void compute_forward(PairTile& t, std::span<double> owned) override;
  void end_of_step(Runtime& runtime, std::int64_t step, std::int64_t natoms) override;
  void continue_outputs() override;
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               int types) override;
  // A data file's Pair Coeffs line "TYPE STYLE [K] COEFF...": pair_coeff TYPE TYPE STYLE ...,
  // as LAMMPS's read_data passes it.
  void data_coeff(const std::vector<std::string>& words, int types) override;

 private:
  struct Sub {
    std::string name;
    int instance = 0;  // 1, 2, ... when several sub-styles share the name; 0 otherwise
    std::unique_ptr<Pair> pair;
    std::vector<std::vector<std::string>> settings;  // for messages
  };
  // One tile's lists of each sub-style, in the tile's memory.
  struct TileLists {
    std::vector<TileVector<int>> begin, list;
    bool built = false, fresh = false;  // fresh: built by compute_forward for this evaluation
  };
  std::size_t find_sub(const std::vector<std::string>& args, std::size_t& used) const;
  std::string sub_label(std::size_t k) const;
  TileLists& lists(PairTile& t);
  PairTile sub_tile(PairTile& t, TileLists& l, std::size_t k) const;

  PairContext context_;
  bool overlay_;
  bool replaying_ = false;  // restore: the masses are the restart file's
  std::vector<std::string> settings_;
  std::vector<Sub> subs_;
  // [i][j], i <= j: the sub-styles of the pair as pair_coeff set them, and whether it is set
  // (with none, set and empty).
  std::vector<std::vector<std::vector<int>>> map_;
  std::vector<std::vector<char>> set_;
  std::vector<nlohmann::json> commands_;  // pair_coeff and pair_modify since settings
  // From init: the sub-styles of each pair after mixing ([i * (types + 1) + j], both orders).
  int types_ = 0;
  std::vector<std::vector<char>> uses_;  // [sub][pair]
  bool full_ = false;
  std::vector<std::unique_ptr<TileLists>> tiles_;
};

}  // namespace tessera::md
