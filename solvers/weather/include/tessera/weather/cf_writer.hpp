// CfWriter: CF-1.8 NetCDF output of a regular planar grid, one record per
// output time, through NetCDF-C++4 (NetCDF-4 format).
//
// The file holds the coordinates x and y (cell centres, m, axes X and Y) or,
// for a geographic grid (dx, dy, x0, y0 in radians), lon and lat (degrees_east,
// degrees_north),
// time (seconds since a reference date, standard calendar, unlimited), one
// variable per field on (time, y, x) and static fields on (y, x), each with
// units and long_name (and standard_name where CF defines one). Records are
// appended and synced as they come, into FILE.partial; close() renames it to
// FILE, so the final name never holds a half-written file. Without close()
// (an error ended the run) the partial file is removed.
//
// reopen() continues a finished file: it copies FILE to FILE.partial and
// appends there, so FILE keeps its old records until close() replaces it.
//
// Written by one process (rank 0) from gathered fields.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/weather/grid.hpp"

namespace tessera::weather {

struct CfVariable {
  std::string name, long_name, units, standard_name;  // standard_name may be empty
};

class CfWriter {
 public:
  // Creates FILE.partial; throws Error naming the path when it cannot be written.
  CfWriter(std::string path, const Grid& grid, std::vector<CfVariable> fields,
           std::vector<CfVariable> static_fields, const std::string& title,
           const std::string& history, bool geographic = false);
  // Appends to the existing file `path` (written by CfWriter with these
  // fields on this grid) through a copy, FILE.partial; throws Error naming the path.
  static std::unique_ptr<CfWriter> reopen(std::string path, const Grid& grid,
                                          std::vector<CfVariable> fields);
  ~CfWriter();
  CfWriter(const CfWriter&) = delete;
  CfWriter& operator=(const CfWriter&) = delete;

  // Writes a static field (row-major ny x nx, j = 0 south); may be rewritten
  // before each append (the exact restart state of the latest record).
  void write_static(const std::string& name, const std::vector<double>& values);
  // Appends one record: `values[k]` for fields[k], row-major ny x nx.
  void append(double time_seconds, const std::vector<std::vector<double>>& values);
  // Closes the file and moves it to its final name.
  void close();
  int records() const { return records_; }

 private:
  CfWriter(std::string path, const Grid& grid, std::vector<CfVariable> fields);
  struct File;
  std::string path_, partial_;
  Grid grid_;
  std::vector<CfVariable> fields_;
  std::unique_ptr<File> file_;
  int records_ = 0;
};

}  // namespace tessera::weather
