// The commands of molecular topology: bond_style, bond_coeff, angle_style, angle_coeff,
// dihedral_style, dihedral_coeff, improper_style, improper_coeff, special_bonds.
#include <functional>

#include "arguments.hpp"
#include "tessera/md/input.hpp"

namespace tessera::md {
using namespace arguments;

namespace {

// bond_style (angle_style, dihedral_style, improper_style): NAME ARGS... or none; the same style
// again keeps its coefficients (LAMMPS's Force::create_bond re-creates it; md_ipu keeps them, as
// its pair_style does).
template <class Style>
void set_style(Simulation& sim, const std::vector<std::string>& a, TermKind kind,
               const Registry<Style>& registry, const Style* current,
               const std::function<void(std::unique_ptr<Style>)>& set) {
  const std::string command = std::string(info(kind).name) + "_style";
  if (!has_terms(sim.atom_style(), kind))
    bad(std::string("atom_style ") + atom_style_name(sim.atom_style()) + " has no " +
        info(kind).name + "s; " + atom_styles_with(kind));
  need(a, 1, command + " STYLE | none; the styles are " + registry.listing());
  const std::vector<std::string> args(a.begin() + 1, a.end());
  if (a[0] == "none") {
    if (!args.empty()) bad(command + " none takes no further arguments");
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

// bond_coeff (angle_coeff, ...) TYPES COEFFS...: to the style set.
template <class Style>
void set_coeff(const Simulation& sim, const std::vector<std::string>& a, TermKind kind,
               Style* style) {
  if (!sim.has_box()) bad("the simulation box is not defined; use read_data first");
  if (!style)
    bad(std::string(info(kind).name) + "_coeff before " + info(kind).name + "_style: set " +
        info(kind).name + "_style harmonic first");
  style->coeff(a, sim.topology_types(kind));
}

}  // namespace

void Input::bond_style(const std::vector<std::string>& a) {
  set_style<Bond>(sim(), a, TermKind::bond, bond_styles(),
                  static_cast<const Simulation&>(sim()).bond(),
                  [&](std::unique_ptr<Bond> s) { sim().set_bond(std::move(s)); });
}

void Input::angle_style(const std::vector<std::string>& a) {
  set_style<Angle>(sim(), a, TermKind::angle, angle_styles(),
                   static_cast<const Simulation&>(sim()).angle(),
                   [&](std::unique_ptr<Angle> s) { sim().set_angle(std::move(s)); });
}

void Input::dihedral_style(const std::vector<std::string>& a) {
  set_style<Dihedral>(sim(), a, TermKind::dihedral, dihedral_styles(),
                      static_cast<const Simulation&>(sim()).dihedral(),
                      [&](std::unique_ptr<Dihedral> s) { sim().set_dihedral(std::move(s)); });
}

void Input::improper_style(const std::vector<std::string>& a) {
  set_style<Improper>(sim(), a, TermKind::improper, improper_styles(),
                      static_cast<const Simulation&>(sim()).improper(),
                      [&](std::unique_ptr<Improper> s) { sim().set_improper(std::move(s)); });
}

void Input::bond_coeff(const std::vector<std::string>& a) {
  set_coeff(sim(), a, TermKind::bond, sim().bond());
}

void Input::angle_coeff(const std::vector<std::string>& a) {
  set_coeff(sim(), a, TermKind::angle, sim().angle());
}

void Input::dihedral_coeff(const std::vector<std::string>& a) {
  set_coeff(sim(), a, TermKind::dihedral, sim().dihedral());
}

void Input::improper_coeff(const std::vector<std::string>& a) {
  set_coeff(sim(), a, TermKind::improper, sim().improper());
}

// special_bonds KEYWORD VALUES ...: LAMMPS's Force::set_special. Every use starts from the
// defaults (0 0 0 for both), then applies the keywords in order.
void Input::special_bonds(const std::vector<std::string>& a) {
  need(a, 1,
       "special_bonds lj/coul W1 W2 W3 | lj W1 W2 W3 | coul W1 W2 W3 | amber | charmm | "
       "dreiding | fene [angle yes|no] [dihedral yes|no]");
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
      (w == "angle" ? sb.angle : sb.dihedral) = yes_no("special_bonds", a[k + 1]);
      k += 2;
    } else {
      bad("special_bonds: unknown keyword '" + w +
          "'; md_ipu knows lj/coul, lj, coul, amber, charmm, dreiding, fene, angle, dihedral");
    }
  }
  sim().set_special_bonds(sb);
}

}  // namespace tessera::md
