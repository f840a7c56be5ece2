#include "tessera/md/pair_deepmd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "tessera/core/error.hpp"
#include "tessera/md/deepmd/se_a.hpp"

namespace tessera::md {

PairDeepMD::PairDeepMD(std::vector<std::string> model_paths, std::string out_file, int out_freq,
                       std::optional<deepmd::Precision> precision, const ModelReader& read)
    : paths_(std::move(model_paths)),
      out_file_(std::move(out_file)),
      out_freq_(out_freq),
      precision_(precision) {
  if (paths_.empty()) throw ConfigError("pair_style deepmd needs at least one model file");
  if (out_freq_ < 0) throw ConfigError("pair_style deepmd: out_freq must not be negative");
  for (const auto& path : paths_) {
    models_.push_back(read ? deepmd::parse_model(read(path), "'" + path + "'")
                           : deepmd::load_model(path));
    if (precision_) models_.back().precision = *precision_;
  }
  for (const auto tape : {deepmd::TapeMode::kStore, deepmd::TapeMode::kRecompute})
    for (const auto& m : models_) {
      Cost slots;
      for (int t = 0; t < m.ntypes(); ++t) {
        slots.flops += m.sel[static_cast<std::size_t>(t)] * deepmd::slot_flops(m, t, tape);
        slots.tanh += m.sel[static_cast<std::size_t>(t)] * deepmd::slot_tanh(m, t, tape);
      }
      std::vector<Cost> per_type;
      for (int t = 0; t < m.ntypes(); ++t)
        per_type.push_back(
            {slots.flops + deepmd::atom_flops(m, t), slots.tanh + deepmd::atom_tanh(m, t)});
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
}

void PairDeepMD::coeff(const std::vector<std::string>& names, int types) {
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

void PairDeepMD::init(int types) const {
  if (static_cast<int>(type_map_.size()) != types + 1)
    throw ConfigError(
        "run: pair_style deepmd has no element for the atom types; add pair_coeff "
        "* * followed by one element name per atom type");
}

std::vector<std::string> PairDeepMD::type_elements() const {
  std::vector<std::string> names;
  for (std::size_t t = 1; t < type_map_.size(); ++t)
    names.push_back(models_.front().type_map[static_cast<std::size_t>(type_map_[t])]);
  return names;
}

double PairDeepMD::force_deviation(std::span<const double> forces, int models) {
  double mean[3] = {0, 0, 0};
  for (int k = 0; k < models; ++k)
    for (int d = 0; d < 3; ++d) mean[d] += forces[static_cast<std::size_t>(3 * k + d)];
  for (double& m : mean) m /= models;
  double sum = 0;
  for (int k = 0; k < models; ++k)
    for (int d = 0; d < 3; ++d) {
      const double e = forces[static_cast<std::size_t>(3 * k + d)] - mean[d];
      sum += e * e;
    }
  return std::sqrt(sum / models);
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
    const double sd = std::sqrt(var / static_cast<double>(m));
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
  std::snprintf(row, sizeof row, "%12lld %18.6e %18.6e %18.6e %18.6e %18.6e %18.6e\n",
                static_cast<long long>(step), v_max, v_min, std::sqrt(v_sq / 9), d.f_max, d.f_min,
                d.f_sum / static_cast<double>(d.natoms));
  out_ << row << std::flush;
  if (!out_)
    throw Error("pair_style deepmd: writing the model deviation file '" + out_file_ + "' failed");
}

}  // namespace tessera::md
