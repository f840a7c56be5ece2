// Models: gradients (analytic against forward-mode AD, AD against central
// differences), constraining transforms and their Jacobians, data validation.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "tessera/core/error.hpp"
#include "tessera/core/rng.hpp"
#include "tessera/mcmc/init.hpp"
#include "tessera/mcmc/models.hpp"
#include "tessera/mcmc/sampler.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;
using nlohmann::json;

json sv_data() {
  json d;
  d["T"] = 6;
  d["y"] = {0.5, -1.2, 0.3, 2.1, -0.7, 0.05};
  return d;
}

json logistic_data() {
  return json{{"N", 5},
              {"K", 2},
              {"x", {{0.1, 1.0}, {-0.5, 2.0}, {1.5, -1.0}, {0.0, 0.3}, {2.0, 2.0}}},
              {"y", {0, 1, 1, 0, 1}}};
}

json eight_schools_data() {
  return json{
      {"J", 8}, {"y", {28, 8, -3, 7, -1, 1, 18, 12}}, {"sigma", {15, 10, 16, 11, 9, 11, 10, 18}}};
}

json garch_data() { return json{{"T", 5}, {"y", {4.9, 5.2, 3.8, 6.0, 5.1}}, {"sigma1", 0.5}}; }

// Nine shrubs in posteriordb's mesquite layout (the first rows of its data).
json mesquite_data() {
  return json{{"N", 9},
              {"weight", {401.3, 513.7, 1179.2, 308, 855.2, 268.7, 155.5, 1253.2, 328}},
              {"diam1", {1.8, 1.7, 2.8, 1.3, 3.3, 1.4, 1.5, 3.9, 1.8}},
              {"diam2", {1.15, 1.5, 2.55, 0.85, 1.9, 1.4, 0.5, 2.3, 1.35}},
              {"canopy_height", {1, 1.33, 0.6, 1.2, 1.05, 1, 0.9, 1.3, 0.6}},
              {"total_height", {1.3, 1.35, 2.16, 1.8, 1.55, 1.2, 1, 1.7, 0.8}},
              {"density", {1, 1, 1, 1, 1, 1, 1, 2, 1}},
              {"group", {0, 0, 0, 0, 0, 0, 0, 0, 0}}};
}

std::unique_ptr<Model> model(const std::string& name) {
  json data = json::object();
  if (name == "std_normal" || name == "correlated_gaussian") data = json{{"N", 7}};
  if (name == "stochastic_volatility") data = sv_data();
  if (name == "logistic_regression") data = logistic_data();
  if (name == "eight_schools_noncentered") data = eight_schools_data();
  if (name == "garch11") data = garch_data();
  if (name == "logmesquite") data = mesquite_data();
  return make_model(name, data, "test");
}

class EveryModel : public ::testing::TestWithParam<std::string> {};

// The gradient a model samples with equals the AD gradient of its template log
// density, and both match central differences of the log density.
TEST_P(EveryModel, GradientMatchesAutoDiffAndCentralDifferences) {
  const auto m = model(GetParam());
  RngEngine rng = rng_stream(7, 0);
  for (int trial = 0; trial < 3; ++trial) {
    const Vector x = initial_point(*m, 1.5, rng);
    Vector g, g_ad;
    const double lp = m->log_density_gradient(x, g);
    const double lp_ad = m->autodiff_log_density_gradient(x, g_ad);
    EXPECT_NEAR(lp, lp_ad, 1e-10 * (1 + std::abs(lp)));
    EXPECT_NEAR(lp, m->log_density(x), 1e-10 * (1 + std::abs(lp)));
    ASSERT_EQ(g.size(), m->dimension());
    for (int i = 0; i < m->dimension(); ++i) {
      EXPECT_NEAR(g[i], g_ad[i], 1e-9 * (1 + std::abs(g_ad[i])))
          << GetParam() << " coordinate " << i;
      Vector up = x, down = x;
      const double h = 1e-6;
      up[i] += h;
      down[i] -= h;
      const double fd = (m->log_density(up) - m->log_density(down)) / (2 * h);
      EXPECT_NEAR(g_ad[i], fd, 1e-5 * (1 + std::abs(fd))) << GetParam() << " coordinate " << i;
    }
    EXPECT_EQ(m->constrain(x).size(), m->parameter_names().size());
  }
}

