// The checkpoint schema of weather_ipu's outputs: what an output file holds beside its
// records so that --restart continues the run bit for bit, how it is checked when read
// back, and how a run starts from it.
//
// Beside the centred output fields, each record rewrites:
//   - (y, x) variables with the exact prognostic state of the latest record: u_face,
//     v_face, tracer_mass (h is the last record of h; the 3-D model's u_face and v_face are on
//     (lev, y, x), its ps and T the record's own); and, for leapfrog, the filtered
//     previous time level (h_previous, u_face_previous, ...), NaN while the run is still
//     at its initial state;
//   - the attributes of the scalar variable `checkpoint`: time_step (s, the dt the run
//     took), time_origin (s) and step (the latest record is at time_origin + step *
//     time_step, unless the run's last step was shortened), and state_checksum (16 hex
//     digits: a hash of the record's time, those three and every value above), so that a
//     damaged checkpoint is refused rather than continued.
// Read back, every value is checked like the option it stands for: the time finite, >= 0
// and on the step grid, the step positive and finite, the depth positive and every field
// finite (the first offending cell named), the coordinates those of the run's grid.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"
#include "tessera/weather/cf_reader.hpp"
#include "tessera/weather/cf_writer.hpp"
#include "tessera/weather/grid.hpp"
#include "tessera/weather/model.hpp"
#include "tessera/weather/time_integrator.hpp"
#include "tessera/weather/time_step.hpp"

namespace tessera::weather {

// Which state fields a model's checkpoint holds, and in which variables.
struct CheckpointLayout {
  Grid grid;                // the run's grid (its coordinates are checked)
  bool geographic = false;  // coordinates lon, lat in degrees (else x, y in m)
  struct Entry {
    int field = 0;          // the model's state field
    std::string variable;   // "h" (the record's h) or a (y, x) variable such as u_face
    std::string long_name;  // for the (y, x) variable
    std::string units;
    bool positive = false;  // a depth, a pressure or a temperature: must be > 0
    bool optional = false;  // --initial may come without it (the case's value stays)
    int layers = 1;         // > 1: state fields field .. field + layers - 1, on (lev, y, x)
    bool in_record = false;  // the record's own variable (exact: a centred field), not a static
  };
  std::vector<Entry> entries;
};

// The planar model's layout: h, u_face, v_face (not in kinematic mode) and tracer_mass
// (with a tracer; optional for --initial unless kinematic).
CheckpointLayout planar_checkpoint(const Grid& grid, bool kinematic, bool tracer);
// The spherical model's: h, and u_face, v_face unless kinematic.
CheckpointLayout sphere_checkpoint(const Grid& grid, bool kinematic);
// PrimitiveEquations' with `layers` layers: ps and T from the record, u_face and v_face on
// (lev, lat, lon).
CheckpointLayout atmosphere_checkpoint(const Grid& grid, int layers);

// The (y, x) variables an output of this layout holds for restarts (with leapfrog, the
// previous level of every entry too).
std::vector<CfVariable> checkpoint_variables(const CheckpointLayout& layout, bool leapfrog);

// Writes the checkpoint of the record at time t: the (y, x) variables and the attributes
// of `checkpoint`. Collective (every rank gathers); rank 0 writes to `writer` (null
// elsewhere), before it appends the record.
void write_checkpoint(Model& model, const TimeIntegrator& integrator,
                      const CheckpointLayout& layout, CfWriter* writer, double t,
                      const StepPlan& plan, long long n);

// What a run continues from.
struct Checkpoint {
  double time = 0;  // of the last record, s
  int records = 0;
  // The step grid the file was written on (absent in files without a `checkpoint`).
  std::optional<double> dt;
  double origin = 0;
  long long step = 0;
  bool on_grid = false;  // time == origin + step * dt: a restart continues the grid
};

// Replaces the model's state by the last record of `path` (--initial, or --restart when
// `restart`) after checking it (see above), gives a leapfrog integrator the saved previous
// level, and returns the record's time and step grid. Refuses a --restart whose file was
// written by another kind of integrator. Throws ConfigError naming the file, the variable
// and the cell; Error for a damaged file.
Checkpoint start_from_file(Model& model, TimeIntegrator& integrator, const CheckpointLayout& layout,
                           const std::string& path, bool restart, bool root);

}  // namespace tessera::weather
