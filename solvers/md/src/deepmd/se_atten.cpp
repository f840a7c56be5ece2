// DPA-1 (se_atten) with the energy fitting, forward and hand-written reverse mode, one local atom
// at a time. The forward maths follows DeePMD-kit v3's dense path operation by operation
// (deepmd/dpmodel/descriptor/dpa1.py: DescrptBlockSeAtten.call, GatedAttentionLayer.call,
// NeighborGatedAttentionLayer.call; utils/env_mat.py; utils/network.py LayerNorm), so that an
// atom's sel slots, the empty ones included, go through the embedding net and the attention as
// there: an empty slot's row of R~ is -davg/dstd, its smooth weight 0, and with `smooth` its keys
// stay in the softmax's sum at exp(-20). Zhang et al. (2022), arXiv:2208.08236, for the method.
#include "se_atten.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "network_ops.hpp"
#include "pair_gradient.hpp"
#include "smooth_weight.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md::deepmd {
namespace {

using Index = Eigen::Index;
using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXd;

// DeePMD-kit's attnw_shift: with `smooth`, logits are (L + 20) s_i s_j - 20.
constexpr double kShift = 20.0;
// DeePMD-kit's floor under |R~_1..3| when it normalises the slots' directions.
constexpr double kDirectionFloor = 1e-12;

// What one attention layer keeps for its reverse pass. The attention proper (Q, K, V and their
// products) involves the n occupied slots only: an empty slot's key has weight s_j = 0 after the
// softmax and, with `smooth`, the constant logit -20 in its sum; an empty slot's query row is
// zeroed after it. So an empty slot's row goes through a layer as LayerNorm(X + b_out), alone.
struct LayerTape {
  Mat unit;    // n x 3 hidden: Q, K, V with unit rows (or as they are without `normalize`)
  Mat norm;    // n x 3: the norms of the rows of Q, K and V
  Mat logits;  // n x n: Q^ K^T, Q^ scaled
  Mat p;       // n x n: the softmax over the keys (with `smooth`, over all nnei of them)
  Mat z;       // nnei x ng: the normalised rows of LayerNorm
  Vec rstd;    // nnei: 1 / sqrt(var + eps) of each row
};

struct AtomTape {
  Index occupied = 0;  // slots 0 .. occupied - 1 hold neighbors, the rest are empty
  std::vector<LayerTape> layers;
  Mat env;       // nnei x 4: R~
  Vec sw;        // nnei: smooth weights (0 for empty slots)
  Mat dir;       // n x 3: r^, R~_1..3 normalised, of the occupied slots
  Vec dir_norm;  // n: |R~_1..3|
  Mat c;         // n x n: r^_i . r^_j (with dotr)
  Mat x;         // nnei x ng: the attention's output
  Mat gr;        // ng x 4: X^T R~ / nnei
  Mat gs, gt;    // strip mode: nnei x ng, the radial net's G_s and the pairs' G_t
  kernel::Tape<double> embedding, fitting;
  kernel::Scratch<double> scratch;
  kernel::Soa<double> input;  // nnei x embedding input
};

void attention_forward(const Model& model, AtomTape& tape) {
  const Attention& at = model.attention;
  const Index nnei = tape.env.rows(), n = tape.occupied, h = at.hidden;
  const auto sw = tape.sw.head(n);
  for (std::size_t l = 0; l < at.layers.size(); ++l) {
    const AttentionLayer& layer = at.layers[l];
    LayerTape& lt = tape.layers[l];
    Mat qkv = tape.x.topRows(n) * layer.in_w;
    qkv.rowwise() += layer.in_b;
    lt.unit = qkv;
    lt.norm.setOnes(n, 3);
    if (at.normalize)
      for (Index i = 0; i < n; ++i)
        for (Index b = 0; b < 3; ++b) {
          lt.norm(i, b) = qkv.row(i).segment(b * h, h).norm();
          lt.unit.row(i).segment(b * h, h) /= lt.norm(i, b);
        }
    lt.logits = (at.scaling * lt.unit.leftCols(h)) * lt.unit.middleCols(h, h).transpose();
    // Softmax over the keys: with `smooth`, ((L + 20) s_i s_j - 20) over all nnei keys, the
    // empty ones at -20 (>= every occupied logit's lower bound, so the maximum covers them);
    // without, over the occupied keys.
    lt.p.resize(n, n);
    const Index empty = nnei - n;
    for (Index i = 0; i < n; ++i) {
      auto row = lt.p.row(i);
      if (at.smooth)
        row = ((lt.logits.row(i).array() + kShift) * sw(i) * sw.transpose().array() - kShift)
                  .matrix();
      else
        row = lt.logits.row(i);
      const double top =
          empty > 0 && at.smooth ? std::max(row.maxCoeff(), -kShift) : row.maxCoeff();
      row = (row.array() - top).exp().matrix();
      const double sum =
          row.sum() + (at.smooth ? static_cast<double>(empty) * std::exp(-kShift - top) : 0.0);
      row /= sum;
    }
    Mat w = lt.p;
    if (at.smooth) w.array() *= (sw * sw.transpose()).array();
    if (at.dotr) w.array() *= tape.c.array();
    Mat y = tape.x;
    y.topRows(n).noalias() += (w * lt.unit.rightCols(h)) * layer.out_w;
    y.rowwise() += layer.out_b;
    const Index ng = y.cols();
    lt.z.resize(nnei, ng);
    lt.rstd.resize(nnei);
    for (Index i = 0; i < nnei; ++i) {
      const double mean = y.row(i).mean();
      const double var = (y.row(i).array() - mean).square().mean();
      lt.rstd(i) = 1.0 / std::sqrt(var + layer.norm_eps);
      lt.z.row(i) = (y.row(i).array() - mean) * lt.rstd(i);
      tape.x.row(i) = lt.z.row(i).cwiseProduct(layer.norm_w) + layer.norm_b;
    }
  }
}

// dX (n x ng: the gradient of the attention's output on the occupied slots; the empty slots'
// rows depend on nothing that moves) back to its input, adding the gradients with respect to
// the occupied slots' smooth weights and directions to dsw and ddir.
void attention_backward(const Model& model, AtomTape& tape, Mat& dx, Vec& dsw, Mat& ddir) {
  const Attention& at = model.attention;
  const Index n = tape.occupied, h = at.hidden;
  const auto sw = tape.sw.head(n);
  const Mat s = sw * sw.transpose();
  for (std::size_t l = at.layers.size(); l-- > 0;) {
    const AttentionLayer& layer = at.layers[l];
    const LayerTape& lt = tape.layers[l];
    const Index ng = dx.cols();
    // LayerNorm: dY = rstd (dZ - mean(dZ) - Z mean(dZ Z)), dZ = dX' w.
    Mat dy(n, ng);
    for (Index i = 0; i < n; ++i) {
      const Eigen::RowVectorXd dz = dx.row(i).cwiseProduct(layer.norm_w);
      const double mean_dz = dz.mean(), mean_dzz = dz.cwiseProduct(lt.z.row(i)).mean();
      dy.row(i) = lt.rstd(i) * (dz.array() - mean_dz - lt.z.row(i).array() * mean_dzz);
    }
    // Y = X + O W_out + b_out, O = W V^.
    const Mat dout = dy * layer.out_w.transpose();  // dO
    Mat w = lt.p;
    if (at.smooth) w.array() *= s.array();
    const Mat w_gate = w;  // W before the angular factor
    if (at.dotr) w.array() *= tape.c.array();
    Mat dunit(n, 3 * h);
    dunit.rightCols(h).noalias() = w.transpose() * dout;
    Mat dw = dout * lt.unit.rightCols(h).transpose();
    if (at.dotr) {
      const Mat dc = dw.cwiseProduct(w_gate);
      ddir.noalias() += (dc + dc.transpose()) * tape.dir;
      dw.array() *= tape.c.array();
    }
    Mat dp = dw;
    Mat ds = Mat::Zero(n, n);
    if (at.smooth) {
      ds = dw.cwiseProduct(lt.p);
      dp.array() *= s.array();
    }
    // The softmax (the empty keys' dP is zero: their weight s_j is).
    Mat dlogits(n, n);
    for (Index i = 0; i < n; ++i) {
      const double dot = dp.row(i).dot(lt.p.row(i));
      dlogits.row(i) = lt.p.row(i).array() * (dp.row(i).array() - dot);
    }
    if (at.smooth) {
      ds.array() += dlogits.array() * (lt.logits.array() + kShift);
      dlogits.array() *= s.array();
    }
    dsw.head(n).noalias() += (ds + ds.transpose()) * sw;
    // logits = scaling Q^ K^T.
    dunit.leftCols(h).noalias() = at.scaling * (dlogits * lt.unit.middleCols(h, h));
    dunit.middleCols(h, h).noalias() = at.scaling * (dlogits.transpose() * lt.unit.leftCols(h));
    Mat dqkv = dunit;
    if (at.normalize)
      for (Index i = 0; i < n; ++i)
        for (Index b = 0; b < 3; ++b) {
          const auto u = lt.unit.row(i).segment(b * h, h);
          auto d = dqkv.row(i).segment(b * h, h);
          d = (d - u * u.dot(d)) / lt.norm(i, b);
        }
    dx = dy + dqkv * layer.in_w.transpose();
  }
}

}  // namespace

