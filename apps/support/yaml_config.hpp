// Options from a YAML file for a program's CLI11 command line: `--config FILE.yaml` reads a
// mapping whose keys are the program's long option names without the dashes (as --help lists
// them) and whose values are scalars, or sequences of scalars for options that take several
// values (e.g. `pressure-levels: [850, 500]`). The command line wins over the file. A file that
// is not YAML, not a mapping, nests a mapping, or names an option the program does not have is
// an error that names the file and the key.
#pragma once

namespace CLI {
class App;
}  // namespace CLI

namespace tessera::apps {

// Adds --config to `app`; call after the program's own options.
void add_yaml_config_option(CLI::App& app);

}  // namespace tessera::apps
