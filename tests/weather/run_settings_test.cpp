// RunSettings::validate: every real setting of a run is refused by its option's name when it
// is not finite or out of range (a NaN used to fall back to the case's default silently).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "tessera/weather/run.hpp"

namespace tessera::weather {
namespace {

using ::testing::HasSubstr;

std::string refusal(const std::function<void(RunSettings&)>& change) {
  RunSettings s;
  change(s);
  try {
    s.validate();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(RunSettings, DefaultsAreValid) {
  EXPECT_EQ(refusal([](RunSettings&) {}), "accepted");
}

TEST(RunSettings, NonFiniteValuesAreRefusedByName) {
  EXPECT_THAT(refusal([](RunSettings& s) { s.days = NAN; }), HasSubstr("--days must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.days = INFINITY; }), HasSubstr("--days must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.dt = NAN; }), HasSubstr("--dt must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.output_every_hours = NAN; }),
              HasSubstr("--output-every must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.resolution = NAN; }),
              HasSubstr("--resolution must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.alpha = INFINITY; }), HasSubstr("--alpha must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.progress_every = NAN; }),
              HasSubstr("--progress-every must be"));
}

TEST(RunSettings, OutOfRangeValuesAreRefusedByName) {
  EXPECT_THAT(refusal([](RunSettings& s) { s.days = 0; }), HasSubstr("--days must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.dt = -1; }), HasSubstr("--dt must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.output_every_hours = 0; }),
              HasSubstr("--output-every must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.resolution = 91; }),
              HasSubstr("--resolution must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.nx = -3; }), HasSubstr("--nx must be"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.reference_factor = 9; }),
              HasSubstr("--reference-factor must be"));
}

// The 3-D cases' diffusion and output settings, which reach validate() from a library caller
// or a config file (the command line's own checks catch a negative number first).
TEST(RunSettings, DiffusionAndPressureLevelsAreRefusedByName) {
  EXPECT_THAT(refusal([](RunSettings& s) { s.diffusion = -1; }),
              HasSubstr("--diffusion must be a non-negative coefficient in m2/s, got -1"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.hyperdiffusion = NAN; }),
              HasSubstr("--hyperdiffusion must be a non-negative coefficient in m4/s"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.sponge_layers = -2; }),
              HasSubstr("--sponge-layers must be a number of layers >= 0, got -2"));
  EXPECT_THAT(refusal([](RunSettings& s) { s.sponge_diffusion = -3; }),
              HasSubstr("--sponge-diffusion must be a non-negative coefficient in m2/s, got -3"));
  EXPECT_THAT(refusal([](RunSettings& s) {
                s.pressure_levels_hpa = {850, 1200};
              }),
              HasSubstr("--pressure-levels must be pressures in (0, 1100] hPa, got 1200"));
  EXPECT_THAT(refusal([](RunSettings& s) {
                s.pressure_levels_hpa = {850, NAN};
              }),
              HasSubstr("--pressure-levels must be pressures in (0, 1100] hPa"));
  EXPECT_THAT(refusal([](RunSettings& s) {
                s.pressure_levels_hpa = {850, 500, 850};
              }),
              HasSubstr("--pressure-levels must be given once, got 850"));
}

}  // namespace
}  // namespace tessera::weather
