// CfWriter's refusals of vertical coordinates that do not fit its fields, each with the
// message it gives, and a file with pressure levels written, reopened and appended to.
#include "tessera/weather/cf_writer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace tessera::weather {
namespace {

using testing::error_of;
using ::testing::HasSubstr;

const Grid kGrid{.nx = 4,
                 .ny = 2,
                 .dx = std::numbers::pi / 2,
                 .dy = std::numbers::pi / 2,
                 .x0 = 0,
                 .y0 = -std::numbers::pi / 2};

std::string scratch_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("tessera_cf_writer_" + std::to_string(getpid()) + "_" + name))
      .string();
}

CfFileInfo info(std::vector<double> pressure_levels = {}) {
  return {.title = "test",
          .history = "cf_writer_test",
          .source = "test",
          .geographic = true,
          .levels = std::nullopt,
          .pressure_levels = std::move(pressure_levels)};
}

TEST(CfWriter, RefusesLevelsThatDoNotFitItsFields) {
  const std::string path = scratch_file("refusals.nc");
  const CfVariable ta{"ta", "air temperature", "K", "air_temperature", CfLevels::pressure};
  const CfVariable u{"u", "eastward wind", "m s-1", "eastward_wind", CfLevels::model};
  EXPECT_THAT(error_of([&] { CfWriter w(path, kGrid, {u}, {}, info()); }),
              HasSubstr("CfWriter: the field 'u' on model levels needs the file's"));
  EXPECT_THAT(error_of([&] { CfWriter w(path, kGrid, {ta}, {}, info()); }),
              HasSubstr("CfWriter: the field 'ta' on pressure levels needs the file's"));
  EXPECT_THAT(error_of([&] { CfWriter w(path, kGrid, {}, {ta}, info({85000})); }),
              HasSubstr("CfWriter: the static field 'ta' cannot be on pressure levels"));
  EXPECT_THAT(error_of([&] {
                CfWriter w(path, kGrid, {ta}, {}, info({85000, -5}));
              }),
              HasSubstr("CfWriter: pressure levels must be positive pressures in Pa, got -5"));
  CfFileInfo one_interface = info();
  one_interface.levels = CfHybridLevels{.a_interfaces = {0}, .b_interfaces = {1}, .p0 = 1e5};
  EXPECT_THAT(
      error_of([&] { CfWriter w(path, kGrid, {u}, {}, one_interface); }),
      HasSubstr("CfWriter: model levels need K + 1 >= 2 values of a and of b, got 1 and 1"));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".part"));
}

TEST(CfWriter, AppendsOnPressureLevelsAndReopensWithThem) {
  const std::string path = scratch_file("pressure.nc");
  const CfVariable ta{"ta", "air temperature", "K", "air_temperature", CfLevels::pressure};
  const CfVariable ps{"ps", "surface pressure", "Pa", "surface_air_pressure"};
  {
    CfWriter w(path, kGrid, {ps, ta}, {}, info({85000, 50000}));
    EXPECT_THAT(error_of([&] {
                  w.append(0, {std::vector<double>(8, 1e5), std::vector<double>(8)});
                }),
                HasSubstr("CfWriter: field 'ta' has 8 values, not 16"));
  }
  {
    CfWriter w(path, kGrid, {ps, ta}, {}, info({85000, 50000}));
    w.append(0, {std::vector<double>(8, 1e5), std::vector<double>(16, 250)});
    w.close();
  }
  {
    auto w = CfWriter::reopen(path, kGrid, {ps, ta});
    EXPECT_EQ(w->pressure_levels(), (std::vector<double>{85000, 50000}));
    w->append(3600, {std::vector<double>(8, 1e5), std::vector<double>(16, 251)});
    w->close();
    EXPECT_EQ(w->records(), 2);
  }
  const CfVariable u{"u", "eastward wind", "m s-1", "eastward_wind", CfLevels::model};
  EXPECT_THAT(
      error_of([&] {
        CfWriter::reopen(path, kGrid, {ps, ta, u});
      }),
      HasSubstr("cannot append to '" + path + "': it has no model levels for the field 'u'"));
  EXPECT_FALSE(std::filesystem::exists(path + ".part"));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tessera::weather
