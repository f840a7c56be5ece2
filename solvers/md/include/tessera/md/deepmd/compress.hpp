// DeePMD-kit's model compression (`dp compress`), done at load: each embedding net of a se_e2_a
// model tabulated as piecewise quintics over its input (EmbeddingTable, model.hpp), so that the
// kernel evaluates a polynomial per neighbor slot instead of the net (docs/deepmd.md,
// "Compressed models").
//
// The table spans DeePMD-kit's range (deepmd/utils/tabulate.py, _get_env_mat_range and build):
// for the net of neighbor type t, from lower = floor(min -davg/dstd) (a neighbor at the cutoff)
// to upper = ceil(max (s(r_min)/r_min - davg)/dstd) (one at the training data's smallest neighbor
// distance r_min), the minimum and maximum over the centre types and t's slots of the radial
// column of davg and dstd, at intervals of `stride`; then to extrapolate * upper at 10 * stride.
// Its error against the net is that of quintic Hermite interpolation, O(stride^6) times the net's
// sixth derivative: docs/deepmd.md gives the measured error for the test model.
#pragma once

#include "tessera/md/deepmd/model.hpp"

namespace tessera::md::deepmd {

struct CompressionSettings {
  double min_nbor_dist = 0.0;  // r_min in Angstrom; 0: the model's own (Model::min_nbor_dist)
  double stride = 0.01;        // of the first table; DeePMD-kit's `dp compress -s` (its default)
  double extrapolate = 5.0;    // DeePMD-kit's `dp compress -e` (its default)
};

// Tabulates every embedding net of `model` into model.tables (replacing any tables it had) and
// records r_min in model.min_nbor_dist. Throws ConfigError, naming the setting, when r_min is
// unknown (0 and not in the model) or not in (0, rcut), stride is not 1/N for an integer N (the
// first table must end on its upper bound) or extrapolate is below 1.
void compress(Model& model, const CompressionSettings& settings = {});

}  // namespace tessera::md::deepmd
