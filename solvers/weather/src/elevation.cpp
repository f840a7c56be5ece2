#include "tessera/weather/elevation.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tessera/core/error.hpp"

namespace tessera::weather {

ElevationGrid read_elevation_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open the elevation file '" + path + "'; check the path (--topography)");
  std::vector<std::vector<double>> rows;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<double> row;
    std::stringstream cells(line);
    std::string cell;
    int column = 0;
    while (std::getline(cells, cell, ',')) {
      ++column;
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(cell.c_str(), &end);
      if (cell.empty() || end == cell.c_str() || *end != '\0' || errno != 0 || !std::isfinite(v))
        throw FormatError(path + ":" + std::to_string(line_number) + ": column " +
                          std::to_string(column) + " is not a number ('" + cell + "')");
      row.push_back(v);
    }
    if (!rows.empty() && row.size() != rows.front().size())
      throw FormatError(path + ":" + std::to_string(line_number) + ": " +
                        std::to_string(row.size()) + " values where line 1 has " +
                        std::to_string(rows.front().size()) + "; every row must be as long");
    rows.push_back(std::move(row));
  }
  if (rows.size() < 2 || rows.front().size() < 2)
    throw FormatError(path + ": an elevation grid needs at least 2 x 2 values");
  ElevationGrid e;
  e.ny = static_cast<int>(rows.size());
  e.nx = static_cast<int>(rows.front().size());
  for (auto r = rows.rbegin(); r != rows.rend(); ++r)
    e.values.insert(e.values.end(), r->begin(), r->end());
  return e;
}

std::vector<double> resample(const ElevationGrid& e, int nx, int ny) {
  std::vector<double> out(static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny));
  auto at = [&](int i, int j) {
    return e.values[static_cast<std::size_t>(j) * static_cast<std::size_t>(e.nx) +
                    static_cast<std::size_t>(i)];
  };
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      // Cell centres of both grids span the same square; positions in source cell units.
      const double x = std::clamp((i + 0.5) * e.nx / nx - 0.5, 0.0, e.nx - 1.0);
      const double y = std::clamp((j + 0.5) * e.ny / ny - 0.5, 0.0, e.ny - 1.0);
      const int i0 = std::min(static_cast<int>(x), e.nx - 2),
                j0 = std::min(static_cast<int>(y), e.ny - 2);
      const double fx = x - i0, fy = y - j0;
      out[static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) +
          static_cast<std::size_t>(i)] = (1 - fy) * ((1 - fx) * at(i0, j0) + fx * at(i0 + 1, j0)) +
                                         fy * ((1 - fx) * at(i0, j0 + 1) + fx * at(i0 + 1, j0 + 1));
    }
  return out;
}

}  // namespace tessera::weather
