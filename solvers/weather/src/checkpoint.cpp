#include "tessera/weather/checkpoint.hpp"

#include <cmath>
#include <cstdio>

#include "tessera/core/error.hpp"

namespace tessera::weather {

// The exact prognostic state (face velocities, tracer mass h c) of the latest
// record, kept beside the centred output fields so that --restart continues
// bit for bit: centred u, v and c = h c / h do not give the state back exactly.
const std::vector<CfVariable> kRestartFields = {
    {"u_face", "x velocity on west cell faces at the last record (for restarts)", "m s-1", ""},
    {"v_face", "y velocity on south cell faces at the last record (for restarts)", "m s-1", ""},
    {"tracer_mass", "layer depth times tracer concentration at the last record (for restarts)", "m",
     ""}};

// Leapfrog's second time level (the filtered level n - 1) at the latest record,
// so that a leapfrog --restart continues bit for bit; NaN while the run is still
// at its initial state (the restarted run then starts with a forward-Euler step,
// as the unbroken one did).
const std::vector<CfVariable> kPreviousFields = {
    {"h_previous", "layer depth at the leapfrog's filtered previous time level (for restarts)", "m",
     ""},
    {"u_face_previous", "u_face at the leapfrog's filtered previous time level (for restarts)",
     "m s-1", ""},
    {"v_face_previous", "v_face at the leapfrog's filtered previous time level (for restarts)",
     "m s-1", ""},
    {"tracer_mass_previous",
     "tracer_mass at the leapfrog's filtered previous time level (for restarts)", "m", ""}};

// Replaces the case's initial state by the last record of `path` (--initial or
// --restart) and returns that record, with the leapfrog level if the file has
// one. In kinematic mode the flow is the case's prescribed one and only the
// tracer is read.
CfRecord start_from_file(ShallowWater& model, const std::string& path, bool restart) {
  const ShallowWaterConfig& config = model.config();
  std::vector<std::string> names, optional;
  if (!config.kinematic) names = {"h", "u_face", "v_face"};
  if (config.tracer) (restart || config.kinematic ? names : optional).push_back("tracer_mass");
  for (std::size_t k = 0; k < (config.tracer ? 4u : 3u); ++k)
    optional.push_back(kPreviousFields[k].name);
  CfRecord r = read_last_record(path, config.grid.nx, config.grid.ny, names, optional);
  if (!config.kinematic) {
    model.set_state(ShallowWater::kH, r.fields.at("h"));
    model.set_state(ShallowWater::kU, r.fields.at("u_face"));
    model.set_state(ShallowWater::kV, r.fields.at("v_face"));
  }
  if (r.fields.contains("tracer_mass"))
    model.set_state(ShallowWater::kTracerMass, r.fields.at("tracer_mass"));
  return r;
}

// Gives a leapfrog integrator the previous time level saved in `r`; refuses a
// --restart whose file was written by another kind of integrator (its
// continuation could not be the same run).
void restore_time_levels(ShallowWater& model, TimeIntegrator& integrator, const CfRecord& r,
                         const std::string& path, bool restart, bool root) {
  const bool leapfrog = integrator.name() == "leapfrog";
  const bool saved = r.fields.contains("h_previous");
  if (restart && saved && !leapfrog)
    throw ConfigError("'" + path +
                      "' was written by a leapfrog run (it holds h_previous); restart " +
                      "it with --integrator leapfrog");
  if (restart && !saved && leapfrog)
    throw ConfigError("'" + path + "' holds no leapfrog time level (h_previous): it was written " +
                      "by a one-level integrator; restart it with that --integrator (rk3 or rk4)");
  if (!leapfrog) return;
  if (!saved) {
    if (root)
      std::printf(
          "note: '%s' holds no leapfrog time level: leapfrog starts with a forward-Euler "
          "step\n",
          path.c_str());
    return;
  }
  // NaN: the record is the run's initial state and the unbroken run started here too.
  if (!std::isfinite(r.fields.at("h_previous").front())) return;
  State* previous = integrator.restore_previous_level();
  // Copy the whole state first (halos included: in kinematic mode the prescribed
  // velocities' halos are never refreshed), then the saved interiors.
  combine(model.runtime(), *previous, 1, model.state(), 0, model.state());
  const ShallowWaterConfig& config = model.config();
  for (std::size_t k = 0; k < (config.tracer ? 4u : 3u); ++k) {
    if (config.kinematic && kStateFields[k] != ShallowWater::kTracerMass) continue;
    model.set_state(kStateFields[k], r.fields.at(kPreviousFields[k].name), previous);
  }
}

}  // namespace tessera::weather
