// Elevation grids (bottom topography) read from CSV or NetCDF, returned with
// row 0 the southernmost, as the model stores them.
//   CSV: one row of comma-separated heights (m) per line, rows running north
//        to south, no header (the layout of R's datasets::volcano).
//   NetCDF (classic or NetCDF-4, read in a child process: tessera/core/isolated_call.hpp):
//        a 2-D variable on (y, x) in metres: the one with standard_name "surface_altitude" (as
//        weather_ipu writes `b`), else one named elevation, topography, b, z or height. Rows run
//        south to north unless the coordinate variable of the first dimension decreases (then north
//        to south, and they are flipped).
#pragma once

#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::weather {

struct ElevationGrid {
  int nx = 0, ny = 0;
  std::vector<double> values;  // row-major ny x nx, j = 0 south
};

// Throws FormatError naming the file, line and column of a malformed value or
// a ragged row, and Error when the file cannot be opened (naming `option`, the
// command-line option that gave the path). The format serves any gridded field
// (weather_ipu's --initial FILE.csv reads layer depths with it).
ElevationGrid read_elevation_csv(const std::string& path,
                                 const std::string& option = "--topography");

// Throws FormatError naming the file and variable when no variable qualifies
// (listing the variables there are), when it is not 2-D or smaller than 2 x 2,
// or holds a value that is not finite (fill values included); Error when the
// file cannot be opened or read.
ElevationGrid read_elevation_netcdf(const std::string& path);

// read_elevation_netcdf for a NetCDF file (recognised by its first bytes, not
// its name), read_elevation_csv for anything else.
ElevationGrid read_elevation(const std::string& path);

// Bilinear resampling of `e` onto nx x ny cell centres spanning the same area.
std::vector<double> resample(const ElevationGrid& e, int nx, int ny);

}  // namespace tessera::weather
