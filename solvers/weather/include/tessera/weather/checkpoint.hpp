// The checkpoint schema of weather_ipu's planar cases: what an output file holds beside its
// records so that --restart continues the run bit for bit, and how a run starts from it.
//
// Beside the centred output fields, each record rewrites (y, x) variables with the exact
// prognostic state of the latest record (kRestartFields: u_face, v_face, tracer_mass; h is
// the last record of h) and, for leapfrog, its filtered previous time level
// (kPreviousFields), NaN while the run is still at its initial state.
#pragma once

#include <string>
#include <vector>

#include "tessera/weather/cf_reader.hpp"
#include "tessera/weather/cf_writer.hpp"
#include "tessera/weather/shallow_water.hpp"
#include "tessera/weather/time_integrator.hpp"

namespace tessera::weather {

// u_face, v_face, tracer_mass: the exact state of the latest record.
extern const std::vector<CfVariable> kRestartFields;
// h_previous, u_face_previous, v_face_previous, tracer_mass_previous: leapfrog's level n - 1.
extern const std::vector<CfVariable> kPreviousFields;
// The state fields kPreviousFields[k] holds.
inline constexpr int kStateFields[] = {ShallowWater::kH, ShallowWater::kU, ShallowWater::kV,
                                       ShallowWater::kTracerMass};

// Replaces the case's initial state by the last record of `path` (--initial or
// --restart) and returns that record, with the leapfrog level if the file has
// one. In kinematic mode the flow is the case's prescribed one and only the
// tracer is read. Throws ConfigError naming the file.
CfRecord start_from_file(ShallowWater& model, const std::string& path, bool restart);

// Gives a leapfrog integrator the previous time level saved in `r`; refuses a
// --restart whose file was written by another kind of integrator (its
// continuation could not be the same run).
void restore_time_levels(ShallowWater& model, TimeIntegrator& integrator, const CfRecord& r,
                         const std::string& path, bool restart, bool root);

}  // namespace tessera::weather