void compute_attention(const Model& model, std::span<const double> positions,
                       std::span<const int> types, int nloc, const NeighborList& neighbors,
                       Result& out, const Parameters& parameters) {
  if (model.precision != Precision::kFloat64)
    throw ConfigError("deepmd::compute: the dpa1 (se_atten) descriptor runs in float64 only");
  const Attention& at = model.attention;
  const auto natoms = static_cast<int>(types.size());
  const Index nnei = model.nnei(), ng = model.embedding_width(), tebd = at.tebd_dim();
  const Index axis = model.axis_neuron, ndesc = model.descriptor_dim();
  const Index nf = model.numb_fparam, na = model.numb_aparam, nin = model.fitting_input_dim();
  const double rc2 = model.rcut * model.rcut;
  out.energy = 0.0;
  out.outside_table = 0;
  out.atom_energy.assign(static_cast<std::size_t>(nloc), 0.0);
  out.descriptor.assign(static_cast<std::size_t>(nloc * ndesc), 0.0);
  out.force.assign(3 * static_cast<std::size_t>(natoms), 0.0);
  out.atom_virial.assign(9 * static_cast<std::size_t>(natoms), 0.0);
  std::vector<double> fparam(static_cast<std::size_t>(nf));
  for (Index p = 0; p < nf; ++p)
    fparam[p] = (parameters.fparam[p] - model.fparam_avg[p]) * model.fparam_inv_std[p];

  AtomTape tape;
  tape.layers.resize(at.layers.size());
  std::vector<std::pair<double, int>> candidates;
  std::vector<int> slot_atom(static_cast<std::size_t>(nnei));
  Mat delta(nnei, 3);
  Vec dist(nnei), dsw_dr(nnei);
  const Index in_dim = model.embeddings.front().in_dim();
  for (int i = 0; i < nloc; ++i) {
    const int ci = types[i];
    // The nearest nnei neighbors within rcut, of any type (DeePMD-kit's mixed-type nlist).
    candidates.clear();
    for (int k = neighbors.offsets[i]; k < neighbors.offsets[i + 1]; ++k) {
      const int j = neighbors.indices[k];
      if (j < 0 || j >= natoms || j == i)
        throw ConfigError("deepmd::compute: neighbor list of atom " + std::to_string(i) +
                          " holds invalid index " + std::to_string(j));
      double r2 = 0.0;
      for (int c = 0; c < 3; ++c) {
        const double d = positions[3 * j + c] - positions[3 * i + c];
        r2 += d * d;
      }
      if (r2 < rc2) candidates.emplace_back(r2, j);
    }
    std::sort(candidates.begin(), candidates.end());
    const Index n = std::min<Index>(nnei, static_cast<Index>(candidates.size()));
    tape.occupied = n;

    // R~, the smooth weights and the directions; empty slots: R~ = -davg/dstd, s = 0.
    tape.env.resize(nnei, 4);
    tape.sw.setZero(nnei);
    for (Index j = 0; j < nnei; ++j) {
      double raw[4] = {0, 0, 0, 0};
      if (j < n) {
        const int a = candidates[static_cast<std::size_t>(j)].second;
        slot_atom[static_cast<std::size_t>(j)] = a;
        for (int c = 0; c < 3; ++c) delta(j, c) = positions[3 * a + c] - positions[3 * i + c];
        const double r = std::sqrt(candidates[static_cast<std::size_t>(j)].first);
        double s, ds;
        smooth_weight(r, model.rcut_smth, model.rcut, s, ds);
        dist(j) = r;
        dsw_dr(j) = ds;
        tape.sw(j) = s;
        raw[0] = s / r;
        for (int c = 0; c < 3; ++c) raw[1 + c] = s * delta(j, c) / (r * r);
      }
      for (int c = 0; c < 4; ++c)
        tape.env(j, c) = (raw[c] - model.davg(ci, 4 * j + c)) / model.dstd(ci, 4 * j + c);
    }
    tape.dir.resize(n, 3);
    tape.dir_norm.resize(n);
    for (Index j = 0; j < n; ++j) {
      tape.dir_norm(j) = tape.env.row(j).tail(3).norm();
      tape.dir.row(j) = tape.env.row(j).tail(3) / std::max(tape.dir_norm(j), kDirectionFloor);
    }
    if (at.dotr) tape.c = tape.dir * tape.dir.transpose();

    // The embedding net on [R~_0, T(neighbor), T(centre)], or in strip mode on R~_0 alone, times
    // 1 + s G_t; empty slots take type 0's T.
    tape.input.resize(nnei, in_dim);
    tape.input.col(0) = tape.env.col(0);
    if (at.strip) tape.gt.resize(nnei, ng);
    for (Index j = 0; j < nnei; ++j) {
      const int tj = j < n ? types[slot_atom[static_cast<std::size_t>(j)]] : 0;
      if (at.strip) {
        tape.gt.row(j) = at.strip_table.row(model.type_one_side ? tj : ci * model.ntypes() + tj);
        continue;
      }
      tape.input.row(j).segment(1, tebd) = at.type_embedding.row(tj);
      if (!model.type_one_side)
        tape.input.row(j).segment(1 + tebd, tebd) = at.type_embedding.row(ci);
    }
    const Network& embedding = model.embeddings.front();
    tape.x = kernel::forward<double>(
        embedding,
        kernel::ConstView<double>(tape.input.data(), nnei, in_dim, Eigen::OuterStride<>(nnei)),
        tape.embedding, tape.scratch);
    if (at.strip) {
      tape.gs = tape.x;
      for (Index j = 0; j < nnei; ++j)
        tape.x.row(j).array() *= 1.0 + (at.smooth ? tape.sw(j) : 1.0) * tape.gt.row(j).array();
    }
    attention_forward(model, tape);

    // gr = X^T R~ / nnei; D = gr gr[:axis]^T (ng x axis, row-major), then T(centre).
    tape.gr = tape.x.transpose() * tape.env / static_cast<double>(nnei);
    Eigen::RowVectorXd input(nin);
    Eigen::Map<Mat> d(input.data(), ng, axis);
    d.noalias() = tape.gr * tape.gr.topRows(axis).transpose();
    if (at.concat_output_tebd) input.segment(ng * axis, tebd) = at.type_embedding.row(ci);
    for (Index p = 0; p < nf; ++p) input(ndesc + p) = fparam[p];
    for (Index p = 0; p < na; ++p)
      input(ndesc + nf + p) =
          (parameters.aparam[static_cast<std::size_t>(i * na + p)] - model.aparam_avg[p]) *
          model.aparam_inv_std[p];
    std::copy(input.data(), input.data() + ndesc, out.descriptor.begin() + i * ndesc);

    // The fitting net, and dE/dD.
    const Network& fitting = model.fitting(ci);
    const auto e = kernel::forward<double>(
        fitting, kernel::ConstView<double>(input.data(), 1, nin, Eigen::OuterStride<>(1)),
        tape.fitting, tape.scratch);
    out.atom_energy[static_cast<std::size_t>(i)] = e(0, 0) + model.energy_bias[ci];
    double one = 1.0;
    Eigen::RowVectorXd dinput(nin);
    kernel::backward<double>(
        fitting, tape.fitting, kernel::ConstView<double>(&one, 1, 1, Eigen::OuterStride<>(1)),
        kernel::View<double>(dinput.data(), 1, nin, Eigen::OuterStride<>(1)), tape.scratch);
    const Eigen::Map<const Mat> dd(dinput.data(), ng, axis);

    // dgr = dD gr[:axis] + [dD^T gr, 0]; dX = R~ dgr^T / nnei; dR~ = X dgr / nnei, on the
    // occupied slots (the empty ones' rows are constants).
    Mat dgr = dd * tape.gr.topRows(axis);
    dgr.topRows(axis).noalias() += dd.transpose() * tape.gr;
    dgr /= static_cast<double>(nnei);
    Mat dx = tape.env.topRows(n) * dgr.transpose();
    Mat denv = tape.x.topRows(n) * dgr;
    Vec dsw = Vec::Zero(n);
    Mat ddir = Mat::Zero(n, 3);
    attention_backward(model, tape, dx, dsw, ddir);
    if (at.strip)  // G = G_s (1 + s G_t)
      for (Index j = 0; j < n; ++j) {
        const double s = at.smooth ? tape.sw(j) : 1.0;
        if (at.smooth)
          dsw(j) += (dx.row(j).array() * tape.gs.row(j).array() * tape.gt.row(j).array()).sum();
        dx.row(j).array() *= 1.0 + s * tape.gt.row(j).array();
      }
    const kernel::Soa<double> dg = dx;  // feature-major, as the nets take it
    kernel::Soa<double> dinput_embedding(n, in_dim);
    for (Index r0 = 0; r0 < n; r0 += kernel::kChunk) {
      const Index len = std::min(kernel::kChunk, n - r0);
      kernel::backward_block<double>(
          embedding, tape.embedding, r0,
          kernel::ConstView<double>(dg.data() + r0, len, ng, Eigen::OuterStride<>(n)),
          kernel::View<double>(dinput_embedding.data() + r0, len, in_dim, Eigen::OuterStride<>(n)),
          tape.scratch);
    }
    denv.col(0) += dinput_embedding.col(0);

    // Occupied slots only (empty ones are constants): r^ = R~_1..3 / |R~_1..3|, R~ =
    // (raw - davg) / dstd, raw = (s/r, s d/r^2), then to the pair's positions.
    for (Index j = 0; j < n; ++j) {
      const double nrm = tape.dir_norm(j);
      Eigen::RowVector3d dd3 = ddir.row(j);
      if (nrm > kDirectionFloor)
        denv.row(j).tail(3) += (dd3 - tape.dir.row(j) * tape.dir.row(j).dot(dd3)) / nrm;
      else
        denv.row(j).tail(3) += dd3 / kDirectionFloor;
      double dr[4];
      for (int c = 0; c < 4; ++c) dr[c] = denv(j, c) / model.dstd(ci, 4 * j + c);
      add_pair_gradient(dr, dsw(j), delta.row(j).data(), dist(j), tape.sw(j), dsw_dr(j), i,
                        slot_atom[static_cast<std::size_t>(j)], out);
    }
  }
  for (double e : out.atom_energy) out.energy += e;
}

