// Stan programs as models: Stan 2.26's array syntax read by Stan 2.21's compiler, programs
// against the hand-written built-in models (the same lp__ and gradient), the translator's and
// the data block's errors with their messages, and every posteriordb posterior of
// ../shared/data sampled from its posteriordb program against its reference summary.
//
// The programs are compiled into TESSERA_STAN_CACHE (the build folder's stan_cache, set by
// CTest), once per program and build of Tessera: the first run takes about a minute per
// program, later runs none.
#include "tessera/mcmc/stan_program.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "array_syntax.hpp"  // solvers/mcmc/src/stan_program
#include "tessera/core/error.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/mcmc/diagnostics.hpp"
#include "tessera/mcmc/models.hpp"
#include "tessera/mcmc/run.hpp"
#include "test_support.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;
using namespace tessera::mcmc::testing;

const std::string kPrograms = TESSERA_STAN_PROGRAMS;  // tests/mcmc/stan
const std::string kShared = TESSERA_SHARED_DATA;

std::string rewritten(const std::string& program, int expected_rewrites) {
  int rewrites = -1;
  const std::string out = with_old_array_syntax(program, rewrites);
  EXPECT_EQ(rewrites, expected_rewrites) << program;
  return out;
}

TEST(ArraySyntax, DeclarationsTakeTheirOldForm) {
  EXPECT_EQ(rewritten("array[T] real y;", 1), "real y[T];");
  EXPECT_EQ(rewritten("array[2] real<lower=0> sigma;", 1), "real<lower=0> sigma[2];");
  EXPECT_EQ(rewritten("array[N, K] int<lower=0, upper=(a < b)> x;", 1),
            "int<lower=0, upper=(a < b)> x[N, K];");
  EXPECT_EQ(rewritten("array[K] vector<lower=0>[size(y)] z = f(y);", 1),
            "vector<lower=0>[size(y)] z[K] = f(y);");
  EXPECT_EQ(rewritten("real f(array[] real x, data array[,] int y) {", 2),
            "real f(real[] x, data int[,] y) {");
  // Comments, strings and other identifiers stay as they are; lines stay lines.
  EXPECT_EQ(
      rewritten("// array[3] real c\nreal my_array; /* array[2] int */ print(\"array[1] real\");",
                0),
      "// array[3] real c\nreal my_array; /* array[2] int */ print(\"array[1] real\");");
  EXPECT_EQ(rewritten("array[T]\n  real y;", 1), "\n  real y[T];");
  EXPECT_EQ(rewritten("array[N] real\n  y;", 1), "real\n  y[N];");
  // Not a declaration it knows: left for the Stan compiler to refuse.
  EXPECT_EQ(rewritten("array[T] ;", 0), "array[T] ;");
}

StanBuildOptions build_options() { return {}; }  // the cache from TESSERA_STAN_CACHE

