// The DeePMD-kit se_e2_a kernel against DeePMD-kit's own results, finite differences and
// malformed model files.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "deepmd_test_support.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/md/deepmd/activation.hpp"
#include "tessera/md/deepmd/compress.hpp"
#include "tessera/md/deepmd/model.hpp"
#include "tessera/md/deepmd/se_a.hpp"

namespace tessera::md::deepmd {
namespace {

using test::Config;
using test::frame_cell;
using test::max_abs;
using test::read_text;

const std::string kDir = std::string(TESSERA_SHARED_DATA) + "/deepmd";
const std::string kModel = kDir + "/deeppot_sea.yaml";
const std::string kCases = kDir + "/deeppot-testcase.yaml";

#define SKIP_WITHOUT_DATA()                                                 \
  if (!std::filesystem::exists(kModel) || !std::filesystem::exists(kCases)) \
  GTEST_SKIP() << "DeePMD-kit reference data not found in " << kDir         \
               << " (it lives in the project's shared/data/deepmd beside the repository)"

const Model& model() {
  static const Model m = load_model(kModel);
  return m;
}

// The vectorised tanh against libm: float64 within 4 ulp over the whole range (both branches,
// their junction at 0.625, the clamp at 20), float32 within 8 ulp of the float64 value; the
// result of an element does not depend on where it sits (tail or vector body); NaN, the
// infinities and -0 come out as from libm.
TEST(DeepmdActivation, TanhMatchesLibm) {
  std::vector<double> x;
  for (double v = -25.0; v <= 25.0; v += 1.37e-4) x.push_back(v);
  for (double v : {0.0, 0.625, -0.625, std::nextafter(0.625, 0.0), 20.0, 1e-300, 5e-324, 700.0})
    x.push_back(v);
  std::vector<double> y = x;
  tanh_inplace(std::span<double>(y));
  double worst = 0.0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const double want = std::tanh(x[k]);
    const double ulp = std::nextafter(std::abs(want), 2.0) - std::abs(want);
    worst = std::max(worst, std::abs(y[k] - want) / ulp);
    ASSERT_LE(std::abs(y[k] - want), 4 * ulp) << "x = " << x[k];
    double alone = x[k];
    tanh_inplace(std::span<double>(&alone, 1));
    ASSERT_EQ(alone, y[k]) << "x = " << x[k];
  }
  std::printf("  float64 tanh: max %.1f ulp from libm\n", worst);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> special = {inf, -inf, std::numeric_limits<double>::quiet_NaN(), -0.0};
  tanh_inplace(std::span<double>(special));
  EXPECT_EQ(special[0], 1.0);
  EXPECT_EQ(special[1], -1.0);
  EXPECT_TRUE(std::isnan(special[2]));
  EXPECT_TRUE(special[3] == 0.0 && std::signbit(special[3]));

  std::vector<float> f;
  for (double v = -12.0; v <= 12.0; v += 1.37e-4) f.push_back(static_cast<float>(v));
  std::vector<float> g = f;
  tanh_inplace(std::span<float>(g));
  for (std::size_t k = 0; k < f.size(); ++k) {
    const double want = std::tanh(static_cast<double>(f[k]));
    const float near = static_cast<float>(std::abs(want));
    const double ulp = std::nextafter(near, 2.0f) - near;
    ASSERT_LE(std::abs(g[k] - want), 8 * std::max(ulp, 1e-45)) << "x = " << f[k];
    float alone = f[k];
    tanh_inplace(std::span<float>(&alone, 1));
    ASSERT_EQ(alone, g[k]) << "x = " << f[k];
  }
  float zero = -0.0f;
  tanh_inplace(std::span<float>(&zero, 1));
  EXPECT_TRUE(zero == 0.0f && std::signbit(zero));
}

TEST(DeepmdSeA, LoadsTheReferenceModel) {
  SKIP_WITHOUT_DATA();
  const Model& m = model();
  EXPECT_EQ(m.type_map, (std::vector<std::string>{"O", "H"}));
  EXPECT_EQ(m.rcut, 6.0);
  EXPECT_EQ(m.rcut_smth, 0.5);
  EXPECT_EQ(m.sel, (std::vector<int>{46, 92}));
  EXPECT_EQ(m.nnei(), 138);
  EXPECT_EQ(m.embedding_width(), 12);
  EXPECT_EQ(m.descriptor_dim(), 24);
  ASSERT_EQ(m.fittings.size(), 2u);
  EXPECT_EQ(m.fittings[0].layers.size(), 4u);
  EXPECT_EQ(m.fittings[0].layers[1].idt.size(), 10);
  EXPECT_EQ(m.fittings[0].layers[0].idt.size(), 0);
}

// Each value of `got` within `tolerance` of DeePMD-kit's list `want`; prints the largest
// difference.
void expect_near(const std::vector<double>& got, const YAML::Node& want_node, double tolerance,
                 const char* what) {
  const auto want = want_node.as<std::vector<double>>();
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tolerance) << what << i;
    worst = std::max(worst, std::abs(got[i] - want[i]));
  }
  std::printf("  %-11s max |ours - DeePMD-kit| = %.2e\n", what, worst);
}

// DeePMD-kit's atomic energies, forces and atomic virials (and, for the first frame, its
// descriptor) for 6-atom water frames, periodic and not, to 1e-10.
TEST(DeepmdSeA, ReproducesDeepmdKitReference) {
  SKIP_WITHOUT_DATA();
  const YAML::Node cases = YAML::LoadFile(kCases)["results"];
  ASSERT_TRUE(cases.IsSequence());
  ASSERT_GE(cases.size(), 3u);
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("frame " + std::to_string(c));
    const YAML::Node frame = cases[c];
    const auto coord = frame["coord"].as<std::vector<double>>();
    const auto atype = frame["atype"].as<std::vector<int>>();
    const Result r = evaluate(model(), coord, atype, frame_cell(frame));
    expect_near(r.atom_energy, frame["atomic_energy"], 1e-10, "energy ");
    expect_near(r.force, frame["force"], 1e-10, "force ");
    expect_near(r.atom_virial, frame["atomic_virial"], 1e-10, "virial ");
    if (frame["descriptor"]) expect_near(r.descriptor, frame["descriptor"], 1e-10, "descriptor ");
  }
}

// Water-like random configuration: n atoms, no pair closer than 0.9 A (positions in a
// triclinic cell, or in a cube of the same size without periodicity).
Config random_config(std::uint64_t stream, int n, bool periodic) {
  return test::random_config(2024, stream, n, periodic, 0.9);
}

