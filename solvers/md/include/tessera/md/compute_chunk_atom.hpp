// compute ID GROUP chunk/atom STYLE ARGS... [keyword value ...]: LAMMPS's ComputeChunkAtom. It
// gives each atom of the group a chunk, 1..Nchunk, or 0 for none, for fix ave/chunk (and compute
// reduce) to sum over. Styles:
//   bin/1d DIM ORIGIN DELTA         layers of thickness DELTA normal to DIM (x, y or z), laid
//                                   from ORIGIN (lower, center, upper or a coordinate) to cover
//                                   the box; bin/2d and bin/3d take two and three such triples:
//                                   pencils and bricks, numbered with the last dimension fastest;
//   type                            the atom's type (Nchunk is the number of types).
// Keywords: region ID (only atoms in it), nchunk once|every, discard mixed|no|yes (atoms beyond
// the bins: mixed puts those below the first bin into it and drops those above the last, as
// LAMMPS does; no puts each into the nearest bin; yes drops them), bound DIM LO|lower HI|upper,
// units box|lattice|reduced (lattice by default; reduced measures in fractions of the box).
// LAMMPS's other styles (bin/sphere, bin/cylinder, molecule, c_ID, f_ID, v_NAME) and keywords
// (compress, ids, limit, pbc) are refused with a message.
//
// Outputs, as LAMMPS's: the per-atom chunk (a per-atom vector) and Nchunk (a global scalar).
// Bins follow the box: with nchunk every (the default where a fix changes the box and the units
// are not reduced) they are laid again at each use; with nchunk once at the first. A fix that
// averages over several steps locks them (lock) so that Nchunk holds through its average.
// Unlike LAMMPS, which converts the positions to fractions of the box and back for units reduced
// (moving an atom by a rounding error), the positions are left alone.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "tessera/md/compute.hpp"

namespace tessera::md {

class Region;

class ComputeChunkAtom final : public Compute {
 public:
  explicit ComputeChunkAtom(const ComputeArguments& args);
  std::string style() const override { return "chunk/atom"; }
  bool has_scalar() const override { return true; }
  std::size_t peratom_columns() const override { return 1; }
  void prepare_peratom(Simulation& sim) override;
  double scalar(Simulation& sim) override;
  void peratom(const AtomsView& atoms, std::span<double> out) const override;

  // Lays the chunks (collective, host side; once per step) and returns Nchunk. Locked, it keeps
  // them and only measures the bins' volume again.
  int setup_chunks(Simulation& sim);
  // Each chunk's volume (the box's for style type), volume units.
  double chunk_volume() const { return volume_; }
  // 0 for type, else the bins' dimensions; coordinate c of chunk m (the bin's centre, in the
  // units the bins are in).
  int coordinates() const { return binned() ? dims_ : 0; }
  double coordinate(int m, int c) const { return coord_[static_cast<std::size_t>(m * dims_ + c)]; }
  // Locked while `holder` lives (the fix that averages keeps it, and drops it to unlock).
  void lock(const std::shared_ptr<const void>& holder) { lock_ = holder; }

 private:
  enum class Style { bins, type };
  enum class Origin { lower, center, upper, coordinate };
  enum class Discard { mixed, no, yes };
  enum class Scale { box, lattice, reduced };
  bool binned() const { return style_ == Style::bins; }
  bool chunks_once(const Simulation& sim) const;
  void lay_bins(Simulation& sim);
  void measure_bins(const Simulation& sim);
  int bin_of(const AtomsView& a, std::size_t i) const;

  Style style_ = Style::bins;
  int dims_ = 0;              // 1, 2 or 3 for bins
  std::array<int, 3> dim_{};  // the box dimension of each bin dimension
  std::array<Origin, 3> origin_kind_{};
  std::array<double, 3> origin_{}, delta_{}, inverse_delta_{};
  std::array<bool, 3> min_given_{}, max_given_{};  // bound, by box dimension
  std::array<double, 3> min_value_{}, max_value_{};
  Discard discard_ = Discard::mixed;
  Scale scale_ = Scale::lattice;
  int once_ = -1;  // nchunk once (1) or every (0) as given, -1 for LAMMPS's default
  std::shared_ptr<const Region> region_;

  // The chunks as laid.
  bool laid_ = false;
  std::weak_ptr<const void> lock_;
  std::int64_t laid_at_ = -1;
  int nchunk_ = 0;
  std::array<double, 3> offset_{};
  std::array<int, 3> layers_{};
  std::vector<double> coord_;  // dims_ per chunk
  double volume_ = 1.0;
};

}  // namespace tessera::md
