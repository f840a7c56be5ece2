// pair_style deepmd in md_ipu's input language: DeePMD-kit's own results through the whole
// md path (data file, tiles, ghosts, returned forces), the model deviation file, energy
// conservation and restart. The model and DeePMD-kit's results live in ../shared/data/deepmd;
// the tests skip with a message where it is absent.
#include "tessera/md/pair_deepmd.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <tuple>

#include "md_test_support.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/data_file.hpp"
#include "tessera/md/deepmd/se_a.hpp"

namespace tessera::md::test {
namespace {

const std::string kDir = std::string(TESSERA_SHARED_DATA) + "/deepmd";
const std::string kModel = kDir + "/deeppot_sea.yaml";
const std::string kCases = kDir + "/deeppot-testcase.yaml";
const std::string kWater = std::string(TESSERA_EXAMPLES) + "/deepmd_water/water_192.data";

#define SKIP_WITHOUT_DATA()                                                 \
  if (!std::filesystem::exists(kModel) || !std::filesystem::exists(kCases)) \
  GTEST_SKIP() << "DeePMD-kit reference data not found in " << kDir         \
               << " (it lives in the project's shared/data/deepmd beside the repository)"

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "tessera_" + name; }

// A LAMMPS data file of one of DeePMD-kit's periodic test frames (types 0/1 -> 1/2).
std::string write_frame(const YAML::Node& frame, const std::string& path) {
  const auto coord = frame["coord"].as<std::vector<double>>();
  const auto atype = frame["atype"].as<std::vector<int>>();
  const auto box = frame["box"].as<std::vector<double>>();
  std::ofstream out(path);
  out.precision(17);
  out << "DeePMD-kit test frame\n\n" << atype.size() << " atoms\n2 atom types\n\n";
  out << "0 " << box[0] << " xlo xhi\n0 " << box[4] << " ylo yhi\n0 " << box[8] << " zlo zhi\n";
  out << "\nMasses\n\n1 15.9994\n2 1.008\n\nAtoms # atomic\n\n";
  for (std::size_t i = 0; i < atype.size(); ++i)
    out << i + 1 << " " << atype[i] + 1 << " " << coord[3 * i] << " " << coord[3 * i + 1] << " "
        << coord[3 * i + 2] << "\n";
  return path;
}

std::string setup(const std::string& data, const std::string& pair_style,
                  const std::string& rest = "", const std::string& units = "metal") {
  return "units " + units + "\natom_style atomic\nread_data " + data + "\npair_style " +
         pair_style + "\npair_coeff * * O H\nneighbor 0.5 bin\nfix 1 all nve\n" + rest;
}

// The message of the error a script stops with ("no error" when it runs through).
std::string error_of(const std::string& script) {
  Session s(host_target(1), 1);
  try {
    s.input.run_script(script, "test");
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

double relative_error(double got, double want) {
  return std::abs(got - want) / std::max(1.0, std::abs(want));
}

// DeePMD-kit's reference for a frame: total energy, virial (xx yy zz xy xz yz) and forces.
struct FrameReference {
  double energy = 0;
  std::array<double, 6> virial{};
  std::vector<double> force;
  explicit FrameReference(const YAML::Node& frame)
      : force(frame["force"].as<std::vector<double>>()) {
    for (double e : frame["atomic_energy"].as<std::vector<double>>()) energy += e;
    std::array<double, 9> w{};
    const auto atom_virial = frame["atomic_virial"].as<std::vector<double>>();
    for (std::size_t k = 0; k < atom_virial.size(); ++k) w[k % 9] += atom_virial[k];
    virial = {w[0], w[4], w[8], w[3], w[6], w[7]};
  }
  // The session's pe, virial and forces within `tolerance` (relative, absolute below 1).
  void expect_matched(Session& s, double tolerance) const {
    const Thermo t = s.sim().thermo();
    EXPECT_LT(relative_error(t.pe, energy), tolerance) << t.pe << " vs " << energy;
    for (std::size_t k = 0; k < 6; ++k)
      EXPECT_LT(relative_error(t.virial[k], virial[k]), tolerance) << "virial " << k;
    const auto atoms = s.sim().gather_atoms();
    ASSERT_EQ(3 * atoms.size(), force.size());
    for (std::size_t i = 0; i < atoms.size(); ++i)
      for (std::size_t d = 0; d < 3; ++d)
        EXPECT_LT(relative_error(atoms[i].f[d], force[3 * i + d]), tolerance)
            << "atom " << i + 1 << " component " << d;
  }
};

// md_ipu's forces, energy and virial for DeePMD-kit's periodic frames (`cases`, its test file of
// reference values for `model`) equal DeePMD-kit's own to 1e-10, however the box is cut into
// tiles (ghosts then cross tiles and come back).
void expect_reproduces(const std::string& model, const std::string& cases_path) {
  const YAML::Node cases = YAML::LoadFile(cases_path)["results"];
  int periodic = 0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const YAML::Node frame = cases[c];
    if (frame["box"].IsNull()) continue;
    ++periodic;
    const std::string data = write_frame(frame, temp_path("deepmd_frame.data"));
    const FrameReference reference(frame);
    for (int tiles : {1, 2, 8}) {
      SCOPED_TRACE("frame " + std::to_string(c) + ", " + std::to_string(tiles) + " tiles");
      Session s(host_target(tiles), 2);
      s.input.run_script(setup(data, "deepmd " + model, "run 0\n"), "test");
      reference.expect_matched(s, 1e-10);
    }
    std::remove(data.c_str());
  }
  EXPECT_GE(periodic, 2);
}

TEST(PairDeepmd, ReproducesDeepmdKitOnAnyTileCount) {
  SKIP_WITHOUT_DATA();
  expect_reproduces(kModel, kCases);
}

// A model in DeePMD-kit's .dp form as DeePMD-kit's save_dp_model writes one
// (deepmd/dpmodel/utils/serialization.py): the YAML form's tree as JSON in the root attribute
// "json" (a variable-length UTF-8 string, as h5py writes a str), each np.ndarray under
// "@variables" a dataset "variable_NNNN" (numbered in the tree's order) named in its place.
class DpWriter {
 public:
  explicit DpWriter(const std::string& path)
      : file_(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) {}
  ~DpWriter() { H5Fclose(file_); }
  void write(const YAML::Node& root) {
    const std::string text = json(root, false).dump();
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attr = H5Acreate2(file_, "json", type, space, H5P_DEFAULT, H5P_DEFAULT);
    const char* data = text.c_str();
    H5Awrite(attr, type, &data);
    H5Aclose(attr), H5Sclose(space), H5Tclose(type);
  }

 private:
  nlohmann::json json(const YAML::Node& node, bool variable) {
    if (node.IsMap()) {
      if (variable && node["@class"] && node["@class"].Scalar() == "np.ndarray")
        return dataset(node);
      nlohmann::json out = nlohmann::json::object();
      for (const auto& kv : node)
        out[kv.first.Scalar()] = json(kv.second, variable || kv.first.Scalar() == "@variables");
      return out;
    }
    if (node.IsSequence()) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& v : node) out.push_back(json(v, variable));
      return out;
    }
    if (node.IsNull()) return nullptr;
    const std::string& text = node.Scalar();
    if (node.Tag() == "!") return text;  // quoted in the YAML: a string
    if (text == "true" || text == "false") return text == "true";
    char* end = nullptr;
    const long long i = std::strtoll(text.c_str(), &end, 10);
    if (!text.empty() && *end == '\0') return i;
    const double d = std::strtod(text.c_str(), &end);
    if (!text.empty() && *end == '\0') return d;
    return text;
  }
  // The array's values (nested lists) as a dataset of its dtype; its name in the tree's place.
  nlohmann::json dataset(const YAML::Node& node) {
    std::vector<hsize_t> dims;
    std::vector<double> values;
    const auto flatten = [&](auto&& self, const YAML::Node& v, std::size_t depth) -> void {
      if (!v.IsSequence()) {
        values.push_back(v.as<double>());
        return;
      }
      if (dims.size() == depth) dims.push_back(v.size());
      for (const auto& e : v) self(self, e, depth + 1);
    };
    flatten(flatten, node["value"], 0);
    const bool f32 = node["dtype"].Scalar() == "float32";
    char name[32];
    std::snprintf(name, sizeof name, "variable_%04d", count_++);
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t set = H5Dcreate2(file_, name, f32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space,
                                 H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(set), H5Sclose(space);
    return std::string("/") + name;
  }

  hid_t file_;
  int count_ = 0;
};

// The YAML model written as .dp gives DeePMD-kit's reference values on any tile count, and the
// same forces and energy as its YAML form to the last bit.
TEST(PairDeepmd, ReadsDpModels) {
  SKIP_WITHOUT_DATA();
  const std::string dp = temp_path("deeppot_sea.dp");
  DpWriter(dp).write(YAML::LoadFile(kModel));
  expect_reproduces(dp, kCases);
  const YAML::Node frame = YAML::LoadFile(kCases)["results"][0];
  const std::string data = write_frame(frame, temp_path("deepmd_frame_dp.data"));
  std::vector<AtomRecord> atoms[2];
  double pe[2];
  for (int k = 0; k < 2; ++k) {
    Session s(host_target(2), 2);
    s.input.run_script(setup(data, "deepmd " + (k == 0 ? kModel : dp), "run 0\n"), "test");
    pe[k] = s.sim().thermo().pe;
    atoms[k] = s.sim().gather_atoms();
  }
  EXPECT_EQ(pe[0], pe[1]);
  for (std::size_t i = 0; i < atoms[0].size(); ++i) EXPECT_EQ(atoms[0][i].f, atoms[1][i].f);
  std::remove(dp.c_str());
  std::remove(data.c_str());
}

// An HDF5 file without the "json" attribute, one whose JSON names a dataset it lacks, one whose
// "json" is not JSON and one with integers for an array are refused with what is wrong.
TEST(PairDeepmd, RefusesBrokenDpFiles) {
  SKIP_WITHOUT_DATA();
  const std::string empty = temp_path("empty.dp"), dangling = temp_path("dangling.dp");
  { DpWriter writer(empty); }
  {
    YAML::Node tree = YAML::LoadFile(kModel);
    DpWriter(dangling).write(tree);
    // Rename one dataset away: the JSON still names it.
    const hid_t file = H5Fopen(dangling.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Lmove(file, "variable_0003", file, "renamed", H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(file);
  }
  const std::string water = "atom_style atomic\nread_data " + kWater + "\n";
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + empty)
                .find("DeePMD model '" + empty + "': the file has no root attribute 'json'"),
            std::string::npos);
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + dangling)
                .find("DeePMD model '" + dangling +
                      "': its JSON names dataset '/variable_0003', which the file does not have"),
            std::string::npos);
  // A fixed-length string that is not JSON, and an array of integers where floats belong.
  const std::string not_json = temp_path("not_json.dp"), integers = temp_path("integers.dp");
  {
    const hid_t file = H5Fcreate(not_json.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, 8);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attr = H5Acreate2(file, "json", type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, type, "{model:");
    H5Aclose(attr), H5Sclose(space), H5Tclose(type), H5Fclose(file);
  }
  {
    const std::string text = R"({"model":{"@variables":{"w":"/variable_0000"}}})";
    const hid_t file = H5Fcreate(integers.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t n = 2;
    const int values[2] = {1, 2};
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t set = H5Dcreate2(file, "variable_0000", H5T_STD_I32LE, space, H5P_DEFAULT,
                                 H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(set, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    const hid_t scalar = H5Screate(H5S_SCALAR);
    const hid_t attr = H5Acreate2(file, "json", type, scalar, H5P_DEFAULT, H5P_DEFAULT);
    const char* data = text.c_str();
    H5Awrite(attr, type, &data);
    H5Aclose(attr), H5Sclose(scalar), H5Tclose(type), H5Dclose(set), H5Sclose(space);
    H5Fclose(file);
  }
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + not_json)
                .find("DeePMD model '" + not_json + "': its attribute 'json' is not JSON"),
            std::string::npos);
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + integers)
                .find("DeePMD model '" + integers +
                      "': dataset '/variable_0000' is not an array of floating-point numbers"),
            std::string::npos);
  for (const auto& path : {empty, dangling, not_json, integers}) std::remove(path.c_str());
}