// Candidate lists of atoms 0 .. n - 1 (all local) holding every other atom.
NeighborList all_others(int n) {
  NeighborList list{{0}, {}};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      if (j != i) list.indices.push_back(j);
    list.offsets.push_back(static_cast<int>(list.indices.size()));
  }
  return list;
}

Model float32_model();

TEST(DeepmdSeA, ForcesAreMinusTheEnergyGradient) {
  SKIP_WITHOUT_DATA();
  for (bool periodic : {true, false}) {
    SCOPED_TRACE(periodic ? "periodic" : "cluster");
    test::expect_forces_are_minus_gradient(model(), random_config(periodic ? 1 : 2, 12, periodic),
                                           1e-5, 1e-6);
  }
}

// Moving atoms by lattice vectors (unwrapped coordinates) changes nothing but round-off.
TEST(DeepmdSeA, LatticeShiftsChangeNothing) {
  SKIP_WITHOUT_DATA();
  const Config c = random_config(8, 12, true);
  Config shifted = c;
  const int multiples[3][3] = {{2, 0, -1}, {-3, 1, 0}, {0, 0, 4}};
  for (int a = 0; a < 3; ++a)
    for (int d = 0; d < 3; ++d)
      for (int v = 0; v < 3; ++v) shifted.x[3 * a + d] += multiples[a][v] * (*c.cell)[3 * v + d];
  const Result r = evaluate(model(), c.x, c.type, c.cell);
  const Result s = evaluate(model(), shifted.x, shifted.type, shifted.cell);
  for (std::size_t a = 0; a < r.atom_energy.size(); ++a)
    EXPECT_NEAR(s.atom_energy[a], r.atom_energy[a], 1e-11);
  for (std::size_t k = 0; k < r.force.size(); ++k) EXPECT_NEAR(s.force[k], r.force[k], 1e-11);
  for (std::size_t k = 0; k < r.atom_virial.size(); ++k)
    EXPECT_NEAR(s.atom_virial[k], r.atom_virial[k], 1e-11);
}

// The virial sum_a W_a equals -dE/d(epsilon)^T for the homogeneous strain x -> x (1 + epsilon)
// of positions and cell.
TEST(DeepmdSeA, VirialIsTheStrainDerivative) {
  SKIP_WITHOUT_DATA();
  test::expect_virial_is_strain_derivative(model(), random_config(3, 12, true), 1e-5, 1e-6);
}

// The tile kernel with ghosts and a sloppy candidate list (shuffled, beyond rcut) gives the
// same numbers as the whole-system evaluation.
TEST(DeepmdSeA, KernelIgnoresCandidateOrderAndFarAtoms) {
  SKIP_WITHOUT_DATA();
  const Config c = random_config(4, 9, false);
  const Result ref = evaluate(model(), c.x, c.type, std::nullopt);
  // Locals 0..5, ghosts 6..8 plus a far ghost of type O at 50 A.
  std::vector<double> x = c.x;
  x.insert(x.end(), {50.0, 50.0, 50.0});
  std::vector<int> type = c.type;
  type.push_back(0);
  NeighborList list{{0}, {}};
  for (int i = 0; i < 6; ++i) {
    for (int j = 9; j >= 0; --j)
      if (j != i) list.indices.push_back(j);
    list.offsets.push_back(static_cast<int>(list.indices.size()));
  }
  const Result tile = compute(model(), x, type, 6, list);
  ASSERT_EQ(tile.force.size(), 30u);
  // Local energies agree with the whole system's; the ghosts' own energies are missing, so
  // compare with a second tile holding the ghosts as locals instead.
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(tile.atom_energy[i], ref.atom_energy[i], 1e-12);
  for (int k = 27; k < 30; ++k) EXPECT_EQ(tile.force[k], 0.0);
  std::vector<int> order = {6, 7, 8, 0, 1, 2, 3, 4, 5};
  std::vector<double> x2;
  std::vector<int> t2;
  for (int a : order) {
    x2.insert(x2.end(), c.x.begin() + 3 * a, c.x.begin() + 3 * a + 3);
    t2.push_back(c.type[a]);
  }
  NeighborList list2{{0}, {}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 9; ++j)
      if (j != i) list2.indices.push_back(j);
    list2.offsets.push_back(static_cast<int>(list2.indices.size()));
  }
  const Result other = compute(model(), x2, t2, 3, list2);
  // Tile results summed over both tiles equal the whole-system force and virial.
  for (int a = 0; a < 9; ++a) {
    const int in2 = static_cast<int>(std::find(order.begin(), order.end(), a) - order.begin());
    for (int d = 0; d < 3; ++d)
      EXPECT_NEAR(tile.force[3 * a + d] + other.force[3 * in2 + d], ref.force[3 * a + d], 1e-12);
    for (int d = 0; d < 9; ++d)
      EXPECT_NEAR(tile.atom_virial[9 * a + d] + other.atom_virial[9 * in2 + d],
                  ref.atom_virial[9 * a + d], 1e-12);
  }
}

// With more neighbors of a type than sel, the kernel keeps the sel nearest of that type (DeePMD-kit
// nlist_distinguish_types): a model cut down to sel = {2, 3} gives the same result from the
// full candidate list as from a list holding only the 2 nearest O and 3 nearest H atoms.
TEST(DeepmdSeA, KeepsTheSelNearestOfEachType) {
  SKIP_WITHOUT_DATA();
  Model small = model();
  small.sel = {2, 3};
  const Eigen::Index cols = 4 * 5;
  Matrix davg(2, cols), dstd(2, cols);
  davg << small.davg.leftCols(8), small.davg.middleCols(4 * 46, 12);
  dstd << small.dstd.leftCols(8), small.dstd.middleCols(4 * 46, 12);
  small.davg = davg;
  small.dstd = dstd;
  const Config c = random_config(5, 18, false);
  NeighborList all{{0}, {}}, nearest{{0}, {}};
  for (int j = 1; j < 18; ++j) all.indices.push_back(j);
  all.offsets.push_back(17);
  std::vector<std::pair<double, int>> by_distance[2];
  for (int j = 1; j < 18; ++j) {
    const double r =
        std::hypot(c.x[3 * j] - c.x[0], c.x[3 * j + 1] - c.x[1], c.x[3 * j + 2] - c.x[2]);
    if (r > small.rcut) continue;  // the kernel drops these itself
    by_distance[c.type[j]].emplace_back(r, j);
  }
  for (int t = 0; t < 2; ++t) {
    std::sort(by_distance[t].begin(), by_distance[t].end());
    ASSERT_GT(static_cast<int>(by_distance[t].size()), small.sel[t]);
    for (int k = 0; k < small.sel[t]; ++k) nearest.indices.push_back(by_distance[t][k].second);
  }
  nearest.offsets.push_back(static_cast<int>(nearest.indices.size()));
  const Result a = compute(small, c.x, c.type, 1, all);
  const Result b = compute(small, c.x, c.type, 1, nearest);
  EXPECT_EQ(a.atom_energy, b.atom_energy);
  EXPECT_EQ(a.force, b.force);
  EXPECT_EQ(a.atom_virial, b.atom_virial);
  // and the cut really changed the model's input: the full model sees more neighbors.
  EXPECT_NE(compute(model(), c.x, c.type, 1, all).atom_energy[0],
            compute(model(), c.x, c.type, 1, nearest).atom_energy[0]);
}