std::string write_program(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::path(stan_cache_directory({})) / "tests";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(StanProgram, SyntaxErrorsGiveTheCompilersMessageAndLine) {
  const std::string path = write_program("broken.stan",
                                         "data {\n  int N;\n}\nparameters {\n  real mu\n}\n"
                                         "model {\n  mu ~ normal(0, 1);\n}\n");
  const std::string message = message_of([&] { build_stan_program(path, build_options()); });
  EXPECT_NE(message.find("Stan program '" + path + "' does not translate:"), std::string::npos)
      << message;
  EXPECT_NE(message.find("line 6"), std::string::npos) << message;
  EXPECT_NE(message.find("the Stan compiler here is Stan 2.21's"), std::string::npos) << message;
  // The message says it all: nothing of the attempt is left in the cache.
  const std::string own_builds = ".build." + std::to_string(getpid());
  for (const auto& entry : std::filesystem::directory_iterator(stan_cache_directory({})))
    EXPECT_FALSE(entry.path().filename().string().ends_with(own_builds)) << entry.path();
}

TEST(StanProgram, MissingProgramIsNamed) {
  EXPECT_EQ(message_of([] { build_stan_program("/no/such/model.stan", build_options()); }),
            "Stan program '/no/such/model.stan' does not exist");
}

std::unique_ptr<Model> posteriordb_program(const std::string& model, const std::string& posterior) {
  const std::string data = kShared + "/posteriordb/" + posterior + "/data.json";
  const std::string library =
      build_stan_program(kPrograms + "/posteriordb/" + model + ".stan", build_options());
  return open_stan_program(library, model, read_data_file(data), data);
}

bool have_shared_data() {
  return std::filesystem::exists(kShared + "/posteriordb/garch-garch11/data.json");
}

TEST(StanProgram, DataBlockChecksNameTheVariable) {
  const std::string library =
      build_stan_program(kPrograms + "/posteriordb/garch11.stan", build_options());
  const nlohmann::json data = {{"T", 3}, {"y", {1.0, 2.0, 3.0}}, {"sigma1", -1.0}};
  const std::string message =
      message_of([&] { open_stan_program(library, "garch11", data, "d.json"); });
  EXPECT_NE(message.find("Stan program garch11 refuses the data 'd.json':"), std::string::npos)
      << message;
  EXPECT_NE(message.find("sigma1"), std::string::npos) << message;
  const nlohmann::json ragged = {{"T", 2}, {"y", {{1.0}, {2.0, 3.0}}}, {"sigma1", 1.0}};
  EXPECT_EQ(message_of([&] { open_stan_program(library, "garch11", ragged, "d.json"); }),
            "data 'd.json': field 'y' is not a rectangular array (dimension 2 has 1 elements in "
            "its first row)");
  const nlohmann::json text = {{"T", 1}, {"y", {"a"}}, {"sigma1", 1.0}};
  EXPECT_EQ(message_of([&] { open_stan_program(library, "garch11", text, "d.json"); }),
            "data 'd.json': field 'y' holds \"a\", which is not a number");
}

// The program and the built-in model of the same posterior: the same lp__ (both drop the
// constants Stan's `~` drops), gradient and reported values at random points, and
// unconstrain inverting both.
void expect_same_model(const Model& program, const Model& builtin, int reported) {
  ASSERT_EQ(program.dimension(), builtin.dimension());
  const std::vector<std::string> names = program.parameter_names(),
                                 builtin_names = builtin.parameter_names();
  ASSERT_GE(builtin_names.size(), static_cast<std::size_t>(reported));
  for (int i = 0; i < reported; ++i) EXPECT_EQ(names[i], builtin_names[i]);
  EXPECT_EQ(program.parameter_block_names(), builtin.parameter_block_names());
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 0.5);
  for (int trial = 0; trial < 5; ++trial) {
    Vector x(program.dimension());
    for (double& v : x) v = normal(rng);
    Vector g, g_ref;
    const double lp = program.log_density_gradient(x, g),
                 lp_ref = builtin.log_density_gradient(x, g_ref);
    EXPECT_NEAR(lp, lp_ref, 1e-10 * std::abs(lp_ref));
    EXPECT_NEAR(program.log_density(x), lp, 1e-12 * std::abs(lp));
    for (Eigen::Index i = 0; i < x.size(); ++i)
      EXPECT_NEAR(g[i], g_ref[i], 1e-9 * (1 + std::abs(g_ref[i]))) << "coordinate " << i;
    const std::vector<double> v = program.constrain(x), v_ref = builtin.constrain(x);
    for (int i = 0; i < reported; ++i)
      EXPECT_NEAR(v[static_cast<std::size_t>(i)], v_ref[static_cast<std::size_t>(i)],
                  1e-12 * (1 + std::abs(v_ref[static_cast<std::size_t>(i)])));
    EXPECT_LT((program.unconstrain(program.parameter_block_values(x)) - x).cwiseAbs().maxCoeff(),
              1e-10);
  }
}

