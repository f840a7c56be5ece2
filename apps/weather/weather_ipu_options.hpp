// weather_ipu's command line, in a function that the program and its fuzz harness
// (tests/fuzz/weather_options.cpp) share.
//
//   weather::RunSettings s;
//   RuntimeOptions runtime;
//   add_weather_ipu_options(app, s, runtime);  // every option, as --help lists them
//   parse_command_line(app, argc, argv);       // tessera/core/options.hpp
//   Runtime r(runtime);
//   weather::run(r, s, command_line);          // tessera/weather/run.hpp
#pragma once

#include "tessera/core/options.hpp"
#include "tessera/weather/run.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace tessera::weather {

// Registers every option of weather_ipu (the runtime's too, default target host) on `app`,
// parsed into `settings` and `runtime`; each option checks its own range (RunSettings::validate
// refuses the same for library callers).
void add_weather_ipu_options(CLI::App& app, RunSettings& settings, RuntimeOptions& runtime);

}  // namespace tessera::weather