// A workspace reused across calls of different sizes gives bit-identical results to a fresh one.
TEST(DeepmdSeA, ReusedWorkspaceGivesIdenticalResults) {
  SKIP_WITHOUT_DATA();
  const Config big = random_config(6, 15, false), small = random_config(7, 6, false);
  for (const Model& m : {model(), float32_model()}) {
    Workspace workspace;
    Result reused;
    for (const Config* c : {&big, &small, &big, &small}) {
      const int n = static_cast<int>(c->type.size());
      compute(m, c->x, c->type, n, all_others(n), workspace, reused);
      const Result fresh = compute(m, c->x, c->type, n, all_others(n));
      EXPECT_EQ(reused.atom_energy, fresh.atom_energy);
      EXPECT_EQ(reused.force, fresh.force);
      EXPECT_EQ(reused.atom_virial, fresh.atom_virial);
      EXPECT_EQ(reused.descriptor, fresh.descriptor);
    }
  }
}

// float32 networks against float64. Rounding model: each float32 operation is exact times
// (1 + d), |d| <= u = 2^-24; a dot product of length n then has relative error <= n u / (1 - n u)
// with respect to sum |a_i b_i| (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
// sec. 3.1); tanh (Eigen's float approximation) and the idt/skip updates add a few u per layer.
// Along the net depth the inner dimensions are: embedding 1 + 3 + 6, the contraction
// M = (1/nnei) sum_k R~_k^T G_k over nnei = 138 slots, D = M^T M< over 4, dE/dM and its products
// (4 + 12 + 4), fitting 24 + 10 + 10 + 10, and 8 tanh/update layers at 2 u each: in all
// n_depth = 10 + 138 + 4 + 20 + 54 + 16 = 242, so the relative error is at most n_depth u =
// 1.4e-5 of the magnitudes involved if no layer amplifies errors (tanh' <= 1); a factor 4 covers
// weights of norm above 1. Energies are compared with the networks' part |E_i - bias|, forces
// and virials with their largest component.
const double kF32Unit = std::ldexp(1.0, -24);
const double kF32Depth = 10 + 138 + 4 + 20 + 54 + 16;
const double kF32Relative = 4 * kF32Depth * kF32Unit;

Model float32_model() {
  Model m = model();
  m.precision = Precision::kFloat32;
  return m;
}

TEST(DeepmdSeA, Float32AgreesWithFloat64WithinItsRoundingBound) {
  SKIP_WITHOUT_DATA();
  const Model m32 = float32_model();
  for (bool periodic : {true, false}) {
    SCOPED_TRACE(periodic ? "periodic" : "cluster");
    const Config c = random_config(periodic ? 9 : 10, 24, periodic);
    const Result r64 = evaluate(model(), c.x, c.type, c.cell);
    const Result r32 = evaluate(m32, c.x, c.type, c.cell);
    double worst[3] = {0, 0, 0};
    for (std::size_t a = 0; a < r64.atom_energy.size(); ++a) {
      const double net =
          std::max(std::abs(r64.atom_energy[a] - model().energy_bias[c.type[a]]), 1.0);
      const double err = std::abs(r32.atom_energy[a] - r64.atom_energy[a]);
      EXPECT_LE(err, kF32Relative * net) << "atom " << a;
      worst[0] = std::max(worst[0], err / net);
    }
    const double fscale = max_abs(r64.force), vscale = max_abs(r64.atom_virial);
    for (std::size_t k = 0; k < r64.force.size(); ++k) {
      EXPECT_LE(std::abs(r32.force[k] - r64.force[k]), kF32Relative * fscale) << k;
      worst[1] = std::max(worst[1], std::abs(r32.force[k] - r64.force[k]) / fscale);
    }
    for (std::size_t k = 0; k < r64.atom_virial.size(); ++k) {
      EXPECT_LE(std::abs(r32.atom_virial[k] - r64.atom_virial[k]), kF32Relative * vscale) << k;
      worst[2] = std::max(worst[2], std::abs(r32.atom_virial[k] - r64.atom_virial[k]) / vscale);
    }
    // and float32 really ran: the results are not float64's.
    EXPECT_NE(r32.atom_energy, r64.atom_energy);
    std::printf(
        "  float32 vs float64, relative: energy %.1e, force %.1e, virial %.1e (bound %.1e)\n",
        worst[0], worst[1], worst[2], kF32Relative);
  }
}

// Forces of the float32 model are minus the gradient of its own energy. Its energy carries a
// rounding error eps_E: rounding errors of the n_depth operations behind each atom energy and of
// the N atoms add up like a random walk, sqrt(n_depth N) u max_i max(|E_i - bias|, 1) (Higham,
// sec. 2.8; the worst case above, linear in n_depth N, is 50 times larger than what is seen). A
// central difference with step h then has a rounding error up to 2 eps_E / (2 h), allowed three
// times over, plus the truncation error h^2 |E'''| / 6 with |E'''| <= 10 eV/A^3 here.
TEST(DeepmdSeA, Float32ForcesAreMinusTheEnergyGradient) {
  SKIP_WITHOUT_DATA();
  const Model m32 = float32_model();
  const Config c = random_config(11, 12, true);
  const Result r = evaluate(m32, c.x, c.type, c.cell);
  double largest = 1.0;
  for (std::size_t a = 0; a < r.atom_energy.size(); ++a)
    largest = std::max(largest, std::abs(r.atom_energy[a] - model().energy_bias[c.type[a]]));
  const double eps_e =
      std::sqrt(kF32Depth * static_cast<double>(r.atom_energy.size())) * kF32Unit * largest;
  const double h = 1e-3;
  const double tolerance = 3 * eps_e / h + h * h * 10.0 / 6.0;
  const double worst = test::expect_forces_are_minus_gradient(m32, c, h, tolerance);
  std::printf("  float32 max |F + dE/dx| = %.1e eV/A (tolerance %.1e)\n", worst, tolerance);
}

