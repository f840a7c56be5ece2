// Output files: CmdStan CSV written and parsed back (exactly), CmdStan's header and
// adaptation block, malformed CSV errors, and the ArviZ NetCDF layout through ncdump -h
// and NetCDF-C++4 reads.
#include "tessera/mcmc/output.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <netcdf>

#include "tessera/core/error.hpp"
#include "tessera/core/runtime.hpp"
#include "tessera/mcmc/models.hpp"

namespace {

using namespace tessera;
using namespace tessera::mcmc;
namespace fs = std::filesystem;

class Output : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tessera_mcmc_output_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    model_ = make_model("eight_schools_noncentered",
                        nlohmann::json{{"J", 3}, {"y", {10, -2, 5}}, {"sigma", {8, 9, 10}}},
                        "schools.json");
    Target target = Target::preset("host", 1, 1);
    target.tiles_per_ipu = 2;
    Runtime runtime(target, 1, MPI_COMM_SELF);
    RunSettings s;
    s.sampler.warmup = 100;
    s.sampler.draws = 50;
    s.chains = 3;
    s.seed = 9;
    draws_ = sample(runtime, *model_, s);
    run_ = {"eight_schools_noncentered", "schools.json", s.sampler, 9, "", {}};
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write_and_path(const std::string& name, const Draws& draws,
                             const RunDescription& run) const {
    write_cmdstan_csv(path(name), draws, 0, run);
    return path(name);
  }

  fs::path dir_;
  std::unique_ptr<Model> model_;
  Draws draws_;
  RunDescription run_;
};

TEST_F(Output, CsvRoundTripIsExact) {
  for (int c = 0; c < draws_.chains; ++c) {
    const std::string file = path("chain_" + std::to_string(c + 1) + ".csv");
    write_cmdstan_csv(file, draws_, c, run_);
    const CmdStanCsv csv = read_cmdstan_csv(file);
    EXPECT_EQ(csv.columns, draws_.columns);
    ASSERT_EQ(csv.rows.size(), static_cast<std::size_t>(draws_.draws));
    for (int d = 0; d < draws_.draws; ++d)
      for (std::size_t k = 0; k < draws_.width(); ++k)
        ASSERT_EQ(csv.rows[static_cast<std::size_t>(d)][k], draws_.at(c, d, k))
            << "draw " << d << " column " << k;
    EXPECT_EQ(csv.step_size, draws_.step_size[static_cast<std::size_t>(c)]);
    EXPECT_EQ(csv.inverse_metric, draws_.inverse_metric[static_cast<std::size_t>(c)]);
    EXPECT_EQ(csv.settings.at("id"), std::to_string(c + 1));
    EXPECT_EQ(csv.settings.at("engine"), "nuts");
    EXPECT_EQ(csv.settings.at("num_samples"), "50");
    EXPECT_EQ(csv.settings.at("num_warmup"), "100");
    EXPECT_EQ(csv.settings.at("seed"), "9");
  }
}

// dense_e: "metric = dense_e" and CmdStan's "Elements of inverse mass matrix:" block of d
// rows read back exactly; the matrix is symmetric and positive on the diagonal.
TEST_F(Output, DenseMetricRoundTripIsExact) {
  Target target = Target::preset("host", 1, 1);
  Runtime runtime(target, 1, MPI_COMM_SELF);
  RunSettings s;
  s.sampler.metric = Metric::dense_e;
  s.sampler.warmup = 100;
  s.sampler.draws = 20;
  s.chains = 1;
  const Draws draws = sample(runtime, *model_, s);
  RunDescription run = run_;
  run.sampler = s.sampler;
  write_cmdstan_csv(path("dense.csv"), draws, 0, run);
  const CmdStanCsv csv = read_cmdstan_csv(path("dense.csv"));
  const std::size_t d = static_cast<std::size_t>(model_->dimension());
  ASSERT_EQ(draws.inverse_metric[0].size(), d * d);
  EXPECT_EQ(csv.inverse_metric, draws.inverse_metric[0]);
  for (std::size_t i = 0; i < d; ++i) {
    EXPECT_GT(csv.inverse_metric[i * d + i], 0.0);
    for (std::size_t j = 0; j < d; ++j)
      EXPECT_EQ(csv.inverse_metric[i * d + j], csv.inverse_metric[j * d + i]);
  }
  EXPECT_EQ(csv.settings.at("metric"), "dense_e");
  EXPECT_EQ(csv.rows.size(), 20u);
  write_cmdstan_csv(path("diag.csv"), draws_, 0, run_);
  EXPECT_EQ(read_cmdstan_csv(path("diag.csv")).settings.at("metric"), "diag_e");
}

