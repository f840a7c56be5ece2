#include "replicate.hpp"

#include <chrono>
#include <cstdio>

#include "arguments.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/isolated_call.hpp"
#include "tessera/core/shared_input.hpp"

namespace tessera::md {
using namespace arguments;

std::string replicate(Simulation& sim, const std::vector<std::string>& a) {
  const char* usage = "replicate NX NY NZ [bbox|bondlist]";
  need(a, 3, usage);
  if (!sim.has_box()) bad("replicate: the simulation box is not defined; use create_box or read_data first");
  if (a.size() > 4) bad(std::string("replicate: too many arguments; usage: ") + usage);
  const std::array<long long, 3> n{integer("replicate NX", a[0], 1, int_max),
                                   integer("replicate NY", a[1], 1, int_max),
                                   integer("replicate NZ", a[2], 1, int_max)};
  const bool bondlist = a.size() == 4 && a[3] == "bondlist";
  if (a.size() == 4 && a[3] != "bbox" && !bondlist)
    bad("replicate: unknown keyword '" + a[3] + "'; use bbox or bondlist");
  if (sim.dimension() == 2 && n[2] != 1) bad("replicate: a 2-d simulation cannot be replicated in z");
  if (sim.molecular())
    bad(std::string("replicate: md_ipu does not replicate molecular topology yet (atom_style ") +
        atom_style_name(sim.atom_style()) + "); replicate the system before it is given bonds, " +
        "or write the larger data file with LAMMPS");
  if (sim.has_per_atom_vectors())
    bad("replicate: fixes or computes store per-atom values (fix property/atom, compute msd, ...); "
        "LAMMPS refuses to replicate them too: define them after replicate");
  const long long copies = n[0] * n[1] * n[2];
  if (copies > int_max) bad("replicate: more than 2147483647 copies; replicate in steps");
  const auto start = std::chrono::steady_clock::now();
  std::string text = "Replicating atoms ...\n";
  for (std::size_t d = 0; d < 3; ++d)
    if (n[d] > 1 && !sim.boundary().periodic(d)) text += "WARNING: Replicating in a non-periodic dimension\n";
  const std::int64_t max_id = sim.max_id();
  if (static_cast<double>(max_id) * static_cast<double>(copies) > 9.0e18)
    bad("replicate: the new atom ids would not fit in 64 bits");
  sim.require_room_for_atoms(static_cast<double>(sim.natoms()) * static_cast<double>(copies - 1),
                             "replicate", true);
  // Every atom, unwrapped, from rank 0 to every rank (each builds the same list).
  const Box old = sim.box();
  const auto gathered = sim.gather_atoms(Simulation::Positions::wrapped);  // rank 0's
  const std::string bytes = produce_on_root(sim.runtime().comm(), [&] {
    const auto& atoms = gathered;
    ByteWriter out;
    out.put(static_cast<long long>(atoms.size()));
    std::vector<double> values;
    values.reserve(atoms.size() * 10);
    for (const auto& atom : atoms) {
      values.push_back(static_cast<double>(atom.id));
      values.push_back(atom.type);
      values.push_back(static_cast<double>(atom.mask));
      const int none[3] = {0, 0, 0};
      const auto x = old.unwrap(atom.x.data(), bondlist ? none : atom.image.data());
      values.insert(values.end(), x.begin(), x.end());
      for (std::size_t d = 0; d < 3; ++d) values.push_back(atom.v[d]);
      values.push_back(atom.q);
    }
    out.put(values);
    return out.take();
  });
  ByteReader in(bytes);
  const auto count = static_cast<std::size_t>(in.get_integer());
  const std::vector<double> values = in.get_vector();
  Box box = old;
  for (std::size_t d = 0; d < 3; ++d) box.hi[d] = old.lo[d] + static_cast<double>(n[d]) * old.length(static_cast<int>(d));
  // LAMMPS's: the tilts grow with the copies along the dimension they tilt along.
  box.xy *= static_cast<double>(n[1]), box.xz *= static_cast<double>(n[2]), box.yz *= static_cast<double>(n[2]);
  std::vector<AtomRecord> atoms;
  atoms.reserve(count * static_cast<std::size_t>(copies));
  for (long long ix = 0; ix < n[0]; ++ix)
    for (long long iy = 0; iy < n[1]; ++iy)
      for (long long iz = 0; iz < n[2]; ++iz) {
        const std::int64_t offset = (iz * n[1] * n[0] + iy * n[0] + ix) * max_id;
        const long long shift[3] = {ix, iy, iz};
        for (std::size_t k = 0; k < count; ++k) {
          const double* v = &values[10 * k];
          AtomRecord atom;
          atom.id = static_cast<std::int64_t>(v[0]) + offset;
          atom.type = static_cast<std::int32_t>(v[1]);
          atom.mask = static_cast<std::uint32_t>(v[2]);
          atom.q = v[9];
          for (std::size_t d = 0; d < 3; ++d) {
            atom.x[d] = v[3 + d] + static_cast<double>(shift[d]) * old.length(static_cast<int>(d));
            atom.v[d] = v[6 + d];
          }
          if (old.triclinic) {  // LAMMPS's sums, term by term
            atom.x[0] += static_cast<double>(iy) * old.xy, atom.x[0] += static_cast<double>(iz) * old.xz;
            atom.x[1] += static_cast<double>(iz) * old.yz;
          }
          atoms.push_back(atom);
        }
      }
  // The new box, then the atoms mapped into it (add_atoms wraps them, counting images).
  sim.change_box(box);
  sim.set_atoms(std::move(atoms));
  for (const auto& fix : sim.fixes())
    sim.for_each_tile("md.replicate_start_atoms", [&](FixTile& t) { fix->start_atoms(t); });
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %s box = (%.8g %.8g %.8g) to (%.8g %.8g %.8g)",
                box.triclinic ? "triclinic" : "orthogonal", box.lo[0], box.lo[1], box.lo[2],
                box.hi[0], box.hi[1], box.hi[2]);
  text += buf;
  if (box.triclinic) {
    std::snprintf(buf, sizeof buf, " with tilt (%.8g %.8g %.8g)", box.xy, box.xz, box.yz);
    text += buf;
  }
  text += "\n";
  text += "  " + std::to_string(sim.natoms()) + " atoms\n";
  std::snprintf(buf, sizeof buf, "  replicate CPU = %.3f seconds\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return text + buf;
}

}  // namespace tessera::md