// Model::weight_bytes() for the test model, counted by hand from its architecture: per type an
// embedding 1 -> 3 -> 6 -> 12 (w 3 + 18 + 72, b 3 + 6 + 12) and a fitting 24 -> 10 -> 10 -> 10
// -> 1 (w 240 + 100 + 100 + 10, b 31, idt 10 + 10): 1230 network values for the two types;
// davg and dstd 2 x 552 each (float64); 2 energy biases and 2 sel entries.
TEST(DeepmdSeA, WeightBytesCountTheReplicatedModel) {
  SKIP_WITHOUT_DATA();
  const std::size_t fixed = 2 * 2 * 552 * 8 + 2 * 8 + 2 * 4;
  EXPECT_EQ(model().weight_bytes(), 1230 * 8 + fixed);
  EXPECT_EQ(float32_model().weight_bytes(), 1230 * 4 + fixed);
}

// The cost model's counts for the test model, counted by hand (docs/deepmd.md, "FLOP count"):
// per occupied slot 2 * 2 * (1*3 + 3*6 + 6*12) + 3 * 2 * 4 * 12 = 660 flops and 3 + 6 + 12 tanh;
// per atom 2 * 2 * (24*10 + 10*10 + 10*10 + 10*1) + 3 * 2 * 4 * 12 * 2 = 2376 flops and
// 10 + 10 + 10 tanh (the output layer is linear).
TEST(DeepmdSeA, FlopAndTanhCountsOfTheTestModel) {
  SKIP_WITHOUT_DATA();
  for (int t : {0, 1}) {
    EXPECT_EQ(slot_flops(model(), t), 660.0);
    EXPECT_EQ(atom_flops(model(), t), 2376.0);
    EXPECT_EQ(slot_tanh(model(), t), 21.0);
    EXPECT_EQ(atom_tanh(model(), t), 30.0);
    // Recomputing runs the embedding forward again: 186 flops and 21 tanh more per slot.
    EXPECT_EQ(slot_flops(model(), t, TapeMode::kRecompute), 846.0);
    EXPECT_EQ(slot_tanh(model(), t, TapeMode::kRecompute), 42.0);
  }
}

// A tile's view of a dense solid: `nloc` local atoms at the centre of a cubic lattice of
// 1.05 A spacing (types O, H, H repeating), followed by the lattice sites within rcut + 0.5 A of
// them as ghosts, so that every local atom has every neighbor slot of the test model occupied
// (more than 46 O and 92 H within rcut); candidates are all atoms within rcut + 0.5 A. Several
// blocks of atoms (64 in float64) for nloc > 64.
struct Tile {
  std::vector<double> x;
  std::vector<int> type;
  NeighborList list{{0}, {}};
  int longest() const {  // the longest candidate list
    int n = 0;
    for (std::size_t i = 0; i + 1 < list.offsets.size(); ++i)
      n = std::max(n, list.offsets[i + 1] - list.offsets[i]);
    return n;
  }
};
Tile dense_tile(int nloc) {
  constexpr int kHalf = 12;
  constexpr double kSpacing = 1.05, kReach = 6.5;
  std::vector<std::array<double, 3>> sites;
  for (int i = -kHalf; i <= kHalf; ++i)
    for (int j = -kHalf; j <= kHalf; ++j)
      for (int k = -kHalf; k <= kHalf; ++k)
        sites.push_back({i * kSpacing, j * kSpacing, k * kSpacing});
  auto norm = [](const std::array<double, 3>& a) { return std::hypot(a[0], a[1], a[2]); };
  std::stable_sort(sites.begin(), sites.end(),
                   [&](const auto& a, const auto& b) { return norm(a) < norm(b); });
  const double local_radius = norm(sites[static_cast<std::size_t>(nloc - 1)]);
  Tile tile;
  for (std::size_t a = 0; a < sites.size() && norm(sites[a]) <= local_radius + kReach; ++a) {
    tile.x.insert(tile.x.end(), sites[a].begin(), sites[a].end());
    tile.type.push_back(a % 3 == 0 ? 0 : 1);
  }
  const auto natoms = static_cast<int>(tile.type.size());
  for (int i = 0; i < nloc; ++i) {
    for (int j = 0; j < natoms; ++j) {
      const double d =
          std::hypot(tile.x[3 * j] - tile.x[3 * i], tile.x[3 * j + 1] - tile.x[3 * i + 1],
                     tile.x[3 * j + 2] - tile.x[3 * i + 2]);
      if (j != i && d <= kReach) tile.list.indices.push_back(j);
    }
    tile.list.offsets.push_back(static_cast<int>(tile.list.indices.size()));
  }
  return tile;
}

// The workspace compute() leaves behind holds exactly workspace_bytes() when every neighbor slot
// is occupied (a model cut down to sel = {2, 3} on a dense box; the full model on a dense tile
// of 1, 64, 65 and 130 atoms, that is one block, a block and one atom, and two blocks and part
// of a third), at both precisions and in both tape modes, and at most that with the full
// model's partly filled slots.
TEST(DeepmdSeA, WorkspaceBytesAreTheWorkspaceSize) {
  SKIP_WITHOUT_DATA();
  Model small = model();
  small.sel = {2, 3};
  Matrix davg(2, 20), dstd(2, 20);
  davg << small.davg.leftCols(8), small.davg.middleCols(4 * 46, 12);
  dstd << small.dstd.leftCols(8), small.dstd.middleCols(4 * 46, 12);
  small.davg = davg;
  small.dstd = dstd;
  const Config c = random_config(12, 18, false);
  const NeighborList list = all_others(18);
  for (Precision p : {Precision::kFloat64, Precision::kFloat32})
    for (TapeMode mode : {TapeMode::kStore, TapeMode::kRecompute}) {
      small.precision = p;
      Workspace workspace(mode);
      Result r;
      compute(small, c.x, c.type, 18, list, workspace, r);
      EXPECT_EQ(workspace.bytes(), workspace_bytes(small, 18, 17, mode));
      Model full = model();
      full.precision = p;
      Workspace fresh(mode);
      compute(full, c.x, c.type, 18, list, fresh, r);
      EXPECT_LE(fresh.bytes(), workspace_bytes(full, 18, 17, mode));
      EXPECT_GT(fresh.bytes(), 0u);
    }
  for (int nloc : {1, 64, 65, 130}) {
    const Tile tile = dense_tile(nloc);
    const int longest = tile.longest();
    for (Precision p : {Precision::kFloat64, Precision::kFloat32})
      for (TapeMode mode : {TapeMode::kStore, TapeMode::kRecompute}) {
        Model full = model();
        full.precision = p;
        Workspace workspace(mode);
        Result r;
        compute(full, tile.x, tile.type, nloc, tile.list, workspace, r);
        EXPECT_EQ(workspace.bytes(), workspace_bytes(full, nloc, longest, mode))
            << nloc << " atoms, " << precision_name(p);
      }
  }
  // The stored tape holds one block of atoms (64 for this model), so what it adds to the
  // workspace stops growing with nloc past a block; recomputing keeps less.
  auto tape = [](int nloc) {
    return workspace_bytes(model(), nloc, 150, TapeMode::kStore) -
           workspace_bytes(model(), nloc, 150, TapeMode::kRecompute);
  };
  EXPECT_GT(tape(200), 0u);
  EXPECT_EQ(tape(200), tape(2000));
  EXPECT_LT(tape(32), tape(64));
  // float32 halves the network buffers, not the float64 geometry.
  small.precision = Precision::kFloat64;
  const std::size_t b64 = workspace_bytes(small, 100, 50);
  small.precision = Precision::kFloat32;
  EXPECT_LT(workspace_bytes(small, 100, 50), b64);
  EXPECT_GT(workspace_bytes(small, 100, 50), b64 / 2);
}