// unconstrain() inverts the transforms: the parameters block's values of x map back to x,
// and constrain() of that point reports the same values for the block's names.
TEST_P(EveryModel, UnconstrainInvertsConstrain) {
  const auto m = model(GetParam());
  const std::vector<std::string> block = m->parameter_block_names(),
                                 reported = m->parameter_names();
  RngEngine rng = rng_stream(8, 0);
  for (int trial = 0; trial < 5; ++trial) {
    const Vector x = initial_point(*m, 2.0, rng);
    const std::vector<double> values = m->parameter_block_values(x);
    ASSERT_EQ(values.size(), block.size());
    const Vector back = m->unconstrain(values);
    ASSERT_EQ(back.size(), m->dimension());
    for (int i = 0; i < m->dimension(); ++i)
      EXPECT_NEAR(back[i], x[i], 1e-12 * (1 + std::abs(x[i]))) << GetParam() << " coordinate " << i;
    const std::vector<double> again = m->constrain(back);
    for (std::size_t b = 0; b < block.size(); ++b) {
      const auto at = std::find(reported.begin(), reported.end(), block[b]);
      if (at == reported.end()) continue;  // not reported (stochastic_volatility's h_std)
      const double v = again[static_cast<std::size_t>(at - reported.begin())];
      EXPECT_NEAR(v, values[b], 1e-12 * (1 + std::abs(values[b]))) << GetParam() << " " << block[b];
    }
  }
  EXPECT_THROW(m->unconstrain(std::vector<double>(block.size() + 1, 0.5)), ConfigError);
}

INSTANTIATE_TEST_SUITE_P(Builtin, EveryModel, ::testing::ValuesIn(builtin_models()));