// CmdStan's layout: the header row starts with the seven NUTS columns and uses dotted
// names; "# Adaptation terminated" follows the header.
TEST_F(Output, CsvHasCmdStansLayout) {
  const std::string text = cmdstan_csv(draws_, 0, run_);
  EXPECT_NE(
      text.find("\nlp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,"
                "theta_trans.1,theta_trans.2,theta_trans.3,mu,tau,theta.1,theta.2,theta.3\n"
                "# Adaptation terminated\n# Step size = "),
      std::string::npos);
  EXPECT_EQ(text.rfind("# model = eight_schools_noncentered\n# method = sample (Default)\n", 0),
            0u);
}

// Stan's timing trailer (stan::services::util::mcmc_writer::write_timing): whole
// milliseconds, the total their sum; read back per phase. A real run measures both phases.
TEST_F(Output, CsvEndsWithStansTimingTrailer) {
  EXPECT_GT(draws_.warmup_seconds, 0.0);
  EXPECT_GT(draws_.sampling_seconds, 0.0);
  Draws timed = draws_;
  timed.warmup_seconds = 1.23456;
  timed.sampling_seconds = 0.0789;
  const std::string text = cmdstan_csv(timed, 1, run_);
  const std::string trailer =
      "# \n"
      "#  Elapsed Time: 1.234 seconds (Warm-up)\n"
      "#                0.078 seconds (Sampling)\n"
      "#                1.312 seconds (Total)\n"
      "# \n";
  ASSERT_GE(text.size(), trailer.size());
  EXPECT_EQ(text.substr(text.size() - trailer.size()), trailer);
  std::ofstream(path("timed.csv")) << text;
  const CmdStanCsv csv = read_cmdstan_csv(path("timed.csv"));
  EXPECT_EQ(csv.warmup_seconds, 1.234);
  EXPECT_EQ(csv.sampling_seconds, 0.078);
}