// TapeMode::kRecompute evaluates the embedding nets again, chunk by chunk, with the same
// per-row arithmetic: bit-identical results, at both precisions, on a box with several chunks
// (more than 128 rows) per neighbor type, and on a dense tile of 130 atoms (three blocks in
// float64).
// The same for a compressed model (its tables instead of the nets' tapes), which keeps less than
// either tape mode of the nets, the same in both modes; its weight bytes are its tables (1500
// intervals of 6 x 12 coefficients per type at stride 0.01) instead of the embedding nets (93 +
// 21 values per type); its slots cost 24 * 12 + 8 contraction flops, 32 * 12 table flops and no
// tanh.
TEST(DeepmdSeA, CompressedWorkspaceAndCosts) {
  SKIP_WITHOUT_DATA();
  Model tables = model();
  compress(tables, {.min_nbor_dist = 0.8});
  const std::size_t fixed = 2 * 2 * 552 * 8 + 2 * 8 + 2 * 4;
  EXPECT_EQ(tables.weight_bytes(), (2 * 1500 * 72 + 1230 - 2 * 114) * 8 + fixed);
  for (int t : {0, 1}) {
    EXPECT_EQ(slot_flops(tables, t), 296.0);
    EXPECT_EQ(slot_flops(tables, t, TapeMode::kRecompute), 296.0);
    EXPECT_EQ(slot_table_flops(tables, t), 384.0);
    EXPECT_EQ(slot_table_flops(model(), t), 0.0);
    EXPECT_EQ(slot_tanh(tables, t), 0.0);
    EXPECT_EQ(atom_flops(tables, t), 2376.0);
  }
  for (int nloc : {1, 65, 130}) {
    const Tile tile = dense_tile(nloc);
    const int longest = tile.longest();
    for (Precision p : {Precision::kFloat64, Precision::kFloat32})
      for (TapeMode mode : {TapeMode::kStore, TapeMode::kRecompute}) {
        tables.precision = p;
        Workspace workspace(mode);
        Result r;
        compute(tables, tile.x, tile.type, nloc, tile.list, workspace, r);
        EXPECT_EQ(workspace.bytes(), workspace_bytes(tables, nloc, longest, mode))
            << nloc << " atoms, " << precision_name(p);
        Model nets = model();
        nets.precision = p;
        EXPECT_LT(workspace.bytes(), workspace_bytes(nets, nloc, longest, TapeMode::kRecompute));
      }
  }
}

TEST(DeepmdSeA, RecomputedTapeGivesIdenticalResults) {
  SKIP_WITHOUT_DATA();
  const Config c = random_config(13, 40, false);
  const NeighborList list = all_others(40);
  for (const Model& m : {model(), float32_model()}) {
    Workspace store(TapeMode::kStore), again(TapeMode::kRecompute);
    Result a, b;
    compute(m, c.x, c.type, 40, list, store, a);
    compute(m, c.x, c.type, 40, list, again, b);
    EXPECT_EQ(a.atom_energy, b.atom_energy);
    EXPECT_EQ(a.force, b.force);
    EXPECT_EQ(a.atom_virial, b.atom_virial);
    EXPECT_LT(again.bytes(), store.bytes());
  }
  const Tile tile = dense_tile(130);
  for (const Model& m : {model(), float32_model()}) {
    Workspace store(TapeMode::kStore), again(TapeMode::kRecompute);
    Result a, b;
    compute(m, tile.x, tile.type, 130, tile.list, store, a);
    compute(m, tile.x, tile.type, 130, tile.list, again, b);
    EXPECT_EQ(a.atom_energy, b.atom_energy);
    EXPECT_EQ(a.force, b.force);
    EXPECT_EQ(a.atom_virial, b.atom_virial);
  }
}

// compute() takes the atoms through the networks in blocks (64 atoms for the test model in
// float64, 115 in float32): on 125 atoms, numbering them backwards puts other atoms together in
// a block, and changes the results by round-off only.
TEST(DeepmdSeA, BlocksOfAtomsChangeOnlyRoundOff) {
  SKIP_WITHOUT_DATA();
  constexpr int kSide = 5, kAtoms = kSide * kSide * kSide;
  auto rng = rng_stream(2024, 14);
  boost::random::uniform_real_distribution<double> jitter(-0.2, 0.2);
  std::vector<double> x;
  std::vector<int> type;
  for (int a = 0; a < kAtoms; ++a) {
    for (int g : {a % kSide, a / kSide % kSide, a / (kSide * kSide)})
      x.push_back(1.5 * g + jitter(rng));
    type.push_back(a % 3 == 0 ? 0 : 1);
  }
  auto reversed = [](const std::vector<double>& v, int stride) {
    std::vector<double> r(v.size());
    const auto n = static_cast<int>(v.size()) / stride;
    for (int a = 0; a < n; ++a)
      std::copy_n(v.begin() + stride * a, stride, r.begin() + stride * (n - 1 - a));
    return r;
  };
  const std::vector<double> x_rev = reversed(x, 3);
  const std::vector<int> type_rev(type.rbegin(), type.rend());
  const NeighborList list = all_others(kAtoms);
  for (const Model& m : {model(), float32_model()}) {
    const Result a = compute(m, x, type, kAtoms, list);
    const Result b = compute(m, x_rev, type_rev, kAtoms, list);
    // Round-off of the sums over an atom's neighbors in another order: a few hundred ulp of the
    // networks' scalar at most on values of order 1-100.
    const double tol = m.precision == Precision::kFloat32 ? 1e-3 : 1e-11;
    auto expect_near = [&](const std::vector<double>& got, const std::vector<double>& want,
                           const char* what) {
      ASSERT_EQ(got.size(), want.size()) << what;
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i]))) << what << i;
    };
    expect_near(reversed(b.atom_energy, 1), a.atom_energy, "energy ");
    expect_near(reversed(b.force, 3), a.force, "force ");
    expect_near(reversed(b.atom_virial, 9), a.atom_virial, "virial ");
  }
}

