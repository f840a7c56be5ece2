// Fuzz harness: md_ipu's input scripts (LAMMPS's input language), run by md::Input on a fresh
// simulation of a 4-tile IPU, bounded to 300 steps and commands.
#include "fuzz_support.hpp"
#include "md_fuzz_support.hpp"

TESSERA_FUZZ_INIT() { tessera::fuzz::md_fixtures(); }

TESSERA_FUZZ_HARNESS(data, size) { tessera::fuzz::run_md_script(tessera::fuzz::text(data, size)); }
