#include "tessera/md/pair_deepmd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "arguments.hpp"
#include "charged_bytes.hpp"
#include "restart_header.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/format.hpp"
#include "tessera/md/deepmd/compress.hpp"
#include "tessera/md/deepmd/se_a.hpp"
#include "tessera/md/kernel_work.hpp"

namespace tessera::md {
using namespace arguments;
namespace {

template <class T>
std::size_t capacity_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

}  // namespace

// One tile's kernel scratch, lists and results, reused from step to step. Tiles with a memory
// budget (IPU targets) recompute the embedding nets' activations in the backward pass rather
// than keep them: a quarter of the memory.
struct PairDeepMD::TileState {
  explicit TileState(Tile& t)
      : tape(t.memory().budget() > 0 ? deepmd::TapeMode::kRecompute : deepmd::TapeMode::kStore),
        workspace(tape),
        model_bytes(t.memory(), "md.deepmd_model"),
        workspace_bytes(t.memory(), "md.deepmd_workspace"),
        io_bytes(t.memory(), "md.deepmd_inputs_outputs") {}
  deepmd::TapeMode tape;
  deepmd::Workspace workspace;
  deepmd::NeighborList list;
  std::vector<int> types;
  std::vector<double> aparam;  // the aparam keyword's values for each owned atom
  deepmd::Result result;
  // Model-deviation steps: every model's force on each owned atom (3 per model, model 0
  // first), the deviation statistics and each model's virial (9 per model).
  std::vector<double> forces;
  double devi_max = 0, devi_min = 0, devi_sum = 0;
  std::vector<double> devi_virial;
  // With `atomic`: each owned atom's force deviation and the atoms' ids.
  std::vector<double> devi_atom;
  std::vector<std::int64_t> ids;
  // Compressed models: neighbor slots beyond their tables since the last check.
  std::uint64_t outside_table = 0;
  // What the models (replicated per tile, as on the IPU) and the buffers above take.
  ChargedBytes model_bytes, workspace_bytes, io_bytes;
};

PairDeepMD::PairDeepMD(const PairContext& context)
    : context_(context), energy_factor_(context.units.boltz / 8.617343e-5) {}

PairDeepMD::PairDeepMD(std::vector<std::string> model_paths, std::string out_file, int out_freq,
                       std::optional<deepmd::Precision> precision, const ModelReader& read,
                       Compression compression) {
  load(std::move(model_paths), std::move(out_file), out_freq, precision, read, compression);
}

PairDeepMD::~PairDeepMD() = default;

PairDeepMD::ModelReader PairDeepMD::model_reader() const {
  return [read = context_.read_file](const std::string& path) {
    return read(path, "DeePMD model file",
                "; give the path of a .yaml model written by `dp convert-backend`");
  };
}

void PairDeepMD::load(std::vector<std::string> model_paths, std::string out_file, int out_freq,
                      std::optional<deepmd::Precision> precision, const ModelReader& read,
                      Compression compression) {
  paths_ = std::move(model_paths);
  out_file_ = std::move(out_file);
  out_freq_ = out_freq;
  precision_ = precision;
  compression_ = compression;
  warned_outside_table_ = false;
  models_.clear();
  costs_[0].clear();
  costs_[1].clear();
  type_map_.clear();  // pair_coeff maps the new models' elements
  if (out_.is_open()) out_.close();
  if (paths_.empty()) throw ConfigError("pair_style deepmd needs at least one model file");
  if (out_freq_ < 0) throw ConfigError("pair_style deepmd: out_freq must not be negative");
  for (const auto& path : paths_) {
    models_.push_back(read ? deepmd::parse_model_file(read(path), path) : deepmd::load_model(path));
    deepmd::Model& m = models_.back();
    if (precision_) m.precision = *precision_;
    if (m.descriptor == deepmd::DescriptorType::kSeAtten &&
        m.precision == deepmd::Precision::kFloat32) {
      // The DPA-1 kernel has no float32 path: the float32 weights run in float64 arithmetic.
      m.precision = deepmd::Precision::kFloat64;
      if (context_.warn)
        context_.warn(
            "WARNING: pair_style deepmd: model " + path +
            " (dpa1) runs its float32 networks in float64 arithmetic (md_ipu's DPA-1 kernel "
            "has no float32 path); its results lie within float32 rounding of "
            "DeePMD-kit's\n");
    }
    const Compression& c = compression_;
    const bool settings = c.stride || c.extrapolate || c.min_nbor_dist;
    if (c.on == false) {
      m.tables.clear();
    } else if ((c.on && !m.compressed()) || settings) {
      deepmd::CompressionSettings s;
      s.min_nbor_dist = c.min_nbor_dist.value_or(0.0);
      s.stride = c.stride.value_or(s.stride);
      s.extrapolate = c.extrapolate.value_or(s.extrapolate);
      try {
        deepmd::compress(m, s);
      } catch (const ConfigError& e) {
        throw ConfigError("pair_style deepmd: model " + path + ": " + e.what());
      }
    }
  }
  for (const auto tape : {deepmd::TapeMode::kStore, deepmd::TapeMode::kRecompute})
    for (const auto& m : models_) {
      Cost slots;
      for (int t = 0; t < static_cast<int>(m.sel.size()); ++t) {
        slots.flops += m.sel[static_cast<std::size_t>(t)] * deepmd::slot_flops(m, t, tape);
        slots.tanh += m.sel[static_cast<std::size_t>(t)] * deepmd::slot_tanh(m, t, tape);
        slots.table_flops += m.sel[static_cast<std::size_t>(t)] * deepmd::slot_table_flops(m, t);
      }
      std::vector<Cost> per_type;
      for (int t = 0; t < m.ntypes(); ++t)
        per_type.push_back({slots.flops + deepmd::atom_flops(m, t),
                            slots.tanh + deepmd::atom_tanh(m, t), slots.table_flops});
      costs_[tape == deepmd::TapeMode::kRecompute].push_back(per_type);
    }
  const deepmd::Model& first = models_.front();
  for (std::size_t k = 1; k < models_.size(); ++k) {
    // DeePMD-kit's model deviation compares models of one system: same elements, same cutoff.
    if (models_[k].type_map != first.type_map)
      throw ConfigError("pair_style deepmd: models " + paths_[0] + " and " + paths_[k] +
                        " have different element lists (type_map); model deviation needs models "
                        "of the same elements in the same order");
    if (models_[k].rcut != first.rcut)
      throw ConfigError("pair_style deepmd: models " + paths_[0] + " and " + paths_[k] +
                        " have different cutoffs; model deviation needs one cutoff");
  }
  check_parameters();
}

// As the plugin, which reads exactly the model's dim_fparam (dim_aparam) values after the
// keyword; a model without parameters given some is refused too.
void PairDeepMD::check_parameters() const {
  for (std::size_t k = 0; k < models_.size(); ++k) {
    const deepmd::Model& m = models_[k];
    const auto check = [&](const char* key, const std::vector<double>& given, int wanted,
                           bool has_default) {
      if (given.empty() && (wanted == 0 || has_default)) return;
      if (given.empty())
        throw ConfigError("pair_style deepmd: model " + paths_[k] + " takes " +
                          std::to_string(wanted) + " " + key + " value(s) (numb_" + key +
                          "); give them with the keyword " + key);
      if (static_cast<int>(given.size()) != wanted)
        throw ConfigError("pair_style deepmd: Illegal " + std::string(key) +
                          ", the dimension should be " + std::to_string(wanted) + " (model " +
                          paths_[k] + "; " + std::to_string(given.size()) + " given)");
    };
    check("fparam", fparam_, m.numb_fparam, !m.default_fparam.empty());
    check("aparam", aparam_, m.numb_aparam, false);
  }
}

void PairDeepMD::map_elements(const std::vector<std::string>& names, int types) {
  const auto& elements = models_.front().type_map;
  type_map_.assign(static_cast<std::size_t>(types) + 1, -1);
  if (names.empty()) {
    if (types > static_cast<int>(elements.size()))
      throw ConfigError("pair_coeff: the box has " + std::to_string(types) +
                        " atom types but the model knows " + std::to_string(elements.size()) +
                        " elements; name the element of each type: pair_coeff * * O H ...");
    for (int t = 1; t <= types; ++t) type_map_[static_cast<std::size_t>(t)] = t - 1;
    return;
  }
  if (static_cast<int>(names.size()) != types)
    throw ConfigError("pair_coeff: " + std::to_string(names.size()) + " element names for " +
                      std::to_string(types) + " atom types; give one element per atom type");
  for (int t = 1; t <= types; ++t) {
    const auto& name = names[static_cast<std::size_t>(t - 1)];
    const auto it = std::find(elements.begin(), elements.end(), name);
    if (it == elements.end()) {
      std::string known;
      for (const auto& e : elements) known += (known.empty() ? "" : " ") + e;
      throw ConfigError("pair_coeff: element " + name + " is not in the model (it knows " + known +
                        ")");
    }
    type_map_[static_cast<std::size_t>(t)] = static_cast<int>(it - elements.begin());
  }
}

double PairDeepMD::init(int types, std::size_t tiles) {
  if (static_cast<int>(type_map_.size()) != types + 1)
    throw ConfigError(
        "run: pair_style deepmd has no element for the atom types; add pair_coeff "
        "* * followed by one element name per atom type");
  if (tiles_.size() != tiles) tiles_.resize(tiles);
  return cutoff();
}

// As DeePMD-kit's LAMMPS plugin: the words before the first keyword are model files.
void PairDeepMD::settings(const std::vector<std::string>& a) {
  const char* usage = "pair_style deepmd MODEL [MODEL2 ...] [out_file FILE] [out_freq N]";
  need(a, 1, usage);
  // As the plugin: models work in eV and Angstrom; their energies, forces and virials are
  // multiplied by boltz / 8.617343e-5 (1 in units metal, kcal/mol per eV in units real; the
  // distance unit is the Angstrom in both).
  if (context_.units.style == "lj")
    bad("pair_style deepmd does not support units lj (DeePMD-kit's plugin refuses it too); use "
        "units metal or real, before the box is defined");
  static const std::vector<std::string> plugin_keywords = {"out_file",
                                                           "out_freq",
                                                           "fparam",
                                                           "aparam",
                                                           "fparam_from_compute",
                                                           "aparam_from_compute",
                                                           "fparam_from_fix",
                                                           "charge_spin",
                                                           "ttm",
                                                           "atomic",
                                                           "relative",
                                                           "relative_v",
                                                           "virtual_len",
                                                           "spin_norm",
                                                           "precision",
                                                           "compress",
                                                           "compress_stride",
                                                           "compress_extrapolate",
                                                           "min_nbor_dist"};
  auto is_keyword = [&](const std::string& w) {
    return std::find(plugin_keywords.begin(), plugin_keywords.end(), w) != plugin_keywords.end();
  };
  std::vector<std::string> models;
  std::size_t i = 0;
  for (; i < a.size() && !is_keyword(a[i]); ++i) models.push_back(a[i]);
  if (models.empty()) bad("pair_style deepmd: name at least one model file before " + a[i]);
  std::string out_file = "model_devi.out";
  long long out_freq = 100;
  std::optional<deepmd::Precision> precision;
  Compression compression;
  Deviations deviations;
  std::vector<double> fparam, aparam;
  for (; i < a.size(); ++i) {
    const std::string& key = a[i];
    if (key == "atomic") {
      deviations.atomic = true;
      continue;
    }
    if (key == "fparam" || key == "aparam") {
      std::vector<double>& values = key == "fparam" ? fparam : aparam;
      if (!values.empty()) bad("pair_style deepmd: keyword " + key + " is given twice");
      while (i + 1 < a.size() && !is_keyword(a[i + 1]))
        values.push_back(number("pair_style deepmd " + key, a[++i]));
      if (values.empty()) bad("pair_style deepmd: keyword " + key + " needs its values");
      continue;
    }
    static const std::vector<std::string> valued = {
        "out_file",     "out_freq", "precision",       "relative",
        "relative_v",   "compress", "compress_stride", "compress_extrapolate",
        "min_nbor_dist"};
    if (std::find(valued.begin(), valued.end(), key) == valued.end())
      bad("pair_style deepmd: keyword " + key +
          " of DeePMD-kit's plugin is not supported by md_ipu; supported: out_file, out_freq, "
          "atomic, relative, relative_v, fparam, aparam (and Tessera's precision, compress, "
          "compress_stride, compress_extrapolate, min_nbor_dist)");
    if (i + 1 >= a.size() || is_keyword(a[i + 1]))
      bad("pair_style deepmd: keyword " + key + " needs a value");
    const std::string& value = a[++i];
    if (key == "out_file") {
      out_file = value;
    } else if (key == "out_freq") {
      out_freq = integer("pair_style deepmd out_freq", value, std::numeric_limits<long long>::min(),
                         std::numeric_limits<long long>::max());
    } else if (key == "compress") {
      if (value != "yes" && value != "no")
        bad("pair_style deepmd: compress must be yes or no, not " + value);
      compression.on = value == "yes";
    } else if (key == "compress_stride" || key == "compress_extrapolate" ||
               key == "min_nbor_dist") {
      const double v = number("pair_style deepmd " + key, value);
      if (!(v > 0)) bad("pair_style deepmd: " + key + " must be positive, not " + value);
      (key == "compress_stride"        ? compression.stride
       : key == "compress_extrapolate" ? compression.extrapolate
                                       : compression.min_nbor_dist) = v;
    } else if (key == "relative" || key == "relative_v") {
      const double level = number("pair_style deepmd " + key, value);
      if (!(level >= 0))
        bad("pair_style deepmd: the level of " + key + " must not be negative, not " + value);
      (key == "relative" ? deviations.relative : deviations.relative_v) = level;
    } else if (const auto p = deepmd::precision_named(value)) {
      precision = p;
    } else {
      bad("pair_style deepmd: precision must be float32 or float64, not " + value);
    }
  }
  if (out_freq < 0 || out_freq > std::numeric_limits<int>::max())
    bad("pair_style deepmd: out_freq must be a non-negative integer");
  deviations_ = deviations;
  fparam_ = std::move(fparam), aparam_ = std::move(aparam);
  if (compression.on == false &&
      (compression.stride || compression.extrapolate || compression.min_nbor_dist))
    bad("pair_style deepmd: compress no with compress_stride, compress_extrapolate or "
        "min_nbor_dist; drop one or the other");
  load(models, out_file, static_cast<int>(out_freq), precision, model_reader(), compression);
}

void PairDeepMD::coeff(const std::vector<std::string>& a, int types) {
  need(a, 2, "pair_coeff * * [ELEMENT ...] (one element name per atom type)");
  if (a[0] != "*" || a[1] != "*")
    bad("pair_style deepmd takes pair_coeff * * followed by one element name per atom type");
  map_elements(std::vector<std::string>(a.begin() + 2, a.end()), types);
}

std::size_t PairDeepMD::extra_per_ghost() const {
  return models_.size() > 1 && out_freq_ > 0 ? 3 * (models_.size() - 1) : 0;
}

PairDeepMD::TileState& PairDeepMD::tile_state(Tile& t, std::size_t slot) {
  auto& state = tiles_[slot];
  if (!state) state = std::make_unique<TileState>(t);
  return *state;
}

// The kernel sees the tile's owned atoms and ghosts, and a full list of each owned atom's
// neighbors; forces on ghosts go back like lj/cut's.
void PairDeepMD::compute(PairTile& pt) {
  Tile& t = pt.tile;
  TileState& s = tile_state(t, pt.slot);
  const std::size_t nlocal = static_cast<std::size_t>(pt.nlocal);
  const std::size_t nall = nlocal + static_cast<std::size_t>(pt.nghost);
  if (pt.lists_rebuilt) {
    s.list.offsets.assign(pt.begin.begin(), pt.begin.end());
    s.list.indices.assign(pt.list.begin(), pt.list.begin() + pt.begin[nlocal]);
    s.types.resize(nall);
    for (std::size_t i = 0; i < nall; ++i) s.types[i] = model_type(pt.type[i]);
    // The aparam keyword's values for each owned atom (they change only with the owned atoms).
    s.aparam.resize(nlocal * aparam_.size());
    for (std::size_t i = 0; i < nlocal; ++i)
      std::copy(aparam_.begin(), aparam_.end(), s.aparam.begin() + i * aparam_.size());
    // The models (replicated per tile), and the kernel's buffers at their bound for these lists,
    // are charged as an IPU program would allocate them, before they are filled.
    std::size_t model_bytes = 0, table_bytes = 0;
    for (int k = 0; k < model_count(); ++k) {
      model_bytes += model(k).weight_bytes();
      for (const auto& table : model(k).tables)
        table_bytes += static_cast<std::size_t>(table.coefficients().size()) *
                       (model(k).precision == deepmd::Precision::kFloat32 ? 4 : 8);
    }
    const std::size_t budget = t.memory().budget();
    if (budget > 0 && table_bytes > 0 && model_bytes > budget)
      throw ConfigError("pair_style deepmd: the compressed models take " +
                        format_bytes(static_cast<double>(model_bytes)) +
                        " per tile (their tables " +
                        format_bytes(static_cast<double>(table_bytes)) + ") of a tile's " +
                        format_bytes(static_cast<double>(budget)) +
                        "; tabulate with a coarser compress_stride (the tables shrink with it) or "
                        "precision float32");
    s.model_bytes.set(model_bytes);
    int longest = 0;
    for (std::size_t i = 0; i < nlocal; ++i)
      longest = std::max(longest, pt.begin[i + 1] - pt.begin[i]);
    std::size_t bound = 0;
    for (int k = 0; k < model_count(); ++k)
      bound = std::max(bound, deepmd::workspace_bytes(model(k), pt.nlocal, longest, s.tape));
    s.workspace_bytes.set(bound);
  }
  const std::span<const double> positions(pt.x.data(), 3 * nall);
  auto evaluate = [&](int k) {
    deepmd::compute(model(k), positions, s.types, pt.nlocal, s.list, s.workspace, s.result,
                    {fparam_, s.aparam});
    const deepmd::Result& r = s.result;
    s.outside_table += r.outside_table;
    double flops = 0, tanh = 0, table = 0;
    for (std::size_t i = 0; i < nlocal; ++i) {
      flops += atom_step_flops(k, s.types[i], s.tape);
      tanh += atom_step_tanh(k, s.types[i], s.tape);
      table += atom_step_table_flops(k, s.types[i], s.tape);
    }
    const bool float32 = model(k).precision == deepmd::Precision::kFloat32;
    t.charge(deepmd_matmul_work(float32), static_cast<std::uint64_t>(flops));
    t.charge(deepmd_tanh_work(float32), static_cast<std::uint64_t>(tanh));
    if (table > 0) t.charge(deepmd_table_work(float32), static_cast<std::uint64_t>(table));
    s.io_bytes.set(
        capacity_bytes(s.list.offsets) + capacity_bytes(s.list.indices) + capacity_bytes(s.types) +
        capacity_bytes(s.aparam) + capacity_bytes(r.atom_energy) + capacity_bytes(r.force) +
        capacity_bytes(r.atom_virial) + capacity_bytes(r.descriptor) + capacity_bytes(s.forces));
  };
  evaluate(0);
  const deepmd::Result& r = s.result;
  const double c = energy_factor_;
  for (std::size_t k = 0; k < 3 * nlocal; ++k) pt.f[k] = r.force[k] * c;
  for (std::size_t k = 3 * nlocal; k < r.force.size(); ++k)
    pt.ghost_f[k - 3 * nlocal] = r.force[k] * c;
  pt.energy = r.energy * c;
  // DeePMD-kit's virial is row-major 3x3; LAMMPS's order is xx yy zz xy xz yz.
  std::array<double, 9> w = r.virial();
  for (double& v : w) v *= c;
  pt.virial = {w[0], w[4], w[8], w[3], w[6], w[7]};
  if (!deviation_due(pt.step)) return;
  if (deviations_.atomic) s.ids.assign(pt.id.begin(), pt.id.end());
  const auto m = static_cast<std::size_t>(model_count());
  const std::size_t extra = 3 * (m - 1);
  s.forces.assign(3 * m * nlocal, 0.0);
  s.devi_virial.assign(9 * m, 0.0);
  std::copy(w.begin(), w.end(), s.devi_virial.begin());
  for (std::size_t k = 1; k < m; ++k) {
    evaluate(static_cast<int>(k));
    for (std::size_t i = 0; i < nlocal; ++i)
      for (std::size_t d = 0; d < 3; ++d) s.forces[3 * (m * i + k) + d] = r.force[3 * i + d] * c;
    for (std::size_t g = 0; g < nall - nlocal; ++g)
      for (std::size_t d = 0; d < 3; ++d)
        pt.ghost_extra[extra * g + 3 * (k - 1) + d] = r.force[3 * (nlocal + g) + d] * c;
    std::array<double, 9> wk = r.virial();
    for (double& v : wk) v *= c;
    std::copy(wk.begin(), wk.end(), s.devi_virial.begin() + static_cast<std::ptrdiff_t>(9 * k));
  }
}

// Model deviation, per tile: completes the other models' forces with what came back from
// ghosts (in the order model 0's were), takes model 0's from the final force, and reduces the
// per-atom deviations.
void PairDeepMD::fold_returned(Tile& t, std::size_t slot, std::span<const int> sent,
                               std::span<const double> returned, std::span<const double> f) {
  TileState& s = tile_state(t, slot);
  const auto m = static_cast<std::size_t>(model_count());
  const std::size_t extra = 3 * (m - 1);
  for (std::size_t k = 0; k < sent.size(); ++k) {
    const auto i = static_cast<std::size_t>(sent[k]);
    for (std::size_t e = 0; e < extra; ++e) s.forces[3 * m * i + 3 + e] += returned[extra * k + e];
  }
  s.devi_max = 0;
  s.devi_min = std::numeric_limits<double>::max();
  s.devi_sum = 0;
  const std::size_t nlocal = f.size() / 3;
  s.devi_atom.clear();
  for (std::size_t i = 0; i < nlocal; ++i) {
    for (std::size_t d = 0; d < 3; ++d) s.forces[3 * m * i + d] = f[3 * i + d];
    const std::span<const double> forces(&s.forces[3 * m * i], 3 * m);
    double devi = force_deviation(forces, static_cast<int>(m));
    if (deviations_.relative)
      devi /= mean_force_norm(forces, static_cast<int>(m)) + *deviations_.relative;
    if (deviations_.atomic) s.devi_atom.push_back(devi);
    s.devi_max = std::max(s.devi_max, devi);
    s.devi_min = std::min(s.devi_min, devi);
    s.devi_sum += devi;
  }
}

void PairDeepMD::end_of_step(Runtime& runtime, std::int64_t step, std::int64_t natoms) {
  const auto state = [&](Tile& t) -> TileState& {
    return tile_state(t, static_cast<std::size_t>(t.id() - runtime.first_tile()));
  };
  const bool compressed = std::any_of(models_.begin(), models_.end(),
                                      [](const deepmd::Model& m) { return m.compressed(); });
  if (compressed && !warned_outside_table_) {
    const auto outside =
        runtime.all_reduce<std::uint64_t>("md.deepmd_outside_table", ReduceOp::sum, [&](Tile& t) {
          const std::uint64_t n = state(t).outside_table;
          state(t).outside_table = 0;
          return n;
        });
    if (outside > 0) {
      warned_outside_table_ = true;
      if (context_.warn)
        context_.warn("WARNING: pair_style deepmd: " + std::to_string(outside) +
                      " neighbor slots at step " + std::to_string(step) +
                      " lay beyond the compressed model's tables (neighbors closer than "
                      "min_nbor_dist allows for), where the embedding is continued linearly as "
                      "DeePMD-kit does; set min_nbor_dist lower, or compress no (warned once)\n");
    }
  }
  if (!deviation_due(step)) return;
  const auto m = static_cast<std::size_t>(model_count());
  Deviation d;
  d.f_max = runtime.all_reduce<double>("md.deepmd_deviation", ReduceOp::max,
                                       [&](Tile& t) { return state(t).devi_max; });
  d.f_min = runtime.all_reduce<double>("md.deepmd_deviation", ReduceOp::min,
                                       [&](Tile& t) { return state(t).devi_min; });
  const auto sums = runtime.all_reduce<double>(
      "md.deepmd_deviation", ReduceOp::sum, 1 + 9 * m, [&](Tile& t, std::span<double> out) {
        const TileState& s = state(t);
        out[0] = s.devi_sum;
        std::copy(s.devi_virial.begin(), s.devi_virial.end(), out.begin() + 1);
      });
  d.f_sum = sums[0];
  d.natoms = natoms;
  d.virial.resize(m);
  for (std::size_t k = 0; k < m; ++k)
    for (std::size_t c = 0; c < 9; ++c) d.virial[k][c] = sums[1 + 9 * k + c];
  if (deviations_.atomic) {
    // Every atom's force deviation on rank 0, in the order of the atoms' ids (the plugin writes
    // them by id).
    struct IdDeviation {
      std::int64_t id;
      double devi;
    };
    auto all = runtime.collect<IdDeviation>("md.deepmd_atomic_deviation",
                                            [&](Tile& t, std::vector<IdDeviation>& out) {
                                              const TileState& s = state(t);
                                              for (std::size_t i = 0; i < s.devi_atom.size(); ++i)
                                                out.push_back({s.ids[i], s.devi_atom[i]});
                                            });
    std::sort(all.begin(), all.end(),
              [](const IdDeviation& a, const IdDeviation& b) { return a.id < b.id; });
    for (const auto& a : all) d.atomic.push_back(a.devi);
  }
  if (runtime.rank() == 0) write_deviation(step, d);
}

nlohmann::json PairDeepMD::restart_section() const {
  return {
      {"style", style()},
      {"models", paths_},
      {"out_file", out_file_},
      {"out_freq", out_freq_},
      {"elements", type_elements()},
      {"precision", precision_ ? deepmd::precision_name(*precision_) : "model"},
      {"compress", compression_.on ? nlohmann::json(*compression_.on) : nullptr},
      {"compress_stride", compression_.stride ? nlohmann::json(*compression_.stride) : nullptr},
      {"compress_extrapolate",
       compression_.extrapolate ? nlohmann::json(*compression_.extrapolate) : nullptr},
      {"min_nbor_dist",
       compression_.min_nbor_dist ? nlohmann::json(*compression_.min_nbor_dist) : nullptr},
      {"atomic", deviations_.atomic},
      {"relative", deviations_.relative ? nlohmann::json(*deviations_.relative) : nullptr},
      {"relative_v", deviations_.relative_v ? nlohmann::json(*deviations_.relative_v) : nullptr},
      {"fparam", fparam_},
      {"aparam", aparam_}};
}

void PairDeepMD::restore(const nlohmann::json& p, const detail::RestartHeader& r, int types) {
  const auto precision = r.text(r.at(p, "precision", "pair.precision"), "pair.precision");
  const std::optional<deepmd::Precision> override = deepmd::precision_named(precision);
  if (!override && precision != "model")
    r.fail("records deepmd precision '" + precision + "'; expected model, float32 or float64");
  const auto models = r.texts(r.at(p, "models", "pair.models"), "pair.models");
  if (models.empty()) r.fail("records pair style deepmd without a model");
  const auto out_file = r.text(r.at(p, "out_file", "pair.out_file"), "pair.out_file");
  const auto out_freq =
      static_cast<int>(r.integer(r.at(p, "out_freq", "pair.out_freq"), "pair.out_freq", 0,
                                 std::numeric_limits<int>::max(), "pair_style deepmd out_freq"));
  const auto elements = r.texts(r.at(p, "elements", "pair.elements"), "pair.elements");
  // Files before these keywords have none of them: off.
  Deviations deviations;
  if (p.contains("atomic")) {
    if (!p.at("atomic").is_boolean()) r.fail("has pair.atomic that is not true or false");
    deviations.atomic = p.at("atomic").get<bool>();
  }
  for (const char* key : {"relative", "relative_v"})
    if (p.contains(key) && !p.at(key).is_null())
      (std::string(key) == "relative" ? deviations.relative : deviations.relative_v) =
          r.real(p.at(key), std::string("pair.") + key, detail::RestartHeader::Sign::non_negative,
                 std::string("pair_style deepmd ") + key);
  deviations_ = deviations;
  // Files before fparam and aparam have neither.
  for (const char* key : {"fparam", "aparam"}) {
    std::vector<double>& values = std::string(key) == "fparam" ? fparam_ : aparam_;
    values.clear();
    if (!p.contains(key)) continue;
    if (!p.at(key).is_array()) r.fail(std::string("has pair.") + key + " that is not a list");
    for (std::size_t n = 0; n < p.at(key).size(); ++n)
      values.push_back(r.real(p.at(key)[n], std::string("pair.") + key,
                              detail::RestartHeader::Sign::any,
                              std::string("pair_style deepmd ") + key));
  }
  // Files before the compress keywords have none of them: as the model files have it.
  Compression compression;
  if (p.contains("compress") && !p.at("compress").is_null()) {
    if (!p.at("compress").is_boolean()) r.fail("has pair.compress that is not true, false or null");
    compression.on = p.at("compress").get<bool>();
  }
  for (const char* key : {"compress_stride", "compress_extrapolate", "min_nbor_dist"})
    if (p.contains(key) && !p.at(key).is_null()) {
      const std::string k = key;
      (k == "compress_stride"        ? compression.stride
       : k == "compress_extrapolate" ? compression.extrapolate
                                     : compression.min_nbor_dist) =
          r.real(p.at(key), "pair." + k, detail::RestartHeader::Sign::positive,
                 "pair_style deepmd " + k);
    }
  // The models are read again from their files, as LAMMPS's DeePMD plugin does.
  load(models, out_file, out_freq, override, model_reader(), compression);
  map_elements(elements, types);
  continue_outputs();
}

std::vector<std::string> PairDeepMD::type_elements() const {
  std::vector<std::string> names;
  for (std::size_t t = 1; t < type_map_.size(); ++t)
    names.push_back(models_.front().type_map[static_cast<std::size_t>(type_map_[t])]);
  return names;
}

std::array<double, 3> PairDeepMD::mean_force(std::span<const double> forces, int models) {
  std::array<double, 3> mean{0, 0, 0};
  for (int k = 0; k < models; ++k)
    for (int d = 0; d < 3; ++d)
      mean[static_cast<std::size_t>(d)] += forces[static_cast<std::size_t>(3 * k + d)];
  for (double& m : mean) m /= models;
  return mean;
}

double PairDeepMD::force_deviation(std::span<const double> forces, int models) {
  const std::array<double, 3> mean = mean_force(forces, models);
  double sum = 0;
  for (int k = 0; k < models; ++k)
    for (int d = 0; d < 3; ++d) {
      const double e =
          forces[static_cast<std::size_t>(3 * k + d)] - mean[static_cast<std::size_t>(d)];
      sum += e * e;
    }
  return std::sqrt(sum / models);
}

double PairDeepMD::mean_force_norm(std::span<const double> forces, int models) {
  const std::array<double, 3> mean = mean_force(forces, models);
  return std::sqrt(mean[0] * mean[0] + mean[1] * mean[1] + mean[2] * mean[2]);
}

void PairDeepMD::write_deviation(std::int64_t step, const Deviation& d) {
  // Virial deviation as DeePMD-kit's LAMMPS plugin reports it: the standard deviation over the
  // models of each component of the virial per atom; max, min and root mean square of the nine.
  const std::size_t m = d.virial.size();
  double v_max = 0, v_min = std::numeric_limits<double>::max(), v_sq = 0;
  for (std::size_t c = 0; c < 9; ++c) {
    double mean = 0;
    for (const auto& w : d.virial) mean += w[c] / static_cast<double>(d.natoms);
    mean /= static_cast<double>(m);
    double var = 0;
    for (const auto& w : d.virial) {
      const double e = w[c] / static_cast<double>(d.natoms) - mean;
      var += e * e;
    }
    double sd = std::sqrt(var / static_cast<double>(m));
    if (deviations_.relative_v) sd /= std::fabs(mean) + *deviations_.relative_v;
    v_max = std::max(v_max, sd);
    v_min = std::min(v_min, sd);
    v_sq += sd * sd;
  }
  if (!out_.is_open()) {
    out_.open(out_file_, append_ ? std::ios::app : std::ios::trunc);
    if (!out_)
      throw Error("pair_style deepmd: cannot write the model deviation file '" + out_file_ +
                  "'; check the directory exists and is writable, or choose another out_file");
    char header[160];
    std::snprintf(header, sizeof header, "#%11s%19s%19s%19s%19s%19s%19s\n", "step", "max_devi_v",
                  "min_devi_v", "avg_devi_v", "max_devi_f", "min_devi_f", "avg_devi_f");
    if (!append_) out_ << header;
  }
  char row[160];
  std::snprintf(row, sizeof row, "%12lld %18.6e %18.6e %18.6e %18.6e %18.6e %18.6e",
                static_cast<long long>(step), v_max, v_min, std::sqrt(v_sq / 9), d.f_max, d.f_min,
                d.f_sum / static_cast<double>(d.natoms));
  out_ << row;
  for (const double devi : d.atomic) {
    std::snprintf(row, sizeof row, " %18.6e", devi);
    out_ << row;
  }
  out_ << '\n' << std::flush;
  if (!out_)
    throw Error("pair_style deepmd: writing the model deviation file '" + out_file_ + "' failed");
}

}  // namespace tessera::md