// A .dp file that DeePMD-kit itself wrote (3.0.0a1; tests/md/data/deepmd/README.md) is read: its
// model (se_e2_a, O and H, sel 46 and 92) runs, with forces that sum to zero. (Its reference
// values are those of the TensorFlow model it came from, whose embedding nets are per type
// pair; this early file kept one per neighbor type, so its energies differ from them by 2e-5.)
TEST(PairDeepmd, ReadsDeepmdKitsOwnDpFile) {
  SKIP_WITHOUT_DATA();
  const std::string model = std::string(TESSERA_MD_DATA) + "/deepmd/deeppot.dp";
  const YAML::Node frame = YAML::LoadFile(kCases)["results"][0];
  const std::string data = write_frame(frame, temp_path("deepmd_frame_own_dp.data"));
  Session s(host_target(2), 2);
  s.input.run_script(setup(data, "deepmd " + model, "run 0\n"), "test");
  const auto& pair = dynamic_cast<const PairDeepMD&>(*s.sim().pair());
  EXPECT_EQ(pair.model(0).type_map, (std::vector<std::string>{"O", "H"}));
  EXPECT_EQ(pair.model(0).sel, (std::vector<int>{46, 92}));
  EXPECT_EQ(pair.cutoff(), 6.0);
  std::array<double, 3> sum{};
  double scale = 0;
  for (const auto& a : s.sim().gather_atoms())
    for (std::size_t d = 0; d < 3; ++d) sum[d] += a.f[d], scale = std::max(scale, std::abs(a.f[d]));
  EXPECT_GT(scale, 0.1);
  for (double f : sum) EXPECT_LT(std::abs(f), 1e-12 * scale);
  EXPECT_TRUE(std::isfinite(s.sim().thermo().pe));
  std::remove(data.c_str());
}

