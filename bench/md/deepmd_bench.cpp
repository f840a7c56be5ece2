// Speed of the DeePMD-kit se_e2_a kernel (tessera::md::deepmd) on a 1536-atom water box, next to
// Eigen's GEMM rate on the nets' matrix shapes measured in the same run (docs/deepmd.md, "Speed").
//
//   build/bench/md/deepmd_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
//
//   BM_EigenGemm<T>/M/K/N   C = A B with A M x K, B K x N (row-major, as the kernel's matrices),
//                           T = double or float; flop/s counts 2 M K N per product. The anchor is
//                           M = 4096, K = N = 12: a cache-sized block of (atom, neighbor slot)
//                           rows through a 12 x 12 layer, the widest shape of the embedding nets.
//   BM_DeepmdStep/P/M       one deepmd::compute() of the water box (energies, forces, virials)
//                           with a reused workspace, P = 64 or 32 (Model::precision of the nets),
//                           M = 0 (TapeMode::kStore), 1 (kRecompute: the embedding nets
//                           evaluated again in the backward pass, for less memory) or 2 (the
//                           model compressed as `dp compress` does with its defaults, stride
//                           0.01 and extrapolate 5, for a smallest neighbor distance of 0.9 A).
//                           Counters: time_per_atom (seconds per atom-step, shown with an SI
//                           prefix: 40u is 40 us), flop/s (the matrix-product flops of the nets and
//                           descriptor contractions, counted as in docs/deepmd.md from the occupied
//                           neighbor slots of this box; a compressed model's are its tables'
//                           polynomials and contractions), flop_per_atom; weight_bytes
//                           (Model::weight_bytes, with a compressed model's tables) and the
//                           workspace per atom, charged
//                           (workspace_bytes, every slot occupied) and used by this box.
//   BM_DeepmdStepProductionSize/P/M  the same with a model of production size (random weights in
//                           the shapes of DeePMD-kit's water example, 4.35 Mflop per atom-step);
//                           its anchor is BM_EigenGemm<T>/4096/50/100.
//
// Times are CPU times of the one benchmark thread (the kernel is single-threaded), so that other
// jobs on the machine distort them less than wall-clock times. The model is
// ../shared/data/deepmd/deeppot_sea.yaml beside the repository; without it the kernel benchmarks
// are skipped with a message.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <boost/random/normal_distribution.hpp>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include "tessera/core/rng.hpp"
#include "tessera/md/deepmd/compress.hpp"
#include "tessera/md/deepmd/model.hpp"
#include "tessera/md/deepmd/se_a.hpp"

