// A DeePMD-kit "se_e2_a" (se_a) energy model, loaded from the YAML file that DeePMD-kit v3's
// `dp convert-backend` writes (model.@class Model, type standard, descriptor se_e2_a, fitting
// ener).
//
// Contract: load_model() either returns a complete model whose arrays have the shapes the
// descriptor and fitting settings imply, or throws tessera::FormatError (the file is not such a
// YAML document, or an array has the wrong shape) or tessera::ConfigError (a descriptor, fitting,
// activation or option this kernel does not implement, named in the message). Every number is
// kept in float64; a float32 model is refused rather than silently evaluated at another precision.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

namespace tessera::md::deepmd {

// Row-major so that a batch of samples (atoms or neighbor slots) is a block of contiguous rows.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<double, 1, Eigen::Dynamic>;

enum class Activation { kTanh, kLinear };

// One DeePMD-kit NativeLayer: y = act(x W + b) [* idt] [+ skip(x)], where the skip is x when
// out == in and concat(x, x) when out == 2 in (deepmd/dpmodel/utils/network.py).
struct Layer {
  Matrix w;       // in x out
  RowVector b;    // out
  RowVector idt;  // out, or empty: the resnet_dt "time step" scaling
  Activation activation = Activation::kTanh;
  bool resnet = false;
};

struct Network {
  std::vector<Layer> layers;
  Eigen::Index in_dim() const { return layers.front().w.rows(); }
  Eigen::Index out_dim() const { return layers.back().w.cols(); }
};

struct Model {
  std::vector<std::string> type_map;  // type index -> element name
  double rcut = 0.0;
  double rcut_smth = 0.0;
  std::vector<int> sel;  // neighbor slots per neighbor type
  int axis_neuron = 0;
  Matrix davg;                      // ntypes x (nnei * 4): per centre type and slot
  Matrix dstd;                      // ntypes x (nnei * 4)
  std::vector<Network> embeddings;  // per neighbor type (type_one_side)
  std::vector<Network> fittings;    // per centre type
  std::vector<double> energy_bias;  // per type: fitting bias_atom_e + model out_bias

  int ntypes() const { return static_cast<int>(type_map.size()); }
  int nnei() const;  // sum of sel
  int embedding_width() const { return static_cast<int>(embeddings.front().out_dim()); }
  int descriptor_dim() const { return embedding_width() * axis_neuron; }
};

// Reads and checks a model file; `path` appears in every error message.
Model load_model(const std::string& path);
// The same from YAML text; `source` names it in error messages.
Model parse_model(const std::string& yaml_text, const std::string& source);

}  // namespace tessera::md::deepmd
