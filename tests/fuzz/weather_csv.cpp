// Fuzz harness: weather_ipu's CSV grids (--topography FILE.csv, --initial FILE.csv), read by
// weather::read_elevation (which tells NetCDF from CSV by the first bytes) and resampled onto
// grids as weather_ipu does.
#include "fuzz_support.hpp"
#include "tessera/weather/elevation.hpp"

TESSERA_FUZZ_INIT() {}

TESSERA_FUZZ_HARNESS(data, size) {
  using namespace tessera;
  const std::string path = fuzz::write_file("input.csv", fuzz::text(data, size));
  if (size >= 4 && (data[0] == 'C' || data[0] == 0x89)) return;  // NetCDF: weather_netcdf's
  const weather::ElevationGrid grid = weather::read_elevation_csv(path, "--topography");
  if (grid.values.size() != static_cast<std::size_t>(grid.nx) * static_cast<std::size_t>(grid.ny))
    fuzz::finding("read_elevation_csv: " + std::to_string(grid.values.size()) + " values for " +
                  std::to_string(grid.nx) + " x " + std::to_string(grid.ny));
  for (const auto& [nx, ny] : {std::pair{8, 6}, std::pair{1, 1}, std::pair{33, 2}})
    if (weather::resample(grid, nx, ny).size() != static_cast<std::size_t>(nx * ny))
      fuzz::finding("resample gave the wrong number of values");
}