// Values outside a parameter's support are refused by name.
TEST(Unconstrain, OutOfSupportValuesNameTheParameter) {
  auto expect_support_error = [](const Model& m, std::vector<double> v, const std::string& name,
                                 const std::string& message) {
    try {
      m.unconstrain(v);
      FAIL() << "no error for " << name;
    } catch (const SupportError& e) {
      EXPECT_EQ(e.parameter(), name);
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  const auto schools = model("eight_schools_noncentered");
  std::vector<double> v(10, 0.0);
  v[9] = -1;
  expect_support_error(*schools, v, "tau",
                       "parameter 'tau' = -1 lies outside its support (0, inf)");
  v[9] = 1;
  v[3] = std::numeric_limits<double>::infinity();
  expect_support_error(*schools, v, "theta_trans[4]",
                       "parameter 'theta_trans[4]' = inf is not finite");
  const auto garch = model("garch11");
  expect_support_error(*garch, {0, 1, 1.5, 0.1}, "alpha1",
                       "parameter 'alpha1' = 1.5 lies outside its support (0, 1)");
  expect_support_error(*garch, {0, 1, 0.5, 0.6}, "beta1",
                       "parameter 'beta1' = 0.6 lies outside its support (0, 0.5)");
  expect_support_error(*garch, {0, 0, 0.5, 0.1}, "alpha0",
                       "parameter 'alpha0' = 0 lies outside its support (0, inf)");
  const auto sv = model("stochastic_volatility");
  std::vector<double> w(9, 0.0);
  w[2] = 1;
  w[1] = -1;
  expect_support_error(*sv, w, "phi", "parameter 'phi' = -1 lies outside its support (-1, 1)");
}

// The inverse transforms against the forward ones, and the simplex's checks.
TEST(Transforms, InversesUndoTheTransforms) {
  for (double u : {-20.0, -2.0, 0.0, 0.7, 15.0}) {
    double lj = 0;
    EXPECT_NEAR(lower_bounded_inverse(lower_bounded(u, 0.0, lj), 0.0, "a"), u, 1e-12);
    // lower + exp(u) keeps exp(u)'s digits only down to lower's round-off.
    EXPECT_NEAR(lower_bounded_inverse(lower_bounded(u, 1.5, lj), 1.5, "a"), u,
                1e-15 / std::exp(u) + 1e-12);
    EXPECT_NEAR(bounded_inverse(bounded(u, -1.0, 3.0, lj), -1.0, 3.0, "b"), u,
                1e-9 * (1 + std::abs(u)));
  }
  const std::vector<double> u{0.3, -1.2, 0.8};
  double lj = 0;
  const std::vector<double> back = simplex_inverse(simplex(u, lj), "s");
  ASSERT_EQ(back.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(back[k], u[k], 1e-12);
  EXPECT_THROW(simplex_inverse({0.5, 0.6}, "s"), SupportError);
  EXPECT_THROW(simplex_inverse({1.2, -0.2}, "s"), SupportError);
}

// Stochastic volatility at a point where h is known by hand: mu = 0, phi = 0 (u = 0),
// sigma = 1 (v = 0), h_std = 0, so h_t = 0 and log p = -sum y_t^2 / 2, plus the Jacobians
// log(2 * 1/4) = log(1/2) for phi and 0 for sigma, plus the priors: 0 for mu, -log(1 + 1/25)
// for sigma.
TEST(StochasticVolatility, LogDensityAtAHandPoint) {
  const auto m = model("stochastic_volatility");
  const Vector x = Vector::Zero(9);
  const json data = sv_data();
  double sum_y2 = 0;
  for (double y : data["y"]) sum_y2 += y * y;
  EXPECT_NEAR(m->log_density(x), -0.5 * sum_y2 + std::log(0.5) - std::log(1.0 + 1.0 / 25.0), 1e-12);
  const std::vector<double> v = m->constrain(x);
  EXPECT_EQ(v[1], 0.0);  // phi
  EXPECT_EQ(v[2], 1.0);  // sigma
}

// eight_schools_noncentered at theta_trans = 0, mu = 0, tau = 1 (log tau = 0):
// -sum (y/sigma)^2 / 2 - log(1 + 1/25) + 0 (Jacobian log tau = 0).
TEST(EightSchools, LogDensityAtAHandPoint) {
  const auto m = model("eight_schools_noncentered");
  const json d = eight_schools_data();
  double expected = -std::log(1.0 + 1.0 / 25.0);
  for (int j = 0; j < 8; ++j) {
    const double r = d["y"][j].get<double>() / d["sigma"][j].get<double>();
    expected -= 0.5 * r * r;
  }
  EXPECT_NEAR(m->log_density(Vector::Zero(10)), expected, 1e-12);
}

// The AR(1) correlation matrix's precision: x' S^-1 x for N = 3, rho = 0.5 by hand.
TEST(CorrelatedGaussian, QuadraticFormMatchesTheDenseInverse) {
  const auto m = make_model("correlated_gaussian", json{{"N", 3}, {"rho", 0.5}}, "test");
  Eigen::Matrix3d s;
  s << 1, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 1;
  const Eigen::Vector3d x(0.3, -1.1, 0.7);
  EXPECT_NEAR(m->log_density(x), -0.5 * x.dot(s.inverse() * x), 1e-12);
}

// Jacobians: log|d value/du| against the derivative of the transform by central differences.
TEST(Transforms, JacobiansMatchDerivatives) {
  for (double u : {-30.0, -2.0, 0.0, 0.7, 25.0}) {
    double lj = 0;
    lower_bounded(u, 1.5, lj);
    EXPECT_NEAR(lj, u, 1e-14);
    const double h = 1e-6;
    double lj_b = 0, unused = 0;
    const double value = bounded(u, -1.0, 3.0, lj_b);
    EXPECT_GT(value, -1.0);
    EXPECT_LT(value, 3.0);
    if (std::abs(u) < 20) {
      const double derivative =
          (bounded(u + h, -1.0, 3.0, unused) - bounded(u - h, -1.0, 3.0, unused)) / (2 * h);
      EXPECT_NEAR(lj_b, std::log(derivative), 1e-6);
    } else {
      EXPECT_TRUE(std::isfinite(lj_b));
    }
  }
}

// The stick-breaking simplex: sums to one, is the uniform centre at u = 0, and its
// log-Jacobian is the log-determinant of d(x_1..x_{K-1})/du by central differences.
TEST(Transforms, SimplexSumsToOneWithTheRightJacobian) {
  const std::vector<double> zero(3, 0.0);
  double lj = 0;
  const std::vector<double> centre = simplex(zero, lj);
  for (double v : centre) EXPECT_NEAR(v, 0.25, 1e-15);
  const std::vector<double> u{0.3, -1.2, 0.8};
  lj = 0;
  const std::vector<double> x = simplex(u, lj);
  double total = 0;
  for (double v : x) total += v;
  EXPECT_NEAR(total, 1.0, 1e-15);
  Eigen::Matrix3d jacobian;
  for (int j = 0; j < 3; ++j) {
    std::vector<double> up = u, down = u;
    up[static_cast<std::size_t>(j)] += 1e-6;
    down[static_cast<std::size_t>(j)] -= 1e-6;
    double unused = 0;
    const std::vector<double> xu = simplex(up, unused), xd = simplex(down, unused);
    for (int i = 0; i < 3; ++i)
      jacobian(i, j) = (xu[static_cast<std::size_t>(i)] - xd[static_cast<std::size_t>(i)]) / 2e-6;
  }
  EXPECT_NEAR(lj, std::log(std::abs(jacobian.determinant())), 1e-6);
}

// --init FILE.json: a full file gives the unconstrained point of its values, whatever the
// stream; a partial one keeps its values and draws the rest per stream, as CmdStan does.
TEST(InitFile, GivenValuesBecomeTheStartingPoint) {
  const auto m = model("eight_schools_noncentered");
  const json full{
      {"theta_trans", {0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8}}, {"mu", 1.5}, {"tau", 2}};
  const InitialValues init = parse_initial_values(full, *m, "init.json");
  EXPECT_TRUE(init.missing.empty());
  RngEngine rng = rng_stream(3, 0);
  const Vector x = initial_point(*m, init, 2.0, rng);
  std::vector<double> expected;
  for (double v : full["theta_trans"]) expected.push_back(v);
  expected.push_back(1.5);
  expected.push_back(2.0);
  EXPECT_EQ(x, m->unconstrain(expected));
  EXPECT_NEAR(x[9], std::log(2.0), 1e-15);
  RngEngine other = rng_stream(4, 1);
  EXPECT_EQ(initial_point(*m, init, 2.0, other), x);

  const InitialValues partial = parse_initial_values(json{{"mu", -3.0}}, *m, "mu.json");
  EXPECT_EQ(partial.missing, (std::vector<std::string>{"theta_trans", "tau"}));
  EXPECT_EQ(missing_parameters_note(partial, 2.0),
            "init file 'mu.json' gives no value of theta_trans, tau; as in CmdStan, they start "
            "at random values, uniform in (-2, 2) on the unconstrained scale");
  RngEngine a = rng_stream(5, 0), b = rng_stream(5, 1);
  const Vector xa = initial_point(*m, partial, 2.0, a), xb = initial_point(*m, partial, 2.0, b);
  EXPECT_EQ(xa[8], -3.0);
  EXPECT_EQ(xb[8], -3.0);
  EXPECT_NE(xa[0], xb[0]);
  for (int i = 0; i < 10; ++i)
    if (i != 8) {
      EXPECT_LT(std::abs(xa[i]), 2.0);
    }
  // garch11's beta1 < 1 - alpha1: random values of the other parameters are redrawn until
  // they fit the given alpha1.
  const auto garch = model("garch11");
  const InitialValues alpha = parse_initial_values(json{{"alpha1", 0.9}}, *garch, "a.json");
  RngEngine g = rng_stream(6, 0);
  const std::vector<double> start =
      garch->parameter_block_values(initial_point(*garch, alpha, 2, g));
  EXPECT_NEAR(start[2], 0.9, 1e-12);
  EXPECT_LT(start[3], 0.1);
}

void expect_init_error(const Model& m, const json& file, const std::string& message) {
  try {
    RngEngine rng = rng_stream(1, 0);
    initial_point(m, parse_initial_values(file, m, "bad_init.json"), 2.0, rng);
    FAIL() << "no error for " << file.dump();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "init file 'bad_init.json': " + message);
  }
}

TEST(InitFile, ErrorsNameTheFileAndTheParameter) {
  const auto schools = model("eight_schools_noncentered");
  const json zeros = {0, 0, 0, 0, 0, 0, 0, 0};
  expect_init_error(*schools, json{{"sigma", 1}},
                    "'sigma' is not a parameter of eight_schools_noncentered; the parameters are "
                    "theta_trans, mu, tau");
  expect_init_error(*schools, json{{"theta", zeros}},
                    "'theta' is a derived quantity of eight_schools_noncentered, not a parameter, "
                    "and cannot be initialised; the parameters are theta_trans, mu, tau");
  expect_init_error(*schools, json{{"theta_trans", {1, 2}}},
                    "parameter 'theta_trans' must be an array of 8 numbers, not an array of 2");
  expect_init_error(*schools, json{{"mu", {1, 2}}}, "parameter 'mu' is not a number ([1,2])");
  expect_init_error(*schools, json{{"theta_trans", 1.0}},
                    "parameter 'theta_trans' must be an array of 8 numbers, not 1.0");
  json null_element{{"theta_trans", zeros}, {"mu", 0}, {"tau", 1}};
  null_element["theta_trans"][2] = nullptr;
  expect_init_error(*schools, null_element,
                    "parameter 'theta_trans' element [3] is not a number (null)");
  expect_init_error(*schools, json{{"theta_trans", zeros}, {"mu", 0}, {"tau", -1}},
                    "parameter 'tau' = -1 lies outside its support (0, inf)");
  expect_init_error(*schools, json{{"tau", 0}},
                    "parameter 'tau' = 0 lies outside its support (0, inf) (in 100 attempts with "
                    "random values of theta_trans, mu, which the file leaves out)");
  expect_init_error(*schools, json{{"theta_trans", zeros}, {"mu", "Inf"}, {"tau", 1}},
                    "parameter 'mu' = inf is not finite");
  expect_init_error(*model("std_normal"), json{{"x", {1e200, 0, 0, 0, 0, 0, 0}}},
                    "the log density of std_normal is -inf at the initial values; give values "
                    "where the density is positive");
  expect_init_error(*schools, json::array(),
                    "it must be a JSON object of parameter values by name, as CmdStan's init "
                    "files are");
  try {
    read_init_file("/no/such/init.json", *schools);
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open init file '/no/such/init.json'"),
              std::string::npos);
  }
}

void expect_format_error(const std::string& name, const json& data, const std::string& message) {
  try {
    make_model(name, data, "bad.json");
    FAIL() << "no error for " << data.dump();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(Data, ErrorsNameTheSourceAndTheField) {
  expect_format_error(
      "eight_schools_noncentered", json{{"J", 8}, {"y", {1, 2}}},
      "data 'bad.json' for model eight_schools_noncentered: field 'y' has 2 values but J = 8");
  expect_format_error("eight_schools_noncentered", json{{"y", {1}}, {"sigma", {1}}},
                      "field 'J' is missing");
  json nan_y = eight_schools_data();
  nan_y["y"][3] = nullptr;  // how a NaN reaches JSON
  expect_format_error("eight_schools_noncentered", nan_y,
                      "field 'y' element 4 is not a number (null)");
  json negative = eight_schools_data();
  negative["sigma"][0] = -1;
  expect_format_error("eight_schools_noncentered", negative,
                      "field 'sigma' element 1 is -1.000000; it must be at least 0");
  json infinite = garch_data();
  infinite["y"][1] = std::numeric_limits<double>::infinity();
  expect_format_error("garch11", infinite, "field 'y' element 2 is not finite");
  expect_format_error("garch11", json{{"T", 5}, {"y", {1, 2, 3, 4, 5}}},
                      "field 'sigma1' is missing");
  expect_format_error("logistic_regression",
                      json{{"N", 2}, {"K", 1}, {"x", {{1}, {2}}}, {"y", {0, 2}}},
                      "field 'y' element 2 must be 0 or 1");
  expect_format_error("logistic_regression",
                      json{{"N", 2}, {"K", 2}, {"x", {{1, 2}, {2}}}, {"y", {0, 1}}},
                      "field 'x' row 2 must have K = 2 values");
  json zero_weight = mesquite_data();
  zero_weight["weight"][2] = 0;
  expect_format_error("logmesquite", zero_weight,
                      "field 'weight' element 3 is not positive (the model is on log weight)");
  json negative_diameter = mesquite_data();
  negative_diameter["diam2"][0] = -1.5;
  expect_format_error("logmesquite", negative_diameter,
                      "field 'diam2' element 1 is not positive (its log is a covariate)");
  json short_group = mesquite_data();
  short_group["group"] = {0, 1};
  expect_format_error("logmesquite", short_group, "field 'group' has 2 values but N = 9");
  expect_format_error("correlated_gaussian", json{{"N", 3}, {"rho", 1.0}},
                      "field 'rho' is 1.000000; it must lie in (-1, 1)");
  expect_format_error("stochastic_volatility", json{{"T", 2.5}, {"y", {1, 2}}},
                      "field 'T' must be an integer, not 2.5");
  expect_format_error("std_normal", json::array(), "is not a JSON object");
}

// Sizes in the data (N, K: two numbers) are checked against the arrays the file holds before
// anything of that size is allocated: {"N": 100000000} for logmesquite allocated its N x 7
// covariates (5.6 GB) before finding 'diam1' missing, and logistic_regression its N x K matrix
// before checking the rows (found by the fuzz harness mcmc_data). Outside the sanitizer builds
// (whose shadow memory cannot live under an address-space limit) the address space is limited
// to 2 GiB here, so that the old code fails with std::bad_alloc instead of the message.
TEST(Data, SizesAreCheckedBeforeTheyAreAllocated) {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  rlimit old{};
  getrlimit(RLIMIT_AS, &old);
  rlimit limited = old;
  limited.rlim_cur = std::min<rlim_t>(old.rlim_cur, rlim_t{2} << 30);
  setrlimit(RLIMIT_AS, &limited);
#endif
  expect_format_error("logmesquite", json{{"N", 100000000}}, "field 'diam1' is missing");
  expect_format_error("logistic_regression",
                      json{{"N", 2}, {"K", 100000000}, {"x", {{1}, {2}}}, {"y", {0, 1}}},
                      "field 'x' row 1 must have K = 100000000 values");
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  setrlimit(RLIMIT_AS, &old);
#endif
}

TEST(Data, UnknownModelListsTheBuiltins) {
  try {
    make_model("eight_schools", json::object(), "x");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "unknown model 'eight_schools'; the built-in models are std_normal"),
              std::string::npos);
  }
}

}  // namespace

namespace {

// A user's model need not invert its transforms: only initial values from a file need
// unconstrain(), and the default says so by name.
class WithoutUnconstrain final : public tessera::mcmc::AutoDiffModel<WithoutUnconstrain> {
 public:
  std::string name() const override { return "my_model"; }
  int dimension() const override { return 1; }
  std::vector<std::string> parameter_names() const override { return {"mu"}; }
  template <class T>
  T log_density_t(const Eigen::Matrix<T, Eigen::Dynamic, 1>& x) const {
    return -0.5 * x[0] * x[0];
  }
  std::vector<double> constrain(const tessera::mcmc::Vector& x) const override { return {x[0]}; }
};

TEST(Model, UnconstrainByDefaultSaysTheModelLacksIt) {
  const WithoutUnconstrain model;
  const std::vector<double> values{0.5};
  try {
    model.unconstrain(values);
    FAIL() << "no error";
  } catch (const tessera::ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "model my_model does not define unconstrain(), which initial values from a file "
                 "need; give an --init radius instead, or add unconstrain() to the model");
  }
}

}  // namespace