namespace {

using namespace tessera;
using namespace tessera::md;

const std::string kModel = std::string(TESSERA_SHARED_DATA) + "/deepmd/deeppot_sea.yaml";

template <class T>
void BM_EigenGemm(benchmark::State& state) {
  using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto m = state.range(0), k = state.range(1), n = state.range(2);
  const M a = M::Random(m, k), b = M::Random(k, n);
  M c(m, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["flop/s"] = benchmark::Counter(2.0 * static_cast<double>(m * k * n),
                                                benchmark::Counter::kIsIterationInvariantRate);
}
// Over 4096 rows, a block of the kernel's rows that stays in cache (as the kernel's blocks do):
// the anchor (the embedding's 12 x 12 shape) and its 6 -> 12 layer; and the fitting's 24 -> 10
// and 10 -> 10 layers over the box's O and H atoms. The same 12 x 12 product over all
// 1536 * 138 slots at once leaves the cache and runs about 25% slower (float64); earlier
// versions of this benchmark used that as the anchor.
#define GEMM_SHAPES          \
  Args({4096, 12, 12})       \
      ->Args({4096, 6, 12})  \
      ->Args({512, 24, 10})  \
      ->Args({1024, 10, 10}) \
      ->Unit(benchmark::kMillisecond)
BENCHMARK(BM_EigenGemm<double>)->GEMM_SHAPES;
BENCHMARK(BM_EigenGemm<float>)->GEMM_SHAPES;
// The production-size model's shapes (below), over 4096 rows likewise: its widest embedding layer
// 50 -> 100 (the anchor; 39% of the model's flops) and its fitting layers 1600 -> 240 (35%) and 240
// -> 240. (Over all 1536 * 138 slots at once the 50 -> 100 product leaves the cache and runs at a
// fifth of this rate.)
#define PRODUCTION_SHAPES       \
  Args({4096, 50, 100})         \
      ->Args({1024, 1600, 240}) \
      ->Args({1024, 240, 240})  \
      ->Unit(benchmark::kMillisecond)
BENCHMARK(BM_EigenGemm<double>)->PRODUCTION_SHAPES;
BENCHMARK(BM_EigenGemm<float>)->PRODUCTION_SHAPES;

// 512 water molecules at 1 g/cm^3 in a periodic cube: O on a simple cubic 8^3 lattice
// (3.1 A apart), each molecule rigid (O-H 0.9572 A, H-O-H 104.52 deg, the TIP3P geometry) with a
// uniformly random orientation (a normalised Gaussian quaternion; Shoemake, Graphics Gems III).
struct WaterBox {
  std::vector<double> x;  // 3 * natoms: locals then ghosts
  std::vector<int> type;  // 0 = O, 1 = H
  int nloc = 0;
  deepmd::NeighborList list;
};

WaterBox water_box(double rcut) {
  constexpr int kSide = 8, kMolecules = kSide * kSide * kSide;
  constexpr double kAvogadro = 6.02214076e23, kWaterMass = 18.01528;  // g/mol
  const double volume = kMolecules * kWaterMass / kAvogadro * 1e24;   // A^3 at 1 g/cm^3
  const double length = std::cbrt(volume), spacing = length / kSide;
  const double bond = 0.9572, half_angle = 104.52 / 2 * std::numbers::pi / 180;
  auto rng = rng_stream(5, 0);
  boost::random::normal_distribution<double> normal;
  WaterBox box;
  for (int m = 0; m < kMolecules; ++m) {
    const double o[3] = {(m % kSide + 0.5) * spacing, (m / kSide % kSide + 0.5) * spacing,
                         (m / (kSide * kSide) + 0.5) * spacing};
    std::array<double, 4> q;
    double norm = 0.0;
    for (double& c : q) {
      c = normal(rng);
      norm += c * c;
    }
    for (double& c : q) c /= std::sqrt(norm);
    const auto [w, a, b, c] = q;
    const double rot[3][3] = {{1 - 2 * (b * b + c * c), 2 * (a * b - w * c), 2 * (a * c + w * b)},
                              {2 * (a * b + w * c), 1 - 2 * (a * a + c * c), 2 * (b * c - w * a)},
                              {2 * (a * c - w * b), 2 * (b * c + w * a), 1 - 2 * (a * a + b * b)}};
    box.x.insert(box.x.end(), o, o + 3);
    box.type.push_back(0);
    for (int side : {-1, 1}) {
      const double local[3] = {bond * std::sin(half_angle) * side, 0.0,
                               bond * std::cos(half_angle)};
      for (int d = 0; d < 3; ++d) {
        double v = o[d];
        for (int e = 0; e < 3; ++e) v += rot[d][e] * local[e];
        box.x.push_back(v);
      }
      box.type.push_back(1);
    }
  }
  box.nloc = static_cast<int>(box.type.size());
  // Ghosts: the periodic images within rcut of the box; every local atom's candidates are all
  // atoms within rcut (a Verlet list without skin).
  for (int p = -1; p <= 1; ++p)
    for (int q = -1; q <= 1; ++q)
      for (int r = -1; r <= 1; ++r) {
        if (p == 0 && q == 0 && r == 0) continue;
        for (int a = 0; a < box.nloc; ++a) {
          const double v[3] = {box.x[3 * a] + p * length, box.x[3 * a + 1] + q * length,
                               box.x[3 * a + 2] + r * length};
          bool near = true;
          for (double c : v) near = near && c > -rcut && c < length + rcut;
          if (!near) continue;
          box.x.insert(box.x.end(), v, v + 3);
          box.type.push_back(box.type[a]);
        }
      }
  const int natoms = static_cast<int>(box.type.size());
  box.list.offsets.push_back(0);
  for (int i = 0; i < box.nloc; ++i) {
    for (int j = 0; j < natoms; ++j) {
      double r2 = 0.0;
      for (int d = 0; d < 3; ++d) r2 += std::pow(box.x[3 * j + d] - box.x[3 * i + d], 2);
      if (j != i && r2 < rcut * rcut) box.list.indices.push_back(j);
    }
    box.list.offsets.push_back(static_cast<int>(box.list.indices.size()));
  }
  return box;
}

// The smallest neighbor distance the compressed models are tabulated for (mode 2): just below the
// water box's O-H bond, 0.9572 A.
constexpr double kMinNborDist = 0.9;

// Matrix-product flops of one compute() over the box's occupied neighbor slots
// (deepmd::slot_flops and atom_flops).
double kernel_flops(const deepmd::Model& model, const WaterBox& box) {
  double flops = 0.0;
  for (int i = 0; i < box.nloc; ++i) {
    std::vector<int> count(model.ntypes(), 0);
    for (int k = box.list.offsets[i]; k < box.list.offsets[i + 1]; ++k)
      ++count[box.type[box.list.indices[k]]];
    for (int t = 0; t < model.ntypes(); ++t) {
      const double occupied = std::min(count[t], model.sel[t]);
      flops += occupied * (deepmd::slot_flops(model, t) + deepmd::slot_table_flops(model, t));
    }
    flops += deepmd::atom_flops(model, box.type[i]);
  }
  return flops;
}

// Times compute() on the water box with `model` at the precision range(0) and the tape mode
// range(1), and reports the counters described at the top.
void time_steps(benchmark::State& state, deepmd::Model model) {
  if (state.range(0) == 32) model.precision = deepmd::Precision::kFloat32;
  if (state.range(1) == 2) deepmd::compress(model, {.min_nbor_dist = kMinNborDist});
  static const WaterBox box = water_box(model.rcut);  // both models have rcut 6 A
  const auto mode = state.range(1) == 1 ? deepmd::TapeMode::kRecompute : deepmd::TapeMode::kStore;
  deepmd::Workspace workspace(mode);
  deepmd::Result result;
  // One untimed call sizes the workspace, as the first step of a run does.
  deepmd::compute(model, box.x, box.type, box.nloc, box.list, workspace, result);
  for (auto _ : state) {
    deepmd::compute(model, box.x, box.type, box.nloc, box.list, workspace, result);
    benchmark::DoNotOptimize(result.atom_energy.data());
  }
  const double flops = kernel_flops(model, box);
  state.counters["time_per_atom"] = benchmark::Counter(
      box.nloc, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["flop/s"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["flop_per_atom"] = flops / box.nloc;
  state.counters["natoms"] = box.nloc;
  // Tile memory: the replicated model, and the workspace per atom charged (every slot occupied)
  // and used by this box.
  int longest = 0;
  for (int i = 0; i < box.nloc; ++i)
    longest = std::max(longest, box.list.offsets[i + 1] - box.list.offsets[i]);
  state.counters["weight_bytes"] = static_cast<double>(model.weight_bytes());
  state.counters["charged_bytes_per_atom"] =
      static_cast<double>(deepmd::workspace_bytes(model, box.nloc, longest, mode)) / box.nloc;
  state.counters["used_bytes_per_atom"] = static_cast<double>(workspace.bytes()) / box.nloc;
  state.counters["energy_per_molecule"] = 3 * result.energy / box.nloc;
}

void BM_DeepmdStep(benchmark::State& state) {
  if (!std::filesystem::exists(kModel)) {
    state.SkipWithError(("DeePMD-kit model not found: " + kModel).c_str());
    return;
  }
  static const deepmd::Model model = deepmd::load_model(kModel);
  time_steps(state, model);
}
BENCHMARK(BM_DeepmdStep)
    ->ArgsProduct({{64, 32}, {0, 1, 2}})
    ->ArgNames({"precision", "mode"})
    ->Unit(benchmark::kMillisecond);

// A model of production size: the shapes of DeePMD-kit's water example
// (examples/water/se_e2_a/input.json: sel [46, 92], rcut 6.0, rcut_smth 0.5, embedding
// [25, 50, 100] without resnet_dt, axis_neuron 16, fitting [240, 240, 240] with resnet_dt), with
// weights drawn as DeePMD-kit initialises them (normal, std 1/sqrt(in + out); biases std 1; idt
// mean 1, std 0.001) and the environment statistics of liquid water's order of magnitude. Its
// energies mean nothing; its cost is that of a trained model of these shapes.
deepmd::Model production_model() {
  auto rng = rng_stream(7, 0);
  boost::random::normal_distribution<double> normal;
  auto layer = [&](int in, int out, bool tanh, bool idt) {
    deepmd::Layer l;
    l.w = deepmd::Matrix(in, out);
    for (Eigen::Index k = 0; k < l.w.size(); ++k)
      l.w.data()[k] = normal(rng) / std::sqrt(double(in + out));
    l.b = deepmd::RowVector(out);
    for (auto& v : l.b) v = normal(rng);
    if (idt) {
      l.idt = deepmd::RowVector(out);
      for (auto& v : l.idt) v = 1.0 + 0.001 * normal(rng);
    }
    l.activation = tanh ? deepmd::Activation::kTanh : deepmd::Activation::kLinear;
    l.resnet = out == in || out == 2 * in;
    return l;
  };
  deepmd::Model m;
  m.type_map = {"O", "H"};
  m.rcut = 6.0;
  m.rcut_smth = 0.5;
  m.sel = {46, 92};
  m.axis_neuron = 16;
  const int nnei = 46 + 92;
  m.davg = deepmd::Matrix::Zero(2, 4 * nnei);
  m.dstd = deepmd::Matrix(2, 4 * nnei);
  for (Eigen::Index k = 0; k < m.davg.cols(); ++k) {
    m.davg(0, k) = m.davg(1, k) = k % 4 == 0 ? 0.1 : 0.0;
    m.dstd(0, k) = m.dstd(1, k) = k % 4 == 0 ? 0.15 : 0.08;
  }
  for (int t = 0; t < 2; ++t) {
    deepmd::Network e;
    int in = 1;
    for (int out : {25, 50, 100}) {
      e.layers.push_back(layer(in, out, true, false));
      in = out;
    }
    m.embeddings.push_back(e);
    deepmd::Network f;
    in = 100 * 16;
    for (int out : {240, 240, 240}) {
      f.layers.push_back(layer(in, out, true, in == out));
      in = out;
    }
    f.layers.push_back(layer(in, 1, false, false));
    m.fittings.push_back(f);
  }
  m.energy_bias = {-93.5, -187.0};
  return m;
}

void BM_DeepmdStepProductionSize(benchmark::State& state) { time_steps(state, production_model()); }

// What compression cannot shorten: the production-size model with one neighbor slot per type
// (sel 1, 1), so that the embedding nets' work nearly vanishes while the fitting nets (2 Mflop per
// atom), the descriptor products and the neighbor selection stay. Its time bounds from below the
// time of any tabulation of the embedding nets; mode 0 only.
void BM_DeepmdFittingOnlyProductionSize(benchmark::State& state) {
  deepmd::Model m = production_model();
  m.sel = {1, 1};
  m.davg = m.davg.leftCols(8).eval();
  m.dstd = m.dstd.leftCols(8).eval();
  time_steps(state, m);
}
BENCHMARK(BM_DeepmdFittingOnlyProductionSize)
    ->ArgsProduct({{64, 32}, {0}})
    ->ArgNames({"precision", "mode"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DeepmdStepProductionSize)
    ->ArgsProduct({{64, 32}, {0, 1, 2}})
    ->ArgNames({"precision", "mode"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
