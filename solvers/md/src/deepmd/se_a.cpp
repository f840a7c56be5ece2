// The se_e2_a and se_e2_r descriptors (one pipeline; se_e2_r takes the radial column of R~ only),
// the energy fitting and their hand-written reverse mode.
// Forward maths follows DeePMD-kit v3 (deepmd/dpmodel/utils/env_mat.py, descriptor/se_e2_a.py,
// descriptor/se_r.py, fitting/general_fitting.py, utils/network.py); see docs/deepmd.md.
//
// Layout, for speed (docs/deepmd.md, "Speed"): the network inputs and activations are stored
// feature-major ("structure of arrays": one contiguous column per feature over all samples), so
// that a layer is a few long vector updates whatever its width (the embedding nets are only
// 1 -> 3 -> 6 -> 12 wide), and each net is run over blocks of kChunk samples through all its
// layers while the block is in L1 cache. Every buffer lives in the Workspace and only grows, so a
// time step allocates nothing. The networks are templated on their scalar (Model::precision).
#include "tessera/md/deepmd/se_a.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "network_ops.hpp"
#include "pair_gradient.hpp"
#include "se_atten.hpp"
#include "smooth_weight.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/deepmd/activation.hpp"

namespace tessera::md::deepmd {
namespace {

using namespace kernel;

// dR~ = G dM^T and dG = R~ dM for rows r0 .. r0 + cnt of env (rows of one atom; g holds rows
// from g0 on), written to rows 0 .. cnt of denv and dg, in blocks of kLanes rows held in registers:
// each row's R~ and G are read once and dR~, dG written once.
template <class T, class M>
void embedding_output_gradient(const ConstView<T>& env, const ConstView<T>& g, Index g0,
                               const M& dm, Index r0, Index cnt, View<T> denv, View<T> dg) {
  constexpr int kLanes = 32 / sizeof(T);  // two SSE packets
  using Block = Eigen::Array<T, kLanes, 1>;
  const Index ng = g.cols();
  Index r = 0;
  for (; r + kLanes <= cnt; r += kLanes) {
    Block e[4], de[4];
    for (int c = 0; c < 4; ++c) {
      e[c] = env.col(c).template segment<kLanes>(r0 + r).array();
      de[c].setZero();
    }
    for (Index j = 0; j < ng; ++j) {
      const Block gj = g.col(j).template segment<kLanes>(r0 - g0 + r).array();
      dg.col(j).template segment<kLanes>(r).array() =
          e[0] * dm(0, j) + e[1] * dm(1, j) + e[2] * dm(2, j) + e[3] * dm(3, j);
      for (int c = 0; c < 4; ++c) de[c] += gj * dm(c, j);
    }
    for (int c = 0; c < 4; ++c) denv.col(c).template segment<kLanes>(r).array() = de[c];
  }
  for (; r < cnt; ++r) {
    T de[4] = {0, 0, 0, 0};
    for (Index j = 0; j < ng; ++j) {
      dg(r, j) = env(r0 + r, 0) * dm(0, j) + env(r0 + r, 1) * dm(1, j) + env(r0 + r, 2) * dm(2, j) +
                 env(r0 + r, 3) * dm(3, j);
      for (int c = 0; c < 4; ++c) de[c] += g(r0 - g0 + r, j) * dm(c, j);
    }
    for (int c = 0; c < 4; ++c) denv(r, c) = de[c];
  }
}

// DeePMD-kit's res_rescale of the se_e2_r descriptor (deepmd/tf/descriptor/se_r.py).
constexpr double kSeRRescale = 1.0 / 5.0;

// Per-row geometry kept for the chain rule: d = x_j - x_i (3), r, s(r), s'(r).
constexpr int kGeom = 6;

// Buffers at the networks' scalar T.
template <class T>
struct Typed {
  std::vector<NetworkT<T>> embeddings, fittings;  // float32 copies of the weights
  std::vector<Store<T>> env;                      // per neighbor type: rows x 4
  std::vector<Tape<T>> embedding;                 // per neighbor type
  std::vector<Store<T>> padding;  // (centre, neighbor type): suffix sums of padded R~^T G
  Store<T> padding_env;           // sel x 1
  Tape<T> padding_tape;
  Tape<T> block_tape;               // TapeMode::kRecompute: one block of an embedding net
  Store<T> denv, dg, ds;            // one block of rows: dE/dR~ (x 4), dE/dG (x ng), dE/ds (x 1)
  Store<T> m, dm, desc, ddesc;      // nloc*4 x ng (row-major), nloc x ndesc
  Store<T> fit_in, fit_dy, fit_dx;  // atoms of one type x fitting input / 1 / fitting input
  Tape<T> fitting;
  Scratch<T> scratch;
  // A compressed model's tabulated G of the padded slots (sel x ng, row-major; its first row
  // then serves each occupied slot's G) and one slot's dG/dx (ng).
  Store<T> table_g, table_dg;
  std::size_t bytes() const {
    std::size_t b = padding_env.bytes() + padding_tape.bytes() + block_tape.bytes() + denv.bytes() +
                    dg.bytes() + ds.bytes() + m.bytes() + dm.bytes() + desc.bytes() +
                    ddesc.bytes() + fit_in.bytes() + fit_dy.bytes() + fit_dx.bytes() +
                    fitting.bytes() + scratch.bytes() + table_g.bytes() + table_dg.bytes();
    for (const auto* v : {&env, &padding})
      for (const auto& s : *v) b += s.bytes();
    for (const auto& t : embedding) b += t.bytes();
    return b;
  }
};

}  // namespace

struct Workspace::Buffers {
  TapeMode tape = TapeMode::kStore;
  Store<std::pair<double, int>> candidates;  // one atom's candidates within rcut
  Store<int> start;                          // ntypes x (nloc + 1): first row of each atom
  std::vector<Store<int>> neighbor;          // per neighbor type: rows
  std::vector<Store<double>> geom;           // per neighbor type: rows x kGeom
  Store<int> fill;                           // ntypes
  Store<int> atoms;                          // nloc, grouped by type
  Store<int> order;  // nloc: the atom at each position (sorted by type for nets per type pair)
  Typed<double> f64;
  Typed<float> f32;
  std::size_t bytes() const {
    std::size_t b = candidates.bytes() + start.bytes() + fill.bytes() + atoms.bytes() +
                    order.bytes() + f64.bytes() + f32.bytes();
    for (const auto& s : neighbor) b += s.bytes();
    for (const auto& s : geom) b += s.bytes();
    return b;
  }
};

Workspace::Workspace(TapeMode tape) : buffers_(std::make_unique<Buffers>()) {
  buffers_->tape = tape;
}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;
std::size_t Workspace::bytes() const { return buffers_->bytes(); }

std::array<double, 9> Result::virial() const {
  std::array<double, 9> v{};
  for (std::size_t a = 0; a < atom_virial.size(); ++a) v[a % 9] += atom_virial[a];
  return v;
}

namespace {
double multiply_adds(const Network& net) {
  double s = 0.0;
  for (const auto& layer : net.layers) s += static_cast<double>(layer.w.size());
  return s;
}
double tanh_count(const Network& net) {
  double s = 0.0;
  for (const auto& layer : net.layers)
    if (layer.activation == Activation::kTanh) s += static_cast<double>(layer.w.cols());
  return s;
}
}  // namespace

namespace {
// Atoms per block of compute()'s network passes (TapeMode::kStore): as many as keep the
// embedding nets' tape at full slots within kTapeBudget, a share of a server core's L2 cache,
// but at least kFitBatch, so that the fitting nets' products stay GEMMs of useful height (a
// production model's tape takes 300 kB per atom); at most nloc. The same blocks serve
// TapeMode::kRecompute, which then keeps less than kStore; a compressed model, which keeps no
// tape, takes kFitBatch. Depends only on the model and nloc,
// so the blocks, and with them the results, are the same on every run.
constexpr std::size_t kTapeBudget = std::size_t{2} << 20;
constexpr Index kFitBatch = 64;

Index atoms_per_block(const Model& model, int nloc) {
  if (model.compressed()) return std::min<Index>(kFitBatch, std::max(nloc, 1));  // no tape
  const std::size_t scalar =
      model.precision == Precision::kFloat32 ? sizeof(float) : sizeof(double);
  std::size_t per_atom = 0;
  for (int t = 0; t < model.ntypes(); ++t) {
    std::size_t values = static_cast<std::size_t>(model.embedding_width());
    for (const auto& l : model.embeddings[model.embedding_index(0, t)].layers)
      values += static_cast<std::size_t>(l.w.cols());
    per_atom += static_cast<std::size_t>(model.sel[t]) * values * scalar;
  }
  const auto fit = static_cast<Index>(kTapeBudget / std::max<std::size_t>(per_atom, 1));
  return std::min<Index>(std::max(fit, kFitBatch), std::max(nloc, 1));
}
}  // namespace

// DPA-1 charges its work per atom: every slot, occupied or not, goes through its nets.
double slot_flops(const Model& model, int neighbor_type, TapeMode tape) {
  if (model.descriptor == DescriptorType::kSeAtten) return 0.0;
  const double ng = model.embedding_width();
  // The contractions with R~ per slot: se_e2_a's M += R~^T G, dR~ = G dM^T and dG = R~ dM (8 per
  // output each); se_e2_r's M += G (1 per output; dG = dM is a copy).
  const bool radial = model.descriptor == DescriptorType::kSeR;
  const double contractions = radial ? ng : 3 * 2 * 4 * ng;
  // Compressed, for se_e2_a: M += R~^T G, G dM^T and G' dM^T (8 per output each) and the 8 of
  // sum_c R~_c (G' dM^T)_c; for se_e2_r: M += G and G' dM (1 and 2 per output). The tables'
  // polynomials are slot_table_flops().
  if (model.compressed()) return radial ? 3 * ng : 24 * ng + 8;
  const double passes = tape == TapeMode::kRecompute ? 3 : 2;  // forward (again), backward
  return passes * 2 * multiply_adds(model.embeddings[model.embedding_index(0, neighbor_type)]) +
         contractions;
}

double slot_table_flops(const Model& model, int /*neighbor_type*/) {
  // G (5 multiply-adds per output), forward and again backward, and G' (4 and the factors 2..5).
  return model.compressed() ? 32.0 * model.embedding_width() : 0.0;
}

double atom_flops(const Model& model, int centre_type) {
  if (model.descriptor == DescriptorType::kSeAtten) return attention_atom_flops(model);
  const double ng = model.embedding_width(), axis = model.axis_neuron;
  // D = M^T M< and its two gradient products (se_e2_a); se_e2_r's D = M / 5 and back (2 ng).
  const double descriptor =
      model.descriptor == DescriptorType::kSeR ? 2 * ng : 3 * 2 * 4 * ng * axis;
  return 2 * 2 * multiply_adds(model.fittings[static_cast<std::size_t>(centre_type)]) + descriptor;
}

double slot_tanh(const Model& model, int neighbor_type, TapeMode tape) {
  if (model.compressed() || model.descriptor == DescriptorType::kSeAtten) return 0.0;
  return (tape == TapeMode::kRecompute ? 2 : 1) *
         tanh_count(model.embeddings[model.embedding_index(0, neighbor_type)]);
}

double atom_tanh(const Model& model, int centre_type) {
  if (model.descriptor == DescriptorType::kSeAtten) return attention_atom_tanh(model);
  return tanh_count(model.fittings[static_cast<std::size_t>(centre_type)]);
}

std::size_t workspace_bytes(const Model& model, int nloc, int max_candidates, TapeMode tape) {
  if (model.descriptor == DescriptorType::kSeAtten)
    return attention_workspace_bytes(model) +
           static_cast<std::size_t>(max_candidates) * (sizeof(double) + sizeof(int));
  const int ntypes = model.ntypes(), ng = model.embedding_width(), nd = model.descriptor_dim();
  const int C = model.env_columns();
  const std::size_t n = static_cast<std::size_t>(nloc);
  const auto block = static_cast<std::size_t>(atoms_per_block(model, nloc));
  const std::size_t scalar =
      model.precision == Precision::kFloat32 ? sizeof(float) : sizeof(double);
  const bool compressed = model.compressed();
  if (compressed) tape = TapeMode::kStore;  // no tape either way
  Index wide = 0, max_sel = 0;
  for (const auto* nets : {&model.embeddings, &model.fittings})
    if (!compressed || nets == &model.fittings)
      for (const Network& net : *nets) wide = std::max(wide, widest_layer(net));
  for (int t = 0; t < ntypes; ++t) max_sel = std::max<Index>(max_sel, model.sel[t]);
  auto activations = [](const Network& net) {
    std::size_t a = 0;
    for (const auto& l : net.layers) a += static_cast<std::size_t>(l.w.cols());
    return a;
  };
  // A tape shared by several nets (rows each) holds per layer the largest rows x width of them.
  auto shared_tape = [](const std::vector<Network>& nets, auto rows_of) {
    std::vector<std::size_t> layer;
    for (std::size_t k = 0; k < nets.size(); ++k) {
      const auto& layers = nets[k].layers;
      layer.resize(std::max(layer.size(), layers.size()), 0);
      for (std::size_t l = 0; l < layers.size(); ++l)
        layer[l] = std::max(layer[l], rows_of(k) * static_cast<std::size_t>(layers[l].w.cols()));
    }
    std::size_t total = 0;
    for (std::size_t v : layer) total += v;
    return total;
  };
  // Neighbor selection and geometry (float64 and int), per neighbor type rows = nloc * sel.
  std::size_t bytes = static_cast<std::size_t>(max_candidates) * sizeof(std::pair<double, int>) +
                      static_cast<std::size_t>(ntypes) * (n + 1) * sizeof(int) +
                      static_cast<std::size_t>(ntypes) * sizeof(int) + block * sizeof(int) +
                      n * sizeof(int);  // the atoms' order
  std::size_t values = 0;  // at the networks' scalar
  for (int t = 0; t < ntypes; ++t) {
    const std::size_t rows = n * static_cast<std::size_t>(model.sel[t]);
    bytes += rows * (sizeof(int) + kGeom * sizeof(double));
    const Network& net = model.embeddings[model.embedding_index(0, t)];
    // R~ (4), and with TapeMode::kStore the embedding net's activations and output for a block.
    values += rows * static_cast<std::size_t>(C);
    if (tape == TapeMode::kStore && !compressed)
      values += block * static_cast<std::size_t>(model.sel[t]) * (activations(net) + ng);
    values += static_cast<std::size_t>(ntypes * C) * (model.sel[t] + 1) * ng;  // padding sums
  }
  // The padding tape holds the longest of its users, sel rows of one net; the backward pass
  // one block of rows of dE/dR~, dE/dG and dE/ds. A compressed model keeps instead the padded
  // slots' G, its table's G of those slots, one slot's dG/dx, and dE/dR~.
  if (compressed)
    values += static_cast<std::size_t>(max_sel) * (1 + ng) +
              static_cast<std::size_t>(std::max<Index>(1, max_sel) + 1) * ng +
              static_cast<std::size_t>(kChunk) * 4;
  else
    values += static_cast<std::size_t>(max_sel) * (1 + ng) +
              shared_tape(model.embeddings,
                          [&](std::size_t k) {  // net k's neighbor type
                            const std::size_t t = model.type_one_side ? k : k / ntypes;
                            return static_cast<std::size_t>(model.sel[t]);
                          }) +
              static_cast<std::size_t>(kChunk) * (4 + ng + 1);
  if (tape == TapeMode::kRecompute)  // one block of the embedding nets' activations and output
    values += shared_tape(model.embeddings, [](std::size_t) { return std::size_t{kChunk}; }) +
              static_cast<std::size_t>(kChunk) * ng;
  // Descriptor stage, for a block of atoms: m, dm (4 x ng per atom), desc, ddesc (nd per atom),
  // fitting input and input gradient (nd and the parameters per atom), output gradient and
  // output, fitting activations.
  values += block * (2 * static_cast<std::size_t>(C) * ng + 2 * static_cast<std::size_t>(nd) +
                     2 * static_cast<std::size_t>(model.fitting_input_dim()) + 2) +
            shared_tape(model.fittings, [&](std::size_t) { return block; });
  values += 3 * static_cast<std::size_t>(kChunk * wide);  // scratch (the nets' layers)
  return bytes + values * scalar;
}

namespace {

// The rows of one neighbor type that belong to the atoms of a block: atom a of the block has
// rows begin(a) .. begin(a + 1), counted from the block's first row of the type, first().
struct BlockRows {
  const int* start;  // the type's first row of each of the block's atoms, and of the next atom
  Index atoms;
  Index first() const { return start[0]; }
  Index size() const { return begin(atoms); }
  Index begin(Index a) const { return start[a] - start[0]; }
  // Calls f(a, r0, r1) for every atom with rows in the chunk c0 .. c0 + len, with its rows
  // r0 .. r1 clipped to the chunk. a0 is the first atom that may have rows in it: keep it from
  // chunk to chunk, starting at 0.
  template <class F>
  void atoms_in(Index c0, Index len, Index& a0, F&& f) const {
    while (begin(a0 + 1) <= c0) ++a0;
    for (Index a = a0; a < atoms && begin(a) < c0 + len; ++a)
      f(a, std::max(begin(a), c0), std::min(begin(a + 1), c0 + len));
  }
};

// Rows r .. r + len of the R~ column that is the embedding net's input.
template <class T>
ConstView<T> embedding_input(const ConstView<T>& env, Index r, Index len) {
  return ConstView<T>(env.data() + r, len, 1, Eigen::OuterStride<>(env.outerStride()));
}

template <class T>
const T* table_row(const EmbeddingTable& table, int interval) {
  if constexpr (std::is_same_v<T, float>)
    return table.row32(interval);
  else
    return table.row64(interval);
}

// A compressed model's embedding output G at the input x into g (ng values), and with dg its
// derivative dG/dx likewise, from x's quintic (EmbeddingTable), continued linearly outside the
// table. Returns whether x lay outside it.
template <class T>
bool tabulated(const EmbeddingTable& table, T x, T* g, T* dg) {
  using Row = Eigen::Array<T, 1, Eigen::Dynamic>;
  const Index ng = table.width();
  int l = 0;
  double dx = 0.0, beyond = 0.0;
  table.locate(static_cast<double>(x), l, dx, beyond);
  const T* a = table_row<T>(table, l);
  const Eigen::Map<const Row> a0(a, ng), a1(a + ng, ng), a2(a + 2 * ng, ng), a3(a + 3 * ng, ng),
      a4(a + 4 * ng, ng), a5(a + 5 * ng, ng);
  const T t = static_cast<T>(dx);
  Eigen::Map<Row> out(g, ng);
  out = a0 + t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5))));
  const auto slope = a1 + t * (T(2) * a2 + t * (T(3) * a3 + t * (T(4) * a4 + t * T(5) * a5)));
  if (beyond != 0.0) out += static_cast<T>(beyond) * slope;
  if (dg) Eigen::Map<Row>(dg, ng) = slope;
  return beyond != 0.0;
}