// `precision float32` runs the networks in float32: DeePMD-kit's float64 results are met to the
// float32 rounding bound derived in deepmd_test.cpp (5.8e-5 of the scale), and not bit for bit.
TEST(PairDeepmd, Float32NetworksStayWithinTheirRoundingBound) {
  SKIP_WITHOUT_DATA();
  const YAML::Node frame = YAML::LoadFile(kCases)["results"][0];
  ASSERT_FALSE(frame["box"].IsNull());
  const std::string data = write_frame(frame, temp_path("deepmd_frame32.data"));
  const auto force = frame["force"].as<std::vector<double>>();
  double scale = 0;
  for (double f : force) scale = std::max(scale, std::abs(f));
  Session s(host_target(2), 2);
  s.input.run_script(setup(data, "deepmd " + kModel + " precision float32", "run 0\n"), "test");
  const auto atoms = s.sim().gather_atoms();
  double worst = 0;
  for (std::size_t i = 0; i < atoms.size(); ++i)
    for (std::size_t d = 0; d < 3; ++d)
      worst = std::max(worst, std::abs(atoms[i].f[d] - force[3 * i + d]) / scale);
  EXPECT_LT(worst, 5.8e-5);
  EXPECT_GT(worst, 0.0);
  std::remove(data.c_str());
}

