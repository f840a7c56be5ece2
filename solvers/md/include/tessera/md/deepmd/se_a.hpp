// Energy, forces and per-atom virials of a DeePMD-kit se_e2_a or se_e2_r model (docs/deepmd.md).
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
// The networks run at model.precision (model.hpp); everything else in float64. A compressed
// model (Model::tables, compress.hpp) takes each embedding net's G and dG/dx from its table, at
// the same precision, and keeps no tape of them whatever the TapeMode.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tessera/core/error.hpp"
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
  // A compressed model's occupied neighbor slots whose embedding input lay outside its tables,
  // where G was continued linearly (DeePMD-kit's C1 extrapolation): closer than the table's
  // extrapolated range reaches, or, with a table read from a file, beyond its bounds.
  std::size_t outside_table = 0;
  std::array<double, 9> virial() const;  // sum of atom_virial
};

// What a workspace keeps between the forward and backward pass of the embedding nets. compute()
// takes the atoms through the networks in blocks (at least 64 atoms, more while their tape fits
// in 2 MiB). kStore keeps the nets' activations and outputs for every occupied neighbor slot of a
// block (fastest; 33 values per slot for the test model, the bulk of the workspace on a tile of
// few atoms). kRecompute keeps one chunk of 128 slots and evaluates the embedding nets again in
// the backward pass: less memory, and compute() takes longer by the embedding forward pass (its
// tanh), about 1.4x in float64. Both give bit-identical results.
enum class TapeMode { kStore, kRecompute };

// Scratch memory of compute(). Keep one per tile (or thread) and pass it to every call: a time
// step then reuses the previous step's buffers (megabytes for a few hundred atoms) instead of
// allocating and faulting them in again.
class Workspace {
 public:
  explicit Workspace(TapeMode tape = TapeMode::kStore);
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  struct Buffers;  // opaque; defined in se_a.cpp
  Buffers& buffers() { return *buffers_; }
  // Bytes its buffers hold now: the most any call so far needed (buffers only grow). Excludes
  // the float32 copy of the weights a float32 model converts into it, which Model::weight_bytes()
  // counts.
  std::size_t bytes() const;

 private:
  std::unique_ptr<Buffers> buffers_;
};

// A frame's parameters, for a model with frame or atomic parameters (Model::numb_fparam,
// numb_aparam): fparam its numb_fparam values (empty: the model's default_fparam), aparam
// numb_aparam values per local atom, atom by atom (nloc * numb_aparam).
struct Parameters {
  std::span<const double> fparam, aparam;
};

// positions: 3 * natoms; types: natoms (0..ntypes-1); the first nloc atoms are local.
// Overwrites `out`. Throws ConfigError on a type out of range, an invalid neighbor index or
// parameters of another size than the model's (DeePMD-kit's messages).
void compute(const Model& model, std::span<const double> positions, std::span<const int> types,
             int nloc, const NeighborList& neighbors, Workspace& workspace, Result& out,
             const Parameters& parameters = {});
// The same with a fresh workspace.
Result compute(const Model& model, std::span<const double> positions, std::span<const int> types,
               int nloc, const NeighborList& neighbors, const Parameters& parameters = {});

// Bytes of the workspace on a tile of nloc local atoms when every neighbor slot is occupied (sel
// atoms of each type within rcut of every atom): the most compute() can need, so what to charge
// to tile memory, at the model's precision. max_candidates is the longest candidate list (one
// atom's neighbor-list row), which compute() sorts in a buffer of that length. Workspace::bytes()
// after a call with full slots equals it (fewer occupied slots need less).
std::size_t workspace_bytes(const Model& model, int nloc, int max_candidates,
                            TapeMode tape = TapeMode::kStore);

// Matrix-product flops of compute() (docs/deepmd.md, "FLOP count"), for benchmarks and the
// IPU cost model: per occupied neighbor slot of type `neighbor_type`, the embedding net forward
// and its input gradient and the three contractions with R~; per atom of type `centre_type`, the
// fitting net forward and input gradient and D = M^T M< with its two gradient products.
// TapeMode::kRecompute adds the embedding net's forward pass a second time to each slot (the
// work compute() does; the benchmark counts the useful flops, kStore's). A compressed model's
// slot has only the contractions with R~ (M += R~^T G; G dM^T and G' dM^T; 24 ng + 8), whatever
// the tape mode, and its tables' work apart (slot_table_flops).
double slot_flops(const Model& model, int neighbor_type, TapeMode tape = TapeMode::kStore);
double atom_flops(const Model& model, int centre_type);
// A compressed model's table work per occupied slot of type `neighbor_type`: G's quintic in the
// forward pass and again with its derivative in the backward one, 32 flops per output (10, 10
// and 12), each pass reading the interval's 6 ng coefficients; 0 for a model of nets.
double slot_table_flops(const Model& model, int neighbor_type);
// tanh evaluations of compute(), which the flops above leave out: per occupied neighbor slot the
// embedding net's tanh layers' widths (twice with kRecompute), per atom the fitting net's (21
// and 30 for the test model with kStore; a compressed model's slots have none). The IPU cost
// model charges them apart (an emulated float64 tanh costs as much as a few dozen flops).
double slot_tanh(const Model& model, int neighbor_type, TapeMode tape = TapeMode::kStore);
double atom_tanh(const Model& model, int centre_type);

// Whole-system convenience for tests and tools: builds the periodic images and neighbor lists,
// calls compute() and folds ghost forces and virials back onto their atoms. cell holds the three
// cell vectors as rows (DeePMD-kit's box layout); std::nullopt means no periodicity. aparam
// holds the atoms' values (its images take their atom's).
Result evaluate(const Model& model, std::span<const double> positions, std::span<const int> types,
                const std::optional<std::array<double, 9>>& cell,
                const Parameters& parameters = {});

}  // namespace tessera::md::deepmd
