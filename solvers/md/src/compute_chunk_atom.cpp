#include "tessera/md/compute_chunk_atom.hpp"

#include <algorithm>

#include "arguments.hpp"
#include "tessera/md/region.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

ComputeChunkAtom::ComputeChunkAtom(const ComputeArguments& a) : Compute(a.id, a.group) {
  const std::string what = "compute " + a.id + " chunk/atom";
  const std::string usage =
      "compute ID GROUP chunk/atom bin/1d|bin/2d|bin/3d DIM ORIGIN DELTA ... | type "
      "[keyword value ...]";
  if (a.args.empty()) throw ConfigError(what + ": usage: " + usage);
  const std::string& style = a.args[0];
  std::size_t k = 1;
  const int dimension = a.sim ? a.sim->dimension() : 3;
  if (style == "bin/1d" || style == "bin/2d" || style == "bin/3d") {
    style_ = Style::bins;
    dims_ = style[4] - '0';
    for (int m = 0; m < dims_; ++m, k += 3) {
      if (k + 3 > a.args.size()) throw ConfigError(what + ": usage: " + usage);
      dim_[m] = static_cast<int>(arguments::axis(what + ": the bin dimension", a.args[k]));
      if (dim_[m] == 2 && dimension == 2)
        throw ConfigError(what + ": no bins along z in a 2-d simulation");
      for (int earlier = 0; earlier < m; ++earlier)
        if (dim_[earlier] == dim_[m])
          throw ConfigError(what + ": dimension " + a.args[k] + " is binned twice");
      const std::string& o = a.args[k + 1];
      origin_kind_[m] = o == "lower"    ? Origin::lower
                        : o == "center" ? Origin::center
                        : o == "upper"  ? Origin::upper
                                        : Origin::coordinate;
      if (origin_kind_[m] == Origin::coordinate)
        origin_[m] = arguments::number(what + " origin", o);
      delta_[m] = arguments::number(what + " delta", a.args[k + 2]);
      if (!(delta_[m] > 0.0)) throw ConfigError(what + ": the bin width must be positive");
    }
  } else if (style == "type") {
    style_ = Style::type;
  } else if (style == "bin/sphere" || style == "bin/cylinder" || style == "molecule" ||
             style.rfind("c_", 0) == 0 || style.rfind("f_", 0) == 0 || style.rfind("v_", 0) == 0) {
    throw ConfigError(what + ": style " + style +
                      " is not supported by md_ipu; use bin/1d, bin/2d, bin/3d or type");
  } else {
    throw ConfigError(what + ": unknown style '" + style + "'; usage: " + usage);
  }
  bool discard_given = false;
  for (; k < a.args.size(); ++k) {
    const std::string& key = a.args[k];
    auto value = [&]() -> const std::string& {
      if (k + 1 >= a.args.size()) throw ConfigError(what + ": keyword " + key + " needs a value");
      return a.args[++k];
    };
    if (key == "region") {
      const std::string& id = value();
      if (!a.region) throw ConfigError(what + ": no regions here");
      region_ = a.region(id);
    } else if (key == "nchunk") {
      const std::string& v = value();
      if (v != "once" && v != "every") throw ConfigError(what + ": nchunk must be once or every");
      once_ = v == "once" ? 1 : 0;
    } else if (key == "discard") {
      const std::string& v = value();
      if (v == "mixed")
        discard_ = Discard::mixed;
      else if (v == "no")
        discard_ = Discard::no;
      else if (v == "yes")
        discard_ = Discard::yes;
      else
        throw ConfigError(what + ": discard must be mixed, no or yes");
      discard_given = true;
    } else if (key == "bound") {
      if (k + 3 >= a.args.size())
        throw ConfigError(what + ": usage: bound x|y|z LO|lower HI|upper");
      const std::size_t b = arguments::axis(what + ": bound's dimension", a.args[k + 1]);
      min_given_[b] = a.args[k + 2] != "lower";
      if (min_given_[b]) min_value_[b] = arguments::number(what + " bound", a.args[k + 2]);
      max_given_[b] = a.args[k + 3] != "upper";
      if (max_given_[b]) max_value_[b] = arguments::number(what + " bound", a.args[k + 3]);
      k += 3;
    } else if (key == "units") {
      const std::string& v = value();
      if (v == "box")
        scale_ = Scale::box;
      else if (v == "lattice")
        scale_ = Scale::lattice;
      else if (v == "reduced")
        scale_ = Scale::reduced;
      else
        throw ConfigError(what + ": units must be box, lattice or reduced");
    } else if (key == "compress" || key == "ids" || key == "limit" || key == "pbc") {
      throw ConfigError(what + ": keyword " + key + " is not supported by md_ipu");
    } else {
      throw ConfigError(what + ": unknown keyword '" + key +
                        "'; supported: region, nchunk, discard, bound, units");
    }
  }
  if (!discard_given) discard_ = binned() ? Discard::mixed : Discard::yes;
  if (!binned() && discard_ == Discard::mixed)
    throw ConfigError(what + ": discard mixed needs bins");
  // Lattice units scale the bins' widths, origins and bounds by the lattice spacings.
  if (binned() && scale_ == Scale::lattice)
    for (int m = 0; m < dims_; ++m) {
      const double s = a.lattice[static_cast<std::size_t>(dim_[m])];
      delta_[m] *= s;
      if (origin_kind_[m] == Origin::coordinate) origin_[m] *= s;
    }
  if (scale_ == Scale::lattice)
    for (std::size_t d = 0; d < 3; ++d) {
      if (min_given_[d]) min_value_[d] *= a.lattice[d];
      if (max_given_[d]) max_value_[d] *= a.lattice[d];
    }
  for (int m = 0; m < dims_; ++m) inverse_delta_[m] = 1.0 / delta_[m];
}