// A second model that differs from the first (a wider switching region), for model deviation.
std::string write_second_model() {
  std::string text = read_text(kModel);
  std::size_t at = 0;
  int replaced = 0;
  while ((at = text.find("rcut_smth: 0.5", at)) != std::string::npos) {
    text.replace(at, 14, "rcut_smth: 2.0");
    ++replaced;
  }
  EXPECT_GE(replaced, 2);
  const std::string path = temp_path("deeppot_sea_smth2.yaml");
  std::ofstream(path) << text;
  return path;
}

// DeePMD-kit's model deviation of the first frame, computed here from whole-system evaluations
// of both models: per-atom force deviation sqrt(mean_k |F_k - <F>|^2) and the per-atom virial's
// standard deviation over models, component by component.
// With a `relative` level, each atom's deviation is over |<F>| + level; with `relative_v`, each
// virial component's over |<W>| / N + level (DeePMD-kit's relative model deviation).
struct ExpectedDeviation {
  double v_max = 0, v_min = std::numeric_limits<double>::max(), v_avg = 0;
  double f_max = 0, f_min = std::numeric_limits<double>::max(), f_avg = 0;
  std::vector<double> atomic;  // each atom's, in the data file's order (its ids 1..N)
};
ExpectedDeviation expected_deviation(const std::vector<std::string>& models,
                                     const std::string& data,
                                     std::optional<double> relative = std::nullopt,
                                     std::optional<double> relative_v = std::nullopt) {
  // The water box: positions from the data file (types 1/2 -> 0/1).
  std::ifstream in(data);
  std::string line;
  double edge = 0;
  std::vector<double> x;
  std::vector<int> types;
  bool atoms = false;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    if (line.find("xlo xhi") != std::string::npos) {
      double lo;
      w >> lo >> edge;
    } else if (line.rfind("Atoms", 0) == 0) {
      atoms = true;
    } else if (atoms) {
      long id;
      int type;
      double p[3];
      if (w >> id >> type >> p[0] >> p[1] >> p[2]) {
        types.push_back(type - 1);
        x.insert(x.end(), p, p + 3);
      }
    }
  }
  const std::array<double, 9> cell{edge, 0, 0, 0, edge, 0, 0, 0, edge};
  std::vector<deepmd::Result> r;
  for (const auto& m : models) r.push_back(deepmd::evaluate(deepmd::load_model(m), x, types, cell));
  const double n = static_cast<double>(types.size()), k = static_cast<double>(models.size());
  ExpectedDeviation e;
  for (std::size_t i = 0; i < types.size(); ++i) {
    double sq = 0, mean_sq = 0;
    for (std::size_t d = 0; d < 3; ++d) {
      double mean = 0;
      for (const auto& ri : r) mean += ri.force[3 * i + d] / k;
      for (const auto& ri : r) sq += (ri.force[3 * i + d] - mean) * (ri.force[3 * i + d] - mean);
      mean_sq += mean * mean;
    }
    double devi = std::sqrt(sq / k);
    if (relative) devi /= std::sqrt(mean_sq) + *relative;
    e.atomic.push_back(devi);
    e.f_max = std::max(e.f_max, devi), e.f_min = std::min(e.f_min, devi), e.f_avg += devi / n;
  }
  double sum_sq = 0;
  for (std::size_t c = 0; c < 9; ++c) {
    double mean = 0, var = 0;
    for (const auto& ri : r) mean += ri.virial()[c] / n / k;
    for (const auto& ri : r) var += (ri.virial()[c] / n - mean) * (ri.virial()[c] / n - mean) / k;
    double sd = std::sqrt(var);
    if (relative_v) sd /= std::fabs(mean) + *relative_v;
    e.v_max = std::max(e.v_max, sd), e.v_min = std::min(e.v_min, sd);
    sum_sq += sd * sd;
  }
  e.v_avg = std::sqrt(sum_sq / 9);
  return e;
}