// --thin and --save-warmup as CmdStan's thin and save_warmup: iterations 0, thin, 2 thin, ...
// of each phase, the warm-up rows before the adaptation block, the header recording both;
// the draws are those of the unthinned run (thinning only drops rows).
TEST_F(Output, ThinAndSaveWarmupKeepCmdStansRows) {
  Target target = Target::preset("host", 1, 1);
  Runtime runtime(target, 1, MPI_COMM_SELF);
  RunSettings s;
  s.sampler.warmup = 100;
  s.sampler.draws = 50;
  s.sampler.save_warmup = true;
  s.chains = 2;
  s.seed = 9;
  const Draws all = sample(runtime, *model_, s);
  ASSERT_EQ(all.warmup_draws, 100);
  s.sampler.thin = 3;
  const Draws thinned = sample(runtime, *model_, s);
  ASSERT_EQ(thinned.draws, 17);         // 0, 3, ..., 48
  ASSERT_EQ(thinned.warmup_draws, 34);  // 0, 3, ..., 99
  for (int c = 0; c < 2; ++c)
    for (std::size_t k = 0; k < all.width(); ++k) {
      for (int d = 0; d < thinned.draws; ++d)
        ASSERT_EQ(thinned.at(c, d, k), all.at(c, 3 * d, k)) << "draw " << d;
      for (int d = 0; d < thinned.warmup_draws; ++d)
        ASSERT_EQ(thinned.warmup_at(c, d, k), all.warmup_at(c, 3 * d, k)) << "warm-up " << d;
    }
  RunDescription run = run_;
  run.sampler = s.sampler;
  RunSettings zero = s;
  zero.sampler.thin = 0;
  try {
    sample(runtime, *model_, zero);
    FAIL() << "no error for thin 0";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "--thin must be at least 1, not 0");
  }
  write_cmdstan_csv(path("thin.csv"), thinned, 1, run);
  const CmdStanCsv csv = read_cmdstan_csv(path("thin.csv"));
  EXPECT_EQ(csv.settings.at("thin"), "3");
  EXPECT_EQ(csv.settings.at("save_warmup"), "1");
  ASSERT_EQ(csv.warmup_rows.size(), 34u);
  ASSERT_EQ(csv.rows.size(), 17u);
  for (std::size_t k = 0; k < all.width(); ++k) {
    EXPECT_EQ(csv.warmup_rows[33][k], thinned.warmup_at(1, 33, k));
    EXPECT_EQ(csv.rows[0][k], thinned.at(1, 0, k));
  }
  const std::string text = cmdstan_csv(thinned, 1, run);
  const std::size_t adaptation = text.find("# Adaptation terminated");
  const std::size_t first_row = text.find('\n', text.find("\nlp__,") + 1) + 1;
  std::size_t rows_before = 0;
  for (std::size_t at = first_row; at < adaptation; at = text.find('\n', at) + 1) ++rows_before;
  EXPECT_EQ(rows_before, 34u);
  // A file whose warm-up rows do not match its header is refused.
  std::string shortened = text;
  shortened.erase(first_row, text.find('\n', first_row) + 1 - first_row);
  std::ofstream(path("short.csv")) << shortened;
  EXPECT_THROW(read_cmdstan_csv(path("short.csv")), FormatError);
  // The NetCDF file carries ArviZ's warm-up groups.
  write_arviz_netcdf(path("thin.nc"), thinned, run);
  netCDF::NcFile nc(path("thin.nc"), netCDF::NcFile::read);
  EXPECT_EQ(nc.getGroup("warmup_posterior").getDim("draw").getSize(), 34u);
  EXPECT_EQ(nc.getGroup("warmup_sample_stats").getDim("draw").getSize(), 34u);
  EXPECT_EQ(nc.getGroup("posterior").getDim("draw").getSize(), 17u);
  std::vector<double> mu(2 * 34);
  nc.getGroup("warmup_posterior").getVar("mu").getVar(mu.data());
  EXPECT_EQ(mu[34 + 5], thinned.warmup_at(1, 5, thinned.index("mu")));
  // Without save_warmup, no warm-up rows and no warm-up groups.
  EXPECT_EQ(read_cmdstan_csv(write_and_path("plain.csv", draws_, run_)).warmup_rows.size(), 0u);
  write_arviz_netcdf(path("plain.nc"), draws_, run_);
  EXPECT_TRUE(
      netCDF::NcFile(path("plain.nc"), netCDF::NcFile::read).getGroup("warmup_posterior").isNull());
}