// Edge cases of the batched layout: a tile without local atoms, and atoms without neighbors
// (all slots padded; no rows for the embedding nets), at both precisions. An atom alone has the
// energy it has beside another beyond rcut, and no force.
TEST(DeepmdSeA, EmptyTilesAndIsolatedAtoms) {
  SKIP_WITHOUT_DATA();
  for (const Model& m : {model(), float32_model()}) {
    const std::vector<double> x = {0, 0, 0, 10, 0, 0};
    const std::vector<int> type = {0, 1};
    const Result none = compute(m, x, type, 0, NeighborList{{0}, {}});
    EXPECT_EQ(none.energy, 0.0);
    EXPECT_EQ(none.force, std::vector<double>(6, 0.0));
    const Result pair = compute(m, x, type, 2, NeighborList{{0, 1, 2}, {1, 0}});
    const Result alone =
        compute(m, std::vector<double>{0, 0, 0}, std::vector<int>{0}, 1, NeighborList{{0, 0}, {}});
    EXPECT_EQ(pair.atom_energy[0], alone.atom_energy[0]);
    EXPECT_EQ(pair.force, std::vector<double>(6, 0.0));
    EXPECT_TRUE(std::isfinite(pair.energy));
  }
}

TEST(DeepmdSeA, KernelRejectsBadInput) {
  SKIP_WITHOUT_DATA();
  const std::vector<double> x = {0, 0, 0, 1, 0, 0};
  NeighborList list{{0, 1}, {1}};
  try {
    compute(model(), x, std::vector<int>{0, 2}, 1, list);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("atom 1 has type 2, outside the model's 2 types"),
              std::string::npos)
        << e.what();
  }
  list.indices = {7};
  try {
    compute(model(), x, std::vector<int>{0, 1}, 1, list);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("neighbor list of atom 0 holds invalid index 7"),
              std::string::npos)
        << e.what();
  }
}

template <class E>
void expect_error(const std::string& text, const std::string& needle) {
  try {
    parse_model(text, "'test.yaml'");
    FAIL() << "no error for " << needle;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'test.yaml'"), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    FAIL() << "wrong exception type: " << e.what();
  }
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

// DeePMD-kit's se_e2_a model with one frame and one atomic parameter (numb_fparam 1, numb_aparam
// 1; tests/md/data/deepmd/README.md): atomic energies, forces, atomic virials and descriptor of
// its 6-atom test frame with fparam and every aparam 0.25852028, as DeePMD-kit's own reference
// (fparam_aparam-testcase.yaml). The tolerance is DeePMD-kit's own for this model, 5e-8
// (assertAlmostEqual places=7 in its source/tests/infer/test_models.py, whose comment says its
// backends drift apart by about 1e-8 on it: the references come from its TensorFlow kernel); the
// descriptor, before the parameters enter, agrees to round-off. The parameters are normalised to
// about -1, so leaving either out of the fitting input, or normalising it otherwise, moves the
// energies by more than 1e-4 (the change of one aparam by 0.1 below).
const std::string kParamDir = std::string(TESSERA_MD_TEST_DATA) + "/deepmd";

// DeePMD-kit's se_e2_r test model (tests/md/data/deepmd/deeppot-r.yaml: the radial descriptor,
// one embedding net per pair of types, sel [46, 92], rcut 6.0, rcut_smth 1.0) against DeePMD-kit's
// own atomic energies, forces and atomic virials for its three frames (two periodic, one
// cluster; deeppot-r-testcase.yaml), to 1e-10. This also checks the index of the nets per type
// pair (centre + neighbor * ntypes) against DeePMD-kit's: transposed, the energies are off by
// 4.7e-4 eV. Its compressed form agrees to 1e-10 as well (stride 0.01, min_nbor_dist 0.8 A).
TEST(DeepmdSeR, ReproducesDeepmdKitReference) {
  const Model m = load_model(kParamDir + "/deeppot-r.yaml");
  EXPECT_EQ(m.descriptor, DescriptorType::kSeR);
  EXPECT_FALSE(m.type_one_side);
  EXPECT_EQ(m.embeddings.size(), 4u);
  EXPECT_EQ(m.descriptor_dim(), m.embedding_width());
  Model tables = m;
  compress(tables, {.min_nbor_dist = 0.8});
  const YAML::Node cases = YAML::LoadFile(kParamDir + "/deeppot-r-testcase.yaml")["results"];
  ASSERT_EQ(cases.size(), 3u);
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("frame " + std::to_string(c));
    const YAML::Node frame = cases[c];
    const auto coord = frame["coord"].as<std::vector<double>>();
    const auto atype = frame["atype"].as<std::vector<int>>();
    const auto cell = frame_cell(frame);
    for (const Model* model : std::array<const Model*, 2>{&m, &tables}) {
      SCOPED_TRACE(model == &m ? "nets" : "compressed");
      const Result r = evaluate(*model, coord, atype, cell);
      expect_near(r.atom_energy, frame["atomic_energy"], 1e-10, "energy ");
      expect_near(r.force, frame["force"], 1e-10, "force ");
      expect_near(r.atom_virial, frame["atomic_virial"], 1e-10, "virial ");
    }
  }
}