// The model_devi.out file: DeePMD-kit's header and columns, a row every out_freq steps from the
// first, and the first row equal to the deviation computed independently from both models.
TEST(PairDeepmd, WritesTheModelDeviationFile) {
  SKIP_WITHOUT_DATA();
  const std::string second = write_second_model();
  const std::string out = temp_path("model_devi.out");
  Session s(host_target(4), 2);
  s.input.run_script(
      setup(kWater, "deepmd " + kModel + " " + second + " out_file " + out + " out_freq 5",
            "timestep 0.0005\nrun 10\n"),
      "test");
  std::ifstream in(out);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header,
            "#       step         max_devi_v         min_devi_v         avg_devi_v         "
            "max_devi_f         min_devi_f         avg_devi_f");
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::vector<double> v(7);
    for (double& value : v) w >> value;
    ASSERT_TRUE(w) << line;
    rows.push_back(v);
  }
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][0], 0);
  EXPECT_EQ(rows[1][0], 5);
  EXPECT_EQ(rows[2][0], 10);
  const ExpectedDeviation e = expected_deviation({kModel, second}, kWater);
  const double want[6] = {e.v_max, e.v_min, e.v_avg, e.f_max, e.f_min, e.f_avg};
  for (std::size_t c = 0; c < 6; ++c) {
    EXPECT_GT(want[c], 0) << "column " << c + 1;  // the models do differ
    // The file holds 7 significant digits.
    EXPECT_NEAR(rows[0][c + 1], want[c], 1e-6 * want[c]) << "column " << c + 1;
  }
  std::remove(out.c_str());
  std::remove(second.c_str());
}

// The plugin's atomic, relative and relative_v keywords: after the six columns every atom's force
// deviation in id order, each over |<F>| + 0.5 eV/A, and the virial columns each over |<W>|/N +
// 0.2 eV, against the independent evaluation; a level off by 1% would show in the columns
// (relative deviations of this frame move by about 0.2% per 1% of level, far above the file's 7
// digits), and so would a wrong atom order.
TEST(PairDeepmd, WritesAtomicAndRelativeDeviations) {
  SKIP_WITHOUT_DATA();
  const std::string second = write_second_model();
  const std::string out = temp_path("model_devi_relative.out");
  Session s(host_target(4), 2);
  s.input.run_script(setup(kWater,
                           "deepmd " + kModel + " " + second + " out_file " + out +
                               " out_freq 1 atomic relative 0.5 relative_v 0.2",
                           "run 0\n"),
                     "test");
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  ASSERT_TRUE(std::getline(in, line));
  std::istringstream w(line);
  std::vector<double> row;
  for (double v; w >> v;) row.push_back(v);
  const ExpectedDeviation e = expected_deviation({kModel, second}, kWater, 0.5, 0.2);
  ASSERT_EQ(row.size(), 7 + e.atomic.size());
  const double want[6] = {e.v_max, e.v_min, e.v_avg, e.f_max, e.f_min, e.f_avg};
  for (std::size_t c = 0; c < 6; ++c) {
    EXPECT_GT(want[c], 0) << "column " << c + 1;
    EXPECT_NEAR(row[c + 1], want[c], 1e-6 * want[c]) << "column " << c + 1;
  }
  for (std::size_t i = 0; i < e.atomic.size(); ++i)
    EXPECT_NEAR(row[7 + i], e.atomic[i], 1e-6 * e.atomic[i]) << "atom " << i + 1;
  std::remove(out.c_str());
  std::remove(second.c_str());
}

// units real, as DeePMD-kit's plugin runs a model there: the energy, forces and virial are units
// metal's times boltz / 8.617343e-5 (kcal/mol per eV: 23.06), to rounding, and so are the model
// deviation file's columns (forces and virials alike). A factor off by 1e-9 would show.
TEST(PairDeepmd, UnitsRealConvertsAsThePlugin) {
  SKIP_WITHOUT_DATA();
  const double factor = 0.0019872067 / 8.617343e-5;
  const std::string second = write_second_model();
  std::vector<std::vector<double>> rows[2];
  std::vector<AtomRecord> atoms[2];
  Thermo thermo[2];
  for (int u = 0; u < 2; ++u) {
    const std::string units = u == 0 ? "metal" : "real";
    const std::string out = temp_path("model_devi_" + units + ".out");
    Session s(host_target(4), 2);
    s.input.run_script(
        setup(kWater, "deepmd " + kModel + " " + second + " out_file " + out + " out_freq 1",
              "run 0\n", units),
        "test");
    thermo[u] = s.sim().thermo();
    atoms[u] = s.sim().gather_atoms();
    std::ifstream in(out);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::istringstream w(line);
      std::vector<double> v(7);
      for (double& value : v) w >> value;
      rows[u].push_back(v);
    }
    std::remove(out.c_str());
  }
  std::remove(second.c_str());
  EXPECT_LT(relative_error(thermo[1].pe, factor * thermo[0].pe), 1e-13);
  for (std::size_t k = 0; k < 6; ++k)
    EXPECT_LT(relative_error(thermo[1].virial[k], factor * thermo[0].virial[k]), 1e-13);
  ASSERT_EQ(atoms[0].size(), atoms[1].size());
  for (std::size_t i = 0; i < atoms[0].size(); ++i)
    for (std::size_t d = 0; d < 3; ++d)
      EXPECT_LT(relative_error(atoms[1][i].f[d], factor * atoms[0][i].f[d]), 1e-13);
  ASSERT_EQ(rows[0].size(), 1u);
  ASSERT_EQ(rows[1].size(), 1u);
  for (std::size_t c = 1; c < 7; ++c)  // 7 significant digits in the file
    EXPECT_NEAR(rows[1][0][c], factor * rows[0][0][c], 1e-6 * factor * rows[0][0][c]);
}