// The kernel at the networks' scalar T; Net is Network (float64) or NetworkT<float>.
template <class T, class Net>
void compute_typed(const Model& model, const std::vector<Net>& embeddings,
                   const std::vector<Net>& fittings, std::span<const int> types, int nloc,
                   const Parameters& parameters, Workspace::Buffers& w, Typed<T>& b, Result& out) {
  const int ntypes = model.ntypes(), nnei = model.nnei(), ng = model.embedding_width();
  const int axis = model.axis_neuron, ndesc = model.descriptor_dim();
  // Columns of R~: 4 for se_e2_a (s/r and s d/r^2), 1 for se_e2_r (s/r only).
  const int C = model.env_columns();
  const bool radial = model.descriptor == DescriptorType::kSeR;
  const int nin = model.fitting_input_dim(), nf = model.numb_fparam, na = model.numb_aparam;
  // The fitting input after the descriptor: the normalised fparam, then the atom's aparam.
  std::vector<T> fparam(static_cast<std::size_t>(nf));
  for (int k = 0; k < nf; ++k)
    fparam[k] =
        static_cast<T>((parameters.fparam[k] - model.fparam_avg[k]) * model.fparam_inv_std[k]);
  const auto natoms = static_cast<int>(types.size());
  const auto n = static_cast<Index>(nloc);
  std::vector<int> sec(ntypes + 1, 0);  // first slot of each neighbor type
  for (int t = 0; t < ntypes; ++t) sec[t + 1] = sec[t] + model.sel[t];
  const int* start = w.start.get(0);
  // Atom positions i (rows, blocks) hold atom order[i].
  const int* order = w.order.get(0);
  auto first = [&](int t, int i) { return static_cast<Index>(start[t * (nloc + 1) + i]); };

  // Environment matrix rows, normalised: (R - davg) / dstd, stored per neighbor type for the
  // occupied slots only (feature-major, rows x 4). Padded rows are R = 0 before the
  // normalisation, as in DeePMD-kit, so they enter the descriptor as -davg/dstd; that part is
  // handled below as a constant per (centre type, slot).
  b.env.resize(ntypes);
  b.embedding.resize(ntypes);
  b.padding.resize(static_cast<std::size_t>(ntypes) * ntypes);
  for (int t = 0; t < ntypes; ++t) {
    const Index rows = first(t, nloc);
    View<T> env = view(b.env[t], rows, C);
    const double* geom = w.geom[t].get(0);
    for (int i = 0; i < nloc; ++i) {
      const double* avg = &model.davg(types[order[i]], C * sec[t]);
      const double* std = &model.dstd(types[order[i]], C * sec[t]);
      for (Index row = first(t, i), k = 0; row < first(t, i + 1); ++row, ++k) {
        const double* g = geom + kGeom * row;
        const double inv_r = 1.0 / g[3], s = g[4], s_r2 = s * inv_r * inv_r;
        const double raw[4] = {s * inv_r, s_r2 * g[0], s_r2 * g[1], s_r2 * g[2]};
        for (int c = 0; c < C; ++c) env(row, c) = T((raw[c] - avg[C * k + c]) / std[C * k + c]);
      }
    }
  }

  const bool compressed = model.compressed();
  // A compressed model's G of the padded slots (st rows), feature-major as forward() gives it.
  auto padding_table = [&](const EmbeddingTable& table, const View<T>& x, Store<T>& out,
                           Index width) {
    const Index rows = x.rows();
    T* rowwise = b.table_g.get(static_cast<std::size_t>(rows * width));
    for (Index r = 0; r < rows; ++r) tabulated<T>(table, x(r, 0), rowwise + r * width, nullptr);
    View<T> g = view(out, rows, width);
    g = RowsMap<T>(rowwise, rows, width);
    return g;
  };
  // Padded slots (R~ = -davg/dstd) depend only on the centre type and the slot, so their part of
  // M is evaluated once per call for every (centre type, neighbor type) as suffix sums over the
  // slots, pad[n] = sum_{k >= n}.
  for (int t = 0; t < ntypes; ++t) {
    const int st = model.sel[t];
    for (int c = 0; c < ntypes; ++c) {
      View<T> rpad = view(b.padding_env, st, 1);
      for (int k = 0; k < st; ++k)
        rpad(k, 0) = T(-model.davg(c, C * (sec[t] + k)) / model.dstd(c, C * (sec[t] + k)));
      const View<T> g = compressed ? padding_table(model.tables[model.embedding_index(c, t)], rpad,
                                                   b.padding_tape.out, ng)
                                   : forward<T>(embeddings[model.embedding_index(c, t)],
                                                cview(rpad), b.padding_tape, b.scratch);
      RowsMap<T> pad(b.padding[static_cast<std::size_t>(c) * ntypes + t].get(
                         static_cast<std::size_t>(C * (st + 1) * ng)),
                     C * (st + 1), ng);
      pad.bottomRows(C).setZero();
      // se_e2_a weighs a slot's G by its R~ (-davg/dstd when padded), se_e2_r sums the G.
      for (int k = st - 1; k >= 0; --k)
        for (int e = 0; e < C; ++e) {
          const T r =
              radial
                  ? T(1)
                  : T(-model.davg(c, C * (sec[t] + k) + e) / model.dstd(c, C * (sec[t] + k) + e));
          pad.row(C * k + e) = pad.row(C * (k + 1) + e) + r * g.row(k);
        }
    }
  }
  const bool recompute = w.tape == TapeMode::kRecompute && !compressed;
  if (compressed) {  // the padded slots' G and one slot's dG/dx, at their bound
    Index most = 1;
    for (int t = 0; t < ntypes; ++t) most = std::max<Index>(most, model.sel[t]);
    b.table_g.get(static_cast<std::size_t>(most * ng));
    b.table_dg.get(static_cast<std::size_t>(ng));
  }
  if (recompute) {  // a full block, whatever the rows (workspace_bytes())
    for (const auto& net : embeddings) {
      b.block_tape.act.resize(std::max(b.block_tape.act.size(), net.layers.size()));
      for (std::size_t l = 0; l < net.layers.size(); ++l)
        b.block_tape.act[l].get(static_cast<std::size_t>(kChunk * net.layers[l].w.cols()));
    }
    b.block_tape.out.get(static_cast<std::size_t>(kChunk * ng));
  }

  // The atoms go through the rest in blocks (atoms_per_block()): the embedding nets forward,
  // the descriptor, the fitting nets forward and back, and the embedding nets back, so that the
  // embedding nets' tape holds one block's rows and stays in cache. Per block, atom a of the
  // block is atom i0 + a, and rows of neighbor type t are first(t, i0) .. first(t, i1).
  const Index block = atoms_per_block(model, nloc);
  RowsMap<T> m(b.m.get(static_cast<std::size_t>(C * block * ng)), C * block, ng);
  RowsMap<T> dm(b.dm.get(static_cast<std::size_t>(C * block * ng)), C * block, ng);
  RowsMap<T> desc(b.desc.get(static_cast<std::size_t>(block * ndesc)), block, ndesc);
  RowsMap<T> ddesc(b.ddesc.get(static_cast<std::size_t>(block * ndesc)), block, ndesc);
  int* atoms = w.atoms.get(static_cast<std::size_t>(block));
  // Reserve the fitting buffers for a whole block, so that their size does not depend on the mix
  // of types (workspace_bytes()).
  for (const auto& net : fittings) {
    b.fitting.act.resize(std::max(b.fitting.act.size(), net.layers.size()));
    for (std::size_t l = 0; l < net.layers.size(); ++l)
      b.fitting.act[l].get(static_cast<std::size_t>(block * net.layers[l].w.cols()));
  }
  b.fitting.out.get(static_cast<std::size_t>(block));
  b.fit_in.get(static_cast<std::size_t>(block * nin));
  b.fit_dx.get(static_cast<std::size_t>(block * nin));
  T* ones = b.fit_dy.get(static_cast<std::size_t>(block));
  for (int t = 0; t < ntypes; ++t) {  // the tapes for a block of full slots (workspace_bytes())
    if (compressed) continue;
    const auto& net = embeddings[model.embedding_index(0, t)];  // all of one architecture
    b.embedding[t].act.resize(net.layers.size());
    if (recompute) continue;
    const auto rows = static_cast<std::size_t>(block * model.sel[t]);
    for (std::size_t l = 0; l < net.layers.size(); ++l)
      b.embedding[t].act[l].get(rows * static_cast<std::size_t>(net.layers[l].w.cols()));
    b.embedding[t].out.get(rows * static_cast<std::size_t>(ng));
  }
  out.energy = 0.0;
  out.outside_table = 0;
  out.atom_energy.assign(nloc, 0.0);
  out.descriptor.resize(static_cast<std::size_t>(n * ndesc));
  out.force.assign(3 * static_cast<std::size_t>(natoms), 0.0);
  out.atom_virial.assign(9 * static_cast<std::size_t>(natoms), 0.0);
  const Index net_rows = compressed ? 0 : kChunk;  // dE/dG and dE/ds go through the nets only
  View<T> denv = view(b.denv, kChunk, 4), dg = view(b.dg, net_rows, ng),
          ds = view(b.ds, net_rows, 1);

  for (int i0 = 0, i1 = 0; i0 < nloc; i0 = i1) {
    i1 = std::min(nloc, i0 + static_cast<int>(block));
    // With a net per type pair, a block holds atoms of one type (they come sorted by type).
    if (!model.type_one_side)
      while (types[order[i1 - 1]] != types[order[i0]]) --i1;
    const int nb = i1 - i0;
    auto net_index = [&](int t) { return model.embedding_index(types[order[i0]], t); };

    // M_a = (1/nnei) sum_k R~_k^T G(R~_k0), a 4 x ng matrix per atom: the padded slots' part,
    // then the embedding net per neighbor type over the block's occupied rows of that type (kept
    // for the backward pass or, with TapeMode::kRecompute, evaluated chunk by chunk) and the
    // 4 x ng dot products along each atom's rows in each chunk.
    for (int t = 0; t < ntypes; ++t) {
      const int st = model.sel[t];
      const BlockRows block_rows{start + t * (nloc + 1) + i0, nb};
      for (int a = 0; a < nb; ++a) {
        const Index cnt = block_rows.begin(a + 1) - block_rows.begin(a);
        const RowsMap<T> pad(
            b.padding[static_cast<std::size_t>(types[order[i0 + a]]) * ntypes + t].get(0),
            C * (st + 1), ng);
        auto ma = m.middleRows(C * a, C);
        if (t == 0)
          ma = pad.middleRows(C * cnt, C);
        else
          ma += pad.middleRows(C * cnt, C);
      }
      const Index r_begin = block_rows.first(), rows = block_rows.size();
      const ConstView<T> env = cview(view(b.env[t], first(t, nloc), C));
      if (compressed) {           // M_a += R~_k^T G_k over the atom's rows, G_k from the table
        T* g = b.table_g.get(0);  // one slot's G (tabulated())
        const Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> gk(g, ng);
        for (int a = 0; a < nb; ++a) {
          auto ma = m.middleRows(C * a, C);
          for (Index row = r_begin + block_rows.begin(a); row < r_begin + block_rows.begin(a + 1);
               ++row) {
            out.outside_table += tabulated<T>(model.tables[net_index(t)], env(row, 0), g, nullptr);
            if (radial)
              ma.row(0).array() += gk;
            else
              for (int c = 0; c < 4; ++c) ma.row(c).array() += env(row, c) * gk;
          }
        }
        continue;
      }
      T* stored = recompute
                      ? nullptr
                      : forward<T>(embeddings[net_index(t)], embedding_input(env, r_begin, rows),
                                   b.embedding[t], b.scratch)
                            .data();
      for (Index c0 = 0, a0 = 0; c0 < rows; c0 += kChunk) {
        const Index len = std::min(kChunk, rows - c0);
        const View<T> g =
            recompute ? forward<T>(embeddings[net_index(t)],
                                   embedding_input(env, r_begin + c0, len), b.block_tape, b.scratch)
                      : View<T>(stored + c0, len, ng, Eigen::OuterStride<>(rows));
        block_rows.atoms_in(c0, len, a0, [&](Index a, Index r0, Index r1) {
          auto ma = m.middleRows(C * a, C);
          if (radial)
            for (int j = 0; j < ng; ++j) ma(0, j) += g.col(j).segment(r0 - c0, r1 - r0).sum();
          else
            for (int c = 0; c < 4; ++c)
              for (int j = 0; j < ng; ++j)
                ma(c, j) += env.col(c)
                                .segment(r_begin + r0, r1 - r0)
                                .dot(g.col(j).segment(r0 - c0, r1 - r0));
        });
      }
    }
    m.topRows(C * nb) /= T(nnei);

    // Descriptor: se_e2_a's D_a = M_a^T M_a[:, :axis] (ng x axis, row-major); se_e2_r's the mean
    // G over the slots times DeePMD-kit's res_rescale 1/5 (deepmd/tf/descriptor/se_r.py).
    for (int a = 0; a < nb; ++a) {
      if (radial) {
        desc.row(a) = m.row(a) * T(kSeRRescale);
        continue;
      }
      const auto ma = m.middleRows(4 * a, 4);
      Eigen::Map<Rows<T>> d(desc.row(a).data(), ng, axis);
      d.noalias() = ma.transpose() * ma.leftCols(axis);
    }
    for (int a = 0; a < nb; ++a)
      for (Index k = 0; k < ndesc; ++k)
        out.descriptor[static_cast<std::size_t>(static_cast<Index>(order[i0 + a]) * ndesc + k)] =
            static_cast<double>(desc(a, k));

    // Fitting nets per centre type, batched over the block's atoms of that type; their reverse
    // pass gives dE/dD. Energies leave the nets at T and are summed in float64.
    for (int t = 0, next = 0; t < ntypes; ++t) {
      int* mine = atoms + next;
      Index count = 0;
      for (int a = 0; a < nb; ++a)
        if (types[order[i0 + a]] == t) mine[count++] = a;
      next += static_cast<int>(count);
      if (count == 0) continue;
      View<T> in = view(b.fit_in.get(0), count, nin);
      for (Index k = 0; k < count; ++k) {
        in.row(k).head(ndesc) = desc.row(mine[k]);
        for (int p = 0; p < nf; ++p) in(k, ndesc + p) = fparam[p];
        const double* ap = parameters.aparam.data() + static_cast<Index>(order[i0 + mine[k]]) * na;
        for (int p = 0; p < na; ++p)
          in(k, ndesc + nf + p) =
              static_cast<T>((ap[p] - model.aparam_avg[p]) * model.aparam_inv_std[p]);
      }
      const View<T> e = forward<T>(fittings[t], cview(in), b.fitting, b.scratch);
      for (Index k = 0; k < count; ++k)
        out.atom_energy[order[i0 + mine[k]]] = static_cast<double>(e(k, 0)) + model.energy_bias[t];
      std::fill(ones, ones + count, T(1));
      View<T> dx = view(b.fit_dx.get(0), count, nin);
      backward<T>(fittings[t], b.fitting, ConstView<T>(ones, count, 1, Eigen::OuterStride<>(count)),
                  dx, b.scratch);
      // The parameters do not depend on the positions: only the descriptor's gradient goes on.
      for (Index k = 0; k < count; ++k) ddesc.row(mine[k]) = dx.row(k).head(ndesc);
    }

    // dE/dM_a = M1 dD^T + [M dD, 0], with M1 the first axis columns (from D = M^T M1); for
    // se_e2_r dD / 5.
    for (int a = 0; a < nb; ++a) {
      if (radial) {
        dm.row(a) = ddesc.row(a) * T(kSeRRescale);
        continue;
      }
      const auto ma = m.middleRows(4 * a, 4);
      const Eigen::Map<const Rows<T>> dd(ddesc.row(a).data(), ng, axis);
      auto dma = dm.middleRows(4 * a, 4);
      dma.noalias() = ma.leftCols(axis) * dd.transpose();
      dma.leftCols(axis).noalias() += ma * dd;
    }
    dm.topRows(C * nb) /= T(nnei);

    // Back through the embeddings (occupied slots only; padded ones are constants):
    // dR~_k = G_k dM^T, dG_k = R~_k dM, then dR~_k0 += dE/ds_k, the embedding's input gradient.
    // Then, in float64, back through the normalisation and the environment matrix to the pair
    // vector d = x_j - x_i: R0 = s/r, Rc = s d_c / r^2.
    for (int t = 0; t < ntypes; ++t) {
      const BlockRows block_rows{start + t * (nloc + 1) + i0, nb};
      const Index r_begin = block_rows.first(), rows = block_rows.size();
      const ConstView<T> env = cview(view(b.env[t], first(t, nloc), C));
      const int* nbr = w.neighbor[t].get(0);
      const double* geom = w.geom[t].get(0);
      // Chunks of kChunk rows, each through the whole chain.
      for (Index c0 = 0, a0 = 0; c0 < rows; c0 += kChunk) {
        const Index len = std::min(kChunk, rows - c0);
        if (compressed) {
          // dR~_k = G_k dM^T, and through x = R~_k0 what G' adds: sum_c R~_kc (G'_k dM^T)_c.
          T *g = b.table_g.get(0), *dgx = b.table_dg.get(0);
          const Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>> gk(g, ng), sk(dgx, ng);
          block_rows.atoms_in(c0, len, a0, [&](Index a, Index r0, Index r1) {
            const auto dma = dm.middleRows(C * a, C);
            for (Index row = r_begin + r0; row < r_begin + r1; ++row) {
              tabulated<T>(model.tables[net_index(t)], env(row, 0), g, dgx);
              T* de = denv.data() + (row - r_begin - c0);
              if (radial) {  // dE/dx = G' dM
                de[0] = sk.dot(dma.row(0));
                continue;
              }
              T through_x = 0;
              for (int c = 0; c < 4; ++c) {
                de[c * kChunk] = gk.dot(dma.row(c));
                through_x += env(row, c) * sk.dot(dma.row(c));
              }
              de[0] += through_x;
            }
          });
        } else {
          // The chunk's G and activations: kept from the forward pass, or evaluated again.
          Tape<T>& tape = recompute ? b.block_tape : b.embedding[t];
          const ConstView<T> g =
              cview(recompute ? forward<T>(embeddings[net_index(t)],
                                           embedding_input(env, r_begin + c0, len), tape, b.scratch)
                              : View<T>(tape.out.get(0) + c0, len, ng, Eigen::OuterStride<>(rows)));
          block_rows.atoms_in(c0, len, a0, [&](Index a, Index r0, Index r1) {
            if (radial) {  // every slot's dE/dG is dM; R~ has no other part
              for (Index r = r0; r < r1; ++r) {
                dg.row(r - c0) = dm.row(a);
                denv(r - c0, 0) = 0;
              }
              return;
            }
            embedding_output_gradient<T>(
                env, g, r_begin + c0, dm.middleRows(4 * a, 4), r_begin + r0, r1 - r0,
                View<T>(denv.data() + (r0 - c0), r1 - r0, 4, Eigen::OuterStride<>(kChunk)),
                View<T>(dg.data() + (r0 - c0), r1 - r0, ng, Eigen::OuterStride<>(kChunk)));
          });
          backward_block<T>(embeddings[net_index(t)], tape, recompute ? 0 : c0,
                            ConstView<T>(dg.data(), len, ng, Eigen::OuterStride<>(kChunk)),
                            View<T>(ds.data(), len, 1, Eigen::OuterStride<>(kChunk)), b.scratch);
          denv.col(0).head(len) += ds.col(0).head(len);
        }
        block_rows.atoms_in(c0, len, a0, [&](Index a, Index r0, Index r1) {
          const int k_atom = i0 + static_cast<int>(a), i = order[k_atom];
          const double* std = &model.dstd(types[i], C * sec[t]);
          for (Index row = r_begin + r0; row < r_begin + r1; ++row) {
            const Index k = row - first(t, k_atom);
            const int j = nbr[row];
            const double* d = geom + kGeom * row;
            double dr[4] = {0, 0, 0, 0};
            for (int c = 0; c < C; ++c)
              dr[c] = static_cast<double>(denv(row - r_begin - c0, c)) / std[C * k + c];
            add_pair_gradient(dr, 0.0, d, d[3], d[4], d[5], i, j, out);
          }
        });
      }
    }
  }
  for (double e : out.atom_energy) out.energy += e;
}

}  // namespace