// The se_e2_r model's forces are minus the gradient of its energy, and its workspace is what
// workspace_bytes() says with every slot occupied, in both tape modes and compressed.
TEST(DeepmdSeR, ForcesAndWorkspace) {
  const Model m = load_model(kParamDir + "/deeppot-r.yaml");
  test::expect_forces_are_minus_gradient(m, random_config(31, 12, true), 1e-5, 1e-6);
  Model tables = m;
  compress(tables, {.min_nbor_dist = 0.8});
  const Tile tile = dense_tile(65);
  const int longest = tile.longest();
  for (const Model* model : std::array<const Model*, 2>{&m, &tables})
    for (TapeMode mode : {TapeMode::kStore, TapeMode::kRecompute}) {
      Workspace workspace(mode);
      Result full;
      compute(*model, tile.x, tile.type, 65, tile.list, workspace, full);
      EXPECT_EQ(workspace.bytes(), workspace_bytes(*model, 65, longest, mode))
          << (model == &m ? "nets" : "compressed");
    }
}

TEST(DeepmdSeA, ReproducesDeepmdKitWithFrameAndAtomParameters) {
  const Model m = load_model(kParamDir + "/fparam_aparam.yaml");
  EXPECT_EQ(m.numb_fparam, 1);
  EXPECT_EQ(m.numb_aparam, 1);
  EXPECT_EQ(m.fitting_input_dim(), m.descriptor_dim() + 2);
  const YAML::Node frame = YAML::LoadFile(kParamDir + "/fparam_aparam-testcase.yaml")["results"][0];
  const auto coord = frame["coord"].as<std::vector<double>>();
  const auto atype = frame["atype"].as<std::vector<int>>();
  const auto box = frame["box"].as<std::vector<double>>();
  std::array<double, 9> cell{};
  std::copy(box.begin(), box.end(), cell.begin());
  const std::vector<double> fparam{frame["fparam"].as<double>()};
  const auto aparam = frame["aparam"].as<std::vector<double>>();
  const Result r = evaluate(m, coord, atype, cell, {fparam, aparam});
  const double tolerance = 5e-8;
  expect_near(r.atom_energy, frame["atomic_energy"], tolerance, "energy ");
  expect_near(r.force, frame["force"], tolerance, "force ");
  expect_near(r.atom_virial, frame["atomic_virial"], tolerance, "virial ");
  expect_near(r.descriptor, frame["descriptor"], 1e-12, "descriptor ");

  // Other parameters give other energies; each atom's aparam is its own.
  std::vector<double> other = aparam;
  other[2] += 0.1;
  const Result moved = evaluate(m, coord, atype, cell, {fparam, other});
  EXPECT_GT(std::abs(moved.atom_energy[2] - r.atom_energy[2]), 1e-4);
  EXPECT_EQ(moved.atom_energy[0], r.atom_energy[0]);

  // A model's default fparam serves a frame given none (DeePMD-kit's default_fparam).
  const std::string text = read_text(kParamDir + "/fparam_aparam.yaml");
  const Model with_default =
      parse_model(replaced(text, "    dim_descrpt: 160\n",
                           "    default_fparam: [0.25852028]\n    dim_descrpt: 160\n"),
                  "'with default'");
  EXPECT_EQ(evaluate(with_default, coord, atype, cell, {{}, aparam}).atom_energy, r.atom_energy);

  // Parameters of the wrong size, with DeePMD-kit's messages.
  const std::vector<double> two{0.1, 0.2};
  for (const auto& [bad, needle] :
       {std::pair<Parameters, std::string>{{{}, aparam},
                                           "the dim of frame parameter provided is not consistent "
                                           "with what the model uses (0 values for its 1)"},
        {{two, aparam}, "(2 values for its 1)"},
        {{fparam, two},
         "the dim of atom parameter provided is not consistent with what the "
         "model uses (2 values for 6 atoms of 1)"}}) {
    try {
      evaluate(m, coord, atype, cell, bad);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
}

// A parameter model's malformed or unsupported fitting settings, each with its message.
TEST(DeepmdSeA, ParameterModelsAreChecked) {
  const std::string text = read_text(kParamDir + "/fparam_aparam.yaml");
  expect_error<ConfigError>(replaced(text, "use_aparam_as_mask: false", "use_aparam_as_mask: true"),
                            "fitting with use_aparam_as_mask: true is not supported");
  expect_error<FormatError>(replaced(text, "numb_fparam: 1", "numb_fparam: 2"),
                            "model.fitting.nets");
  expect_error<FormatError>(replaced(text, "numb_aparam: 1", "numb_aparam: -1"),
                            "model.fitting.numb_aparam: must lie in 0..65536");
  expect_error<FormatError>(replaced(text, "    dim_descrpt: 160\n",
                                     "    default_fparam: [1.0, 2.0]\n    dim_descrpt: 160\n"),
                            "model.fitting.default_fparam: does not have numb_fparam values");
}

// A model trained in float32 (float32 arrays, `precision: float32`) loads as a float32 model and
// gives exactly what the float64 file gives with its networks switched to float32: the same
// decimal weights round to the same float32 numbers.
TEST(DeepmdSeA, Float32ModelFilesRunInFloat32) {
  SKIP_WITHOUT_DATA();
  std::string text = read_text(kModel);
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"dtype: float64", "dtype: float32"},
        {"precision: float64", "precision: float32"}})
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))
      text.replace(at, from.size(), to);
  const Model as_float32 = parse_model(text, "'float32.yaml'");
  EXPECT_EQ(as_float32.precision, Precision::kFloat32);
  Model switched = model();
  EXPECT_EQ(switched.precision, Precision::kFloat64);
  switched.precision = Precision::kFloat32;
  const YAML::Node frame = YAML::LoadFile(kCases)["results"][0];
  const auto coord = frame["coord"].as<std::vector<double>>();
  const auto atype = frame["atype"].as<std::vector<int>>();
  const auto box = frame["box"].as<std::vector<double>>();
  std::array<double, 9> cell{};
  std::copy(box.begin(), box.end(), cell.begin());
  const Result a = evaluate(as_float32, coord, atype, cell);
  const Result b = evaluate(switched, coord, atype, cell);
  EXPECT_EQ(a.energy, b.energy);
  EXPECT_EQ(a.force, b.force);
  EXPECT_EQ(a.atom_virial, b.atom_virial);
}

