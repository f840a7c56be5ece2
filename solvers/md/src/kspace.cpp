// What the kspace styles share at init (kspace.hpp): LAMMPS's KSpace checks, warnings and
// first g_ewald.
#include "tessera/md/kspace.hpp"

#include <cmath>

#include "arguments.hpp"
#include "tessera/core/error.hpp"

namespace tessera::md {

void check_kspace_system(const KSpaceSystem& s, const std::string& style, const char* name,
                         const char* triclinic_needs) {
  const std::string what = "kspace_style " + style;
  if (s.dimension == 2) throw ConfigError(what + ": LAMMPS's " + name + " is for 3-d simulations");
  if (s.box.triclinic)
    throw ConfigError(what + ": md_ipu's " + style + " is for orthogonal boxes (a triclinic box " +
                      "needs " + triclinic_needs + ", not yet here)");
  for (std::size_t d = 0; d < 3; ++d)
    if (!s.boundary.periodic(d))
      throw ConfigError(what +
                        ": the box must be periodic in x, y and z (LAMMPS's slab "
                        "correction is not in md_ipu)");
}

double kspace_accuracy(const std::string& style, const std::vector<std::string>& args) {
  if (args.size() != 1)
    arguments::bad("wrong number of arguments; usage: kspace_style " + style + " ACCURACY");
  return std::fabs(arguments::number("kspace_style " + style, args[0]));
}

std::optional<double> kspace_gewald(const std::vector<std::string>& words, std::size_t at,
                                    const char* usage) {
  if (at + 2 > words.size())
    arguments::bad(std::string("kspace_modify gewald needs a value; ") + usage);
  const double g = arguments::number("kspace_modify gewald", words[at + 1]);
  if (g < 0) arguments::bad("kspace_modify gewald: G must not be negative");
  return g > 0 ? std::optional<double>(g) : std::nullopt;
}

std::string kspace_charge_warnings(const KSpaceSystem& s) {
  std::string log;
  if (s.qsqsum == 0.0) log += "WARNING: Using kspace solver on system with no charge\n";
  if (std::fabs(s.qsum) > 1.0e-5) log += "WARNING: Using kspace solver on system with net charge\n";
  return log;
}

double g_ewald_from_accuracy(const KSpaceSystem& s, double accuracy, double q2,
                             const std::string& style) {
  const std::string what = "kspace_style " + style;
  if (!(accuracy > 0)) throw ConfigError(what + ": the accuracy must be > 0");
  if (q2 == 0.0)
    throw ConfigError(what +
                      ": the atoms carry no charges; set g_ewald with kspace_modify "
                      "gewald for an uncharged system (as LAMMPS requires)");
  const double g =
      accuracy *
      std::sqrt(s.natoms * s.cutoff * s.box.length(0) * s.box.length(1) * s.box.length(2)) /
      (2.0 * q2);
  return g >= 1.0 ? (1.35 - 0.15 * std::log(accuracy)) / s.cutoff
                  : std::sqrt(-std::log(g)) / s.cutoff;
}

}  // namespace tessera::md
