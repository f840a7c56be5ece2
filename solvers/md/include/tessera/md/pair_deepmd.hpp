// pair_style deepmd: DeePMD-kit models as md_ipu's potential, with the syntax and output of
// DeePMD-kit's LAMMPS plugin (doc/third-party/lammps-command.md in DeePMD-kit):
//
//   pair_style deepmd MODEL [MODEL2 ...] [out_file FILE] [out_freq N] [atomic]
//                     [relative LEVEL] [relative_v LEVEL] [fparam V...] [aparam V...]
//                     [precision float32|float64] [compress yes|no] [compress_stride S]
//                     [compress_extrapolate E] [min_nbor_dist R]
//   pair_coeff * * [ELEMENT ...]
//
// fparam gives a model with frame parameters (numb_fparam) their values, aparam a model with
// atomic parameters (numb_aparam) the values every atom takes, as the plugin's keywords do; a
// model's default fparam serves when fparam is not given. fparam_from_compute,
// aparam_from_compute and fparam_from_fix are refused for now.
//
// `precision` is Tessera's own keyword: it runs the models' networks in float32 or float64
// (deepmd::Precision; the environment matrix, forces and virial stay float64) instead of the
// precision the model file declares. `compress` and its settings are Tessera's too: DeePMD-kit's
// `dp compress` done at load (deepmd/compress.hpp), each model's embedding nets tabulated with
// stride S (default 0.01) up to E (default 5) times the input of a neighbor at R, the training
// data's smallest neighbor distance in Angstrom (default: the model file's own min_nbor_dist).
// Any of the settings implies `compress yes`. Without the keywords a model runs as its file has
// it (a compressed file from its own tables); `compress yes` keeps a compressed file's tables
// unless a setting is given; `compress no` runs the nets of any model. When neighbors come
// closer than a table reaches, a warning says so (once) and G continues linearly, as DeePMD-kit
// does.
// The first model drives the dynamics. With several models, every out_freq steps all of them
// are evaluated and the spread of their predictions (the "model deviation" that DP-GEN uses to
// pick new training configurations) is written to out_file in DeePMD-kit's model_devi.out
// columns: step, max/min/avg virial deviation (per atom), max/min/avg force deviation; with
// `atomic` every atom's force deviation follows, in id order. `relative LEVEL` divides each
// atom's force deviation by |<F>| + LEVEL and `relative_v LEVEL` each virial component's by
// |<W>| / N + LEVEL (DeePMD-kit's relative model deviation; LEVEL in the simulation's units, as
// the plugin takes it). Relative columns have no unit: in units real md_ipu leaves them as they
// are, where the plugin multiplies them by its force factor as it does the absolute ones.
// pair_coeff maps LAMMPS atom types 1..n to the models' element names in order; without names,
// type i is the models' element i-1. Models work in eV and Angstrom; in units real their
// energies, forces and virials are converted as DeePMD-kit's plugin converts them (by boltz /
// 8.617343e-5, the model deviation's columns too); units lj is refused, as by the plugin.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/md/deepmd/model.hpp"
#include "tessera/md/deepmd/se_a.hpp"
#include "tessera/md/pair.hpp"

namespace tessera::md {

class PairDeepMD final : public Pair {
 public:
  // A model file's text by its path (md_ipu reads it on rank 0 and sends it to every rank);
  // throws ConfigError naming the file when it cannot be read.
  using ModelReader = std::function<std::string(const std::string& path)>;

  // The style as pair_style makes it: models come with settings (units metal or real).
  explicit PairDeepMD(const PairContext& context);
  // Loads the models, each rank from its own file system unless `read` is given; throws
  // ConfigError/FormatError naming the file.
  // The compress keywords: whether to tabulate the embedding nets (nullopt: as the file has
  // them) and the settings given (nullopt: DeePMD-kit's defaults, the model's min_nbor_dist).
  struct Compression {
    std::optional<bool> on;
    std::optional<double> stride, extrapolate, min_nbor_dist;
    bool operator==(const Compression&) const = default;
  };
  PairDeepMD(std::vector<std::string> model_paths, std::string out_file, int out_freq,
             std::optional<deepmd::Precision> precision = std::nullopt,
             const ModelReader& read = {}, Compression compression = {});
  ~PairDeepMD() override;

  std::string style() const override { return "deepmd"; }
  // MODEL [MODEL2 ...] [out_file FILE] [out_freq N] [precision float32|float64].
  void settings(const std::vector<std::string>& args) override;
  // * * [ELEMENT ...].
  void coeff(const std::vector<std::string>& args, int types) override;
  // Every type pair is the model's (a type without an element name maps to the model's own).
  bool has_coeff(int, int) const override { return true; }
  double init(int types, std::size_t tiles) override;
  bool full_list() const override { return true; }
  void compute(PairTile& t) override;
  std::size_t extra_per_ghost() const override;
  bool extra_due(std::int64_t step) const override { return deviation_due(step); }
  void fold_returned(Tile& tile, std::size_t slot, std::span<const int> sent,
                     std::span<const double> returned, std::span<const double> f) override;
  void end_of_step(Runtime& runtime, std::int64_t step, std::int64_t natoms) override;
  void continue_outputs() override { append_ = true; }
  nlohmann::json restart_section() const override;
  void restore(const nlohmann::json& section, const detail::RestartHeader& header,
               int types) override;