TEST(DeepmdSeA, MalformedModelFilesAreRejected) {
  expect_error<FormatError>("model: [unclosed", "YAML");
  expect_error<FormatError>("backend: PyTorch\n", "has no key 'model'");
  try {
    load_model("/nonexistent/model.yaml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open DeePMD model file '/nonexistent/model.yaml'"),
              std::string::npos);
  }
  if (!std::filesystem::exists(kModel)) GTEST_SKIP() << "DeePMD-kit model not found in " << kDir;
  const std::string good = read_text(kModel);
  EXPECT_NO_THROW(parse_model(good, "'test.yaml'"));
  expect_error<ConfigError>(replaced(good, "type: se_e2_a", "type: se_e3"),
                            "descriptor type 'se_e3' is not supported; supported are se_e2_a "
                            "(se_a), se_e2_r (se_r) and dpa1 (se_atten)");
  expect_error<ConfigError>(replaced(good, "type: ener", "type: dipole"),
                            "fitting type 'dipole' is not supported");
  expect_error<FormatError>(replaced(good, "type_one_side: true", "type_one_side: false"),
                            "ndim does not match type_one_side (1 for true, 2 for false)");
  expect_error<ConfigError>(
      replaced(good, "activation_function: tanh", "activation_function: gelu"),
      "activation function 'gelu'");
  expect_error<ConfigError>(replaced(good, "dtype: float64", "dtype: float16"),
                            "has dtype float16; supported are float64 and float32");
  expect_error<ConfigError>(
      replaced(good, "    precision: float64\n    rcut: 6.0",
               "    precision: float32\n    rcut: 6.0"),
      "a descriptor in float32 with a fitting net in float64 is not supported");
  expect_error<FormatError>(
      replaced(good, "sel:\n      - 46\n      - 92", "sel:\n      - 46\n      - 91"),
      "model.descriptor.davg: has 1104 values, expected 2 x 548");
  expect_error<FormatError>(replaced(good, "- 0.05033023990415701", "- zero"), "not a number");
}

// A model with one embedding net per pair of centre and neighbor type (type_one_side: false,
// DeePMD-kit's default for se_e2_a). Built from two one-side models, A (the test model) and B (its
// embedding weights scaled by 1.1): the pair model takes A's nets around O atoms and B's around
// H atoms (net index centre + neighbor * ntypes, DeePMD-kit's NetworkCollection). An atom's
// energy depends only on the nets of its own type, so every O atom's energy must be A's and every
// H atom's B's, to round-off (the pair model runs its atoms sorted by type, in other blocks); a
// net taken for the wrong centre or neighbor type is off by about 1e-2 eV. Its forces are minus
// the gradient of its energy, its compressed form agrees with it as the one-side model's does,
// and a model file with ndim 2 loads as the same model.
TEST(DeepmdSeA, NetsPerTypePair) {
  SKIP_WITHOUT_DATA();
  const Model& a = model();
  Model b = a;
  for (Network& net : b.embeddings)
    for (Layer& layer : net.layers) layer.w *= 1.1;
  Model pairs = a;
  pairs.type_one_side = false;
  pairs.embeddings = {a.embeddings[0], b.embeddings[0], a.embeddings[1], b.embeddings[1]};
  for (bool periodic : {true, false}) {
    SCOPED_TRACE(periodic ? "periodic" : "cluster");
    const Config c = random_config(periodic ? 21 : 22, 30, periodic);
    const Result ra = evaluate(a, c.x, c.type, c.cell), rb = evaluate(b, c.x, c.type, c.cell);
    const Result rp = evaluate(pairs, c.x, c.type, c.cell);
    double apart = 0.0;
    for (std::size_t i = 0; i < c.type.size(); ++i) {
      const double want = c.type[i] == 0 ? ra.atom_energy[i] : rb.atom_energy[i];
      EXPECT_NEAR(rp.atom_energy[i], want, 1e-12 * std::abs(want)) << "atom " << i;
      apart = std::max(apart, std::abs(ra.atom_energy[i] - rb.atom_energy[i]));
    }
    EXPECT_GT(apart, 1e-3);
    // Descriptors likewise: each atom's is its own type's model's.
    const auto nd = static_cast<std::size_t>(a.descriptor_dim());
    for (std::size_t i = 0; i < c.type.size(); ++i)
      for (std::size_t k = 0; k < nd; ++k) {
        const double want = (c.type[i] == 0 ? ra : rb).descriptor[i * nd + k];
        EXPECT_NEAR(rp.descriptor[i * nd + k], want, 1e-13) << "atom " << i;
      }
  }
  const Config c = random_config(23, 12, true);
  const Result r = evaluate(pairs, c.x, c.type, c.cell);
  test::expect_forces_are_minus_gradient(pairs, c, 1e-5, 1e-6);
  // Its workspace is what workspace_bytes() says, with every slot occupied (65 atoms: blocks of
  // one type, 22 O and 43 H), in both tape modes.
  const Tile tile = dense_tile(65);
  const int longest = tile.longest();
  for (TapeMode mode : {TapeMode::kStore, TapeMode::kRecompute}) {
    Workspace workspace(mode);
    Result full;
    compute(pairs, tile.x, tile.type, 65, tile.list, workspace, full);
    EXPECT_EQ(workspace.bytes(), workspace_bytes(pairs, 65, longest, mode));
  }
  Model tables = pairs;
  compress(tables, {.min_nbor_dist = 0.8});
  ASSERT_EQ(tables.tables.size(), 4u);
  const Result q = evaluate(tables, c.x, c.type, c.cell);
  const double fscale = max_abs(r.force);
  for (std::size_t k = 0; k < r.force.size(); ++k)
    EXPECT_NEAR(q.force[k], r.force[k], 1e-12 * fscale) << "compressed, component " << k;

  // The same model as a file: the embeddings' collection with ndim 2 and four networks.
  YAML::Node root = YAML::Load(read_text(kModel));
  YAML::Node embeddings = root["model"]["descriptor"]["embeddings"];
  YAML::Node one_side = YAML::Clone(embeddings["networks"]);
  YAML::Node scaled = YAML::Clone(one_side);
  for (std::size_t t = 0; t < 2; ++t)
    for (YAML::Node layer : scaled[t]["layers"]) {
      YAML::Node value = layer["@variables"]["w"]["value"];
      for (YAML::Node row : value)
        for (std::size_t j = 0; j < row.size(); ++j) row[j] = 1.1 * row[j].as<double>();
    }
  YAML::Node networks;
  networks.push_back(one_side[0]);
  networks.push_back(scaled[0]);
  networks.push_back(one_side[1]);
  networks.push_back(scaled[1]);
  embeddings["networks"] = networks;
  embeddings["ndim"] = 2;
  root["model"]["descriptor"]["type_one_side"] = false;
  YAML::Emitter text;
  text.SetDoublePrecision(17);
  text << root;
  const Model read = parse_model(text.c_str(), "pairs.yaml");
  EXPECT_FALSE(read.type_one_side);
  ASSERT_EQ(read.embeddings.size(), 4u);
  EXPECT_EQ(evaluate(read, c.x, c.type, c.cell).force, r.force);
}

}  // namespace
}  // namespace tessera::md::deepmd