Result compute(const Model& model, std::span<const double> positions, std::span<const int> types,
               int nloc, const NeighborList& neighbors, const Parameters& parameters) {
  Workspace workspace;
  Result out;
  compute(model, positions, types, nloc, neighbors, workspace, out, parameters);
  return out;
}

void compute(const Model& model, std::span<const double> positions, std::span<const int> types,
             int nloc, const NeighborList& neighbors, Workspace& workspace, Result& out,
             const Parameters& given) {
  const int ntypes = model.ntypes();
  const auto natoms = static_cast<int>(types.size());
  // DeePMD-kit's DeepPot::validate_fparam_aparam (its messages), and the model's default fparam.
  Parameters parameters = given;
  if (parameters.fparam.empty() && !model.default_fparam.empty())
    parameters.fparam = model.default_fparam;
  if (parameters.fparam.size() != static_cast<std::size_t>(model.numb_fparam))
    throw ConfigError(
        "deepmd::compute: the dim of frame parameter provided is not consistent "
        "with what the model uses (" +
        std::to_string(parameters.fparam.size()) + " values for its " +
        std::to_string(model.numb_fparam) + ")");
  if (nloc >= 0 && parameters.aparam.size() !=
                       static_cast<std::size_t>(nloc) * static_cast<std::size_t>(model.numb_aparam))
    throw ConfigError(
        "deepmd::compute: the dim of atom parameter provided is not consistent "
        "with what the model uses (" +
        std::to_string(parameters.aparam.size()) + " values for " + std::to_string(nloc) +
        " atoms of " + std::to_string(model.numb_aparam) + ")");
  if (positions.size() != 3 * types.size())
    throw ConfigError("deepmd::compute: " + std::to_string(positions.size()) + " coordinates for " +
                      std::to_string(types.size()) + " atoms");
  if (nloc < 0 || nloc > natoms || neighbors.offsets.size() != static_cast<std::size_t>(nloc) + 1)
    throw ConfigError("deepmd::compute: the neighbor list must have nloc + 1 offsets");
  for (int a = 0; a < natoms; ++a)
    if (types[a] < 0 || types[a] >= ntypes)
      throw ConfigError("deepmd::compute: atom " + std::to_string(a) + " has type " +
                        std::to_string(types[a]) + ", outside the model's " +
                        std::to_string(ntypes) + " types");
  if (model.descriptor == DescriptorType::kSeAtten) {
    compute_attention(model, positions, types, nloc, neighbors, out, parameters);
    return;
  }
  Workspace::Buffers& w = workspace.buffers();
  auto distance2 = [&](int i, int j) {
    double r2 = 0.0;
    for (int c = 0; c < 3; ++c) {
      const double d = positions[3 * j + c] - positions[3 * i + c];
      r2 += d * d;
    }
    return r2;
  };

  // Occupied slots: per type, the sel nearest within rcut (DeePMD-kit nlist_distinguish_types),
  // appended per neighbor type as rows start[t][i] .. start[t][i + 1] of atom i. The row buffers
  // have room for every slot (nloc * sel[t] rows), what workspace_bytes() charges.
  int* start = w.start.get(static_cast<std::size_t>(ntypes) * (nloc + 1));
  int* fill = w.fill.get(static_cast<std::size_t>(ntypes));
  std::size_t longest = 0;
  for (int i = 0; i < nloc; ++i)
    longest = std::max(longest,
                       static_cast<std::size_t>(neighbors.offsets[i + 1] - neighbors.offsets[i]));
  auto* candidates = w.candidates.get(longest);
  w.neighbor.resize(ntypes);
  w.geom.resize(ntypes);
  std::vector<int*> neighbor(ntypes);
  std::vector<double*> geom(ntypes);
  for (int t = 0; t < ntypes; ++t) {
    const auto rows = static_cast<std::size_t>(nloc) * model.sel[t];
    neighbor[t] = w.neighbor[t].get(rows);
    geom[t] = w.geom[t].get(rows * kGeom);
    start[t * (nloc + 1)] = 0;
  }
  // Atoms in their order, or, for nets per type pair, sorted by type (stably), so that blocks
  // of atoms of one type share their nets; rows and blocks go by position.
  int* order = w.order.get(static_cast<std::size_t>(nloc));
  for (int i = 0; i < nloc; ++i) order[i] = i;
  if (!model.type_one_side)
    std::stable_sort(order, order + nloc, [&](int a, int b) { return types[a] < types[b]; });
  for (int p = 0; p < nloc; ++p) {
    const int i = order[p];
    std::size_t count = 0;
    for (int k = neighbors.offsets[i]; k < neighbors.offsets[i + 1]; ++k) {
      const int j = neighbors.indices[k];
      if (j < 0 || j >= natoms || j == i)
        throw ConfigError("deepmd::compute: neighbor list of atom " + std::to_string(i) +
                          " holds invalid index " + std::to_string(j));
      const double r = std::sqrt(distance2(i, j));
      if (r <= model.rcut) candidates[count++] = {r, j};
    }
    std::sort(candidates, candidates + count);
    std::fill(fill, fill + ntypes, 0);
    for (std::size_t c = 0; c < count; ++c) {
      const auto [r, j] = candidates[c];
      const int t = types[j];
      if (fill[t] == model.sel[t]) continue;
      const int row = start[t * (nloc + 1) + p] + fill[t]++;
      neighbor[t][row] = j;
      double* g = geom[t] + kGeom * row;
      for (int d = 0; d < 3; ++d) g[d] = positions[3 * j + d] - positions[3 * i + d];
      g[3] = r;
      smooth_weight(r, model.rcut_smth, model.rcut, g[4], g[5]);
    }
    for (int t = 0; t < ntypes; ++t)
      start[t * (nloc + 1) + p + 1] = start[t * (nloc + 1) + p] + fill[t];
  }

  if (model.precision == Precision::kFloat32) {
    Typed<float>& b = w.f32;
    b.embeddings.clear();
    b.fittings.clear();
    if (!model.compressed())
      for (const Network& net : model.embeddings) b.embeddings.push_back(converted<float>(net));
    for (const Network& net : model.fittings) b.fittings.push_back(converted<float>(net));
    compute_typed<float>(model, b.embeddings, b.fittings, types, nloc, parameters, w, b, out);
  } else {
    compute_typed<double>(model, model.embeddings, model.fittings, types, nloc, parameters, w,
                          w.f64, out);
  }
}

