// A DeePMD-kit "se_e2_a" (se_a), "se_e2_r" (se_r) or DPA-1 ("dpa1", se_atten) energy model,
// loaded from the YAML file that DeePMD-kit v3's `dp convert-backend` writes (model.@class Model,
// type standard, fitting ener).
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

// The descriptor: se_e2_a (R~ of 4 columns, s/r and s d/r^2; D = M^T M<), se_e2_r (R~ of the
// radial column s/r only; D = the mean of the embedding over the slots, / 5) or DPA-1's se_atten
// (se_e2_a's R~ and D over one list of all types, G from a type embedding and attention layers).
enum class DescriptorType { kSeA, kSeR, kSeAtten };

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

// One of DPA-1's gated self-attention layers over an atom's neighbor slots
// (deepmd/dpmodel/descriptor/dpa1.py, NeighborGatedAttentionLayer, one head): X' = LayerNorm(X +
// (W o V^) W_out + b_out), where [Q K V] = X W_in + b_in, Q^ K^ V^ the rows normalised (with
// `normalize`), Q^ times Attention::scaling, W = softmax_j((Q^ K^T + 20) s_i s_j - 20) s_i s_j
// (with `smooth`; else the softmax over the occupied slots) times r^_i . r^_j (with `dotr`), s the
// slots' smooth weights, r^ their normalised directions in R~.
struct AttentionLayer {
  Matrix in_w;               // ng x 3 hidden: queries, keys, values
  RowVector in_b;            // 3 hidden
  Matrix out_w;              // hidden x ng
  RowVector out_b;           // ng
  RowVector norm_w, norm_b;  // ng: LayerNorm's scale and shift
  double norm_eps = 1e-5;
};

// DPA-1's parts beyond se_e2_a's (Model::descriptor kSeAtten; DeePMD-kit's DescrptDPA1). With
// tebd_input_mode "concat" the embedding net's input per slot is [R~_0, T(neighbor type),
// T(centre type) unless type_one_side]; with "strip" (se_atten_v2's) the net takes R~_0 alone,
// G_s, and G = G_s (1 + s G_t), G_t the strip net on [T(neighbor type), T(centre type) unless
// type_one_side] (s, the smooth weight, with `smooth` only). An empty slot takes type 0's T
// (DeePMD-kit's dense path gives it the type of its frame's first atom, which matters only where
// davg is not zero or, in strip mode without `smooth`, always).
struct Attention {
  Matrix type_embedding;  // ntypes x tebd_dim: T(t), the type embedding net on one-hot t
  bool strip = false;
  // Strip mode: G_t of each pair, at row centre * ntypes + neighbor (neighbor alone with
  // type_one_side), ng wide: the strip net evaluated once at load, as DeePMD-kit's compressed
  // type_embd_data holds it.
  Matrix strip_table;
  std::vector<AttentionLayer> layers;
  int hidden = 0;
  bool dotr = true, normalize = true, smooth = true;
  double scaling = 1.0;            // temperature, or (hidden * scaling_factor)^-1/2 without one
  bool concat_output_tebd = true;  // the descriptor ends with T(centre type)
  int tebd_dim() const { return static_cast<int>(type_embedding.cols()); }
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
  std::vector<int> sel;  // neighbor slots per neighbor type (se_atten: one list of all types)
  int axis_neuron = 0;   // se_e2_a and se_atten
  Matrix davg;           // ntypes x (nnei * env_columns()): per centre type and slot
  Matrix dstd;           // the same
  // The embedding nets: one per neighbor type (type_one_side: true), or one per pair of centre
  // and neighbor type (type_one_side: false, DeePMD-kit's default), at embedding_index().
  bool type_one_side = true;
  std::vector<Network> embeddings;
  Attention attention;              // se_atten only
  std::vector<Network> fittings;    // per centre type, or one for all (mixed_fitting)
  bool mixed_fitting = false;       // DeePMD-kit's mixed_types fitting (se_atten)
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
    if (descriptor == DescriptorType::kSeR) return embedding_width();
    const int tebd = descriptor == DescriptorType::kSeAtten && attention.concat_output_tebd
                         ? attention.tebd_dim()
                         : 0;
    return embedding_width() * axis_neuron + tebd;
  }
  const Network& fitting(int centre_type) const {
    return fittings[mixed_fitting ? 0 : static_cast<std::size_t>(centre_type)];
  }
  int fitting_input_dim() const { return descriptor_dim() + numb_fparam + numb_aparam; }
  bool compressed() const { return !tables.empty(); }
  // Where the net (and table) of neighbor type `neighbor` around an atom of type `centre` is:
  // DeePMD-kit's NetworkCollection index, centre + neighbor * ntypes for a pair.
  int embedding_index(int centre, int neighbor) const {
    if (descriptor == DescriptorType::kSeAtten) return 0;  // one net; types enter its input
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