  // pair_coeff * * NAME...: `names` may be empty (identity map). Throws ConfigError for an
  // element the models do not know or a count that does not match `types`.
  void map_elements(const std::vector<std::string>& names, int types);

  double cutoff() const { return models_.front().rcut; }
  int model_count() const { return static_cast<int>(models_.size()); }
  const deepmd::Model& model(int k) const { return models_[static_cast<std::size_t>(k)]; }
  // Matrix-product flops of one evaluation of model k for an atom of model type `type`, with
  // every neighbor slot computed (as fixed-shape IPU code would): the cost model's work.
  // What the kernel computes in `tape` mode (deepmd::slot_flops).
  double atom_step_flops(int k, int type, deepmd::TapeMode tape) const {
    return cost(k, type, tape).flops;
  }
  // Its tanh evaluations (deepmd::slot_tanh, atom_tanh), every neighbor slot computed.
  double atom_step_tanh(int k, int type, deepmd::TapeMode tape) const {
    return cost(k, type, tape).tanh;
  }
  // A compressed model's table work (deepmd::slot_table_flops), every neighbor slot computed.
  double atom_step_table_flops(int k, int type, deepmd::TapeMode tape) const {
    return cost(k, type, tape).table_flops;
  }
  // The models' type index of LAMMPS atom type `type` (1-based).
  int model_type(int type) const { return type_map_[static_cast<std::size_t>(type)]; }
  // What restart files record: the files, the output settings and each type's element.
  const std::vector<std::string>& model_paths() const { return paths_; }
  const std::string& out_file() const { return out_file_; }
  int out_freq() const { return out_freq_; }
  const std::optional<deepmd::Precision>& precision() const { return precision_; }
  const Compression& compression() const { return compression_; }
  std::vector<std::string> type_elements() const;

  // Whether this step's forces come with a deviation row.
  bool deviation_due(std::int64_t step) const {
    return models_.size() > 1 && out_freq_ > 0 && step % out_freq_ == 0;
  }

  // The statistics of one deviation row, reduced over all atoms.
  struct Deviation {
    double f_max = 0, f_min = 0, f_sum = 0;  // per-atom force deviations
    std::int64_t natoms = 0;
    std::vector<std::array<double, 9>> virial;  // total virial per model
    std::vector<double> atomic;                 // with `atomic`: each atom's, in id order
  };
  // The plugin's deviation keywords: `atomic` (every atom's force deviation after the six
  // columns), `relative LEVEL` (each atom's force deviation over |<F>| + LEVEL) and
  // `relative_v LEVEL` (each virial component's over |<W>| / N + LEVEL); levels in the
  // simulation's force and energy units.
  struct Deviations {
    bool atomic = false;
    std::optional<double> relative, relative_v;
  };
  const Deviations& deviations() const { return deviations_; }
  // Appends a row to out_file (call on one rank only); the first call truncates and writes
  // the header. Throws Error if the file cannot be written.
  void write_deviation(std::int64_t step, const Deviation& d);

  // Per-atom force deviation: sqrt(mean over models |F_k - <F>|^2), DeePMD-kit's std_f.
  // `forces` holds the models' forces on the atom, 3 per model.
  static double force_deviation(std::span<const double> forces, int models);
  // |<F>|, the norm of the models' mean force (relative's denominator less its level).
  static double mean_force_norm(std::span<const double> forces, int models);
  // <F>, the models' mean force on the atom (3 values).
  static std::array<double, 3> mean_force(std::span<const double> forces, int models);

 private:
  void load(std::vector<std::string> model_paths, std::string out_file, int out_freq,
            std::optional<deepmd::Precision> precision, const ModelReader& read,
            Compression compression);
  struct TileState;
  TileState& tile_state(Tile& t, std::size_t slot);
  // The context's file reader with DeePMD's message.
  ModelReader model_reader() const;

  PairContext context_;
  std::vector<std::unique_ptr<TileState>> tiles_;
  std::vector<std::string> paths_;
  std::vector<deepmd::Model> models_;
  std::string out_file_;
  int out_freq_ = 0;
  double energy_factor_ = 1.0;  // the units' energy per eV (DeePMD-kit's ener_unit_cvt_factor)
  std::optional<deepmd::Precision> precision_;
  Compression compression_;
  bool warned_outside_table_ = false;
  Deviations deviations_;
  // The fparam and aparam keywords' values (aparam: every atom's), empty when not given.
  std::vector<double> fparam_, aparam_;
  // Throws ConfigError when a model's frame or atomic parameters are not given in its number.
  void check_parameters() const;
  struct Cost {
    double flops = 0, tanh = 0, table_flops = 0;
  };
  const Cost& cost(int k, int type, deepmd::TapeMode tape) const {
    return costs_[tape == deepmd::TapeMode::kRecompute][static_cast<std::size_t>(k)]
                 [static_cast<std::size_t>(type)];
  }
  std::vector<std::vector<Cost>> costs_[2];  // [kStore, kRecompute][model][type]
  std::vector<int> type_map_;                // [LAMMPS type] -> model type; [0] unused; -1 unmapped
  std::ofstream out_;
  bool append_ = false;
};

}  // namespace tessera::md
