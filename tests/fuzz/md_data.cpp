// Fuzz harness: LAMMPS data files (read_data), read into a fresh simulation that then runs a
// few steps and writes the system back (write_data), as a script would use them.
#include <string>

#include "fuzz_support.hpp"
#include "md_fuzz_support.hpp"

TESSERA_FUZZ_INIT() { tessera::fuzz::md_fixtures(); }

TESSERA_FUZZ_HARNESS(data, size) {
  tessera::fuzz::write_file("input.data", tessera::fuzz::text(data, size));
  tessera::fuzz::run_md_script(
      "units lj\natom_style atomic\npair_style lj/cut 2.5\nread_data input.data\n"
      "pair_coeff * * 1.0 1.0\nmass * 1.0\nfix 1 all nve\n"
      "thermo 1\nrun 3\nwrite_data output.data\n");
}
