// DeePMD-kit's model compression (tessera/md/deepmd/compress.hpp): the tables against the
// embedding nets they replace, the compressed kernel against the exact one and against its own
// energy's gradient, compressed model files, and the errors.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "deepmd_test_support.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/md/deepmd/compress.hpp"
#include "tessera/md/deepmd/model.hpp"
#include "tessera/md/deepmd/se_a.hpp"

namespace tessera::md::deepmd {
namespace {

using test::Config;
using test::max_abs;
using test::max_diff;

const std::string kModel = std::string(TESSERA_SHARED_DATA) + "/deepmd/deeppot_sea.yaml";

#define SKIP_WITHOUT_DATA()                                     \
  if (!std::filesystem::exists(kModel))                         \
  GTEST_SKIP() << "DeePMD-kit test model not found: " << kModel \
               << " (it lives in the project's shared/data/deepmd beside the repository)"

const Model& exact() {
  static const Model m = load_model(kModel);
  return m;
}

Model compressed(double stride, double min_nbor_dist = 0.8) {
  Model m = exact();
  compress(m, {.min_nbor_dist = min_nbor_dist, .stride = stride, .extrapolate = 5});
  return m;
}

// n atoms in a triclinic cell (types O, H, H repeating), no pair closer than `closest` A.
Config random_config(std::uint64_t stream, int n, double closest) {
  return test::random_config(4048, stream, n, true, closest);
}

// The embedding net at x in float64 with libm's tanh, and its derivative by a central
// difference (step 1e-5: truncation about 1e-11, round-off about 1e-11 for these nets).
RowVector net_value(const Network& net, double x) {
  RowVector y = RowVector::Constant(1, x);
  for (const Layer& layer : net.layers) {
    RowVector z = y * layer.w + layer.b;
    if (layer.activation == Activation::kTanh) z = z.array().tanh();
    if (layer.idt.size() > 0) z.array() *= layer.idt.array();
    if (layer.resnet && (z.size() == y.size() || z.size() == 2 * y.size()))
      for (Eigen::Index j = 0; j < z.size(); ++j) z(j) += y(j % y.size());
    y = z;
  }
  return y;
}

// Each table is the net's Hermite quintic: at the start of every interval it gives the net's
// value and slope (to round-off: 1e-13 and 1e-9, the latter the difference's own error); halfway
// through an interval it is within the interpolation error (1.3e-8 at stride 0.1, whose coarse
// intervals are 1 wide), which falls at least as h^5 from stride 0.1 to 0.05 (quintic Hermite:
// h^6 for the value). A table built off by one interval, or
// with a coefficient wrong, misses the nodes by orders of magnitude more.
TEST(DeepmdCompress, TablesAreTheNetsHermiteQuintics) {
  SKIP_WITHOUT_DATA();
  double midpoint_error[2] = {0, 0};
  int k = 0;
  for (double stride : {0.1, 0.05}) {
    const Model m = compressed(stride);
    ASSERT_EQ(m.tables.size(), 2u);
    for (int t = 0; t < 2; ++t) {
      const EmbeddingTable& table = m.tables[t];
      const Network& net = m.embeddings[t];
      ASSERT_EQ(table.width(), 12);
      // DeePMD-kit's range for this model and min_nbor_dist 0.8 A: floor and ceil of the
      // radial input at the cutoff and at 0.8 A, then 5 times the upper bound.
      EXPECT_EQ(table.lower(), -1.0);
      EXPECT_EQ(table.upper(), 10.0);
      EXPECT_EQ(table.max(), 50.0);
      EXPECT_EQ(table.intervals(), static_cast<int>(std::lround(11 / stride + 40 / (10 * stride))));
      std::vector<double> g(12), dg(12);
      for (int l = 0; l < table.intervals(); ++l) {
        const double x0 = l < std::lround(11 / stride)
                              ? -1 + l * stride
                              : 10 + (l - std::lround(11 / stride)) * 10 * stride;
        table.evaluate(x0, g.data(), dg.data());
        const RowVector y = net_value(net, x0);
        const RowVector slope = (net_value(net, x0 + 1e-5) - net_value(net, x0 - 1e-5)) / 2e-5;
        for (int j = 0; j < 12; ++j) {
          ASSERT_NEAR(g[j], y(j), 1e-13) << "type " << t << " interval " << l << " output " << j;
          ASSERT_NEAR(dg[j], slope(j), 1e-9) << "type " << t << " interval " << l;
        }
        const double h = l < std::lround(11 / stride) ? stride : 10 * stride;
        table.evaluate(x0 + h / 2, g.data(), dg.data());
        const RowVector mid = net_value(net, x0 + h / 2);
        for (int j = 0; j < 12; ++j)
          midpoint_error[k] = std::max(midpoint_error[k], std::abs(g[j] - mid(j)));
      }
    }
    ++k;
  }
  std::printf("  largest error halfway through an interval: %.1e (stride 0.1), %.1e (0.05)\n",
              midpoint_error[0], midpoint_error[1]);
  EXPECT_LT(midpoint_error[0], 1e-7);
  EXPECT_GT(midpoint_error[0], 32 * midpoint_error[1]);
}

// The compressed kernel against the exact one on 48 atoms of a periodic cell (pairs from 0.9 A,
// so every input inside the fine table): at DeePMD-kit's default stride 0.01 the table's error
// is below round-off, and every atom energy, force and virial agrees within 1e-12 of its scale;
// at stride 0.1 the differences are the interpolation error (1.5e-8 of the scale), within 1e-7
// and above 1e-12 (so the tables, not the nets, ran). DeePMD-kit's own tests hold a compressed
// model to its uncompressed one at 1e-10
// (source/tests/pt/model/test_compressed_descriptor_se_a.py).
TEST(DeepmdCompress, CompressedKernelAgreesWithTheNets) {
  SKIP_WITHOUT_DATA();
  const Config c = random_config(1, 48, 0.9);
  const Result r = evaluate(exact(), c.x, c.type, c.cell);
  const double escale = max_abs(r.atom_energy), fscale = max_abs(r.force),
               vscale = max_abs(r.atom_virial);
  for (double stride : {0.01, 0.1}) {
    SCOPED_TRACE("stride " + std::to_string(stride));
    const Result q = evaluate(compressed(stride), c.x, c.type, c.cell);
    const double e = max_diff(q.atom_energy, r.atom_energy) / escale,
                 f = max_diff(q.force, r.force) / fscale,
                 v = max_diff(q.atom_virial, r.atom_virial) / vscale;
    std::printf("  stride %.2f: relative to their scales, energy %.1e, force %.1e, virial %.1e\n",
                stride, e, f, v);
    const double bound = stride < 0.05 ? 1e-12 : 1e-7;
    EXPECT_LE(e, bound);
    EXPECT_LE(f, bound);
    EXPECT_LE(v, bound);
    EXPECT_EQ(q.outside_table, 0u);
    if (stride > 0.05) {
      EXPECT_GT(std::max({e, f, v}), 1e-12);
    }
  }
  // In float32 the tables run in float32 as the nets do: the compressed model within float32's
  // rounding of the exact float32 one (the float32 kernel's bound, tests/md/deepmd_test.cpp: a
  // few hundred units of float32 rounding, 1e-4 of the scale, allowed here).
  Model tables = compressed(0.01), nets = exact();
  tables.precision = nets.precision = Precision::kFloat32;
  const Result q32 = evaluate(tables, c.x, c.type, c.cell);
  const Result r32 = evaluate(nets, c.x, c.type, c.cell);
  EXPECT_LE(max_diff(q32.force, r32.force), 1e-4 * fscale);
  EXPECT_LE(max_diff(q32.atom_energy, r32.atom_energy), 1e-4 * escale);
  EXPECT_GT(max_diff(q32.force, r.force), 1e-12);  // float32 ran
}

// A compressed model's forces are minus the gradient of its own energy, on a coarse table
// (stride 1: the table's forces differ from the nets' by about 1e-4 eV/A, so forces taken from
// the nets, or a table slope that is not its value's derivative, fail by that much) and with a
// dimer closer than the table reaches (0.05 A: its radial input beyond 5 times the upper bound,
// where G continues linearly and outside_table counts the slots). A central difference of step
// 1e-5 has a round-off error about 3e-8 eV/A here (the energy's last bits, 2e-13 eV, over 2h),
// and a truncation error below 1e-6 of the dimer's forces (the environment matrix's 1/r^2 at
// 0.05 A is what curves).
TEST(DeepmdCompress, ForcesAreMinusTheEnergyGradient) {
  SKIP_WITHOUT_DATA();
  const Model m = compressed(1.0);
  for (bool dimer : {false, true}) {
    SCOPED_TRACE(dimer ? "with a close dimer" : "pairs from 0.9 A");
    Config c = random_config(2, 12, 0.9);
    if (dimer)
      for (int d = 0; d < 3; ++d) c.x[3 * 4 + d] = c.x[3 * 1 + d] + (d == 0 ? 0.05 : 0.0);
    const Result r = evaluate(m, c.x, c.type, c.cell);
    EXPECT_EQ(r.outside_table, dimer ? 2u : 0u);
    const double off = max_diff(r.force, evaluate(exact(), c.x, c.type, c.cell).force);
    EXPECT_GT(off, 1e-6);
    const double worst = test::expect_forces_are_minus_gradient(m, c, 1e-5, 1e-7, 1e-6);
    std::printf("  max |F + dE/dx| %.1e eV/A; the nets' forces differ by %.1e\n", worst, off);
  }
}

// The test model written as `dp compress` writes a compressed model (descriptor "compress"
// entry with each net's compress_data and compress_info, min_nbor_dist at the top level;
// deepmd/dpmodel/descriptor/se_e2_a.py serialize), from `tables`; `edit` may change the tree.
std::string compressed_file(const Model& tables, double min_nbor_dist,
                            const std::function<void(YAML::Node&)>& edit = {}) {
  std::ifstream in(kModel);
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node root = YAML::Load(text.str());
  auto ndarray = [](const std::vector<std::vector<double>>& rows, bool matrix) {
    YAML::Node node;
    node["@class"] = "np.ndarray";
    node["@is_variable"] = true;
    node["@version"] = 1;
    node["dtype"] = "float64";
    YAML::Node value;
    for (const auto& row : rows) {
      YAML::Node r;
      for (double v : row) r.push_back(v);
      if (matrix)
        value.push_back(r);
      else
        value = r;
    }
    node["value"] = value;
    return node;
  };
  YAML::Node data, info;
  for (const EmbeddingTable& t : tables.tables) {
    std::vector<std::vector<double>> rows;
    for (int l = 0; l < t.intervals(); ++l) {
      const auto row = t.coefficients().row(l);
      rows.emplace_back(row.data(), row.data() + row.size());
    }
    data.push_back(ndarray(rows, true));
    info.push_back(
        ndarray({{t.lower(), t.upper(), t.max(), t.stride0(), t.stride1(), -1.0}}, false));
  }
  YAML::Node descriptor = root["model"]["descriptor"];
  descriptor["@version"] = 3;
  descriptor["compress"]["@variables"]["compress_data"] = data;
  descriptor["compress"]["@variables"]["compress_info"] = info;
  root["min_nbor_dist"] = min_nbor_dist;
  if (edit) edit(root);
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << root;
  return out.c_str();
}

// A compressed model file runs from its own tables, bit for bit as the same tables built at
// load; it records min_nbor_dist, which compress() then takes; and its nets are kept, so that
// dropping the tables gives the exact model back.
TEST(DeepmdCompress, CompressedModelFilesUseTheirTables) {
  SKIP_WITHOUT_DATA();
  const Model built = compressed(0.1, 0.85);
  Model read = parse_model(compressed_file(built, 0.85), "compressed.yaml");
  ASSERT_TRUE(read.compressed());
  EXPECT_EQ(read.min_nbor_dist, 0.85);
  ASSERT_EQ(read.tables.size(), 2u);
  EXPECT_EQ(read.tables[1].coefficients(), built.tables[1].coefficients());
  const Config c = random_config(3, 24, 0.9);
  const Result a = evaluate(built, c.x, c.type, c.cell);
  EXPECT_EQ(evaluate(read, c.x, c.type, c.cell).force, a.force);
  Model again = read;
  compress(again, {.stride = 0.1});
  EXPECT_EQ(evaluate(again, c.x, c.type, c.cell).force, a.force);
  read.tables.clear();
  EXPECT_EQ(evaluate(read, c.x, c.type, c.cell).force,
            evaluate(exact(), c.x, c.type, c.cell).force);
}

template <class F>
void expect_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one saying: " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// Settings compress() cannot build a table from, and malformed tables in a file, each with its
// message.
TEST(DeepmdCompress, BadSettingsAndTablesAreRefused) {
  SKIP_WITHOUT_DATA();
  Model m = exact();
  expect_error([&] { compress(m); }, "give it (min_nbor_dist, in Angstrom)");
  expect_error([&] { compress(m, {.min_nbor_dist = 6.5}); }, "must lie below the cutoff");
  expect_error([&] { compress(m, {.min_nbor_dist = 0.8, .stride = 0.03}); },
               "the stride must be 1/N for an integer N");
  expect_error([&] { compress(m, {.min_nbor_dist = 0.8, .extrapolate = 0.5}); },
               "extrapolate must lie in 1..1000");
  EXPECT_FALSE(m.compressed());
  const Model built = compressed(0.5);
  expect_error(
      [&] {
        parse_model(compressed_file(built, 0.8,
                                    [](YAML::Node& root) {
                                      root["model"]["descriptor"]["compress"]["@variables"]
                                          ["compress_info"][0]["value"][2] = 60.0;
                                    }),
                    "short.yaml");
      },
      "compress.@variables[0]: compressed embedding table: 30 intervals do not reach its upper "
      "bound 60;");
  expect_error(
      [&] {
        parse_model(compressed_file(built, 0.8,
                                    [](YAML::Node& root) {
                                      auto data = root["model"]["descriptor"]["compress"]
                                                      ["@variables"]["compress_data"][1]["value"];
                                      data[0].remove(0);
                                    }),
                    "ragged.yaml");
      },
      "compress_data[1]: is a ragged array");
  expect_error(
      [&] {
        parse_model(
            compressed_file(
                built, 0.8,
                [](YAML::Node& root) {
                  root["model"]["descriptor"]["compress"]["@variables"]["compress_info"].remove(1);
                }),
            "one.yaml");
      },
      "does not hold one table and its bounds per embedding net");
  expect_error([&] { parse_model(compressed_file(built, 7.0), "far.yaml"); },
               "min_nbor_dist: must lie between 0 and the cutoff");
}

}  // namespace
}  // namespace tessera::md::deepmd
