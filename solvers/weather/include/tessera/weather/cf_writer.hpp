// CfWriter: CF-1.8 NetCDF output of a regular planar grid, one record per
// output time, through the NetCDF C library (NetCDF-4 format).
//
// The file holds the coordinates x and y (cell centres, m, axes X and Y) or,
// for a geographic grid (dx, dy, x0, y0 in radians), lon and lat (degrees_east,
// degrees_north), model levels where it has fields on them (CfHybridLevels), pressure
// levels (plev, Pa) where it has fields on those, time (seconds since a reference date,
// standard calendar, unlimited), one variable per field on (time, y, x), (time, lev, y, x) or
// (time, plev, y, x) and static fields on (y, x) or (lev, y, x), each with units and
// long_name (and standard_name where CF defines one).
//
// The file follows tessera/core/atomic_file.hpp: records are appended and synced as they
// come, into FILE.part; close() syncs it and renames it to FILE, so the final name never
// holds a half-written file. Without close() (an error ended the run) FILE.part is removed.
// FILE must not be a device or a folder, and its folder must exist and be writable (checked
// before anything is written). A failed write throws Error naming the file and the real
// reason (a full disk, a read-only file system: NetCDF-4's own report of them is an "HDF
// error"), removes FILE.part and leaves FILE as it was.
//
// reopen() continues a finished file: it copies FILE to FILE.part and
// appends there, so FILE keeps its old records until close() replaces it.
//
// Written by one process (rank 0) from gathered fields.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/weather/grid.hpp"

namespace tessera::weather {

// Where a field sits in the vertical: one level (time, lat, lon), the file's model levels
// (time, lev, lat, lon; static: lev, lat, lon) or its pressure levels (time, plev, lat, lon).
enum class CfLevels { none, model, pressure };

struct CfVariable {
  std::string name, long_name, units, standard_name;  // standard_name may be empty
  CfLevels levels = CfLevels::none;
};

// Model levels of the hybrid sigma-pressure coordinate (CF-1.8 appendix D,
// atmosphere_hybrid_sigma_pressure_coordinate: p = a p0 + b ps), top first: the layers'
// midpoints and their bounds, the interfaces. `lev` is a + b at the midpoints, dimensionless,
// with bounds; its formula_terms name a, b (with bounds), P0 and the record field ps.
struct CfHybridLevels {
  std::vector<double> a_interfaces, b_interfaces;  // K + 1 values each
  double p0 = 1e5;                                 // Pa
};

// What the file says of itself: its title, history (the command line) and source (the
// scheme that ran), and its coordinates: lon, lat in degrees (geographic) or x, y in m,
// model levels when it has fields on them, and pressure levels (Pa, as given) when it has
// fields on those.
struct CfFileInfo {
  std::string title, history, source;
  bool geographic = false;
  std::optional<CfHybridLevels> levels;
  std::vector<double> pressure_levels = {};
};

class CfWriter {
 public:
  // Creates FILE.part; throws Error naming the path when it cannot be written.
  CfWriter(std::string path, const Grid& grid, std::vector<CfVariable> fields,
           std::vector<CfVariable> static_fields, const CfFileInfo& info);
  // Appends to the existing file `path` (written by CfWriter with these
  // fields on this grid) through a copy, FILE.part; throws Error naming the path.
  static std::unique_ptr<CfWriter> reopen(std::string path, const Grid& grid,
                                          std::vector<CfVariable> fields);
  ~CfWriter();
  CfWriter(const CfWriter&) = delete;
  CfWriter& operator=(const CfWriter&) = delete;

  // Writes a static field (row-major ny x nx, j = 0 south; on model levels: K such arrays,
  // top first); may be rewritten before each append (the exact restart state of the latest
  // record). Throws Error.
  void write_static(const std::string& name, const std::vector<double>& values);
  // Sets attributes of the scalar variable `variable` (defined, as an int without data, the
  // first time): numbers as doubles, texts as text. Throws Error.
  void set_attributes(const std::string& variable,
                      const std::vector<std::pair<std::string, double>>& numbers,
                      const std::vector<std::pair<std::string, std::string>>& texts);
  // Appends one record: `values[k]` for fields[k], row-major ny x nx (on model or pressure
  // levels: one such array per level, in the file's order), and syncs the file.
  // Throws Error.
  void append(double time_seconds, const std::vector<std::vector<double>>& values);
  // Closes the file and publishes it under its final name. Throws Error.
  void close();
  int records() const { return records_; }
  // The file's pressure levels (Pa; empty without them), as created or found by reopen().
  const std::vector<double>& pressure_levels() const { return pressure_levels_; }

 private:
  CfWriter(std::string path, const Grid& grid, std::vector<CfVariable> fields);
  struct File;
  [[noreturn]] void fail(const std::string& what, int status);
  int variable(const std::string& name);
  std::string path_;
  Grid grid_;
  std::vector<CfVariable> fields_;
  std::unique_ptr<File> file_;
  int records_ = 0;
  int layers_ = 0;  // model levels (0: none)
  std::vector<double> pressure_levels_;
  std::size_t level_count(CfLevels levels) const;
};

}  // namespace tessera::weather
