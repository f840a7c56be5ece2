// The cost model against IPU hardware measurements (shared/IPU_FIGURES.md).
//
// Each row reproduces, as a Tessera program on a GC2-shaped target (the gc2 preset,
// several IPUs as a ladder of 2-IPU C2 cards), a workload measured on real GC2 hardware,
// and compares the simulated figure with the measured one:
//  - the STREAM triad of Louw & McIntosh-Smith 2021 (Table I): naive, optimised, assembly;
//  - the Gaussian blur of lbm-graphcore (experiments/gaussian-blur-scaling, commit 97cd841):
//    a 3x3 blur of a 4-channel image, decomposed over IPUs, tiles and the six workers of
//    each tile as lbm-graphcore's StructuredGridUtils does it, every worker's halo a field of
//    its own (received by exchange, or rearranged on the tile when its source is strided on
//    the same tile), and every worker's region rearranged into contiguous memory when the
//    tile is split by columns (Poplar vertex fields are contiguous). Measured per superstep:
//    the 2200 x 1122 image on 1 and 16 IPUs and its phases (exchange-vs-compute.csv), and the
//    weak scaling at 500 k pixels per IPU from 1 to 16 IPUs (weak-scaling-results.csv, 200
//    supersteps per run);
//  - the GC2 syncs (the same profile).
// Every row prints its ratio model / measured. Rows meant to be within 25 % are checked to
// be; rows the model cannot reach are pinned at their documented ratio (docs/targets.md,
// "Fidelity", says why in numbers), so that any change of the model shows here. Rows that
// calibrated a Target figure are marked: they check the fit, not the model.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/core/cycle_estimate.hpp"
#include "tessera/core/exchange_plan.hpp"
#include "tessera/core/runtime.hpp"

