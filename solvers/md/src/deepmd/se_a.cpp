// The se_e2_a descriptor, energy fitting and their hand-written reverse mode.
// Forward maths follows DeePMD-kit v3 (deepmd/dpmodel/utils/env_mat.py, descriptor/se_e2_a.py,
// fitting/general_fitting.py, utils/network.py); see docs/deepmd.md for the derivation.
#include "tessera/md/deepmd/se_a.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <string>

#include "tessera/core/error.hpp"

namespace tessera::md::deepmd {
namespace {

// One network evaluation: input, each layer's act(x W + b) (kept for the backward pass) and
// output, and the backward pass's buffers, one per layer so that their sizes stay fixed from
// call to call (a resize would reallocate, and fault in, megabytes every step).
struct Tape {
  Matrix input;
  std::vector<Matrix> activated;
  std::vector<Matrix> outputs;
  std::vector<Matrix> dz;
  std::vector<Matrix> grads;  // grads[l]: gradient of layer l's input; grads.back(): of the output
};

// Layers are y = act(x W + b) [* idt] [+ skip(x)], skip = x when out == in and concat(x, x)
// when out == 2 in (DeePMD-kit NativeLayer.call).
const Matrix& forward(const Network& net, Tape& tape) {
  const std::size_t n = net.layers.size();
  tape.activated.resize(n);
  tape.outputs.resize(n);
  tape.dz.resize(n);
  tape.grads.resize(n + 1);
  for (std::size_t l = 0; l < n; ++l) {
    const Layer& layer = net.layers[l];
    const Matrix& x = l == 0 ? tape.input : tape.outputs[l - 1];
    Matrix& a = tape.activated[l];
    a.noalias() = x * layer.w;
    a.rowwise() += layer.b;
    if (layer.activation == Activation::kTanh) a.array() = a.array().tanh();
    Matrix& y = tape.outputs[l];
    y = a;
    if (layer.idt.size() > 0) y.array().rowwise() *= layer.idt.array();
    const Eigen::Index in = layer.w.rows(), out = layer.w.cols();
    if (layer.resnet && out == in) {
      y += x;
    } else if (layer.resnet && out == 2 * in) {
      y.leftCols(in) += x;
      y.rightCols(in) += x;
    }
  }
  return tape.outputs.back();
}

// The gradient of the output, to be filled before backward().
Matrix& output_gradient(Tape& tape) { return tape.grads.back(); }

// Gradient with respect to the network input, given output_gradient(tape).
const Matrix& backward(const Network& net, Tape& tape) {
  for (std::size_t l = net.layers.size(); l-- > 0;) {
    const Layer& layer = net.layers[l];
    const Matrix& dy = tape.grads[l + 1];
    Matrix& dx = tape.grads[l];
    Matrix& dz = tape.dz[l];
    dz = dy;
    if (layer.idt.size() > 0) dz.array().rowwise() *= layer.idt.array();
    if (layer.activation == Activation::kTanh)
      dz.array() *= 1.0 - tape.activated[l].array().square();
    dx.noalias() = dz * layer.w.transpose();
    const Eigen::Index in = layer.w.rows(), out = layer.w.cols();
    if (layer.resnet && out == in) {
      dx += dy;
    } else if (layer.resnet && out == 2 * in) {
      dx += dy.leftCols(in) + dy.rightCols(in);
    }
  }
  return tape.grads.front();
}

// DeePMD-kit's compute_smooth_weight: 1 below rmin, 0 above rmax, a quintic in between; and its
// derivative with respect to r.
void switching(double r, double rmin, double rmax, double& s, double& ds) {
  if (r <= rmin) {
    s = 1.0;
    ds = 0.0;
  } else if (r >= rmax) {
    s = 0.0;
    ds = 0.0;
  } else {
    const double u = (r - rmin) / (rmax - rmin);
    s = u * u * u * (-6.0 * u * u + 15.0 * u - 10.0) + 1.0;
    ds = -30.0 * u * u * (u - 1.0) * (u - 1.0) / (rmax - rmin);
  }
}

}  // namespace

struct Workspace::Buffers {
  std::vector<int> slot;   // nloc x nnei neighbor index per slot, -1 for padding
  std::vector<int> count;  // nloc x ntypes occupied slots (they come first in each type's block)
  std::vector<int> row_start;   // ntypes x (nloc + 1): first embedding row of each atom
  std::vector<Matrix> padding;  // (centre, neighbor type): suffix sums of padded slots' R~^T G
  Matrix padding_env;
  Tape padding_tape;
  std::vector<std::pair<double, int>> candidates;
  Matrix env, diff, denv;                // nloc*nnei x 4 / 3 / 4
  std::vector<double> radius, sw, dsw;   // nloc*nnei
  Matrix m, dm;                          // nloc*4 x ng
  Matrix desc, ddesc;                    // nloc x ndesc
  std::vector<Tape> embedding, fitting;  // per type
  std::vector<std::vector<int>> atoms_of_type;
};

Workspace::Workspace() : buffers_(std::make_unique<Buffers>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

std::array<double, 9> Result::virial() const {
  std::array<double, 9> v{};
  for (std::size_t a = 0; a < atom_virial.size(); ++a) v[a % 9] += atom_virial[a];
  return v;
}

Result compute(const Model& model, std::span<const double> positions, std::span<const int> types,
               int nloc, const NeighborList& neighbors) {
  Workspace workspace;
  Result out;
  compute(model, positions, types, nloc, neighbors, workspace, out);
  return out;
}

void compute(const Model& model, std::span<const double> positions, std::span<const int> types,
             int nloc, const NeighborList& neighbors, Workspace& workspace, Result& out) {
  const int ntypes = model.ntypes(), nnei = model.nnei(), ng = model.embedding_width();
  const int axis = model.axis_neuron, ndesc = model.descriptor_dim();
  const auto natoms = static_cast<int>(types.size());
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
  Workspace::Buffers& w = workspace.buffers();
  std::vector<int> sec(ntypes + 1, 0);  // first slot of each neighbor type
  for (int t = 0; t < ntypes; ++t) sec[t + 1] = sec[t] + model.sel[t];

  // Neighbor slots: per type, the sel nearest within rcut (DeePMD-kit nlist_distinguish_types);
  // -1 marks padding.
  w.slot.assign(static_cast<std::size_t>(nloc) * nnei, -1);
  w.count.assign(static_cast<std::size_t>(nloc) * ntypes, 0);
  std::vector<int> fill(ntypes);
  for (int i = 0; i < nloc; ++i) {
    w.candidates.clear();
    for (int k = neighbors.offsets[i]; k < neighbors.offsets[i + 1]; ++k) {
      const int j = neighbors.indices[k];
      if (j < 0 || j >= natoms || j == i)
        throw ConfigError("deepmd::compute: neighbor list of atom " + std::to_string(i) +
                          " holds invalid index " + std::to_string(j));
      double r2 = 0.0;
      for (int c = 0; c < 3; ++c) r2 += std::pow(positions[3 * j + c] - positions[3 * i + c], 2);
      const double r = std::sqrt(r2);
      if (r <= model.rcut) w.candidates.emplace_back(r, j);
    }
    std::sort(w.candidates.begin(), w.candidates.end());
    std::copy(sec.begin(), sec.end() - 1, fill.begin());
    for (const auto& [r, j] : w.candidates) {
      const int t = types[j];
      if (fill[t] < sec[t + 1]) w.slot[static_cast<std::size_t>(i) * nnei + fill[t]++] = j;
    }
    for (int t = 0; t < ntypes; ++t) w.count[i * ntypes + t] = fill[t] - sec[t];
  }

  // Environment matrix rows, normalised: (R - davg) / dstd. Padded rows are R = 0 before the
  // normalisation, as in DeePMD-kit, so they enter the descriptor as -davg/dstd.
  const Eigen::Index rows = static_cast<Eigen::Index>(nloc) * nnei;
  w.env.resize(rows, 4);
  w.diff.setZero(rows, 3);
  w.radius.assign(rows, 0.0);
  w.sw.assign(rows, 0.0);
  w.dsw.assign(rows, 0.0);
  for (int i = 0; i < nloc; ++i)
    for (int k = 0; k < nnei; ++k) {
      const Eigen::Index row = static_cast<Eigen::Index>(i) * nnei + k;
      double raw[4] = {0.0, 0.0, 0.0, 0.0};
      const int j = w.slot[row];
      if (j >= 0) {
        for (int c = 0; c < 3; ++c) w.diff(row, c) = positions[3 * j + c] - positions[3 * i + c];
        const double r = w.diff.row(row).norm();
        switching(r, model.rcut_smth, model.rcut, w.sw[row], w.dsw[row]);
        w.radius[row] = r;
        raw[0] = w.sw[row] / r;
        for (int c = 0; c < 3; ++c) raw[1 + c] = w.sw[row] * w.diff(row, c) / (r * r);
      }
      for (int c = 0; c < 4; ++c)
        w.env(row, c) =
            (raw[c] - model.davg(types[i], 4 * k + c)) / model.dstd(types[i], 4 * k + c);
    }

  // Embedding nets per neighbor type, batched over the occupied (atom, slot) rows of that type:
  // M_i = (1/nnei) sum_k R~_k^T G(R~_k0), a 4 x ng matrix per atom. Padded slots (R~ = -davg/dstd)
  // depend only on the centre type and the slot, so their part is evaluated once per call for
  // every (centre type, neighbor type) as suffix sums over the slots, pad[n] = sum_{k >= n}.
  w.embedding.resize(ntypes);
  w.padding.resize(static_cast<std::size_t>(ntypes) * ntypes);
  w.row_start.resize(static_cast<std::size_t>(ntypes) * (nloc + 1));
  w.m.resize(static_cast<Eigen::Index>(nloc) * 4, ng);
  for (int t = 0; t < ntypes; ++t) {
    const int st = model.sel[t];
    for (int c = 0; c < ntypes; ++c) {
      Tape& tape = w.padding_tape;
      Matrix& rpad = w.padding_env;
      rpad.resize(st, 4);
      for (int k = 0; k < st; ++k)
        for (int e = 0; e < 4; ++e)
          rpad(k, e) = -model.davg(c, 4 * (sec[t] + k) + e) / model.dstd(c, 4 * (sec[t] + k) + e);
      tape.input = rpad.leftCols(1);
      const Matrix& g = forward(model.embeddings[t], tape);
      Matrix& pad = w.padding[static_cast<std::size_t>(c) * ntypes + t];
      pad.setZero(4 * (static_cast<Eigen::Index>(st) + 1), ng);
      for (int k = st - 1; k >= 0; --k)
        pad.middleRows(4 * k, 4).noalias() =
            pad.middleRows(4 * (k + 1), 4) + rpad.row(k).transpose() * g.row(k);
    }
    int* start = w.row_start.data() + static_cast<std::size_t>(t) * (nloc + 1);
    start[0] = 0;
    for (int i = 0; i < nloc; ++i) start[i + 1] = start[i] + w.count[i * ntypes + t];
    Tape& tape = w.embedding[t];
    tape.input.resize(start[nloc], 1);
    for (int i = 0; i < nloc; ++i)
      for (int k = 0; k < w.count[i * ntypes + t]; ++k)
        tape.input(start[i] + k, 0) = w.env(static_cast<Eigen::Index>(i) * nnei + sec[t] + k, 0);
    const Matrix& g = forward(model.embeddings[t], tape);
    for (int i = 0; i < nloc; ++i) {
      const int n = w.count[i * ntypes + t];
      const Matrix& pad = w.padding[static_cast<std::size_t>(types[i]) * ntypes + t];
      auto mi = w.m.middleRows(4 * i, 4);
      if (t == 0)
        mi = pad.middleRows(4 * n, 4);
      else
        mi += pad.middleRows(4 * n, 4);
      mi.noalias() +=
          w.env.middleRows(static_cast<Eigen::Index>(i) * nnei + sec[t], n).transpose() *
          g.middleRows(start[i], n);
    }
  }
  w.m /= static_cast<double>(nnei);

  // Descriptor D_i = M_i^T M_i[:, :axis] (ng x axis, row-major).
  w.desc.resize(nloc, ndesc);
  for (int i = 0; i < nloc; ++i) {
    const auto mi = w.m.middleRows(4 * i, 4);
    Eigen::Map<Matrix> d(w.desc.row(i).data(), ng, axis);
    d.noalias() = mi.transpose() * mi.leftCols(axis);
  }

  // Fitting nets per centre type, batched over that type's atoms; their reverse pass gives dE/dD.
  out.energy = 0.0;
  out.atom_energy.assign(nloc, 0.0);
  w.ddesc.resize(nloc, ndesc);
  w.fitting.resize(ntypes);
  w.atoms_of_type.resize(ntypes);
  for (auto& atoms : w.atoms_of_type) atoms.clear();
  for (int i = 0; i < nloc; ++i) w.atoms_of_type[types[i]].push_back(i);
  for (int t = 0; t < ntypes; ++t) {
    const std::vector<int>& atoms = w.atoms_of_type[t];
    if (atoms.empty()) continue;
    Tape& tape = w.fitting[t];
    const auto n = static_cast<Eigen::Index>(atoms.size());
    tape.input.resize(n, ndesc);
    for (Eigen::Index a = 0; a < n; ++a) tape.input.row(a) = w.desc.row(atoms[a]);
    const Matrix& e = forward(model.fittings[t], tape);
    for (Eigen::Index a = 0; a < n; ++a) out.atom_energy[atoms[a]] = e(a, 0) + model.energy_bias[t];
    output_gradient(tape).setOnes(n, 1);
    const Matrix& dx = backward(model.fittings[t], tape);
    for (Eigen::Index a = 0; a < n; ++a) w.ddesc.row(atoms[a]) = dx.row(a);
  }
  for (double e : out.atom_energy) out.energy += e;
  out.descriptor.assign(w.desc.data(), w.desc.data() + w.desc.size());

  // dE/dM_i = M1 dD^T + [M dD, 0], with M1 the first axis columns (from D = M^T M1).
  w.dm.resize(static_cast<Eigen::Index>(nloc) * 4, ng);
  for (int i = 0; i < nloc; ++i) {
    const auto mi = w.m.middleRows(4 * i, 4);
    const Eigen::Map<const Matrix> dd(w.ddesc.row(i).data(), ng, axis);
    auto dmi = w.dm.middleRows(4 * i, 4);
    dmi.noalias() = mi.leftCols(axis) * dd.transpose();
    dmi.leftCols(axis).noalias() += mi * dd;
  }
  w.dm /= static_cast<double>(nnei);

  // Back through the embeddings (occupied slots only; padded ones are constants):
  // dR~_k = G_k dM^T, dG_k = R~_k dM, then dR~_k0 += dE/ds_k.
  w.denv.resize(rows, 4);
  for (int t = 0; t < ntypes; ++t) {
    const int* start = w.row_start.data() + static_cast<std::size_t>(t) * (nloc + 1);
    Tape& tape = w.embedding[t];
    const Matrix& g = tape.outputs.back();
    Matrix& dg = output_gradient(tape);
    dg.resize(start[nloc], ng);
    for (int i = 0; i < nloc; ++i) {
      const int n = w.count[i * ntypes + t];
      const auto dmi = w.dm.middleRows(4 * i, 4);
      const Eigen::Index r0 = static_cast<Eigen::Index>(i) * nnei + sec[t];
      w.denv.middleRows(r0, n).noalias() = g.middleRows(start[i], n) * dmi.transpose();
      dg.middleRows(start[i], n).noalias() = w.env.middleRows(r0, n) * dmi;
    }
    const Matrix& ds = backward(model.embeddings[t], tape);
    for (int i = 0; i < nloc; ++i)
      for (int k = 0; k < w.count[i * ntypes + t]; ++k)
        w.denv(static_cast<Eigen::Index>(i) * nnei + sec[t] + k, 0) += ds(start[i] + k, 0);
  }

  // Back through the normalisation and the environment matrix to the pair vector d = x_j - x_i:
  // R0 = s/r, Rc = s d_c / r^2.
  out.force.assign(3 * static_cast<std::size_t>(natoms), 0.0);
  out.atom_virial.assign(9 * static_cast<std::size_t>(natoms), 0.0);
  for (int i = 0; i < nloc; ++i)
    for (int k = 0; k < nnei; ++k) {
      const Eigen::Index row = static_cast<Eigen::Index>(i) * nnei + k;
      const int j = w.slot[row];
      if (j < 0) continue;
      double dr[4];
      for (int c = 0; c < 4; ++c) dr[c] = w.denv(row, c) / model.dstd(types[i], 4 * k + c);
      const double r = w.radius[row], s = w.sw[row], ds = w.dsw[row];
      const double dot = dr[1] * w.diff(row, 0) + dr[2] * w.diff(row, 1) + dr[3] * w.diff(row, 2);
      // d/dr of s/r and of s/r^2, divided by r to turn them into gradients along d.
      const double radial =
          (dr[0] * (ds / r - s / (r * r)) + dot * (ds / (r * r) - 2 * s / (r * r * r))) / r;
      double grad[3];
      for (int c = 0; c < 3; ++c) grad[c] = radial * w.diff(row, c) + dr[1 + c] * s / (r * r);
      for (int c = 0; c < 3; ++c) {
        out.force[3 * j + c] -= grad[c];
        out.force[3 * i + c] += grad[c];
        for (int e = 0; e < 3; ++e) out.atom_virial[9 * j + 3 * c + e] -= grad[c] * w.diff(row, e);
      }
    }
}

Result evaluate(const Model& model, std::span<const double> positions, std::span<const int> types,
                const std::optional<std::array<double, 9>>& cell) {
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
  Result ext = compute(model, xyz, all_types, n, list);
  Result out;
  out.energy = ext.energy;
  out.atom_energy = std::move(ext.atom_energy);
  out.descriptor = std::move(ext.descriptor);
  out.force.assign(3 * static_cast<std::size_t>(n), 0.0);
  out.atom_virial.assign(9 * static_cast<std::size_t>(n), 0.0);
  for (int a = 0; a < total; ++a) {
    for (int c = 0; c < 3; ++c) out.force[3 * owner[a] + c] += ext.force[3 * a + c];
    for (int c = 0; c < 9; ++c) out.atom_virial[9 * owner[a] + c] += ext.atom_virial[9 * a + c];
  }
  return out;
}

}  // namespace tessera::md::deepmd
