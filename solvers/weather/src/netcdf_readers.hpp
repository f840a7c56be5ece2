// The NetCDF parsers behind read_last_record (cf_reader.hpp) and read_elevation_netcdf
// (elevation.hpp), in the calling process. The public functions run them in a child process
// (tessera/core/isolated_call.hpp), where a crash of the libraries on a damaged file cannot
// take the program down; the fuzz harness tests/fuzz/weather_netcdf.cpp calls them directly,
// so that the fuzzer sees their coverage and their faults, on files netCDF-C alone survives.
//
// Same arguments, results and errors as the public functions, except that a failing library
// call throws NcStatus (netcdf_input.hpp), which the public functions turn into an Error
// naming the file.
#pragma once

#include <string>
#include <vector>

#include "tessera/weather/cf_reader.hpp"
#include "tessera/weather/elevation.hpp"

namespace tessera::weather {

CfRecord read_last_record_here(const std::string& path, int nx, int ny,
                               const std::vector<std::string>& names,
                               const std::vector<std::string>& optional_names,
                               const std::vector<std::string>& coordinate_names,
                               const std::string& attributes_of, int levels = 0);

ElevationGrid read_elevation_netcdf_here(const std::string& path);

}  // namespace tessera::weather