namespace tessera {
namespace {

constexpr double kGc2Clock = 1.6e9;

enum class Kind { check, calibration, miss };

// One row: prints it. A `check` row must be within 25 %; so must a `calibration` row (one
// whose measurement went into a Target figure: it checks the fit, not the model); a `miss`
// row, which the model cannot bring within 25 %, is pinned at its documented ratio (5 %).
void row(const std::string& name, double measured, double model, Kind kind = Kind::check,
         double pinned = 0) {
  const double ratio = model / measured;
  const char* tag = kind == Kind::check         ? ""
                    : kind == Kind::calibration ? " (calibration)"
                                                : " (miss)";
  std::printf("| %s%s | %.4g | %.4g | %.2f |\n", name.c_str(), tag, measured, model, ratio);
  if (kind == Kind::miss) {
    EXPECT_NEAR(ratio, pinned, 0.05 * pinned) << name;
  } else {
    EXPECT_GE(ratio, 0.75) << name;
    EXPECT_LE(ratio, 1.25) << name;
  }
}

Target gc2(int ipus) {
  Target t = Target::preset("gc2");
  t.ipus = ipus;
  t.ipus_per_link_domain = ipus;
  t.validate();
  return t;
}

// ---- STREAM triad ------------------------------------------------------------------------

// a[i] = b[i] + s c[i] on every tile: bytes per cycle per tile of the compute phase.
double triad_bytes_per_cycle(int vector_width, bool co_issue) {
  Runtime rt(gc2(1), 2, MPI_COMM_SELF);
  constexpr std::size_t n = 16384;  // 192 KiB of the 256 per tile
  auto a = rt.create_variable<float>("a", n), b = rt.create_variable<float>("b", n),
       c = rt.create_variable<float>("c", n);
  KernelWork w;
  w.flops_fp32 = 2;  // a multiply and an add
  w.bytes_loaded = 8;
  w.bytes_stored = 4;
  w.vector_width = vector_width;
  w.co_issue = co_issue;
  const SuperstepCost before = rt.profile().total();
  rt.superstep("triad", [&](Tile& t) {
    auto x = t.get(a);
    const auto y = t.get(b), z = t.get(c);
    for (std::size_t i = 0; i < n; ++i) x[i] = y[i] + 3.0f * z[i];
    t.charge(w, n);
  });
  const double cycles = (rt.profile().total() - before).compute_cycles;
  return 12.0 * n / cycles;
}

TEST(Fidelity, StreamTriadOnOneGc2) {
  // Louw & McIntosh-Smith 2021, Table I: 3726, 7261 and 12420 GB/s over 1216 tiles at 1.6 GHz.
  std::printf("| row | measured | model | model / measured |\n| --- | --- | --- | --- |\n");
  auto gbs = [](double bytes_per_cycle) { return bytes_per_cycle * 1216 * kGc2Clock / 1e9; };
  row("STREAM triad, naive (GB/s)", 3726, gbs(triad_bytes_per_cycle(1, false)));
  row("STREAM triad, optimised, float2 (GB/s)", 7261, gbs(triad_bytes_per_cycle(2, false)));
  row("STREAM triad, assembly, co-issued (GB/s)", 12420, gbs(triad_bytes_per_cycle(2, true)));
}

// ---- Gaussian blur -----------------------------------------------------------------------

struct Slice {
  int r0, r1, c0, c1;  // rows [r0, r1), columns [c0, c1) of the image
  int rows() const { return r1 - r0; }
  int cols() const { return c1 - c0; }
};

// Splits [0, n) into `parts` runs, the first n % parts one longer.
std::vector<int> runs(int n, int parts) {
  std::vector<int> at{0};
  for (int k = 0; k < parts; ++k) at.push_back(at.back() + n / parts + (k < n % parts ? 1 : 0));
  return at;
}

// lbm-graphcore's partition of an image over IPUs: along the axis that divides more evenly.
std::vector<Slice> ipu_slices(int rows, int cols, int ipus) {
  const double row_imbalance = static_cast<double>(rows % ipus) / rows;
  const double col_imbalance = static_cast<double>(cols % ipus) / cols;
  std::vector<Slice> out;
  const bool by_rows = row_imbalance < col_imbalance;
  const std::vector<int> at = runs(by_rows ? rows : cols, ipus);
  for (int i = 0; i < ipus; ++i)
    out.push_back(by_rows ? Slice{at[i], at[i + 1], 0, cols} : Slice{0, rows, at[i], at[i + 1]});
  return out;
}

// Its grid of tiles over one IPU's slice (the general strategy, blocks of at least 6 x 6): a
// grid about as square as the slice, wide columns and tall rows first, tiles row-major.
constexpr int min_side = 6;

std::vector<Slice> tile_slices(const Slice& s, int tiles) {
  const double aspect = static_cast<double>(std::max(min_side, s.cols())) /
                        static_cast<double>(std::max(min_side, s.rows()));
  const int c_max = std::min(tiles, s.cols() / min_side),
            r_max = std::min(tiles, s.rows() / min_side);
  const int grid_cols = std::min(c_max, static_cast<int>(std::ceil(std::sqrt(tiles * aspect))));
  const int grid_rows = std::min(r_max, tiles / grid_cols);
  auto bounds = [](int n, int parts) {
    const int narrow = std::max(min_side, n / parts), wide = n - parts * narrow;
    std::vector<int> at{0};
    for (int k = 0; k < parts; ++k) at.push_back(at.back() + narrow + (k < wide ? 1 : 0));
    return at;
  };
  const std::vector<int> rb = bounds(s.rows(), grid_rows), cb = bounds(s.cols(), grid_cols);
  std::vector<Slice> out;
  for (int r = 0; r < grid_rows; ++r)
    for (int c = 0; c < grid_cols; ++c)
      out.push_back({s.r0 + rb[r], s.r0 + rb[r + 1], s.c0 + cb[c], s.c0 + cb[c + 1]});
  return out;
}

// Its split of a tile over the six workers: by rows unless columns divide more evenly.
std::vector<Slice> worker_slices(const Slice& t, bool& by_columns) {
  const double row_imbalance = static_cast<double>(t.rows() % 6) / t.rows();
  const double col_imbalance = static_cast<double>(t.cols() % 6) / t.cols();
  by_columns = row_imbalance > col_imbalance;
  std::vector<Slice> out;
  const int n = std::min(by_columns ? t.cols() : t.rows(), 6);
  const std::vector<int> at = runs(by_columns ? t.cols() : t.rows(), n);
  for (int k = 0; k < n; ++k)
    out.push_back(by_columns ? Slice{t.r0, t.r1, t.c0 + at[k], t.c0 + at[k + 1]}
                             : Slice{t.r0 + at[k], t.r0 + at[k + 1], t.c0, t.c1});
  return out;
}

// IEEE half, for the half4 runs (round to nearest even; no subnormal inputs arise here).
std::uint16_t to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const int exponent = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  std::uint32_t mantissa = x & 0x7fffffu;
  if (exponent <= 0) return static_cast<std::uint16_t>(sign);  // flush tiny values to zero
  std::uint32_t h = sign | (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(h);
}
float from_half(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu,
                      mantissa = h & 0x3ffu;
  std::uint32_t x = sign;
  if (exponent != 0) x |= ((exponent - 15 + 127) << 23) | (mantissa << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// A pixel of four channels, float or half.
struct FloatPixel {
  std::array<float, 4> c;
  float get(int k) const { return c[static_cast<std::size_t>(k)]; }
  void set(int k, float v) { c[static_cast<std::size_t>(k)] = v; }
};
struct HalfPixel {
  std::array<std::uint16_t, 4> c;
  float get(int k) const { return from_half(c[static_cast<std::size_t>(k)]); }
  void set(int k, float v) { c[static_cast<std::size_t>(k)] = to_half(v); }
};

// lbm-graphcore's codelet per channel value: 9 loads, 8 adds and 3 multiplies, a store; float
// is scalar code, half4 works on 4 channels a vector (codelets GaussianBlurCodelet<float>,
// GaussianBlurCodeletHalf4).
template <class P>
KernelWork blur_work() {
  KernelWork w;
  constexpr double value = sizeof(P) / 4.0;
  w.bytes_loaded = 9 * value;
  w.bytes_stored = value;
  w.value_bytes = static_cast<int>(value);
  if constexpr (sizeof(P) == 16) {
    w.flops_fp32 = 11;
  } else {
    w.flops_fp16 = 11;
    w.vector_width = 4;
  }
  return w;
}

float blur(float nw, float n, float ne, float w, float m, float e, float sw, float s, float se) {
  return 1.f / 16 * (nw + ne + sw + se) + 4.f / 16 * m + 2.f / 16 * (e + w + s + n);
}

float pattern(int r, int c, int k) {
  return static_cast<float>(((r * 131 + c * 71 + k * 29) % 256)) / 256.0f;
}

// The blur program. Per tile: the image block twice (ping-pong) in row-major order; per
// worker of a tile split by columns, its region in contiguous `in` and `out` buffers; per
// worker, the halo fields it cannot read where they lie (n, s, w, e, nw, ne, sw, se: from
// other tiles, or strided on its own tile); zeros outside the image.
template <class P>
class BlurProgram {
 public:
  enum Part { n_, s_, w_, e_, nw_, ne_, sw_, se_ };
  enum class Source { zero, buffer, block };  // where a worker reads a halo part
  struct Worker {
    Slice s;
    std::size_t in_at = 0;  // offset of its region in `in`/`out` (tiles split by columns)
    std::size_t halo_at = 0;
    std::array<std::size_t, 8> part_at{};
    std::array<Source, 8> source{};
  };
  struct TileBlocks {
    Slice s;
    bool by_columns = false;
    std::vector<Worker> workers;
  };

  BlurProgram(int ipus, int rows, int cols)
      : rt_(gc2(ipus), 2, MPI_COMM_SELF), rows_(rows), cols_(cols) {
    const int tiles_per_ipu = rt_.target().tiles_per_ipu;
    tiles_.resize(static_cast<std::size_t>(rt_.target().total_tiles()));
    owner_.assign(static_cast<std::size_t>(rows) * cols, -1);
    const std::vector<Slice> per_ipu = ipu_slices(rows, cols, ipus);
    for (int i = 0; i < ipus; ++i) {
      const std::vector<Slice> ts =
          tile_slices(per_ipu[static_cast<std::size_t>(i)], tiles_per_ipu);
      for (std::size_t k = 0; k < ts.size(); ++k) {
        const int id = i * tiles_per_ipu + static_cast<int>(k);
        TileBlocks& t = tiles_[static_cast<std::size_t>(id)];
        t.s = ts[k];
        for (const Slice& w : worker_slices(t.s, t.by_columns)) t.workers.push_back({w});
        for (int r = t.s.r0; r < t.s.r1; ++r)
          for (int c = t.s.c0; c < t.s.c1; ++c) owner_[index(r, c)] = id;
      }
    }
    layout_buffers();
    auto block = [&](const Tile& t) { return pixels(tiles_[static_cast<std::size_t>(t.id())].s); };
    img_[0] = rt_.create_variable<P>("blur.img", block);
    img_[1] = rt_.create_variable<P>("blur.tmp", block);
    in_ = rt_.create_variable<P>("blur.in", [&](const Tile& t) { return in_size(t.id()); });
    out_ = rt_.create_variable<P>("blur.out", [&](const Tile& t) { return in_size(t.id()); });
    halo_ = rt_.create_variable<P>("blur.halo", [&](const Tile& t) { return halo_size(t.id()); });
    for (int k = 0; k < 2; ++k) {
      fetch_[k] = rt_.compile(fetch_plan(img_[k]));
      store_[k] = rt_.compile(store_plan(img_[k]));
    }
  }

  // Fills the image, fetches every worker's halos and regions: then the measured supersteps.
  void start() {
    rt_.superstep("blur.load",
                  [&](Tile& t) {
                    const Slice& s = tiles_[static_cast<std::size_t>(t.id())].s;
                    auto b = t.get(img_[0]);
                    for (int r = s.r0; r < s.r1; ++r)
                      for (int c = s.c0; c < s.c1; ++c)
                        for (int k = 0; k < 4; ++k) b[local(s, r, c)].set(k, pattern(r, c, k));
                  },
                  {&fetch_[0]});
  }

  // One blur superstep from image `from` into the other: the workers compute, then the
  // exchange stores their results and fetches the next superstep's halos and regions.
  SuperstepCost step(int from) {
    const int to = 1 - from;
    const SuperstepCost before = rt_.profile().total();
    const KernelWork work = blur_work<P>();
    rt_.superstep("blur.step",
                  [&](Tile& t) {
                    const TileBlocks& tb = tiles_[static_cast<std::size_t>(t.id())];
                    if (tb.workers.empty()) return;
                    std::vector<std::uint64_t> items;
                    for (const Worker& w : tb.workers) {
                      compute(t, tb, w, from, to);
                      items.push_back(static_cast<std::uint64_t>(w.s.rows()) * w.s.cols() * 4);
                    }
                    t.charge(work, items);
                  },
                  {&store_[to], &fetch_[to]});
    return rt_.profile().total() - before;
  }

  // The image `which` gathered from the tiles, against the blur computed directly.
  bool matches_reference(int which, int steps) const {
    std::vector<float> ref(static_cast<std::size_t>(rows_) * cols_ * 4);
    for (int r = 0; r < rows_; ++r)
      for (int c = 0; c < cols_; ++c)
        for (int k = 0; k < 4; ++k) {
          P p;
          p.set(k, pattern(r, c, k));
          ref[(index(r, c)) * 4 + static_cast<std::size_t>(k)] = p.get(k);
        }
    for (int s = 0; s < steps; ++s) {
      std::vector<float> next(ref.size());
      auto at = [&](int r, int c, int k) {
        if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return 0.0f;
        return ref[index(r, c) * 4 + static_cast<std::size_t>(k)];
      };
      for (int r = 0; r < rows_; ++r)
        for (int c = 0; c < cols_; ++c)
          for (int k = 0; k < 4; ++k) {
            P p;
            p.set(k, blur(at(r - 1, c - 1, k), at(r - 1, c, k), at(r - 1, c + 1, k),
                          at(r, c - 1, k), at(r, c, k), at(r, c + 1, k), at(r + 1, c - 1, k),
                          at(r + 1, c, k), at(r + 1, c + 1, k)));
            next[index(r, c) * 4 + static_cast<std::size_t>(k)] = p.get(k);
          }
      ref.swap(next);
    }
    bool same = true;
    for (const auto& tile : rt_.local_tiles()) {
      const Slice& s = tiles_[static_cast<std::size_t>(tile->id())].s;
      const auto b = tile->get(img_[which]);
      for (int r = s.r0; r < s.r1 && same; ++r)
        for (int c = s.c0; c < s.c1 && same; ++c)
          for (int k = 0; k < 4; ++k)
            same = same &&
                   b[local(s, r, c)].get(k) == ref[index(r, c) * 4 + static_cast<std::size_t>(k)];
    }
    return same;
  }

  const Target& target() const { return rt_.target(); }

 private:
  std::size_t index(int r, int c) const {
    return static_cast<std::size_t>(r) * static_cast<std::size_t>(cols_) +
           static_cast<std::size_t>(c);
  }
  static std::size_t pixels(const Slice& s) {
    return static_cast<std::size_t>(s.rows()) * s.cols();
  }
  static std::size_t local(const Slice& s, int r, int c) {
    return static_cast<std::size_t>(r - s.r0) * static_cast<std::size_t>(s.cols()) +
           static_cast<std::size_t>(c - s.c0);
  }
  int owner(int r, int c) const {
    if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return -1;
    return owner_[index(r, c)];
  }
  std::size_t in_size(int tile) const {
    const TileBlocks& t = tiles_[static_cast<std::size_t>(tile)];
    return t.by_columns ? pixels(t.s) : 0;
  }
  std::size_t halo_size(int tile) const { return halo_sizes_[static_cast<std::size_t>(tile)]; }

  // The halo parts of a worker: part p's pixels (a row, a column or a corner).
  static std::array<Slice, 8> parts(const Slice& w) {
    return {Slice{w.r0 - 1, w.r0, w.c0, w.c1},     Slice{w.r1, w.r1 + 1, w.c0, w.c1},
            Slice{w.r0, w.r1, w.c0 - 1, w.c0},     Slice{w.r0, w.r1, w.c1, w.c1 + 1},
            Slice{w.r0 - 1, w.r0, w.c0 - 1, w.c0}, Slice{w.r0 - 1, w.r0, w.c1, w.c1 + 1},
            Slice{w.r1, w.r1 + 1, w.c0 - 1, w.c0}, Slice{w.r1, w.r1 + 1, w.c1, w.c1 + 1}};
  }

  // Where each worker reads its parts: outside the image zeros; on its own tile where the
  // part is contiguous (a row of a tile split by rows: Poplar passes such a field in
  // place); anywhere else from a buffer of its own, filled by the exchange.
  void layout_buffers() {
    halo_sizes_.assign(tiles_.size(), 0);
    for (std::size_t id = 0; id < tiles_.size(); ++id) {
      TileBlocks& t = tiles_[id];
      std::size_t in_at = 0, halo_at = 0;
      for (Worker& w : t.workers) {
        w.in_at = in_at;
        in_at += pixels(w.s);
        const auto ps = parts(w.s);
        for (int p = 0; p < 8; ++p) {
          const Slice& part = ps[static_cast<std::size_t>(p)];
          const bool outside = part.r0 < 0 || part.c0 < 0 || part.r1 > rows_ || part.c1 > cols_;
          const bool row = part.rows() == 1;
          const bool own = !outside && owner(part.r0, part.c0) == static_cast<int>(id) &&
                           owner(part.r1 - 1, part.c1 - 1) == static_cast<int>(id);
          Source src = outside ? Source::zero : Source::buffer;
          if (!outside && own && (row || part.cols() == t.s.cols())) src = Source::block;
          w.source[static_cast<std::size_t>(p)] = src;
          w.part_at[static_cast<std::size_t>(p)] = halo_at;
          if (src == Source::buffer) halo_at += pixels(part);
        }
      }
      halo_sizes_[id] = halo_at;
    }
  }

  // Copies that bring image `img` where the workers read it: the halo parts that come to a
  // buffer, run by run of one source tile (a row in one copy, a column as strided pixels),
  // and, for tiles split by columns, each worker's region, row by row, into `in`.
  ExchangePlanBuilder fetch_plan(Variable<P> img) const {
    ExchangePlanBuilder b("blur.fetch");
    for (std::size_t id = 0; id < tiles_.size(); ++id) {
      const TileBlocks& t = tiles_[id];
      const int dst = static_cast<int>(id);
      for (const Worker& w : t.workers) {
        const auto ps = parts(w.s);
        for (std::size_t p = 0; p < 8; ++p) {
          if (w.source[p] != Source::buffer) continue;
          const Slice& part = ps[p];
          std::size_t at = w.part_at[p];
          // Runs of pixels with one owner, along the part.
          const bool row = part.rows() == 1;
          const int length = row ? part.cols() : part.rows();
          for (int i = 0; i < length;) {
            const int r = row ? part.r0 : part.r0 + i, c = row ? part.c0 + i : part.c0;
            const int src = owner(r, c);
            int j = i + 1;
            while (j < length &&
                   owner(row ? part.r0 : part.r0 + j, row ? part.c0 + j : part.c0) == src)
              ++j;
            const Slice& ss = tiles_[static_cast<std::size_t>(src)].s;
            const std::size_t from = local(ss, r, c);
            if (row)
              b.copy(img, src, from, halo_, dst, at, static_cast<std::size_t>(j - i));
            else
              b.copy_strided(img, src, from, static_cast<std::size_t>(ss.cols()), halo_, dst, at, 1,
                             static_cast<std::size_t>(j - i));
            at += static_cast<std::size_t>(j - i);
            i = j;
          }
        }
        if (t.by_columns)
          b.copy_blocks(img, dst, local(t.s, w.s.r0, w.s.c0), static_cast<std::size_t>(t.s.cols()),
                        in_, dst, w.in_at, static_cast<std::size_t>(w.s.cols()),
                        static_cast<std::size_t>(w.s.cols()), static_cast<std::size_t>(w.s.rows()));
      }
    }
    return b;
  }

  // Copies that put the workers' results (tiles split by columns) into image `img`.
  ExchangePlanBuilder store_plan(Variable<P> img) const {
    ExchangePlanBuilder b("blur.store");
    for (std::size_t id = 0; id < tiles_.size(); ++id) {
      const TileBlocks& t = tiles_[id];
      if (!t.by_columns) continue;
      const int tile = static_cast<int>(id);
      for (const Worker& w : t.workers)
        b.copy_blocks(out_, tile, w.in_at, static_cast<std::size_t>(w.s.cols()), img, tile,
                      local(t.s, w.s.r0, w.s.c0), static_cast<std::size_t>(t.s.cols()),
                      static_cast<std::size_t>(w.s.cols()), static_cast<std::size_t>(w.s.rows()));
    }
    return b;
  }

  // One worker's blur: its region from `in` (or the block), its halo parts from where they
  // are, into `out` (or the other block).
  void compute(Tile& t, const TileBlocks& tb, const Worker& w, int from, int to) const {
    const auto block = t.get(img_[from]);
    const auto target_block = t.get(img_[to]);
    const auto in = t.get(in_);
    const auto out = t.get(out_);
    const auto halo = t.get(halo_);
    const auto ps = parts(w.s);
    auto value = [&](int r, int c, int k) -> float {
      if (r >= w.s.r0 && r < w.s.r1 && c >= w.s.c0 && c < w.s.c1) {
        if (tb.by_columns)
          return in[w.in_at + static_cast<std::size_t>(r - w.s.r0) * w.s.cols() +
                    static_cast<std::size_t>(c - w.s.c0)]
              .get(k);
        return block[local(tb.s, r, c)].get(k);
      }
      const int p = r < w.s.r0    ? (c < w.s.c0    ? nw_
                                     : c >= w.s.c1 ? ne_
                                                   : n_)
                    : r >= w.s.r1 ? (c < w.s.c0    ? sw_
                                     : c >= w.s.c1 ? se_
                                                   : s_)
                                  : (c < w.s.c0 ? w_ : e_);
      const Slice& part = ps[static_cast<std::size_t>(p)];
      switch (w.source[static_cast<std::size_t>(p)]) {
        case Source::zero:
          return 0.0f;
        case Source::block:
          return block[local(tb.s, r, c)].get(k);
        case Source::buffer:
          break;
      }
      const std::size_t offset = part.rows() == 1 ? static_cast<std::size_t>(c - part.c0)
                                                  : static_cast<std::size_t>(r - part.r0);
      return halo[w.part_at[static_cast<std::size_t>(p)] + offset].get(k);
    };
    for (int r = w.s.r0; r < w.s.r1; ++r)
      for (int c = w.s.c0; c < w.s.c1; ++c) {
        P& o = tb.by_columns ? out[w.in_at + static_cast<std::size_t>(r - w.s.r0) * w.s.cols() +
                                   static_cast<std::size_t>(c - w.s.c0)]
                             : target_block[local(tb.s, r, c)];
        for (int k = 0; k < 4; ++k)
          o.set(k, blur(value(r - 1, c - 1, k), value(r - 1, c, k), value(r - 1, c + 1, k),
                        value(r, c - 1, k), value(r, c, k), value(r, c + 1, k),
                        value(r + 1, c - 1, k), value(r + 1, c, k), value(r + 1, c + 1, k)));
      }
  }

  Runtime rt_;
  int rows_, cols_;
  std::vector<TileBlocks> tiles_;
  std::vector<int> owner_;  // tile of every pixel
  std::vector<std::size_t> halo_sizes_;
  std::array<Variable<P>, 2> img_;
  Variable<P> in_, out_, halo_;
  std::array<ExchangePlan, 2> fetch_, store_;
};

// lbm-graphcore's GC2 profile of one superstep (exchange-vs-compute.csv), in cycles.
struct Phases {
  double sync, halo, global, rearrange, compute;
  double total() const { return sync + halo + global + rearrange + compute; }
};

template <class P>
SuperstepCost blur_superstep(int ipus, int rows, int cols, bool check_result) {
  BlurProgram<P> blur(ipus, rows, cols);
  blur.start();
  const SuperstepCost first = blur.step(0);
  if (check_result) {
    const SuperstepCost second = blur.step(1);
    EXPECT_TRUE(blur.matches_reference(0, 2)) << "the blur's result differs from the reference";
    EXPECT_DOUBLE_EQ(first.seconds(blur.target()), second.seconds(blur.target()));
  }
  return first;
}

// The rows of one superstep: sync, on-chip halo, inter-IPU exchange, rearrangement, the
// last two together, compute, the whole superstep (kinds and pinned ratios in that order).
void phase_rows(const std::string& what, const Phases& m, const SuperstepCost& c, const Target& t,
                const std::array<Kind, 7>& kinds, const std::array<double, 7>& pinned) {
  const double link_cycles = c.link_seconds * t.clock_hz;
  row(what + ": sync (cycles)", m.sync, c.sync_cycles, kinds[0], pinned[0]);
  row(what + ": on-chip halo exchange (cycles)", m.halo, c.exchange_cycles, kinds[1], pinned[1]);
  if (m.global > 0)
    row(what + ": inter-IPU exchange (cycles)", m.global, link_cycles, kinds[2], pinned[2]);
  row(what + ": rearrangement (cycles)", m.rearrange, c.rearrange_cycles, kinds[3], pinned[3]);
  if (m.global > 0)
    row(what + ": inter-IPU exchange + rearrangement (cycles)", m.global + m.rearrange,
        link_cycles + c.rearrange_cycles, kinds[4], pinned[4]);
  row(what + ": compute (cycles)", m.compute, c.compute_cycles, kinds[5], pinned[5]);
  row(what + ": superstep (us)", m.total() / kGc2Clock * 1e6, c.seconds(t) * 1e6, kinds[6],
      pinned[6]);
}

constexpr Kind C = Kind::check, K = Kind::calibration, M = Kind::miss;

TEST(Fidelity, GaussianBlurOnOneGc2) {
  // 2200 x 1122 pixels (cheese.png): tiles of up to 47 x 45 pixels, split by columns.
  std::printf("| row | measured | model | model / measured |\n| --- | --- | --- | --- |\n");
  const Target t = gc2(1);
  const SuperstepCost f = blur_superstep<FloatPixel>(1, 1122, 2200, true);
  phase_rows("blur 2200x1122 float, 1 IPU", {117, 1173, 0, 8279 + 6954, 210249}, f, t,
             {K, K, C, K, C, C, C}, {});
  const SuperstepCost h = blur_superstep<HalfPixel>(1, 1122, 2200, true);
  phase_rows("blur 2200x1122 half4, 1 IPU", {64, 637, 0, 5741 + 4826, 63531}, h, t,
             {M, C, C, C, C, C, C}, {1.83, 0, 0, 0, 0, 0, 0});
}

TEST(Fidelity, GaussianBlurOnSixteenGc2s) {
  // The same image over 16 IPUs (bands of 70-71 rows): tiles of up to 12 x 12, by rows.
  std::printf("| row | measured | model | model / measured |\n| --- | --- | --- | --- |\n");
  const Target t = gc2(16);
  const SuperstepCost f = blur_superstep<FloatPixel>(16, 1122, 2200, false);
  phase_rows("blur 2200x1122 float, 16 IPUs", {640, 397, 4048, 1894 + 954, 13152}, f, t,
             {K, K, M, K, M, C, C}, {0, 0, 2.16, 0, 1.62, 0, 0});
  const SuperstepCost h = blur_superstep<HalfPixel>(16, 1122, 2200, false);
  phase_rows("blur 2200x1122 half4, 16 IPUs", {501, 263, 3043, 1611 + 882, 4446}, h, t,
             {M, C, M, C, M, M, M}, {1.28, 0, 2.47, 0, 1.73, 0.74, 1.28});
}

TEST(Fidelity, GaussianBlurWeakScalingOnGc2s) {
  // 500 k pixels per IPU (500 x 1000 per IPU, side by side): 200 supersteps per run.
  std::printf("| row | measured | model | model / measured |\n| --- | --- | --- | --- |\n");
  const std::array<int, 5> ipus = {1, 2, 4, 8, 16};
  const std::array<double, 5> float_ms = {6.9243, 7.6643, 7.9326, 7.9412, 7.956};
  const std::array<double, 5> half_ms = {2.5486, 3.2757, 3.553, 3.5564, 3.5709};
  double float_one = 0, half_one = 0, float_model_one = 0, half_model_one = 0;
  for (std::size_t i = 0; i < ipus.size(); ++i) {
    const int n = ipus[i];
    const Target t = gc2(n);
    const double f = blur_superstep<FloatPixel>(n, 1000, 500 * n, false).seconds(t) * 1e6;
    const double h = blur_superstep<HalfPixel>(n, 1000, 500 * n, false).seconds(t) * 1e6;
    const double fm = float_ms[i] / 200 * 1e3, hm = half_ms[i] / 200 * 1e3;
    const std::string at = std::to_string(n) + " IPU" + (n > 1 ? "s" : "");
    row("weak scaling float, " + at + ": superstep (us)", fm, f);
    row("weak scaling half4, " + at + ": superstep (us)", hm, h);
    if (n == 1) {
      float_one = fm, half_one = hm, float_model_one = f, half_model_one = h;
      continue;
    }
    // The cross-IPU overhead per superstep: what the superstep gains over one IPU.
    const Kind kind = n <= 4 ? Kind::calibration : Kind::check;
    row("weak scaling float, " + at + ": cross-IPU overhead (us)", fm - float_one,
        f - float_model_one, kind);
    row("weak scaling half4, " + at + ": cross-IPU overhead (us)", hm - half_one,
        h - half_model_one);
  }
}

}  // namespace
}  // namespace tessera