// Velocity Verlet with the model's analytic forces conserves energy: over 50 fs of 192 atoms
// of water at 300 K, the total energy's largest excursion is second order in the time step
// (it falls by 4 when dt halves; we accept 3 to 5.5) and stays below 1e-6 eV per atom at
// dt = 0.5 fs. (This test model lets hydrogens of different molecules pass through each other
// after about 60 fs from this start, a stiff event no time step resolves; see docs/deepmd.md.)
double nve_excursion(double dt) {
  Session s(host_target(2), 2);
  const int steps = static_cast<int>(std::lround(0.05 / dt));
  auto recorder = std::make_shared<Recorder>(steps / 20);
  s.sim().add_observer(recorder);
  s.input.run_script(setup(kWater, "deepmd " + kModel,
                           "velocity all create 300.0 4928459 dist gaussian mom yes\n"
                           "timestep " +
                               std::to_string(dt) + "\nrun " + std::to_string(steps) + "\n"),
                     "test");
  const double e0 = recorder->rows.begin()->second[2];
  double worst = 0;
  for (const auto& [step, row] : recorder->rows) worst = std::max(worst, std::abs(row[2] - e0));
  std::printf(
      "NVE water, 192 atoms, %d x %.2f fs: largest |E - E0| %.3e eV/atom, drift %.3e "
      "eV/atom\n",
      steps, dt * 1000, worst, recorder->rows.rbegin()->second[2] - e0);
  return worst;
}

TEST(PairDeepmd, NveConservesEnergyToSecondOrder) {
  SKIP_WITHOUT_DATA();
  const double coarse = nve_excursion(0.0005), fine = nve_excursion(0.00025);
  EXPECT_LT(coarse, 1e-6);
  EXPECT_GT(coarse / fine, 3.0);
  EXPECT_LT(coarse / fine, 5.5);
}

// A run continued from a restart file (which records the model files and element map) is the
// uninterrupted run, bit for bit.
TEST(PairDeepmd, RestartContinuesBitwise) {
  SKIP_WITHOUT_DATA();
  const std::string restart = temp_path("deepmd.restart");
  const std::string script = setup(kWater, "deepmd " + kModel,
                                   "velocity all create 300.0 87287 mom yes\n"
                                   "timestep 0.0005\nunfix 1\n"
                                   "fix 2 all nvt temp 300 300 0.05\nrun 10\n");
  Session a(host_target(2), 2);
  a.input.run_script(script, "first");
  write_restart(a.sim(), restart);
  a.input.run_script("run 10\n", "second");
  const auto end_a = a.sim().gather_atoms();
  Session b(host_target(2), 1);
  b.input.run_script("read_restart " + restart + "\nrun 10\n", "continued");
  const auto end_b = b.sim().gather_atoms();
  ASSERT_EQ(end_a.size(), end_b.size());
  for (std::size_t i = 0; i < end_a.size(); ++i)
    for (std::size_t d = 0; d < 3; ++d) {
      EXPECT_EQ(end_a[i].x[d], end_b[i].x[d]) << "atom " << end_a[i].id;
      EXPECT_EQ(end_a[i].v[d], end_b[i].v[d]) << "atom " << end_a[i].id;
    }
  std::remove(restart.c_str());
}

