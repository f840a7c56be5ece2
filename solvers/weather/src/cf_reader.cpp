#include "tessera/weather/cf_reader.hpp"

#include <ncDim.h>
#include <ncFile.h>
#include <ncVar.h>
#include <netcdf.h>

#include <filesystem>
#include <netcdf>

#include "tessera/core/error.hpp"

namespace tessera::weather {

namespace {
std::vector<double> read_variable(const std::string& path, netCDF::NcVar& var, int nx, int ny,
                                  std::size_t records) {
  const std::vector<netCDF::NcDim> dims = var.getDims();
  const bool timed = dims.size() == 3 && dims[0].getName() == "time";
  if (dims.size() != (timed ? 3u : 2u))
    throw ConfigError("variable '" + var.getName() + "' in '" + path +
                      "' is not on (time, y, x) or (y, x); use a file written by weather_ipu");
  const std::size_t file_ny = dims[dims.size() - 2].getSize(), file_nx = dims.back().getSize();
  if (file_nx != static_cast<std::size_t>(nx) || file_ny != static_cast<std::size_t>(ny))
    throw ConfigError("'" + path + "' holds a " + std::to_string(file_nx) + " x " +
                      std::to_string(file_ny) + " grid (variable '" + var.getName() +
                      "') but this run has " + std::to_string(nx) + " x " + std::to_string(ny) +
                      "; use --nx " + std::to_string(file_nx) + " --ny " + std::to_string(file_ny) +
                      " and the same case");
  std::vector<double> values(file_nx * file_ny);
  if (timed)
    var.getVar({records - 1, 0, 0}, {1, file_ny, file_nx}, values.data());
  else
    var.getVar(values.data());
  return values;
}
}  // namespace

CfRecord read_last_record(const std::string& path, int nx, int ny,
                          const std::vector<std::string>& names,
                          const std::vector<std::string>& optional_names) {
  if (!std::filesystem::is_regular_file(path))
    throw ConfigError("cannot open the NetCDF file '" + path +
                      "': no such file; give the output file of an earlier weather_ipu run");
  try {
    netCDF::NcFile nc(path, netCDF::NcFile::read);
    CfRecord r;
    netCDF::NcVar time = nc.getVar("time");
    if (time.isNull())
      throw ConfigError("'" + path + "' has no variable 'time'; use a file written by weather_ipu");
    const std::size_t records = time.getDim(0).getSize();
    if (records == 0) throw ConfigError("'" + path + "' holds no records");
    r.records = static_cast<int>(records);
    time.getVar({records - 1}, {1}, &r.time);
    auto read = [&](const std::string& name, bool required) {
      netCDF::NcVar var = nc.getVar(name);
      if (var.isNull()) {
        if (required)
          throw ConfigError("'" + path + "' has no variable '" + name +
                            "'; use the output of weather_ipu for the same case");
        return;
      }
      r.fields[name] = read_variable(path, var, nx, ny, records);
    };
    for (const std::string& n : names) read(n, true);
    for (const std::string& n : optional_names) read(n, false);
    return r;
  } catch (const netCDF::exceptions::NcException& e) {
    throw ConfigError("cannot read the NetCDF file '" + path + "': " + nc_strerror(e.errorCode()) +
                      "; give the output file of an earlier weather_ipu run");
  }
}

}  // namespace tessera::weather
