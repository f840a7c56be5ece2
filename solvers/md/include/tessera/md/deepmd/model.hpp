// A DeePMD-kit "se_e2_a" (se_a) energy model, loaded from the YAML file that DeePMD-kit v3's
// `dp convert-backend` writes (model.@class Model, type standard, descriptor se_e2_a, fitting
// ener).
//
// Contract: load_model() either returns a complete model whose arrays have the shapes the
// descriptor and fitting settings imply, or throws tessera::FormatError (the file is not such a
// YAML document, or an array has the wrong shape) or tessera::ConfigError (a descriptor, fitting,
// activation or option this kernel does not implement, named in the message). Every number is
// stored in float64; a model whose descriptor and fitting declare `precision: float32` (with
// float32 arrays) loads with Model::precision = kFloat32.
//
// Precision: Model::precision selects the arithmetic of the neural networks: the embedding and
// fitting nets and the descriptor contractions M = R~^T G, D = M^T M< with their gradients.
// kFloat32 runs them in float32 on float32 copies of the weights, while the environment matrix,
// the energy sums, forces and virials stay float64. This is DeePMD-kit's mixed precision, where a
// descriptor or fitting net with `precision: float32` casts the float64 environment matrix or
// descriptor to float32 and its output back to float64 (deepmd/pt/model/descriptor/se_a.py,
// `dmatrix.to(dtype=self.prec)` ... `result.to(dtype=env.GLOBAL_PT_FLOAT_PRECISION)`). The
// default, kFloat64, reproduces DeePMD-kit's float64 results to round-off. Override it after
// loading:
//   Model m = load_model(path);
//   m.precision = Precision::kFloat32;
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::md::deepmd {

// Row-major so that a batch of samples (atoms or neighbor slots) is a block of contiguous rows.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<double, 1, Eigen::Dynamic>;

enum class Activation { kTanh, kLinear };

// Arithmetic of the networks (see the contract above).
enum class Precision { kFloat64, kFloat32 };
// DeePMD-kit's names, "float64" and "float32"; precision_named gives nullopt for any other.
std::string precision_name(Precision precision);
std::optional<Precision> precision_named(const std::string& name);

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
  Precision precision = Precision::kFloat64;
  // Frame and atomic parameters (DeePMD-kit's numb_fparam and numb_aparam, GeneralFitting): the
  // fitting nets' input is an atom's descriptor, then the frame's (fparam - fparam_avg) *
  // fparam_inv_std, then the atom's (aparam - aparam_avg) * aparam_inv_std (models that use
  // aparam as a mask instead are refused). default_fparam, when the model has one, is the fparam
  // of a frame given none.
  int numb_fparam = 0, numb_aparam = 0;
  std::vector<double> fparam_avg, fparam_inv_std, aparam_avg, aparam_inv_std;
  std::vector<double> default_fparam;

  int ntypes() const { return static_cast<int>(type_map.size()); }
  int nnei() const;  // sum of sel
  int embedding_width() const { return static_cast<int>(embeddings.front().out_dim()); }
  int descriptor_dim() const { return embedding_width() * axis_neuron; }
  int fitting_input_dim() const { return descriptor_dim() + numb_fparam + numb_aparam; }
  // Bytes a tile holds for the model, which is replicated per tile on IPU targets: the network
  // weights, biases and idt at the model's precision (4 or 8 bytes each), davg and dstd (float64,
  // the environment matrix is float64), energy_bias and sel. Excludes the type_map strings and
  // the float64 master copy of the weights a float32 model keeps on the host.
  std::size_t weight_bytes() const;
};

// Reads and checks a model file; `path` appears in every error message.
Model load_model(const std::string& path);
// The same from YAML text; `source` names it in error messages.
Model parse_model(const std::string& yaml_text, const std::string& source);
// The same from the bytes of the file at `path`: YAML, or DeePMD-kit's backend-independent HDF5
// form (.dp, the same tree with its arrays as datasets); a model in another of DeePMD-kit's
// formats (TensorFlow .pb, PyTorch .pth/.pt, JAX .hlo, or any other binary file) is refused with
// the command that converts it, before any parsing.
Model parse_model_file(const std::string& text, const std::string& path);

}  // namespace tessera::md::deepmd
