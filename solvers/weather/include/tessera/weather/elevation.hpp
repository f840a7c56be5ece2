// Elevation grids read from CSV: one row of comma-separated heights (m) per
// line, rows running north to south, no header (the layout of R's
// datasets::volcano). Returned with row 0 the southernmost, as the model stores them.
#pragma once

#include <string>
#include <vector>

namespace tessera::weather {

struct ElevationGrid {
  int nx = 0, ny = 0;
  std::vector<double> values;  // row-major ny x nx, j = 0 south
};

// Throws FormatError naming the file, line and column of a malformed value or
// a ragged row, and Error when the file cannot be opened.
ElevationGrid read_elevation_csv(const std::string& path);

// Bilinear resampling of `e` onto nx x ny cell centres spanning the same area.
std::vector<double> resample(const ElevationGrid& e, int nx, int ny);

}  // namespace tessera::weather
