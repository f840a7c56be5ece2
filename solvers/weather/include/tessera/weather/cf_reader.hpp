// read_last_record: the last record of a CF NetCDF file that CfWriter wrote,
// for --initial and --restart.
//
// Each requested variable is read on (time, y, x), taking the last record, or
// on (y, x) (the exact-restart fields CfWriter keeps for the latest record); a field on
// model levels has `lev` before y (up to 4096 levels), and is read whole, level-major.
// Errors are ConfigErrors that name the file and say what is wrong: a file
// that cannot be opened, a missing variable, a grid of another size, a file
// without records; a damaged file whose reader crashes (HDF5 can, on NetCDF-4
// metadata with one wrong byte) gives an Error that says so: the file is read in
// a child process (tessera/core/isolated_call.hpp), whatever its bytes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::weather {

struct CfRecord {
  double time = 0;                                    // the last value of `time`, seconds
  int records = 0;                                    // the length of the time axis
  std::map<std::string, std::vector<double>> fields;  // [lev x] row-major ny x nx, j = 0 south
  // The 1-D coordinate variables asked for that the file holds (x, y or lon, lat, of the grid's
  // sizes; others, such as plev, of up to 4096 values).
  std::map<std::string, std::vector<double>> coordinates;
  // The attributes of the variable `attributes_of` (numbers as their first value).
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> texts;
};

// Reads `names` (required) and those of `optional_names` the file holds, on an nx x ny grid,
// the 1-D variables `coordinate_names` the file holds, and the attributes of the variable
// `attributes_of` if there is one. `levels` > 0: a field on model levels must have that many
// (checked before it is read).
CfRecord read_last_record(const std::string& path, int nx, int ny,
                          const std::vector<std::string>& names,
                          const std::vector<std::string>& optional_names = {},
                          const std::vector<std::string>& coordinate_names = {},
                          const std::string& attributes_of = "", int levels = 0);

}  // namespace tessera::weather