double attention_atom_flops(const Model& model) {
  const double nnei = model.nnei(), ng = model.embedding_width(), h = model.attention.hidden;
  const double axis = model.axis_neuron;
  double embedding = 0, fitting = 0;
  for (const Layer& l : model.embeddings.front().layers)
    embedding += static_cast<double>(l.w.rows() * l.w.cols());
  for (const Layer& l : model.fitting(0).layers)
    fitting += static_cast<double>(l.w.rows() * l.w.cols());
  // Per layer: Q K V (nnei ng 3h), logits and W V (nnei^2 h each), the output (nnei h ng).
  const double layer = nnei * ng * 3 * h + 2 * nnei * nnei * h + nnei * h * ng;
  const double contractions = nnei * ng * 4 + ng * axis * 4;
  // Multiply-adds times 2 flops, forward and reverse (the reverse about twice the forward).
  return 2 * 3 *
         (nnei * embedding + static_cast<double>(model.attention.layers.size()) * layer +
          contractions + fitting);
}

double attention_atom_tanh(const Model& model) {
  double count = 0;
  for (const Layer& l : model.embeddings.front().layers)
    if (l.activation == Activation::kTanh) count += static_cast<double>(l.w.cols()) * model.nnei();
  for (const Layer& l : model.fitting(0).layers)
    if (l.activation == Activation::kTanh) count += static_cast<double>(l.w.cols());
  return count;
}

std::size_t attention_workspace_bytes(const Model& model) {
  const auto nnei = static_cast<std::size_t>(model.nnei());
  const auto ng = static_cast<std::size_t>(model.embedding_width());
  const auto h = static_cast<std::size_t>(model.attention.hidden);
  std::size_t embedding = 0;
  for (const Layer& l : model.embeddings.front().layers)
    embedding += static_cast<std::size_t>(l.w.cols());
  // Per layer its tape; per atom R~, the directions, their products and the embedding's tape;
  // the reverse pass's temporaries about as much as one layer's tape again.
  const std::size_t layer = nnei * (2 * ng + 3 * h + 3 + 1) + 2 * nnei * nnei;
  const std::size_t atom =
      nnei * (4 + 1 + 3 + 1 + ng + embedding + model.embeddings.front().in_dim()) + nnei * nnei;
  return sizeof(double) * ((model.attention.layers.size() + 1) * layer + atom);
}

}  // namespace tessera::md::deepmd
