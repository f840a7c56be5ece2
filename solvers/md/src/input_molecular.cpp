// The commands of molecular topology: bond_style, bond_coeff, angle_style, angle_coeff,
// dihedral_style and improper_style (none), special_bonds.
#include <functional>

#include "arguments.hpp"
#include "tessera/md/input.hpp"

namespace tessera::md {
using namespace arguments;

namespace {

// bond_style and angle_style: NAME ARGS... or none; the same style again keeps its coefficients
// (LAMMPS's Force::create_bond re-creates it; md_ipu keeps them, as its pair_style does).
template <class Style>
void set_style(const std::vector<std::string>& a, const char* command,
               const Registry<Style>& registry, const Style* current,
               const std::function<void(std::unique_ptr<Style>)>& set) {
  need(a, 1, std::string(command) + " STYLE | none; the styles are " + registry.listing());
  const std::vector<std::string> args(a.begin() + 1, a.end());
  if (a[0] == "none") {
    if (!args.empty()) bad(std::string(command) + " none takes no further arguments");
    return set(nullptr);
  }
  if (current && current->style() == a[0]) {
    const_cast<Style*>(current)->settings(args);
    return;
  }
  std::unique_ptr<Style> style = registry.make(a[0]);
  style->settings(args);
  set(std::move(style));
}

}  // namespace

void Input::bond_style(const std::vector<std::string>& a) {
  if (!sim().molecular())
    bad(std::string("atom_style ") + atom_style_name(sim().atom_style()) +
        " has no bonds; use atom_style bond, angle, molecular or full");
  set_style<Bond>(a, "bond_style", bond_styles(), static_cast<const Simulation&>(sim()).bond(),
                  [&](std::unique_ptr<Bond> b) { sim().set_bond(std::move(b)); });
}

void Input::bond_coeff(const std::vector<std::string>& a) {
  if (!sim().has_box()) bad("the simulation box is not defined; use read_data first");
  Bond* bond = sim().bond();
  if (!bond) bad("bond_coeff before bond_style: set bond_style harmonic first");
  bond->coeff(a, sim().bond_types());
}

void Input::angle_style(const std::vector<std::string>& a) {
  if (!has_angles(sim().atom_style()))
    bad(std::string("atom_style ") + atom_style_name(sim().atom_style()) +
        " has no angles; use atom_style angle, molecular or full");
  set_style<Angle>(a, "angle_style", angle_styles(), static_cast<const Simulation&>(sim()).angle(),
                   [&](std::unique_ptr<Angle> g) { sim().set_angle(std::move(g)); });
}

void Input::angle_coeff(const std::vector<std::string>& a) {
  if (!sim().has_box()) bad("the simulation box is not defined; use read_data first");
  Angle* angle = sim().angle();
  if (!angle) bad("angle_coeff before angle_style: set angle_style harmonic first");
  angle->coeff(a, sim().angle_types());
}

// md_ipu reads no dihedrals or impropers yet (read_data refuses them): `none` is all there is.
void Input::dihedral_or_improper_style(const std::vector<std::string>& a) {
  need(a, 1, "dihedral_style none");
  if (a.size() != 1 || a[0] != "none")
    bad("md_ipu has no dihedral or improper styles yet (only none): its atoms carry no dihedrals " +
        std::string("or impropers"));
}

// special_bonds KEYWORD VALUES ...: LAMMPS's Force::set_special. Every use starts from the
// defaults (0 0 0 for both), then applies the keywords in order.
void Input::special_bonds(const std::vector<std::string>& a) {
  need(a, 1,
       "special_bonds lj/coul W1 W2 W3 | lj W1 W2 W3 | coul W1 W2 W3 | amber | charmm | "
       "dreiding | fene [angle no] [dihedral no]");
  SpecialBonds sb;
  const auto weights = [&](std::size_t at, std::array<double, 4>& to) {
    if (at + 3 > a.size())
      bad("special_bonds " + a[at - 1] + " needs three weights (1-2, 1-3, 1-4)");
    for (std::size_t k = 0; k < 3; ++k) {
      const double w = number("special_bonds", a[at + k]);
      if (w < 0.0 || w > 1.0)
        bad("special_bonds: weight " + a[at + k] +
            " is outside 0..1 (LAMMPS: Illegal special_bonds "
            "command)");
      to[k + 1] = w;
    }
  };
  const auto preset = [&](std::array<double, 3> lj, std::array<double, 3> coul) {
    for (std::size_t k = 0; k < 3; ++k) sb.lj[k + 1] = lj[k], sb.coul[k + 1] = coul[k];
  };
  for (std::size_t k = 0; k < a.size();) {
    const std::string& w = a[k];
    if (w == "lj/coul") {
      weights(k + 1, sb.lj);
      weights(k + 1, sb.coul);
      k += 4;
    } else if (w == "lj") {
      weights(k + 1, sb.lj);
      k += 4;
    } else if (w == "coul") {
      weights(k + 1, sb.coul);
      k += 4;
    } else if (w == "amber") {
      preset({0.0, 0.0, 0.5}, {0.0, 0.0, 5.0 / 6.0});
      ++k;
    } else if (w == "charmm") {
      preset({0.0, 0.0, 0.0}, {0.0, 0.0, 0.0});
      ++k;
    } else if (w == "dreiding") {
      preset({0.0, 0.0, 1.0}, {0.0, 0.0, 1.0});
      ++k;
    } else if (w == "fene") {
      preset({0.0, 1.0, 1.0}, {0.0, 1.0, 1.0});
      ++k;
    } else if (w == "angle" || w == "dihedral") {
      if (k + 1 >= a.size()) bad("special_bonds " + w + " needs yes or no");
      if (yes_no("special_bonds", a[k + 1]))
        bad("special_bonds " + w + " yes (" +
            (w == "angle" ? "1-3 neighbors kept only at the ends of an angle"
                          : "1-4 neighbors kept only at the ends of a dihedral") +
            ") is not in md_ipu yet; use " + w + " no");
      k += 2;
    } else {
      bad("special_bonds: unknown keyword '" + w +
          "'; md_ipu knows lj/coul, lj, coul, amber, charmm, dreiding, fene, angle, dihedral");
    }
  }
  sim().set_special_bonds(sb);
}

}  // namespace tessera::md