// Every sampler's header claims only what it did: the ensemble adapts nothing, rwm and pt
// tune towards their own fixed target, TFP's policy keeps the unit metric and no windows,
// a fixed number of leapfrog steps replaces int_time; no warm-up engages no adaptation.
TEST_F(Output, HeadersClaimOnlyWhatTheSamplerDid) {
  auto header = [&](SamplerConfig config) {
    RunDescription run = run_;
    run.sampler = config;
    const std::string text = cmdstan_csv(draws_, 0, run);
    return text.substr(0, text.find("\nlp__"));
  };
  auto has = [](const std::string& text, const std::string& line) {
    return text.find(line) != std::string::npos;
  };
  SamplerConfig nuts = run_.sampler;
  const std::string n = header(nuts);
  EXPECT_TRUE(has(n, "#       engaged = 1\n#       delta = 0.8\n#       init_buffer = 75"));
  EXPECT_TRUE(has(n,
                  "#         engine = nuts (Default)\n#           nuts\n"
                  "#             max_depth = 10 (Default)\n"));
  EXPECT_TRUE(has(n, "#         metric = diag_e (Default)\n"));
  SamplerConfig ensemble = nuts;
  ensemble.kind = SamplerKind::ensemble;
  const std::string e = header(ensemble);
  EXPECT_TRUE(has(e, "#       engaged = 0\n#     algorithm = ensemble\n"));
  EXPECT_FALSE(has(e, "delta"));
  EXPECT_FALSE(has(e, "init_buffer"));
  EXPECT_FALSE(
      has(cmdstan_csv(draws_, 0, {"m", "", ensemble, 1, "", {}}), "Adaptation terminated"));
  SamplerConfig rwm = nuts;
  rwm.kind = SamplerKind::rwm;
  const std::string r = header(rwm);
  EXPECT_TRUE(has(r, "#       engaged = 1\n#       delta = 0.234\n"));
  EXPECT_FALSE(has(r, "metric"));
  SamplerConfig simple = nuts;
  simple.kind = SamplerKind::hmc;
  simple.step_adaptation = StepAdaptation::simple;
  simple.leapfrog_steps = 7;
  const std::string h = header(simple);
  EXPECT_TRUE(has(h, "#       step_adaptation = simple\n#     algorithm = hmc"));
  EXPECT_FALSE(has(h, "init_buffer"));
  EXPECT_TRUE(has(h,
                  "#         engine = static\n#           static\n"
                  "#             leapfrog_steps = 7\n"));
  EXPECT_FALSE(has(h, "int_time"));
  EXPECT_TRUE(has(h, "#         metric = unit_e\n"));
  SamplerConfig cold = nuts;
  cold.warmup = 0;
  EXPECT_TRUE(has(header(cold), "#     num_warmup = 0\n"));
  EXPECT_TRUE(has(header(cold), "#       engaged = 0\n"));
  EXPECT_TRUE(has(header(nuts), "#     save_warmup = 0 (Default)\n#     thin = 1 (Default)\n"));
  EXPECT_TRUE(has(header(nuts), "# init = 2 (Default)\n"));
  RunDescription no_data = run_;
  no_data.data_file = "";
  EXPECT_TRUE(has(cmdstan_csv(draws_, 0, no_data), "# data\n#   file =  (Default)\n"));
}