// LAMMPS's default: bins in box or lattice units are laid once where no fix changes the box.
bool ComputeChunkAtom::chunks_once(const Simulation& sim) const {
  if (once_ >= 0) return once_ == 1;
  if (!binned() || scale_ == Scale::reduced) return true;
  return std::none_of(sim.fixes().begin(), sim.fixes().end(),
                      [](const auto& f) { return f->changes_box(); });
}

// LAMMPS's ComputeChunkAtom::setup_chunks.
int ComputeChunkAtom::setup_chunks(Simulation& sim) {
  if (laid_ && laid_at_ == sim.step()) return nchunk_;
  if (laid_ && (!lock_.expired() || chunks_once(sim))) {
    if (binned() && scale_ == Scale::reduced) measure_bins(sim);
    return nchunk_;
  }
  laid_ = true;
  laid_at_ = sim.step();
  if (binned()) {
    lay_bins(sim);
    measure_bins(sim);
  } else {
    nchunk_ = std::max(sim.types(), 1);
    const Box& box = sim.box();
    volume_ = box.length(0) * box.length(1) * (sim.dimension() == 3 ? box.length(2) : 1.0);
  }
  return nchunk_;
}

// LAMMPS's setup_xyz_bins: from the origin, whole bins out to the box (or the bounds).
void ComputeChunkAtom::lay_bins(Simulation& sim) {
  const Box& box = sim.box();
  if (box.triclinic && scale_ != Scale::reduced)
    throw ConfigError("compute " + id() +
                      " chunk/atom: bins in a triclinic box need units reduced (as LAMMPS's)");
  std::array<double, 3> lo{}, hi{};
  for (std::size_t d = 0; d < 3; ++d) {
    lo[d] = scale_ == Scale::reduced ? 0.0 : box.lo[d];
    hi[d] = scale_ == Scale::reduced ? 1.0 : box.hi[d];
    if (min_given_[d]) lo[d] = min_value_[d];
    if (max_given_[d]) hi[d] = max_value_[d];
  }
  nchunk_ = 1;
  for (int m = 0; m < dims_; ++m) {
    const auto d = static_cast<std::size_t>(dim_[m]);
    double origin = origin_[m];
    if (origin_kind_[m] == Origin::lower)
      origin = lo[d];
    else if (origin_kind_[m] == Origin::upper)
      origin = hi[d];
    else if (origin_kind_[m] == Origin::center)
      origin = 0.5 * (lo[d] + hi[d]);
    double first, last;
    if (origin < lo[d]) {
      const int n = static_cast<int>((lo[d] - origin) * inverse_delta_[m]);
      first = origin + n * delta_[m];
    } else {
      const int n = static_cast<int>((origin - lo[d]) * inverse_delta_[m]);
      first = origin - n * delta_[m];
      if (first > lo[d]) first -= delta_[m];
    }
    if (origin < hi[d]) {
      const int n = static_cast<int>((hi[d] - origin) * inverse_delta_[m]);
      last = origin + n * delta_[m];
      if (last < hi[d]) last += delta_[m];
    } else {
      const int n = static_cast<int>((origin - hi[d]) * inverse_delta_[m]);
      last = origin - n * delta_[m];
    }
    if (first > last)
      throw ConfigError("compute " + id() + " chunk/atom: the bounds leave no bins");
    offset_[m] = first;
    layers_[m] = static_cast<int>((last - first) * inverse_delta_[m] + 0.5);
    nchunk_ *= layers_[m];
  }
  coord_.assign(static_cast<std::size_t>(nchunk_ * dims_), 0.0);
  for (int chunk = 0; chunk < nchunk_; ++chunk) {
    int rest = chunk;
    for (int m = dims_ - 1; m >= 0; --m) {
      const int layer = rest % layers_[m];
      rest /= layers_[m];
      coord_[static_cast<std::size_t>(chunk * dims_ + m)] = offset_[m] + (layer + 0.5) * delta_[m];
    }
  }
}