// fparam and aparam as the plugin's keywords: DeePMD-kit's model with one frame and one atomic
// parameter (tests/md/data/deepmd) gives its own reference energy, forces and virial through md_ipu
// on 1, 2 and 8 tiles (as DeePMD-kit's source/lmp/tests/test_lammps_faparam.py runs its plugin),
// to DeePMD-kit's own cross-backend tolerance for this model (5e-8; deepmd_test.cpp says why);
// the values go through a restart file, and wrong counts stop with the plugin's messages.
TEST(PairDeepmd, FrameAndAtomParametersAsThePlugin) {
  const std::string dir = std::string(TESSERA_MD_DATA) + "/deepmd";
  const std::string model = dir + "/fparam_aparam.yaml";
  const YAML::Node frame = YAML::LoadFile(dir + "/fparam_aparam-testcase.yaml")["results"][0];
  const std::string data = write_frame(frame, temp_path("deepmd_fparam.data"));
  const FrameReference reference(frame);
  const std::string style = "deepmd " + model + " fparam 0.25852028 aparam 0.25852028";
  const auto script = [&](const std::string& pair_style, const std::string& rest) {
    return "units metal\natom_style atomic\nread_data " + data + "\npair_style " + pair_style +
           "\npair_coeff * * O O\n" + rest;
  };
  const std::string restart = temp_path("deepmd_fparam.restart");
  for (int tiles : {1, 2, 8}) {
    SCOPED_TRACE(std::to_string(tiles) + " tiles");
    Session s(host_target(tiles), 2);
    s.input.run_script(script(style, "run 0\n"), "test");
    reference.expect_matched(s, 5e-8);
    if (tiles == 2) write_restart(s.sim(), restart);
  }
  Session again(host_target(2), 1);
  again.input.run_script("read_restart " + restart + "\nrun 0\n", "continued");
  reference.expect_matched(again, 5e-8);
  // Other values give another energy.
  Session other(host_target(2), 1);
  other.input.run_script(script("deepmd " + model + " fparam 0.3 aparam 0.25852028", "run 0\n"),
                         "other");
  EXPECT_GT(std::abs(other.sim().thermo().pe - reference.energy), 1e-4);

  const std::string bare = "deepmd " + model;
  EXPECT_NE(error_of(script(bare + " aparam 0.25852028", ""))
                .find("model " + model +
                      " takes 1 fparam value(s) (numb_fparam); give them with "
                      "the keyword fparam"),
            std::string::npos);
  EXPECT_NE(error_of(script(bare + " fparam 0.25852028", ""))
                .find("takes 1 aparam value(s) (numb_aparam); give them with the keyword aparam"),
            std::string::npos);
  EXPECT_NE(error_of(script(bare + " fparam 0.1 0.2 aparam 0.25852028", ""))
                .find("pair_style deepmd: Illegal fparam, the dimension should be 1 (model " +
                      model + "; 2 given)"),
            std::string::npos);
  EXPECT_NE(error_of(script(bare + " fparam 0.1 aparam", ""))
                .find("pair_style deepmd: keyword aparam needs its values"),
            std::string::npos);
  EXPECT_NE(error_of(script(bare + " fparam 0.1 aparam 0.2 fparam 0.3", ""))
                .find("pair_style deepmd: keyword fparam is given twice"),
            std::string::npos);
  EXPECT_NE(error_of(script(bare + " aparam_from_compute c fparam 0.1", ""))
                .find("keyword aparam_from_compute of DeePMD-kit's plugin is not supported"),
            std::string::npos);
  std::remove(data.c_str());
  std::remove(restart.c_str());
}

// DeePMD-kit's se_e2_r test model (nets per type pair; tests/md/data/deepmd) through md_ipu:
// its reference frames to 1e-10 on 1, 2 and 8 tiles, as the se_e2_a model's.
TEST(PairDeepmd, ReproducesDeepmdKitSeR) {
  const std::string dir = std::string(TESSERA_MD_DATA) + "/deepmd";
  expect_reproduces(dir + "/deeppot-r.yaml", dir + "/deeppot-r-testcase.yaml");
}

// The compress keywords: DeePMD-kit's frames through md_ipu with the model tabulated at load
// (DeePMD-kit's defaults, stride 0.01) still give DeePMD-kit's results to 1e-10 on 1, 2 and 8
// tiles (the table's error is below round-off for this model, deepmd_compress_test.cpp); a
// coarse stride (0.5) does change the forces, by less than 1e-5 eV/A, so the keyword acts; a
// restart file keeps the settings (the continued run's energy and forces equal bit for bit);
// `compress no` runs the nets. Bad settings stop with their messages.
TEST(PairDeepmd, CompressKeywordsTabulateAtLoad) {
  SKIP_WITHOUT_DATA();
  expect_reproduces(kModel + " compress yes min_nbor_dist 0.8", kCases);
  const std::string restart = temp_path("deepmd_compress.restart");
  const auto forces = [](Session& s) {
    std::vector<double> f;
    for (const auto& a : s.sim().gather_atoms()) f.insert(f.end(), a.f.begin(), a.f.end());
    return f;
  };
  Session exact(host_target(2), 1), coarse(host_target(2), 1);
  exact.input.run_script(setup(kWater, "deepmd " + kModel + " compress no", "run 0\n"), "exact");
  coarse.input.run_script(
      setup(kWater, "deepmd " + kModel + " compress_stride 0.5 min_nbor_dist 0.8", "run 0\n"),
      "coarse");
  const auto* style = dynamic_cast<const PairDeepMD*>(coarse.sim().pair());
  ASSERT_NE(style, nullptr);
  EXPECT_TRUE(style->model(0).compressed());
  EXPECT_EQ(style->model(0).tables[0].stride0(), 0.5);
  const auto fe = forces(exact), fc = forces(coarse);
  double worst = 0;
  for (std::size_t k = 0; k < fe.size(); ++k) worst = std::max(worst, std::abs(fe[k] - fc[k]));
  EXPECT_GT(worst, 1e-10);
  EXPECT_LT(worst, 1e-5);
  write_restart(coarse.sim(), restart);
  Session again(host_target(2), 1);
  again.input.run_script("read_restart " + restart + "\nrun 0\n", "continued");
  EXPECT_EQ(again.sim().thermo().pe, coarse.sim().thermo().pe);
  EXPECT_EQ(forces(again), fc);
  std::remove(restart.c_str());

  const std::string water = "units metal\natom_style atomic\nread_data " + kWater + "\n";
  for (const auto& [settings, message] : std::vector<std::pair<std::string, std::string>>{
           {"compress yes",
            "model " + kModel +
                ": DeePMD model compression needs the smallest neighbor distance of the training "
                "data, which the model does not record; give it (min_nbor_dist, in Angstrom)"},
           {"compress maybe", "pair_style deepmd: compress must be yes or no, not maybe"},
           {"compress no min_nbor_dist 0.8",
            "compress no with compress_stride, compress_extrapolate or min_nbor_dist"},
           {"min_nbor_dist 0.8 compress_stride 0.03", "the stride must be 1/N for an integer N"},
           {"min_nbor_dist -1", "pair_style deepmd: min_nbor_dist must be positive, not -1"},
           {"min_nbor_dist 0.8 compress_extrapolate 0.5", "extrapolate must lie in 1..1000"}})
    EXPECT_NE(error_of(water + "pair_style deepmd " + kModel + " " + settings).find(message),
              std::string::npos)
        << settings << ": " << error_of(water + "pair_style deepmd " + kModel + " " + settings);
}