Result evaluate(const Model& model, std::span<const double> positions, std::span<const int> types,
                const std::optional<std::array<double, 9>>& cell, const Parameters& parameters) {
  const auto n = static_cast<int>(types.size());
  if (positions.size() != 3 * types.size())
    throw ConfigError("deepmd::evaluate: " + std::to_string(positions.size()) +
                      " coordinates for " + std::to_string(types.size()) + " atoms");
  std::vector<double> xyz(positions.begin(), positions.end());
  std::vector<int> all_types(types.begin(), types.end()), owner(n);
  for (int a = 0; a < n; ++a) owner[a] = a;
  if (cell) {
    const auto& h = *cell;
    // Images needed along cell vector c: ceil(rcut / width_c), width_c = V / |a_d x a_e|.
    auto cross = [&](int p, int q) {
      return std::array<double, 3>{h[3 * p + 1] * h[3 * q + 2] - h[3 * p + 2] * h[3 * q + 1],
                                   h[3 * p + 2] * h[3 * q + 0] - h[3 * p + 0] * h[3 * q + 2],
                                   h[3 * p + 0] * h[3 * q + 1] - h[3 * p + 1] * h[3 * q + 0]};
    };
    const auto bc = cross(1, 2);
    const double volume = std::abs(h[0] * bc[0] + h[1] * bc[1] + h[2] * bc[2]);
    if (!(volume > 0.0)) throw ConfigError("deepmd::evaluate: the cell has zero volume");
    int images[3];
    for (int c = 0; c < 3; ++c) {
      const auto x = cross((c + 1) % 3, (c + 2) % 3);
      const double width = volume / std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
      images[c] = static_cast<int>(std::ceil(model.rcut / width));
    }
    // Wrap the atoms into the cell (as DeePMD-kit's normalize_coord does), so that images up to
    // +-images[c] cells away cover rcut however far the input coordinates were unwrapped.
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> hm(h.data());
    const Eigen::Matrix3d inverse = hm.inverse();
    for (int a = 0; a < n; ++a) {
      Eigen::Map<Eigen::RowVector3d> x(xyz.data() + 3 * a);
      Eigen::RowVector3d f = x * inverse;
      f = f.array() - f.array().floor();
      x = f * hm;
    }
    for (int p = -images[0]; p <= images[0]; ++p)
      for (int q = -images[1]; q <= images[1]; ++q)
        for (int r = -images[2]; r <= images[2]; ++r) {
          if (p == 0 && q == 0 && r == 0) continue;
          for (int a = 0; a < n; ++a) {
            for (int c = 0; c < 3; ++c)
              xyz.push_back(xyz[3 * a + c] + p * h[c] + q * h[3 + c] + r * h[6 + c]);
            all_types.push_back(types[a]);
            owner.push_back(a);
          }
        }
  }
  const auto total = static_cast<int>(owner.size());
  NeighborList list;
  list.offsets.push_back(0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < total; ++j)
      if (j != i) list.indices.push_back(j);
    list.offsets.push_back(static_cast<int>(list.indices.size()));
  }
  Result ext = compute(model, xyz, all_types, n, list, parameters);
  Result out;
  out.energy = ext.energy;
  out.atom_energy = std::move(ext.atom_energy);
  out.descriptor = std::move(ext.descriptor);
  out.outside_table = ext.outside_table;
  out.force.assign(3 * static_cast<std::size_t>(n), 0.0);
  out.atom_virial.assign(9 * static_cast<std::size_t>(n), 0.0);
  for (int a = 0; a < total; ++a) {
    for (int c = 0; c < 3; ++c) out.force[3 * owner[a] + c] += ext.force[3 * a + c];
    for (int c = 0; c < 9; ++c) out.atom_virial[9 * owner[a] + c] += ext.atom_virial[9 * a + c];
  }
  return out;
}

}  // namespace tessera::md::deepmd
