#include "tessera/md/units.hpp"

#include "tessera/core/error.hpp"

namespace tessera::md {

// Values as defined by LAMMPS (update.cpp, "units" command documentation).
Units Units::of(const std::string& style) {
  if (style == "lj") return {"lj", 1.0, 1.0, 1.0, 1.0, 0.005, 0.3, "tau", 1.0, 1.0, 1.0};
  if (style == "metal")  // eV, Angstrom, ps, g/mol, bar
    return {"metal", 8.617343e-5, 1.0364269e-4, 1.0 / 1.0364269e-4, 1.6021765e6, 0.001,
            2.0,     "ns",        1e-3,         1.0 / 0.602214129,  14.399645};
  if (style == "real") {  // kcal/mol, Angstrom, fs, g/mol, atm
    const double c = 48.88821291;
    return {"real", 0.0019872067, c * c, 1.0 / (c * c),     68568.415, 1.0,
            2.0,    "ns",         1e-6,  1.0 / 0.602214129, 332.06371};
  }
  throw ConfigError("units " + style +
                    ": unsupported unit style; Tessera supports lj, metal and real");
}

}  // namespace tessera::md
