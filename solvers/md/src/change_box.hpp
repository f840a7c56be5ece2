// change_box GROUP OPERATION ... [units lattice|box]: LAMMPS's ChangeBox, the operations in order
//   x|y|z final LO HI | delta DLO DHI | scale F      a length (lattice spacings unless units box)
//     followed by another dimension's `volume`       that dimension keeps the volume (two such:
//                                                    both, keeping their ratio)
//   xy|xz|yz final T | delta DT                      a tilt (triclinic boxes)
//   boundary X Y Z                                   new faces (p and f)
//   ortho | triclinic                                the box's kind (ortho needs zero tilts)
//   set                                              the box the next remap maps from
//   remap                                            the group's atoms move with the box since
//                                                    the last set (or the command's start),
//                                                    through fractional coordinates
// Each operation's box is checked as create_box checks one and printed as LAMMPS prints it;
// afterwards every atom is mapped into the new box with its image flags counted (LAMMPS's remap),
// an atom beyond a fixed face refused (LAMMPS loses it with a warning). Returns the text LAMMPS
// prints. Collective; throws ConfigError.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "tessera/md/simulation.hpp"

namespace tessera::md {

std::string change_box(Simulation& sim, const std::vector<std::string>& a,
                       const std::array<double, 3>& lattice, bool dumps_defined);

}  // namespace tessera::md
