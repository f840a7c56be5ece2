// DPA-1's se_atten descriptor with the energy fitting and their reverse mode, for deepmd::compute
// (se_a.hpp's contract; se_a.cpp checks the inputs and calls it for Model::descriptor kSeAtten).
// Internal to the DeePMD kernels.
#pragma once

#include <span>

#include "tessera/md/deepmd/se_a.hpp"

namespace tessera::md::deepmd {

// Overwrites `out`. Runs in float64 (ConfigError for a model set to float32). Per local atom:
// the sel nearest neighbors of any type within rcut (ties by index), the dense attention over
// all sel slots as DeePMD-kit computes it, the fitting net, and the gradients back to positions.
void compute_attention(const Model& model, std::span<const double> positions,
                       std::span<const int> types, int nloc, const NeighborList& neighbors,
                       Result& out, const Parameters& parameters);

// Its flops per atom (the dense attention over sel slots; embedding nets over every slot, for
// the empty ones too, as DeePMD-kit runs them; the fitting) with their gradients.
double attention_atom_flops(const Model& model);
// Its tanh evaluations per atom (the embedding net over every slot, the fitting net).
double attention_atom_tanh(const Model& model);
// Bytes compute_attention() holds for one atom at a time (its tapes of the attention layers).
std::size_t attention_workspace_bytes(const Model& model);

}  // namespace tessera::md::deepmd