// LAMMPS's bin_volumes: the box's volume (area in 2-d) times each binned dimension's share.
void ComputeChunkAtom::measure_bins(const Simulation& sim) {
  const Box& box = sim.box();
  volume_ = box.length(0) * box.length(1) * (sim.dimension() == 3 ? box.length(2) : 1.0);
  for (int m = 0; m < dims_; ++m)
    volume_ *= delta_[m] / (scale_ == Scale::reduced ? 1.0 : box.length(dim_[m]));
}

void ComputeChunkAtom::prepare_peratom(Simulation& sim) { setup_chunks(sim); }

double ComputeChunkAtom::scalar(Simulation& sim) { return setup_chunks(sim); }

// LAMMPS's atom2bin1d/2d/3d: the coordinate mapped once into a periodic box, then its layer,
// with the discard rule; 0 for an atom dropped.
int ComputeChunkAtom::bin_of(const AtomsView& a, std::size_t i) const {
  const Box& box = *a.box;
  int bin = 0;
  for (int m = 0; m < dims_; ++m) {
    const auto d = static_cast<std::size_t>(dim_[m]);
    double x = a.x[3 * i + d];
    double lo = box.lo[d], hi = box.hi[d], length = box.length(dim_[m]);
    if (scale_ == Scale::reduced) {
      if (box.triclinic) {
        double fraction[3];
        BoxMatrix(box).to_fraction(&a.x[3 * i], fraction);
        x = fraction[d];
      } else {
        x = (x - box.lo[d]) * (1.0 / length);  // LAMMPS's x2lamda for an orthogonal box
      }
      lo = 0.0, hi = 1.0, length = 1.0;
    }
    if (a.boundary->periodic(d)) {
      if (x < lo) x += length;
      if (x >= hi) x -= length;
    }
    int layer = static_cast<int>((x - offset_[m]) * inverse_delta_[m]);
    if (x < offset_[m]) --layer;
    const int top = layers_[m] - 1;
    if (discard_ == Discard::mixed) {
      // As LAMMPS: below the first bin joins it unless a lower bound was given; above the last
      // is dropped (its test reads the upper flag as "given").
      if (!min_given_[d])
        layer = std::max(layer, 0);
      else if (layer < 0)
        return 0;
      if (layer > top) return 0;
    } else if (discard_ == Discard::no) {
      layer = std::clamp(layer, 0, top);
    } else if (layer < 0 || layer > top) {
      return 0;
    }
    bin = bin * layers_[m] + layer;
  }
  return bin + 1;
}

void ComputeChunkAtom::peratom(const AtomsView& a, std::span<double> out) const {
  for (std::size_t i = 0; i < a.id.size(); ++i) {
    int chunk = 0;
    if (in_group(a, i) &&
        (!region_ || region_->matches({a.x[3 * i], a.x[3 * i + 1], a.x[3 * i + 2]}))) {
      if (binned()) {
        chunk = bin_of(a, i);
      } else {
        chunk = a.type[i];
        if (chunk < 1 || chunk > nchunk_) chunk = discard_ == Discard::no ? nchunk_ : 0;
      }
    }
    out[i] = chunk;
  }
}

}  // namespace tessera::md