void expect_csv_error(const std::string& file, const std::string& text,
                      const std::string& message) {
  std::ofstream(file) << text;
  try {
    read_cmdstan_csv(file);
    FAIL() << "no error for " << text;
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST_F(Output, MalformedCsvNamesTheLine) {
  const std::string f = path("bad.csv");
  expect_csv_error(f, "# model = x\nlp__,mu\n1,2\n3\n",
                   "'" + f + "', line 4: a row of 1 values under a header of 2 columns");
  expect_csv_error(f, "lp__,mu\n1,abc\n", "line 2: 'abc' is not a number");
  expect_csv_error(f, "mu,lp__\n1,2\n", "line 1: the header must start with lp__");
  expect_csv_error(f, "# only comments\n", "has no header row");
  try {
    read_cmdstan_csv(path("missing.csv"));
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open CmdStan CSV file"), std::string::npos);
  }
}

std::string command_output(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  pclose(pipe);
  return out;
}

TEST_F(Output, NetcdfHasArvizLayout) {
  const std::string file = path("run.nc");
  write_arviz_netcdf(file, draws_, run_);
  const std::string header = command_output("ncdump -h " + file);
  if (header.empty()) GTEST_SKIP() << "ncdump not found (Debian package netcdf-bin)";
  for (const char* expected :
       {"group: posterior {", "group: sample_stats {", "chain = 3 ;", "draw = 50 ;",
        "theta_dim_0 = 3 ;", "double theta(chain, draw, theta_dim_0) ;", "double mu(chain, draw) ;",
        "double lp(chain, draw) ;", "double acceptance_rate(chain, draw) ;",
        "int64 tree_depth(chain, draw) ;", "byte diverging(chain, draw) ;",
        "double energy(chain, draw) ;", "int64 chain(chain) ;",
        ":model = \"eight_schools_noncentered\""})
    EXPECT_NE(header.find(expected), std::string::npos) << expected << " in\n" << header;
  // Values, read back with NetCDF-C++4: theta[c][d][j] and lp[c][d].
  netCDF::NcFile nc(file, netCDF::NcFile::read);
  std::vector<double> theta(3 * 50 * 3), lp(3 * 50);
  nc.getGroup("posterior").getVar("theta").getVar(theta.data());
  nc.getGroup("sample_stats").getVar("lp").getVar(lp.data());
  for (int c = 0; c < 3; ++c)
    for (int d = 0; d < 50; ++d) {
      const std::size_t i = static_cast<std::size_t>(c * 50 + d);
      EXPECT_EQ(lp[i], draws_.at(c, d, draws_.index("lp__")));
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(theta[i * 3 + static_cast<std::size_t>(j)],
                  draws_.at(c, d, draws_.index("theta[" + std::to_string(j + 1) + "]")));
    }
  // Written through a temporary name: nothing else is left in the folder.
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u);
}

// Draws of a model with a 2 x 3 matrix (Stan's column-major columns), a posterior predictive
// quantity and a log-likelihood; value = 1000 chain + 100 draw + column, so every element says
// where it came from.
Draws grouped_draws() {
  Draws d;
  d.columns = {"lp__", "accept_stat__", "mu"};
  for (int j = 1; j <= 3; ++j)
    for (int i = 1; i <= 2; ++i)
      d.columns.push_back("Sigma[" + std::to_string(i) + "," + std::to_string(j) + "]");
  for (const char* name : {"y_rep", "log_lik"})
    for (int i = 1; i <= 2; ++i)
      d.columns.push_back(std::string(name) + "[" + std::to_string(i) + "]");
  d.sampler_columns = 2;
  d.chains = 2;
  d.draws = 3;
  for (int c = 0; c < d.chains; ++c)
    for (int k = 0; k < d.draws; ++k)
      for (std::size_t col = 0; col < d.width(); ++col)
        d.values.push_back(1000.0 * c + 100.0 * k + static_cast<double>(col));
  return d;
}

TEST_F(Output, NetcdfPutsGeneratedQuantitiesInArvizGroups) {
  const Draws d = grouped_draws();
  RunDescription run = run_;
  run.groups = arviz_groups({"y=y_rep"}, {}, {d.columns.begin() + 2, d.columns.end()},
                            nlohmann::json{{"y", {3, 4}}}, "data.json");
  const std::string file = path("grouped.nc");
  write_arviz_netcdf(file, d, run);
  netCDF::NcFile nc(file, netCDF::NcFile::read);
  const netCDF::NcGroup posterior = nc.getGroup("posterior");
  EXPECT_EQ(posterior.getVarCount(), 4) << "chain, draw, mu, Sigma: no y_rep, no log_lik";
  EXPECT_TRUE(posterior.getVar("y_rep").isNull());
  EXPECT_TRUE(posterior.getVar("log_lik").isNull());
  // Sigma[c][k][i][j] row-major, from the column Sigma[i+1,j+1].
  const netCDF::NcVar sigma = posterior.getVar("Sigma");
  ASSERT_EQ(sigma.getDimCount(), 4);
  EXPECT_EQ(sigma.getDim(2).getName(), "Sigma_dim_0");
  EXPECT_EQ(sigma.getDim(2).getSize(), 2u);
  EXPECT_EQ(sigma.getDim(3).getSize(), 3u);
  std::vector<double> values(2 * 3 * 6);
  sigma.getVar(values.data());
  for (int c = 0; c < 2; ++c)
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
          EXPECT_EQ(
              values[static_cast<std::size_t>(((c * 3 + k) * 2 + i) * 3 + j)],
              d.at(c, k,
                   d.index("Sigma[" + std::to_string(i + 1) + "," + std::to_string(j + 1) + "]")));
  // y_rep as y in posterior_predictive, log_lik in log_likelihood (ArviZ's default name).
  const netCDF::NcVar y = nc.getGroup("posterior_predictive").getVar("y");
  ASSERT_FALSE(y.isNull());
  EXPECT_EQ(y.getDim(2).getName(), "y_dim_0");
  std::vector<double> y_values(2 * 3 * 2);
  y.getVar(y_values.data());
  EXPECT_EQ(y_values[1], d.at(0, 0, d.index("y_rep[2]")));
  EXPECT_EQ(y_values[11], d.at(1, 2, d.index("y_rep[2]")));
  std::vector<double> log_lik(2 * 3 * 2);
  nc.getGroup("log_likelihood").getVar("log_lik").getVar(log_lik.data());
  EXPECT_EQ(log_lik[4], d.at(0, 2, d.index("log_lik[1]")));
  // The data's y, as integers.
  const netCDF::NcVar observed = nc.getGroup("observed_data").getVar("y");
  ASSERT_FALSE(observed.isNull());
  EXPECT_EQ(observed.getType(), netCDF::ncInt64);
  std::vector<long long> observed_values(2);
  observed.getVar(observed_values.data());
  EXPECT_EQ(observed_values, (std::vector<long long>{3, 4}));
}

TEST_F(Output, NetcdfRefusesAGroupOfAQuantityTheDrawsLack) {
  RunDescription run = run_;
  run.groups.posterior_predictive.push_back({"y", "y_rep"});
  try {
    write_arviz_netcdf(path("lacking.nc"), draws_, run);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the draws have no quantity 'y_rep' for the NetCDF group of 'y'");
  }
  EXPECT_TRUE(fs::is_empty(dir_)) << "no file, not even a partial one";
}

TEST_F(Output, ArvizGroupsRefuseWhatTheyCannotPlace) {
  const std::vector<std::string> columns{"mu", "y_rep[1]", "y_rep[2]", "log_lik[1]"};
  const nlohmann::json data{{"y", {1.5, 2}}, {"ragged", {{1, 2}, {3}}}, {"text", {"a"}}};
  const auto message = [&](const std::vector<std::string>& predictive,
                           const std::vector<std::string>& likelihood) -> std::string {
    try {
      arviz_groups(predictive, likelihood, columns, data, "d.json");
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message({"y_pred"}, {}),
            "--posterior-predictive y_pred: the model has no quantity 'y_pred' (it reports mu, "
            "y_rep, log_lik)");
  EXPECT_EQ(message({"=y_rep"}, {}),
            "--posterior-predictive =y_rep: give QUANTITY or OBSERVED=QUANTITY");
  EXPECT_EQ(message({"y_rep"}, {"y_rep"}), "--log-likelihood y_rep: 'y_rep' is already in a group");
  EXPECT_EQ(message({"z=y_rep"}, {}),
            "d.json: no 'z' in the data, named by --posterior-predictive z=y_rep");
  EXPECT_EQ(message({"ragged=y_rep"}, {}), "d.json: 'ragged' is not a rectangular array");
  EXPECT_EQ(message({"text=y_rep"}, {}), "d.json: 'text' holds a value that is not a number");
  // The defaults and the observed data's type.
  const ArvizGroups groups = arviz_groups({"y=y_rep"}, {}, columns, data, "d.json");
  ASSERT_EQ(groups.log_likelihood.size(), 1u);
  EXPECT_EQ(groups.log_likelihood[0].quantity, "log_lik");
  EXPECT_FALSE(groups.observed_data.at("y").integer);
  EXPECT_EQ(groups.observed_data.at("y").shape, (std::vector<std::size_t>{2}));
  EXPECT_TRUE(arviz_groups({}, {"mu"}, columns, data, "d.json").log_likelihood[0].name == "mu");
}

TEST_F(Output, UnwritableNetcdfPathIsAnError) {
  try {
    write_arviz_netcdf(path("no_such_folder/run.nc"), draws_, run_);
    FAIL();
  } catch (const Error& e) {
    // The real reason, checked before NetCDF is asked (it would say "Permission denied").
    EXPECT_NE(std::string(e.what()).find("no_such_folder' does not exist; create it first"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
