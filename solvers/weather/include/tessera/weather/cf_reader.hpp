// read_last_record: the last record of a CF NetCDF file that CfWriter wrote,
// for --initial and --restart.
//
// Each requested variable is read on (time, y, x), taking the last record, or
// on (y, x) (the exact-restart fields CfWriter keeps for the latest record).
// Errors are ConfigErrors that name the file and say what is wrong: a file
// that cannot be opened, a missing variable, a grid of another size, a file
// without records.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tessera::weather {

struct CfRecord {
  double time = 0;                                    // the last value of `time`, seconds
  int records = 0;                                    // the length of the time axis
  std::map<std::string, std::vector<double>> fields;  // row-major ny x nx, j = 0 south
};

// Reads `names` (required) and those of `optional_names` the file holds, on an nx x ny grid.
CfRecord read_last_record(const std::string& path, int nx, int ny,
                          const std::vector<std::string>& names,
                          const std::vector<std::string>& optional_names = {});

}  // namespace tessera::weather
