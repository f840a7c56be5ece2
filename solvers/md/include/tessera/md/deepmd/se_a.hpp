// Energy, forces and per-atom virials of a DeePMD-kit se_e2_a model (docs/deepmd.md).
//
// Kernel contract (compute): the caller passes nloc local atoms followed by any number of ghost
// atoms (positions already unwrapped, i.e. ghosts are periodic images placed where they act),
// and for each local atom a list of candidate neighbors (indices into all atoms, any order, may
// include atoms beyond rcut, e.g. from a Verlet list with skin). The kernel keeps, per neighbor
// type, the sel nearest within rcut (ties broken by index), exactly as DeePMD-kit's neighbor-list
// formatting does, and pads the rest. It returns the energy of every local atom, and the force
// and per-atom virial on every atom (local and ghost); a ghost's force and virial belong to the
// atom it images, which the caller adds in (fold back). Per-atom virial follows DeePMD-kit:
// W_a = -sum_b (dE_b/dx_a) (x) (x_a - x_b), row index = force component; sum_a W_a =
// -dE/d(strain)^T. Results depend only on the inputs (no threads, fixed summation order).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tessera/md/deepmd/model.hpp"

namespace tessera::md::deepmd {

// CSR candidate-neighbor lists of the local atoms.
struct NeighborList {
  std::vector<int> offsets;  // nloc + 1
  std::vector<int> indices;  // into positions / types
};

struct Result {
  double energy = 0.0;                   // sum of atom_energy
  std::vector<double> atom_energy;       // nloc
  std::vector<double> force;             // 3 * natoms (local then ghosts)
  std::vector<double> atom_virial;       // 9 * natoms, row-major 3x3 per atom
  std::vector<double> descriptor;        // nloc * model.descriptor_dim()
  std::array<double, 9> virial() const;  // sum of atom_virial
};

// Scratch memory of compute(). Keep one per tile (or thread) and pass it to every call: a time
// step then reuses the previous step's buffers (megabytes for a few hundred atoms) instead of
// allocating and faulting them in again.
class Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  struct Buffers;  // opaque; defined in se_a.cpp
  Buffers& buffers() { return *buffers_; }

 private:
  std::unique_ptr<Buffers> buffers_;
};

// positions: 3 * natoms; types: natoms (0..ntypes-1); the first nloc atoms are local.
// Overwrites `out`. Throws ConfigError on a type out of range or an invalid neighbor index.
void compute(const Model& model, std::span<const double> positions, std::span<const int> types,
             int nloc, const NeighborList& neighbors, Workspace& workspace, Result& out);
// The same with a fresh workspace.
Result compute(const Model& model, std::span<const double> positions, std::span<const int> types,
               int nloc, const NeighborList& neighbors);

// Whole-system convenience for tests and tools: builds the periodic images and neighbor lists,
// calls compute() and folds ghost forces and virials back onto their atoms. cell holds the three
// cell vectors as rows (DeePMD-kit's box layout); std::nullopt means no periodicity.
Result evaluate(const Model& model, std::span<const double> positions, std::span<const int> types,
                const std::optional<std::array<double, 9>>& cell);

}  // namespace tessera::md::deepmd
