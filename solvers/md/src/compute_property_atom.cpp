#include "tessera/md/compute_property_atom.hpp"

#include <array>
#include <optional>
#include <utility>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputePropertyAtom::ComputePropertyAtom(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " property/atom";
  arguments::need(a.args, 1,
                  "compute ID GROUP property/atom id|type|mass|x|y|z|xs|ys|zs|xu|yu|zu|ix|iy|iz|"
                  "vx|vy|vz|fx|fy|fz|q|mol|i_NAME|d_NAME|i2_NAME[K]|d2_NAME[K] ...");
  static const std::array<std::pair<const char*, std::pair<Kind, std::size_t>>, 23> named{{
      {"id", {Kind::id, 0}},        {"type", {Kind::type, 0}},    {"mass", {Kind::mass, 0}},
      {"x", {Kind::x, 0}},          {"y", {Kind::x, 1}},          {"z", {Kind::x, 2}},
      {"xs", {Kind::scaled, 0}},    {"ys", {Kind::scaled, 1}},    {"zs", {Kind::scaled, 2}},
      {"xu", {Kind::unwrapped, 0}}, {"yu", {Kind::unwrapped, 1}}, {"zu", {Kind::unwrapped, 2}},
      {"ix", {Kind::image, 0}},     {"iy", {Kind::image, 1}},     {"iz", {Kind::image, 2}},
      {"vx", {Kind::v, 0}},         {"vy", {Kind::v, 1}},         {"vz", {Kind::v, 2}},
      {"fx", {Kind::f, 0}},         {"fy", {Kind::f, 1}},         {"fz", {Kind::f, 2}},
      {"q", {Kind::q, 0}},          {"mol", {Kind::molecule, 0}},
  }};
  for (const std::string& word : a.args) {
    Attribute attribute;
    bool found = false;
    for (const auto& [name, kind_axis] : named)
      if (word == name) {
        attribute.kind = kind_axis.first;
        attribute.axis = kind_axis.second;
        found = true;
      }
    if (found && attribute.kind == Kind::q && a.sim != nullptr && !a.sim->charged())
      arguments::bad(what + ": q: the atoms carry no charges; use atom_style charge");
    if (found && attribute.kind == Kind::molecule && a.sim != nullptr && !a.sim->molecular())
      arguments::bad(what +
                     ": mol: the atoms carry no molecule ids; use atom_style bond, angle, "
                     "molecular or full");
    if (!found) {
      std::optional<Simulation::CustomReference> custom;
      if (a.sim != nullptr) custom = a.sim->custom_reference(word, what);
      if (!custom)
        arguments::bad(what + ": unknown attribute '" + word +
                       "' (md_ipu has id type mass x y z xs ys zs xu yu zu ix iy iz vx vy vz fx "
                       "fy fz q mol and fix property/atom's i_NAME d_NAME i2_NAME[K] d2_NAME[K])");
      attribute.kind = Kind::custom;
      attribute.custom = *custom;
    }
    attributes_.push_back(attribute);
  }
}

// Where each custom property's values sit now: removing other per-atom vectors moves them, and
// the fix that made one may be gone.
void ComputePropertyAtom::prepare_peratom(Simulation& sim) {
  for (Attribute& a : attributes_) {
    if (a.kind == Kind::molecule) {
      const auto column = sim.molecule_column();
      a.present = column.has_value();
      a.column = column.value_or(0);
    }
    if (a.kind != Kind::custom) continue;
    a.column = sim.custom_column(a.custom, "compute " + id() + " property/atom");
  }
}

void ComputePropertyAtom::peratom(const AtomsView& v, std::span<double> out) const {
  const std::size_t columns = attributes_.size();
  const std::size_t n = v.id.size();
  const bool have_forces = v.f.size() >= 3 * n;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < columns; ++c) {
      const Attribute& a = attributes_[c];
      double value = 0.0;
      if (in_group(v, i)) switch (a.kind) {
          case Kind::id:
            value = static_cast<double>(v.id[i]);
            break;
          case Kind::type:
            value = v.type[i];
            break;
          case Kind::mass:
            value = v.mass[static_cast<std::size_t>(v.type[i])];
            break;
          case Kind::x:
            value = v.x[3 * i + a.axis];
            break;
          case Kind::scaled:
            value =
                (v.x[3 * i + a.axis] - v.box->lo[a.axis]) / v.box->length(static_cast<int>(a.axis));
            break;
          case Kind::unwrapped:
            value = v.unwrapped(i, a.axis);
            break;
          case Kind::image:
            value = v.image[3 * i + a.axis];
            break;
          case Kind::v:
            value = v.v[3 * i + a.axis];
            break;
          case Kind::f:
            value = have_forces ? v.f[3 * i + a.axis] : 0.0;
            break;
          case Kind::q:
            value = v.q.empty() ? 0.0 : v.q[i];
            break;
          case Kind::molecule:
            value = a.present ? v.per_atom[i * v.per_atom_width + a.column] : 0.0;
            break;
          case Kind::custom:
            value = v.per_atom[v.per_atom_width * i + a.column];
            break;
        }
      out[i * columns + c] = value;
    }
}

}  // namespace tessera::md
