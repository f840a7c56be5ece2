// Fuzz harness: target files (--target FILE.json of every program), read as resolve_target
// reads them: the JSON, a "base" preset, the overrides (Target::apply_overrides), validated.
#include "fuzz_support.hpp"
#include "tessera/core/options.hpp"

TESSERA_FUZZ_INIT() {}

TESSERA_FUZZ_HARNESS(data, size) {
  using namespace tessera;
  RuntimeOptions options;
  options.target = fuzz::write_file("target.json", fuzz::text(data, size));
  const Target target = resolve_target(options, 1, 1);
  target.validate();
}
