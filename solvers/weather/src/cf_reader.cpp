#include "tessera/weather/cf_reader.hpp"

#include <netcdf.h>

#include <filesystem>
#include <limits>

#include "netcdf_input.hpp"
#include "netcdf_readers.hpp"
#include "tessera/core/isolated_call.hpp"

namespace tessera::weather {

namespace {

const char* const kHint = "; give the output file of an earlier weather_ipu run";

// More model levels than any model of ours has: a file that claims more is damaged.
constexpr std::size_t kMaxLevels = 4096;

std::vector<double> read_variable(const std::string& path, const NcInput& nc, int var, int nx,
                                  int ny, std::size_t records, int expected_levels) {
  const std::vector<std::string> dims = nc.dimension_names(var);
  const std::vector<std::size_t> sizes = nc.dimension_sizes(var);
  const std::string name = nc.variable_name(var);
  const bool timed = !dims.empty() && dims[0] == "time";
  const std::size_t first = timed ? 1 : 0;
  const bool layered = dims.size() == first + 3 && dims[first] == "lev";
  if (dims.size() != first + (layered ? 3 : 2))
    throw ConfigError("variable '" + name + "' in '" + path +
                      "' is not on ([time,] [lev,] y, x); use a file written by weather_ipu");
  const std::size_t file_ny = sizes[sizes.size() - 2], file_nx = sizes.back();
  if (file_nx != static_cast<std::size_t>(nx) || file_ny != static_cast<std::size_t>(ny))
    throw ConfigError("'" + path + "' holds a " + std::to_string(file_nx) + " x " +
                      std::to_string(file_ny) + " grid (variable '" + name +
                      "') but this run has " + std::to_string(nx) + " x " + std::to_string(ny) +
                      "; use --nx " + std::to_string(file_nx) + " --ny " + std::to_string(file_ny) +
                      " and the same case");
  const std::size_t levels = layered ? sizes[first] : 1;
  if (levels == 0 || levels > kMaxLevels)
    throw ConfigError("variable '" + name + "' in '" + path + "' claims " + std::to_string(levels) +
                      " model levels" + kHint);
  if (layered && expected_levels > 0 && levels != static_cast<std::size_t>(expected_levels))
    throw ConfigError("'" + path + "': " + name + " has " + std::to_string(levels) +
                      " model levels where this run has " + std::to_string(expected_levels) +
                      "; use the output of weather_ipu for the same case");
  if (timed && sizes[0] < records)
    throw ConfigError("variable '" + name + "' in '" + path + "' has " + std::to_string(sizes[0]) +
                      " records where 'time' has " + std::to_string(records) + kHint);
  std::vector<double> values(levels * file_nx * file_ny);
  std::vector<std::size_t> start, count;
  if (timed) start.push_back(records - 1), count.push_back(1);
  if (layered) start.push_back(0), count.push_back(levels);
  start.insert(start.end(), {0, 0});
  count.insert(count.end(), {file_ny, file_nx});
  nc.read(var, start, count, values.data());
  return values;
}

}  // namespace

CfRecord read_last_record_here(const std::string& path, int nx, int ny,
                               const std::vector<std::string>& names,
                               const std::vector<std::string>& optional_names,
                               const std::vector<std::string>& coordinate_names,
                               const std::string& attributes_of, int levels) {
  const NcInput nc(path);
  CfRecord r;
  const std::optional<int> time = nc.variable("time");
  if (!time)
    throw ConfigError("'" + path + "' has no variable 'time'; use a file written by weather_ipu");
  const std::vector<std::size_t> time_sizes = nc.dimension_sizes(*time);
  if (time_sizes.size() != 1)
    throw ConfigError("the variable 'time' in '" + path + "' is not 1-D" + kHint);
  const std::size_t records = time_sizes[0];
  if (records == 0) throw ConfigError("'" + path + "' holds no records");
  if (records > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw ConfigError("'" + path + "' claims " + std::to_string(records) + " records" + kHint);
  r.records = static_cast<int>(records);
  nc.read(*time, {records - 1}, {1}, &r.time);
  auto read_field = [&](const std::string& name, bool required) {
    const std::optional<int> var = nc.variable(name);
    if (!var) {
      if (required)
        throw ConfigError("'" + path + "' has no variable '" + name +
                          "'; use the output of weather_ipu for the same case");
      return;
    }
    r.fields[name] = read_variable(path, nc, *var, nx, ny, records, levels);
  };
  for (const std::string& n : names) read_field(n, true);
  for (const std::string& n : optional_names) read_field(n, false);
  for (const std::string& n : coordinate_names) {
    const std::optional<int> var = nc.variable(n);
    if (!var) continue;
    const std::vector<std::size_t> sizes = nc.dimension_sizes(*var);
    const bool horizontal = n == "x" || n == "lon" || n == "y" || n == "lat";
    if (!horizontal) {
      constexpr std::size_t kMostValues = 4096;
      if (sizes.size() != 1 || sizes[0] > kMostValues)
        throw ConfigError("the coordinate '" + n + "' in '" + path +
                          "' is not 1-D with at most 4096 values; use the output of weather_ipu");
    }
    const std::size_t expected =
        horizontal ? static_cast<std::size_t>(n == "x" || n == "lon" ? nx : ny) : sizes[0];
    if (sizes.size() != 1 || sizes[0] != expected)
      throw ConfigError("the coordinate '" + n + "' in '" + path + "' does not have " +
                        std::to_string(expected) + " values; use the output of weather_ipu " +
                        "for the same case and grid");
    std::vector<double> values(expected);
    nc.read(*var, {0}, {expected}, values.data());
    r.coordinates[n] = std::move(values);
  }
  if (!attributes_of.empty())
    if (const std::optional<int> var = nc.variable(attributes_of))
      for (const std::string& a : nc.attribute_names(*var)) {
        if (const auto text = nc.text_attribute(*var, a))
          r.texts[a] = *text;
        else if (const auto number = nc.number_attribute(*var, a))
          r.numbers[a] = *number;
      }
  return r;
}

namespace {

std::string pack(const CfRecord& r) {
  ByteWriter w;
  w.put(r.time);
  w.put(static_cast<long long>(r.records));
  for (const auto* map : {&r.fields, &r.coordinates}) {
    w.put(static_cast<long long>(map->size()));
    for (const auto& [name, values] : *map) w.put(name), w.put(values);
  }
  w.put(static_cast<long long>(r.numbers.size()));
  for (const auto& [name, value] : r.numbers) w.put(name), w.put(value);
  w.put(static_cast<long long>(r.texts.size()));
  for (const auto& [name, value] : r.texts) w.put(name), w.put(value);
  return w.take();
}

CfRecord unpack(const std::string& bytes) {
  ByteReader in(bytes);
  CfRecord r;
  r.time = in.get_double();
  r.records = static_cast<int>(in.get_integer());
  for (auto* map : {&r.fields, &r.coordinates})
    for (long long n = in.get_integer(); n > 0; --n) {
      std::string name = in.get_string();
      (*map)[name] = in.get_vector();
    }
  for (long long n = in.get_integer(); n > 0; --n) {
    std::string name = in.get_string();
    r.numbers[name] = in.get_double();
  }
  for (long long n = in.get_integer(); n > 0; --n) {
    std::string name = in.get_string();
    r.texts[name] = in.get_string();
  }
  return r;
}

}  // namespace

CfRecord read_last_record(const std::string& path, int nx, int ny,
                          const std::vector<std::string>& names,
                          const std::vector<std::string>& optional_names,
                          const std::vector<std::string>& coordinate_names,
                          const std::string& attributes_of, int levels) {
  if (!std::filesystem::is_regular_file(path))
    throw ConfigError("cannot open the NetCDF file '" + path +
                      "': no such file; give the output file of an earlier weather_ipu run");
  const std::string what = "the NetCDF file '" + path + "'";
  return unpack(isolated_call(
      [&] {
        try {
          return pack(read_last_record_here(path, nx, ny, names, optional_names, coordinate_names,
                                            attributes_of, levels));
        } catch (const NcStatus& e) {
          throw ConfigError("cannot read " + what + ": " + nc_strerror(e.status) + kHint);
        }
      },
      what, kHint));
}

}  // namespace tessera::weather
