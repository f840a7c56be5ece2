// A DeePMD-kit "se_e2_a" (se_a) or "se_e2_r" (se_r) energy model, loaded from the YAML file
// that DeePMD-kit v3's `dp convert-backend` writes (model.@class Model, type standard, descriptor
// se_e2_a or se_e2_r, fitting ener).
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

// The descriptor: se_e2_a (R~ of 4 columns, s/r and s d/r^2; D = M^T M<) or se_e2_r (R~ of the
// radial column s/r only; D = the mean of the embedding over the slots, / 5).
enum class DescriptorType { kSeA, kSeR };

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

// One embedding net tabulated as DeePMD-kit's model compression does it (`dp compress`;
// doc/freeze/compress.md and deepmd/utils/tabulate.py): the net's output G(x), x the normalised
// radial input s~, is on each interval [x_l, x_l + h_l) the quintic in dx = x - x_l that matches
// the net's value and first and second derivatives at both ends (so G and G' are continuous).
// The intervals are uniform, of width stride0 from lower to upper and stride1 from upper to max;
// outside [lower, max] G continues linearly from the end it left (DeePMD-kit's C1
// extrapolation, source/lib/src/tabulate.cc locate_xx). `coefficients` is DeePMD-kit's layout,
// the serialized compress_data: one row per interval, per output j its six coefficients a0..a5.
// Immutable once made; the kernel reads a coefficient-major copy at either precision.
class EmbeddingTable {
 public:
  EmbeddingTable(double lower, double upper, double max, double stride0, double stride1,
                 Matrix coefficients);
  double lower() const { return lower_; }
  double upper() const { return upper_; }
  double max() const { return max_; }
  double stride0() const { return stride0_; }
  double stride1() const { return stride1_; }
  int intervals() const { return static_cast<int>(coefficients_.rows()); }
  int width() const { return static_cast<int>(coefficients_.cols() / 6); }
  const Matrix& coefficients() const { return coefficients_; }
  // The interval of x, its offset dx in it and how far x lies beyond the table (x - lower below
  // it, x - max above it, 0 inside): G(x) = p(dx) + p'(dx) * beyond.
  void locate(double x, int& interval, double& dx, double& beyond) const;
  // Interval l's coefficients, coefficient-major: a_k of output j at [k * width() + j].
  const double* row64(int l) const { return by_power64_.data() + 6 * width() * l; }
  const float* row32(int l) const { return by_power32_.data() + 6 * width() * l; }
  // G(x) and dG/dx into g and dg (width() values each), in float64.
  void evaluate(double x, double* g, double* dg) const;

 private:
  double lower_, upper_, max_, stride0_, stride1_;
  int first_intervals_;  // intervals of stride0
  Matrix coefficients_;
  std::vector<double> by_power64_;
  std::vector<float> by_power32_;
};

struct Model {
  DescriptorType descriptor = DescriptorType::kSeA;
  std::vector<std::string> type_map;  // type index -> element name
  double rcut = 0.0;
  double rcut_smth = 0.0;
  std::vector<int> sel;  // neighbor slots per neighbor type
  int axis_neuron = 0;   // se_e2_a only
  Matrix davg;           // ntypes x (nnei * env_columns()): per centre type and slot
  Matrix dstd;           // the same
  // The embedding nets: one per neighbor type (type_one_side: true), or one per pair of centre
  // and neighbor type (type_one_side: false, DeePMD-kit's default), at embedding_index().
  bool type_one_side = true;
  std::vector<Network> embeddings;
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
  // A compressed model (compress.hpp, or a model file with DeePMD-kit's compress data): one
  // table per embedding net (at the same index), used instead of the net; empty otherwise.
  std::vector<EmbeddingTable> tables;
  // The smallest neighbor distance of the training data (Angstrom), when the file records it
  // (DeePMD-kit keeps it for `dp compress`); 0 when it does not.
  double min_nbor_dist = 0.0;

  int ntypes() const { return static_cast<int>(type_map.size()); }
  int nnei() const;  // sum of sel
  int embedding_width() const { return static_cast<int>(embeddings.front().out_dim()); }
  int env_columns() const { return descriptor == DescriptorType::kSeR ? 1 : 4; }
  int descriptor_dim() const {
    return descriptor == DescriptorType::kSeR ? embedding_width() : embedding_width() * axis_neuron;
  }
  int fitting_input_dim() const { return descriptor_dim() + numb_fparam + numb_aparam; }
  bool compressed() const { return !tables.empty(); }
  // Where the net (and table) of neighbor type `neighbor` around an atom of type `centre` is:
  // DeePMD-kit's NetworkCollection index, centre + neighbor * ntypes for a pair.
  int embedding_index(int centre, int neighbor) const {
    return type_one_side ? neighbor : centre + neighbor * ntypes();
  }
  // Bytes a tile holds for the model, which is replicated per tile on IPU targets: the network
  // weights, biases and idt at the model's precision (4 or 8 bytes each; a compressed model's
  // tables instead of its embedding nets), davg and dstd (float64, the environment matrix is
  // float64), energy_bias and sel. Excludes the type_map strings and the float64 master copy of
  // the weights a float32 model keeps on the host.
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
