// DPA-1 (se_atten) in the DeePMD kernel: the descriptor against DeePMD-kit's own reference values
// (source/tests/pt/model/test_descriptor_dpa1.py, converted by data/deepmd/make_dpa1.py), forces
// and virials against the energy's derivatives for each of the descriptor's options, and the
// refusals of what it does not implement.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <string>
#include <vector>

#include "deepmd_test_support.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/deepmd/compress.hpp"
#include "tessera/md/deepmd/model.hpp"
#include "tessera/md/deepmd/se_a.hpp"

namespace tessera::md::deepmd {
namespace {

using test::Config;
using test::random_config;
using test::read_text;

const std::string kDir = std::string(TESSERA_MD_TEST_DATA) + "/deepmd";

// The model file with `from` replaced by `to` (once), parsed.
Model edited(const std::string& from, const std::string& to,
             const std::string& file = "dpa1.yaml") {
  std::string text = read_text(kDir + "/" + file);
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  return parse_model(text, "dpa1 edited");
}

// For the difference quotients: the atoms' constant energies (-94 and -187 eV) would leave
// round-off of 1e-12 in a total of thousands of eV, 5e-8 in a quotient with h = 1e-5.
Model unbiased(Model m) {
  std::fill(m.energy_bias.begin(), m.energy_bias.end(), 0.0);
  return m;
}

// DeePMD-kit's descriptor of its 5 atoms (3 O, 2 H) in a triclinic cell: sel 30 slots, 2
// attention layers with dotr, normalize, temperature 1 and smooth weights, ng 8 x axis 4 values
// per atom, as its test compares them (1e-10, absolute and relative).
TEST(DeepmdDpa1, ReproducesDeepmdKitsDescriptor) {
  const Model m = load_model(kDir + "/dpa1.yaml");
  EXPECT_EQ(m.descriptor, DescriptorType::kSeAtten);
  EXPECT_EQ(m.nnei(), 30);
  EXPECT_EQ(m.descriptor_dim(), 32);
  EXPECT_EQ(m.attention.layers.size(), 2u);
  EXPECT_EQ(m.attention.tebd_dim(), 8);
  EXPECT_TRUE(m.mixed_fitting);
  const YAML::Node c = YAML::LoadFile(kDir + "/dpa1-testcase.yaml");
  const auto cell_values = c["cell"].as<std::vector<double>>();
  std::array<double, 9> cell{};
  std::copy(cell_values.begin(), cell_values.end(), cell.begin());
  const auto want = c["descriptor"].as<std::vector<double>>();
  const Result r =
      evaluate(m, c["coord"].as<std::vector<double>>(), c["atype"].as<std::vector<int>>(), cell);
  ASSERT_EQ(r.descriptor.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k)
    EXPECT_NEAR(r.descriptor[k], want[k], 1e-10 + 1e-10 * std::abs(want[k])) << "value " << k;
}

// Each option of the descriptor, one at a time from the test model: forces are minus the
// energy's gradient (central differences, h = 1e-5) and the virial is its strain derivative, on
// a periodic box of 30 atoms, with more neighbors than the 30 slots (so the list is cut), and
// on a cluster with empty slots.
struct Variant {
  const char* name;
  std::string from, to;
  std::string file = "dpa1.yaml";
};

class DeepmdDpa1Options : public ::testing::TestWithParam<Variant> {};

Model variant(const Variant& v) {
  return unbiased(v.from.empty() ? load_model(kDir + "/" + v.file) : edited(v.from, v.to, v.file));
}

TEST_P(DeepmdDpa1Options, ForcesAreMinusTheEnergyGradient) {
  const Model m = variant(GetParam());
  for (bool periodic : {true, false}) {
    SCOPED_TRACE(periodic ? "periodic" : "cluster");
    const Config c = random_config(17, periodic ? 1 : 2, 30, periodic, 0.9);
    test::expect_forces_are_minus_gradient(m, c, 1e-5, 1e-7, 1e-6);
  }
}

TEST_P(DeepmdDpa1Options, VirialIsTheStrainDerivative) {
  test::expect_virial_is_strain_derivative(variant(GetParam()), random_config(19, 3, 30, true, 0.9),
                                           1e-5, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(
    Options, DeepmdDpa1Options,
    ::testing::Values(Variant{"as_published", "", ""},
                      Variant{"not_smooth", "\"smooth_type_embedding\": true",
                              "\"smooth_type_embedding\": false"},
                      Variant{"no_dotr", "\"attn_dotr\": true", "\"attn_dotr\": false"},
                      Variant{"not_normalized", "\"normalize\": true", "\"normalize\": false"},
                      Variant{"no_temperature", "\"temperature\": 1.0", "\"temperature\": null"},
                      Variant{"strip", "", "", "dpa1_strip.yaml"},
                      Variant{"strip_not_smooth", "\"smooth_type_embedding\": true",
                              "\"smooth_type_embedding\": false", "dpa1_strip.yaml"}),
    [](const auto& info) { return std::string(info.param.name); });

// Results do not depend on the atoms' order (which tiles and ranks change): reversed, each
// atom's energy, force and virial are its own to round-off, with the list cut at 30 slots.
TEST(DeepmdDpa1, AtomOrderChangesOnlyRoundOff) {
  const Model m = load_model(kDir + "/dpa1.yaml");
  const Config c = random_config(37, 7, 60, true, 0.9);
  const Result ref = evaluate(m, c.x, c.type, c.cell);
  Config r = c;
  const int n = static_cast<int>(c.type.size());
  for (int a = 0; a < n; ++a) {
    r.type[a] = c.type[n - 1 - a];
    std::copy(c.x.begin() + 3 * (n - 1 - a), c.x.begin() + 3 * (n - a), r.x.begin() + 3 * a);
  }
  const Result rev = evaluate(m, r.x, r.type, r.cell);
  for (int a = 0; a < n; ++a) {
    const int b = n - 1 - a;
    EXPECT_NEAR(rev.atom_energy[b], ref.atom_energy[a], 1e-11) << a;
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(rev.force[3 * b + d], ref.force[3 * a + d], 1e-11);
    for (int d = 0; d < 9; ++d)
      EXPECT_NEAR(rev.atom_virial[9 * b + d], ref.atom_virial[9 * a + d], 1e-11);
  }
}

// The tile kernel (owned atoms, then ghosts; a shuffled candidate list with atoms beyond rcut):
// two tiles holding the atoms of a cluster between them give the whole cluster's energies, and
// its forces and virials once each tile's ghost terms are added to their atoms.
TEST(DeepmdDpa1, TilesGiveTheWholeSystemsResults) {
  const Model m = load_model(kDir + "/dpa1.yaml");
  const Config c = random_config(41, 8, 40, false, 0.9);
  const Result ref = evaluate(m, c.x, c.type, std::nullopt);
  const int n = 40, half = 17;
  std::vector<double> force(3 * n, 0.0), virial(9 * n, 0.0), energy(n, 0.0);
  for (int first : {0, half}) {
    const int owned = first == 0 ? half : n - half;
    std::vector<int> order;  // owned atoms, then the others as ghosts
    for (int a = 0; a < n; ++a) order.push_back((first + a) % n);
    std::vector<double> x;
    std::vector<int> type;
    for (int a : order) {
      x.insert(x.end(), c.x.begin() + 3 * a, c.x.begin() + 3 * a + 3);
      type.push_back(c.type[a]);
    }
    NeighborList list{{0}, {}};
    for (int i = 0; i < owned; ++i) {
      for (int j = n - 1; j >= 0; --j)
        if (j != i) list.indices.push_back(j);
      list.offsets.push_back(static_cast<int>(list.indices.size()));
    }
    const Result tile = compute(m, x, type, owned, list);
    for (int k = 0; k < n; ++k) {
      const int a = order[k];
      if (k < owned) energy[a] = tile.atom_energy[k];
      for (int d = 0; d < 3; ++d) force[3 * a + d] += tile.force[3 * k + d];
      for (int d = 0; d < 9; ++d) virial[9 * a + d] += tile.atom_virial[9 * k + d];
    }
  }
  for (int a = 0; a < n; ++a) {
    EXPECT_NEAR(energy[a], ref.atom_energy[a], 1e-11) << a;
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(force[3 * a + d], ref.force[3 * a + d], 1e-11) << a;
    for (int d = 0; d < 9; ++d)
      EXPECT_NEAR(virial[9 * a + d], ref.atom_virial[9 * a + d], 1e-11) << a;
  }
}

// Empty slots with a non-zero R~ row (davg != 0): their constant rows take part through the
// attention's output as in DeePMD-kit's dense path, and forces stay the energy's gradient.
TEST(DeepmdDpa1, ShiftedStatisticsKeepForcesConsistent) {
  Model m = unbiased(load_model(kDir + "/dpa1.yaml"));
  for (Eigen::Index k = 0; k < m.davg.cols(); k += 4) {
    m.davg(0, k) = 0.3;
    m.davg(1, k) = 0.2;
  }
  m.dstd.array() = 0.7;
  const Config c = random_config(23, 4, 12, false, 0.9);  // a cluster: most slots empty
  const Result shifted = evaluate(m, c.x, c.type, c.cell);
  const Result plain = evaluate(unbiased(load_model(kDir + "/dpa1.yaml")), c.x, c.type, c.cell);
  EXPECT_GT(std::abs(shifted.energy - plain.energy), 1e-3);
  test::expect_forces_are_minus_gradient(m, c, 1e-5, 1e-7, 1e-6);
}

// The centre's type embedding at the descriptor's end (concat_output_tebd, DeePMD-kit's
// default): the descriptor grows by it and the fitting net takes it.
TEST(DeepmdDpa1, ConcatenatedTypeEmbedding) {
  Model m = unbiased(load_model(kDir + "/dpa1.yaml"));
  m.attention.concat_output_tebd = true;
  Layer& first = m.fittings[0].layers[0];
  first.w.conservativeResize(first.w.rows() + 8, Eigen::NoChange);
  first.w.bottomRows(8).setConstant(0.05);
  const Config c = random_config(29, 5, 30, true, 0.9);
  const Result r = evaluate(m, c.x, c.type, c.cell);
  ASSERT_EQ(r.descriptor.size(), 30u * 40u);
  for (int a = 0; a < 30; ++a)
    for (int k = 0; k < 8; ++k)
      EXPECT_EQ(r.descriptor[40 * a + 32 + k], m.attention.type_embedding(c.type[a], k));
  test::expect_forces_are_minus_gradient(m, c, 1e-5, 1e-7, 1e-6);
}

// One embedding net input per slot without the centre's type (type_one_side: true).
TEST(DeepmdDpa1, TypeOneSide) {
  Model m = unbiased(load_model(kDir + "/dpa1.yaml"));
  m.type_one_side = true;
  Layer& first = m.embeddings[0].layers[0];
  first.w.conservativeResize(1 + 8, Eigen::NoChange);
  const Config c = random_config(31, 6, 30, true, 0.9);
  test::expect_forces_are_minus_gradient(m, c, 1e-5, 1e-7, 1e-6);
}

// se_atten_v2's form: the strip net's table is its net on every pair of type embeddings, and
// the model differs from the concat one.
TEST(DeepmdDpa1, StripMode) {
  const Model m = load_model(kDir + "/dpa1_strip.yaml");
  EXPECT_TRUE(m.attention.strip);
  EXPECT_EQ(m.embeddings.front().in_dim(), 1);
  ASSERT_EQ(m.attention.strip_table.rows(), 4);
  EXPECT_EQ(m.attention.strip_table.cols(), 8);
  // Row centre * ntypes + neighbor: the net on [T(neighbor), T(centre)] differs for (0, 1), (1, 0).
  EXPECT_GT((m.attention.strip_table.row(1) - m.attention.strip_table.row(2)).norm(), 1e-3);
  const Config c = random_config(43, 9, 30, true, 0.9);
  const Result strip = evaluate(m, c.x, c.type, c.cell);
  const Result concat = evaluate(load_model(kDir + "/dpa1.yaml"), c.x, c.type, c.cell);
  EXPECT_GT(std::abs(strip.energy - concat.energy), 1e-3);
  try {
    edited("\"tebd_input_mode\": \"concat\"", "\"tebd_input_mode\": \"mix\"");
    ADD_FAILURE() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("tebd_input_mode: must be concat or strip, not 'mix'"),
              std::string::npos)
        << e.what();
  }
}

// The IPU cost model's count for the test model, by hand: per atom, 30 slots through the
// embedding net (17x2 + 2x4 + 4x8 = 74 multiply-adds each), two attention layers (Q, K, V 30x8x15,
// logits and W V 2x30x30x5, the output 30x5x8: 13 800 each), the contractions (30x8x4 +
// 8x4x4 = 1 088) and the fitting net (32x5 + 5x5 + 5 = 190): 31 098 multiply-adds, 2 flops each,
// times 3 for the forward and the reverse pass; per slot nothing apart; tanh 30 x 14 + 10.
TEST(DeepmdDpa1, CostModelCounts) {
  const Model m = load_model(kDir + "/dpa1.yaml");
  EXPECT_DOUBLE_EQ(atom_flops(m, 0), 6.0 * 31098);
  EXPECT_DOUBLE_EQ(atom_flops(m, 1), 6.0 * 31098);
  EXPECT_DOUBLE_EQ(slot_flops(m, 0), 0.0);
  EXPECT_DOUBLE_EQ(atom_tanh(m, 0), 30.0 * 14 + 10);
  EXPECT_DOUBLE_EQ(slot_tanh(m, 0), 0.0);
}

// `dp compress` on a model with attention layers adds only the strip net's table per type pair
// (@version 3, compress with geo_compress false): it loads, and gives the model's numbers.
TEST(DeepmdDpa1, CompressedStripModelLoads) {
  const Model plain = load_model(kDir + "/dpa1_strip.yaml");
  const Model compressed =
      edited("\"env_protection\": 0.0,",
             "\"env_protection\": 0.0, \"compress\": {\"geo_compress\": false, \"@variables\": "
             "{}},",
             "dpa1_strip.yaml");
  const Config c = random_config(47, 10, 20, true, 0.9);
  EXPECT_EQ(evaluate(compressed, c.x, c.type, c.cell).energy,
            evaluate(plain, c.x, c.type, c.cell).energy);
}

// A DPA-1 file whose parts do not fit together is refused with the part named.
TEST(DeepmdDpa1, MalformedFilesAreRejected) {
  auto expect_format_error = [](const std::string& from, const std::string& to,
                                const std::string& text) {
    try {
      edited(from, to);
      ADD_FAILURE() << "no error; expected: " << text;
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_format_error("\"attn_layer\": 2", "\"attn_layer\": 3",
                      "model.descriptor.attention_layers: does not hold attn_layer layers");
  expect_format_error("\"attn\": 5", "\"attn\": 0", "model.descriptor.attn: must be positive");
  expect_format_error("\"attn\": 5", "\"attn\": 4",
                      "model.descriptor.attention_layers[0].in_proj.w: is not embedding width x "
                      "3 attn");
  expect_format_error("\"activation_function\": \"linear\"", "\"activation_function\": \"tanh\"",
                      "model.descriptor.attention_layers[0].in_proj: is not a linear layer");
  expect_format_error("\"@class\": \"TypeEmbedNet\",\n    \"@version\": 2,\n    \"ntypes\": 2",
                      "\"@class\": \"TypeEmbedNet\",\n    \"@version\": 2,\n    \"ntypes\": 3",
                      "model.descriptor.type_embedding.ntypes: differs from the type map's");
}

// The kernel checks its neighbor lists as for se_e2_a (DeePMD-kit's message).
TEST(DeepmdDpa1, KernelRejectsAnInvalidNeighbor) {
  const Model m = load_model(kDir + "/dpa1.yaml");
  const std::vector<double> x = {0, 0, 0, 1, 0, 0};
  const std::vector<int> type = {0, 1};
  const NeighborList list{{0, 1}, {7}};
  try {
    compute(m, x, type, 1, list);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("neighbor list of atom 0 holds invalid index 7"),
              std::string::npos)
        << e.what();
  }
}

TEST(DeepmdDpa1, RefusesWhatItDoesNotImplement) {
  auto expect_config_error = [](const auto& make, const std::string& text) {
    try {
      make();
      ADD_FAILURE() << "no error; expected: " << text;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_config_error([] { edited("\"attn_mask\": false", "\"attn_mask\": true"); },
                      "dpa1 with attn_mask is not supported");
  expect_config_error([] { edited("\"use_econf_tebd\": false", "\"use_econf_tebd\": true"); },
                      "dpa1 with use_econf_tebd (electronic-configuration type embedding) is not "
                      "supported");
  expect_config_error(
      [] {
        edited(
            "\"@class\": \"Layer\",\n        \"@version\": 1,\n        \"bias\": true,\n        "
            "\"use_timestep\": false,\n        \"activation_function\": \"linear\"",
            "\"@class\": \"Layer\",\n        \"@version\": 1,\n        \"bias\": false,\n        "
            "\"use_timestep\": false,\n        \"activation_function\": \"linear\"");
      },
      "model.descriptor.attention_layers[0].in_proj has no bias; attention layers without bias "
      "are not supported");
  expect_config_error([] { edited("\"num_heads\": 1", "\"num_heads\": 2"); },
                      "model.descriptor.attention_layers[0] has more than one head; DPA-1 has one");
  expect_config_error(
      [] {
        edited("\"type\": \"dpa1\",\n   \"@version\": 2",
               "\"type\": \"dpa1\",\n   \"@version\": 4");
      },
      "has @version 4: its higher-moment (lmax > 1) form is not supported");
  expect_config_error(
      [] {
        edited("\"env_protection\": 0.0,",
               "\"env_protection\": 0.0, \"compress\": {\"geo_compress\": true},");
      },
      "DPA-1 models whose embedding net `dp compress` tabulated (geo_compress) are not supported");
  expect_config_error(
      [] {
        Model m = load_model(kDir + "/dpa1.yaml");
        compress(m, {.min_nbor_dist = 0.8});
      },
      "compression of the dpa1 (se_atten) descriptor is not supported");
  expect_config_error(
      [] {
        Model m = load_model(kDir + "/dpa1.yaml");
        m.precision = Precision::kFloat32;
        const Config c = random_config(1, 1, 6, false, 0.9);
        evaluate(m, c.x, c.type, c.cell);
      },
      "the dpa1 (se_atten) descriptor runs in float64 only");
  expect_config_error(
      [] {
        std::string text = read_text(kDir + "/deeppot-r.yaml");
        const auto at = text.find("mixed_types: false");
        text.replace(at, 18, "mixed_types: true");
        parse_model(text, "se_r mixed");
      },
      "fitting with mixed_types: true is supported with the dpa1 descriptor only");
}

}  // namespace
}  // namespace tessera::md::deepmd