// A restart header edited by hand to an unknown precision or pair style is refused by name,
// before it changes the simulation (the edits keep the header's length, so only the value is
// wrong).
TEST(PairDeepmd, RestartWithUnknownSettingsFails) {
  SKIP_WITHOUT_DATA();
  const std::string restart = temp_path("deepmd_edit.restart");
  Session a(host_target(2), 1);
  a.input.run_script(setup(kWater, "deepmd " + kModel + " precision float32", "run 0\n"), "first");
  write_restart(a.sim(), restart);
  auto read = [&] {
    std::ifstream in(restart, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string good = read();
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(restart, std::ios::binary) << reseal_restart(text);
  };
  for (const auto& [from, to, message] :
       {std::tuple<std::string, std::string, std::string>{
            "\"float32\"", "\"float17\"",
            "records deepmd precision 'float17'; expected model, float32 or float64"},
        {"\"deepmd\"", "\"deepmx\"", "records pair style 'deepmx'"}}) {
    edited(from, to);
    Session b(host_target(2), 1);
    try {
      b.input.run_script("read_restart " + restart + "\n", "continued");
      ADD_FAILURE() << "accepted " << to;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
    EXPECT_FALSE(b.sim().has_box()) << "the refused file changed the simulation";
  }
  std::remove(restart.c_str());
}

// Errors name the problem and what to do.
TEST(PairDeepmd, RejectsBadSettings) {
  SKIP_WITHOUT_DATA();
  const std::string water = "atom_style atomic\nread_data " + kWater + "\n";
  EXPECT_NE(error_of("units lj\n" + water + "pair_style deepmd " + kModel)
                .find("pair_style deepmd does not support units lj"),
            std::string::npos);
  EXPECT_NE(
      error_of("units metal\n" + water + "pair_style deepmd " + kModel + "\npair_coeff * * O C")
          .find("pair_coeff: element C is not in the model (it knows O H)"),
      std::string::npos);
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + kModel + "\npair_coeff * * O")
                .find("1 element names for 2 atom types"),
            std::string::npos);
  EXPECT_NE(
      error_of("units metal\n" + water + "pair_style deepmd " + kModel + "\npair_coeff 1 1 O H")
          .find("pair_style deepmd takes pair_coeff * *"),
      std::string::npos);
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + kModel +
                     "\npair_coeff * * O H\ncompute e all pe/atom\nrun 0")
                .find("compute e pe/atom needs per-atom energies and virials, which pair style "
                      "deepmd does not compute"),
            std::string::npos);
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + kModel + " fparam 1.0")
                .find("pair_style deepmd: Illegal fparam, the dimension should be 0"),
            std::string::npos);
  EXPECT_NE(
      error_of("units metal\n" + water + "pair_style deepmd " + kModel + " fparam_from_compute c")
          .find("keyword fparam_from_compute of DeePMD-kit's plugin is not supported"),
      std::string::npos);
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + kModel + " relative atomic")
                .find("pair_style deepmd: keyword relative needs a value"),
            std::string::npos);
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + kModel + " relative_v -0.5")
                .find("pair_style deepmd: the level of relative_v must not be negative, not -0.5"),
            std::string::npos);
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + kModel + " out_freq -1")
                .find("out_freq must be a non-negative integer"),
            std::string::npos);
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd " + kModel + " precision half")
                .find("precision must be float32 or float64, not half"),
            std::string::npos);
  EXPECT_NE(error_of("units metal\n" + water + "pair_style deepmd /nonexistent/model.yaml")
                .find("/nonexistent/model.yaml"),
            std::string::npos);
  EXPECT_NE(
      error_of("units metal\n" + water + "pair_style deepmd " + kModel + "\npair_modify shift yes")
          .find("pair_style deepmd has no settings to modify"),
      std::string::npos);
  EXPECT_NE(
      error_of("units metal\n" + water + "pair_style deepmd " + kModel + "\nfix 1 all nve\nrun 1")
          .find("run: pair_style deepmd has no element for the atom types"),
      std::string::npos);
}

}  // namespace
}  // namespace tessera::md::test