TEST(StanProgram, Garch11MatchesTheBuiltInModel) {
  if (!have_shared_data()) GTEST_SKIP() << "posteriordb data absent: " << kShared;
  const auto program = posteriordb_program("garch11", "garch-garch11");
  const std::string data = kShared + "/posteriordb/garch-garch11/data.json";
  const auto builtin = make_model("garch11", read_data_file(data), data);
  expect_same_model(*program, *builtin, 4);  // the built-in also reports sigma_next
}

TEST(StanProgram, EightSchoolsMatchesTheBuiltInModel) {
  if (!have_shared_data()) GTEST_SKIP() << "posteriordb data absent: " << kShared;
  const auto program =
      posteriordb_program("eight_schools_noncentered", "eight_schools-eight_schools_noncentered");
  const std::string data =
      kShared + "/posteriordb/eight_schools-eight_schools_noncentered/data.json";
  const auto builtin = make_model("eight_schools_noncentered", read_data_file(data), data);
  expect_same_model(*program, *builtin, 18);  // theta_trans, mu, tau, theta
}

TEST(StanProgram, OutOfSupportInitNamesTheParameter) {
  if (!have_shared_data()) GTEST_SKIP() << "posteriordb data absent: " << kShared;
  const auto program = posteriordb_program("garch11", "garch-garch11");
  const std::vector<double> values = {5.0, -1.0, 0.5, 0.2};  // alpha0 < 0
  try {
    program->unconstrain(values);
    FAIL() << "no error";
  } catch (const SupportError& e) {
    EXPECT_EQ(e.parameter(), "alpha0");
    EXPECT_EQ(std::string(e.what()),
              "parameter 'alpha0' lies outside its support (lb_free: Lower bounded variable is "
              "-1, but must be greater than or equal to 0)");
  }
}

// Every parameter's mean and variance within 4 combined standard errors of posteriordb's
// reference (10 000 draws; its variance known to 2 sd^2 / sqrt(2 * 10 000)): with 4 x 2 000
// draws of NUTS, a shift of the mean by about 0.1 sd or of the variance by about 10 % fails.
void check_posterior(const std::string& model, const std::string& posterior) {
  if (!have_shared_data()) GTEST_SKIP() << "posteriordb data absent: " << kShared;
  const auto program = posteriordb_program(model, posterior);
  Target target = Target::preset("host", 1, 1);
  target.tiles_per_ipu = 2;
  Runtime runtime(target, 2, MPI_COMM_SELF);
  RunSettings s;
  s.sampler.kind = SamplerKind::nuts;
  s.sampler.warmup = 1000;
  s.sampler.draws = 2000;
  s.chains = 4;
  s.seed = 2026;
  const Draws d = sample(runtime, *program, s);
  const auto reference =
      read_reference(kShared + "/posteriordb/" + posterior + "/reference_summary.csv");
  ASSERT_FALSE(reference.empty());
  for (const auto& [name, r] : reference)
    expect_moments(d, name, r.mean, r.sd, r.mcse, r.sd / std::sqrt(20000.0));
}

TEST(Posteriordb, ArK) { check_posterior("arK", "arK-arK"); }
TEST(Posteriordb, Arma11) { check_posterior("arma11", "arma-arma11"); }
TEST(Posteriordb, EightSchoolsNoncentered) {
  check_posterior("eight_schools_noncentered", "eight_schools-eight_schools_noncentered");
}
TEST(Posteriordb, Garch11) { check_posterior("garch11", "garch-garch11"); }
TEST(Posteriordb, LowDimGaussMix) {
  check_posterior("low_dim_gauss_mix", "low_dim_gauss_mix-low_dim_gauss_mix");
}
TEST(Posteriordb, Logmesquite) { check_posterior("logmesquite", "mesquite-logmesquite"); }

}  // namespace
