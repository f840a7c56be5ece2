// pair_style lj/cut: the 12-6 Lennard-Jones potential with a cutoff, as in LAMMPS.
//
//   E(r) = 4 eps [(sigma/r)^12 - (sigma/r)^6] - E_shift,   r < rc
// with E_shift = E(rc) under `pair_modify shift yes`, else 0. Coefficients of
// unlike types not given by pair_coeff are mixed from the like ones
// (geometric by default, or arithmetic: sigma_ij = (sigma_i + sigma_j)/2).
// Life cycle as in LAMMPS (pair.hpp): pair_style lj/cut RC -> pair_coeff I J EPS SIGMA [RC]
// -> pair_modify shift yes|no mix geometric|arithmetic tail yes|no -> init. With tail yes the
// energy and pressure of the potential beyond the cutoff, for a uniform fluid, are added as
// LAMMPS adds them (tail_correction). The kernel walks a half list
// (each pair once, the reaction to the other atom or to its ghost slot), as LAMMPS's
// PairLJCut::compute with newton on.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/md/pair.hpp"

namespace tessera::md {

class PairLJCut final : public Pair {
 public:
  PairLJCut() = default;
  explicit PairLJCut(const PairContext&) {}

  std::string style() const override { return "lj/cut"; }
  void settings(const std::vector<std::string>& args) override;
  void coeff(const std::vector<std::string>& args, int types) override;
  void modify(const std::vector<std::string>& args) override;
  bool has_coeff(int i, int j) const override;
  double init(int types, std::size_t tiles) override;
  void compute(PairTile& t) override;
  SpecialWeights special_weights() const override { return SpecialWeights::weighed; }
  bool tallies_per_atom() const override { return true; }
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               int types) override;
  void write_data_coeffs(std::ostream& out, int types) const override;
  void data_coeff(const std::vector<std::string>& words, int types) override;

  void settings(double global_cutoff);
  // Sets types [ilo..ihi] x [jlo..jhi]; cutoff < 0 means the global cutoff.
  void coeff(int ilo, int ihi, int jlo, int jhi, double epsilon, double sigma, double cutoff);
  void set_shift(bool shift) { shift_ = shift; }
  void set_mix(const std::string& rule);  // "geometric" or "arithmetic"
  // Mixes the missing pairs and derives the force tables for `types` atom types;
  // throws ConfigError naming a pair that has no coefficients.
  void build_tables(int types);

  bool defined() const { return global_cutoff_ > 0; }
  double max_cutoff() const { return max_cutoff_; }
  int types() const { return types_; }
  double global_cutoff() const { return global_cutoff_; }
  bool shift() const { return shift_; }
  std::optional<std::array<double, 2>> tail_correction(
      std::span<const double> type_counts) const override;
  const std::string& mix() const { return mix_; }

  // Per type pair (1-based types, index i * (types + 1) + j).
  struct Coeff {
    double cutsq = 0, lj1 = 0, lj2 = 0, lj3 = 0, lj4 = 0, offset = 0;
  };
  const Coeff& operator()(int i, int j) const {
    return table_[static_cast<std::size_t>(i * (types_ + 1) + j)];
  }

  // What pair_coeff set, for restart files: (i, j, eps, sigma, cut, explicitly set).
  struct Setting {
    double epsilon = 0, sigma = 0, cutoff = 0;
    bool set = false;
  };
  const std::vector<std::vector<Setting>>& settings_table() const { return set_; }

 private:
  template <bool EnergyVirial, bool PerAtom>
  void kernel(PairTile& t) const;

  double global_cutoff_ = 0;
  bool shift_ = false, tail_ = false;
  std::string mix_ = "geometric";
  int types_ = 0;
  double max_cutoff_ = 0;
  std::vector<std::vector<Setting>> set_;  // (types + 1)^2, as given
  std::vector<Coeff> table_;
  std::vector<Setting> mixed_;  // each pair's mixed eps, sigma and cutoff, as table_
};

}  // namespace tessera::md
