#include "tessera/weather/elevation.hpp"

#include <netcdf.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "netcdf_input.hpp"
#include "netcdf_readers.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/isolated_call.hpp"

namespace tessera::weather {

ElevationGrid read_elevation_csv(const std::string& path, const std::string& option) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open the " + std::string(option == "--topography" ? "elevation" : "CSV") +
                " file '" + path + "'; check the path (" + option + ")");
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

namespace {

// The first four bytes of a NetCDF classic ("CDF\1", "CDF\2", "CDF\5") or
// NetCDF-4 / HDF5 ("\x89HDF") file.
bool looks_like_netcdf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<char, 4> magic{};
  if (!in.read(magic.data(), magic.size())) return false;
  const std::string m(magic.data(), magic.size());
  return m.starts_with("CDF") || m == "\x89HDF";
}

// The topography variable: standard_name surface_altitude first, then by name (variables in
// the order of their names).
int find_elevation(const NcInput& nc, const std::string& path) {
  std::vector<std::string> names = nc.variable_names();
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const int var = *nc.variable(name);
    if (nc.text_attribute(var, "standard_name") == "surface_altitude") return var;
  }
  for (const char* name : {"elevation", "topography", "b", "z", "height"})
    if (const std::optional<int> var = nc.variable(name)) return *var;
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "'" : ", '") + name + "'";
  throw FormatError(path + ": no topography variable (standard_name surface_altitude, or named " +
                    "elevation, topography, b, z or height); the file has " +
                    (list.empty() ? std::string("no variables") : list));
}

}  // namespace

ElevationGrid read_elevation_netcdf_here(const std::string& path) {
  const NcInput nc(path);
  const int var = find_elevation(nc, path);
  const std::string name = nc.variable_name(var);
  const std::vector<std::string> dims = nc.dimension_names(var);
  const std::vector<std::size_t> sizes = nc.dimension_sizes(var);
  std::string shape;
  for (std::size_t k = 0; k < dims.size(); ++k)
    shape += (shape.empty() ? "" : ", ") + dims[k] + " = " + std::to_string(sizes[k]);
  constexpr std::size_t kLargest = 1u << 15;  // cells per axis: a larger one is not a map
  if (dims.size() != 2 || sizes[0] < 2 || sizes[1] < 2)
    throw FormatError(path + ": variable '" + name + "' has dimensions (" + shape +
                      "); topography must be 2-D, (y, x), at least 2 x 2");
  if (sizes[0] > kLargest || sizes[1] > kLargest)
    throw FormatError(path + ": variable '" + name + "' has dimensions (" + shape +
                      "); topography of more than " + std::to_string(kLargest) +
                      " cells along an axis is not supported");
  ElevationGrid e;
  e.ny = static_cast<int>(sizes[0]);
  e.nx = static_cast<int>(sizes[1]);
  e.values.resize(sizes[0] * sizes[1]);
  nc.read(var, {0, 0}, sizes, e.values.data());  // converted to double by the library
  for (std::size_t k = 0; k < e.values.size(); ++k)
    if (!std::isfinite(e.values[k]) || std::abs(e.values[k]) > 1e30)  // NaN or a fill value
      throw FormatError(path + ": variable '" + name + "' holds a missing or " +
                        "non-finite value at (y, x) = (" + std::to_string(k / sizes[1]) + ", " +
                        std::to_string(k % sizes[1]) + "); topography must be complete");
  // Rows run north to south if the first dimension's coordinate decreases.
  const std::optional<int> y = nc.variable(dims[0]);
  if (y && nc.dimension_sizes(*y) == std::vector<std::size_t>{sizes[0]}) {
    std::vector<double> coordinate(sizes[0]);
    nc.read(*y, {0}, {sizes[0]}, coordinate.data());
    if (coordinate.back() < coordinate.front())
      for (int j = 0; j < e.ny / 2; ++j)
        std::swap_ranges(e.values.begin() + static_cast<std::ptrdiff_t>(j) * e.nx,
                         e.values.begin() + static_cast<std::ptrdiff_t>(j + 1) * e.nx,
                         e.values.begin() + static_cast<std::ptrdiff_t>(e.ny - 1 - j) * e.nx);
  }
  return e;
}

ElevationGrid read_elevation_netcdf(const std::string& path) {
  std::ifstream probe(path);
  if (!probe)
    throw Error("cannot open the elevation file '" + path + "'; check the path (--topography)");
  const std::string what = "the NetCDF elevation file '" + path + "'";
  const char* const hint = "; check that it is a NetCDF file";
  const std::string bytes = isolated_call(
      [&] {
        try {
          const ElevationGrid e = read_elevation_netcdf_here(path);
          ByteWriter w;
          w.put(static_cast<long long>(e.nx)), w.put(static_cast<long long>(e.ny)), w.put(e.values);
          return w.take();
        } catch (const NcStatus& error) {
          throw Error("cannot read " + what + ": " + nc_strerror(error.status) + hint);
        }
      },
      what, hint);
  ByteReader in(bytes);
  ElevationGrid e;
  e.nx = static_cast<int>(in.get_integer());
  e.ny = static_cast<int>(in.get_integer());
  e.values = in.get_vector();
  return e;
}

ElevationGrid read_elevation(const std::string& path) {
  return looks_like_netcdf(path) ? read_elevation_netcdf(path) : read_elevation_csv(path);
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
