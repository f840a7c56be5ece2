// The distributed 3-d FFT (fft3d.hpp): pencils, their transposes as exchange plans, FFTW for
// each tile's lines.
#include "tessera/md/fft3d.hpp"

#include <fftw3.h>

#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>

#include "tessera/core/cycle_estimate.hpp"

namespace tessera::md {

namespace {
// The pencils along `axis` of a mesh of n points over `tiles` tiles.
Fft3d::Pencils deal(int axis, const std::array<int, 3>& n, int tiles) {
  Fft3d::Pencils p;
  p.axis = axis;
  std::size_t lines = 1;
  for (int d = 0; d < 3; ++d)
    if (d != axis) lines *= static_cast<std::size_t>(n[static_cast<std::size_t>(d)]);
  const auto t = static_cast<std::size_t>(tiles);
  for (std::size_t k = 0; k <= t; ++k) p.first.push_back(k * lines / t);
  return p;
}

// The tile that holds line l of pencils p (binary search over the runs).
int owner(const Fft3d::Pencils& p, std::size_t line) {
  std::size_t lo = 0, hi = p.first.size() - 1;  // first[lo] <= line < first[hi]
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (p.first[mid] <= line)
      lo = mid;
    else
      hi = mid;
  }
  // Skip tiles whose run is empty (their first equals the next's).
  while (p.first[lo + 1] <= line) ++lo;
  return static_cast<int>(lo);
}

// The two axes other than a, the lower first.
std::array<int, 2> others(int a) {
  return a == 0   ? std::array<int, 2>{1, 2}
         : a == 1 ? std::array<int, 2>{0, 2}
                  : std::array<int, 2>{0, 1};
}

fftw_complex* as_fftw(double* p) { return reinterpret_cast<fftw_complex*>(p); }
}  // namespace

Fft3d::Fft3d(Runtime& runtime, std::array<int, 3> n, std::size_t fields, const std::string& name)
    : runtime_(runtime), n_(n), fields_(fields) {
  for (int d = 0; d < 3; ++d)
    if (n[static_cast<std::size_t>(d)] < 1)
      throw std::invalid_argument(name + ": a mesh needs at least one point along each axis");
  if (fields == 0) throw std::invalid_argument(name + ": room for no fields");
  const int tiles = runtime.target().total_tiles();
  const char* labels[3] = {"md.fft_x_pencils", "md.fft_y_pencils", "md.fft_z_pencils"};
  for (int a = 0; a < 3; ++a) {
    const auto ua = static_cast<std::size_t>(a);
    pencils_[ua] = deal(a, n, tiles);
    const Pencils& p = pencils_[ua];
    const std::size_t length = static_cast<std::size_t>(n[ua]);
    data_[ua] = runtime.create_variable<double>(
        labels[a], [&, length](const Tile& t) { return 2 * fields * length * p.lines(t.id()); });
  }
  try {
    forward_plans_.resize(fields);
    backward_plans_.resize(fields);
    for (std::size_t f = 1; f <= fields; ++f)
      for (int a = 0; a < 2; ++a) {
        forward_plans_[f - 1].push_back(transpose(a, false, f, name + ".transpose"));
        backward_plans_[f - 1].push_back(transpose(a, true, f, name + ".transpose_back"));
      }
  } catch (...) {
    for (const auto v : data_) runtime.destroy_variable(v);
    throw;
  }
  // One in-place plan per axis and direction, made on a scratch line (FFTW_ESTIMATE leaves it
  // untouched) and run on any tile's lines (unaligned).
  for (int a = 0; a < 3; ++a) {
    const int length = n[static_cast<std::size_t>(a)];
    std::vector<double> scratch(2 * static_cast<std::size_t>(length));
    forward_[static_cast<std::size_t>(a)] =
        fftw_plan_dft_1d(length, as_fftw(scratch.data()), as_fftw(scratch.data()), FFTW_FORWARD,
                         FFTW_ESTIMATE | FFTW_UNALIGNED);
    backward_[static_cast<std::size_t>(a)] =
        fftw_plan_dft_1d(length, as_fftw(scratch.data()), as_fftw(scratch.data()), FFTW_BACKWARD,
                         FFTW_ESTIMATE | FFTW_UNALIGNED);
  }
}

Fft3d::~Fft3d() {
  for (auto* p : forward_) fftw_destroy_plan(p);
  for (auto* p : backward_) fftw_destroy_plan(p);
  for (const auto v : data_) runtime_.destroy_variable(v);
}

// The copies that take every point from pencils along a to pencils along b = a + 1 (or back):
// for each destination line, the runs of its points that come from one source tile, the
// source points a fixed stride apart (lines of the source that are consecutive on it).
ExchangePlan Fft3d::transpose(int a, bool back, std::size_t fields, const std::string& name) {
  const int b = a + 1;
  const Pencils& pa = pencils_[static_cast<std::size_t>(a)];
  const Pencils& pb = pencils_[static_cast<std::size_t>(b)];
  const auto na = static_cast<std::size_t>(n_[static_cast<std::size_t>(a)]);
  const auto nb = static_cast<std::size_t>(n_[static_cast<std::size_t>(b)]);
  const auto oa = others(a), ob = others(b);
  const auto n = [&](int d) { return static_cast<std::size_t>(n_[static_cast<std::size_t>(d)]); };
  // A point's line and place in pencils along a (lines l = i_oa0 + n_oa0 i_oa1).
  const auto in_a = [&](const std::array<std::size_t, 3>& i) {
    return std::pair{
        i[static_cast<std::size_t>(oa[0])] + n(oa[0]) * i[static_cast<std::size_t>(oa[1])],
        i[static_cast<std::size_t>(a)]};
  };
  ExchangePlanBuilder plan(name);
  const int tiles = runtime_.target().total_tiles();
  for (int tile = 0; tile < tiles; ++tile) {
    for (std::size_t lb = pb.first[static_cast<std::size_t>(tile)];
         lb < pb.first[static_cast<std::size_t>(tile) + 1]; ++lb) {
      // Line lb along b: the point with index k along b, the others from lb.
      std::array<std::size_t, 3> i{};
      i[static_cast<std::size_t>(ob[0])] = lb % n(ob[0]);
      i[static_cast<std::size_t>(ob[1])] = lb / n(ob[0]);
      const std::size_t b_offset = (lb - pb.first[static_cast<std::size_t>(tile)]) * nb;
      std::size_t k = 0;
      while (k < nb) {
        i[static_cast<std::size_t>(b)] = k;
        const auto [la, ka] = in_a(i);
        const int source = owner(pa, la);
        // The run: points k, k+1, ... whose lines along a are on that tile, `stride` lines
        // apart (1 when b is the lower of a's other axes, else n of that lower one).
        const std::size_t stride = b == oa[0] ? 1 : n(oa[0]);
        std::size_t run = 1;
        while (k + run < nb && owner(pa, la + run * stride) == source) ++run;
        const std::size_t a_offset = (la - pa.first[static_cast<std::size_t>(source)]) * na + ka;
        const std::size_t a_lines = pa.lines(source), b_lines = pb.lines(tile);
        for (std::size_t f = 0; f < fields; ++f) {
          const std::size_t from = 2 * (f * a_lines * na + a_offset);
          const std::size_t to = 2 * (f * b_lines * nb + b_offset + k);
          if (!back)
            plan.copy_blocks(data_[static_cast<std::size_t>(a)], source, from, 2 * stride * na,
                             data_[static_cast<std::size_t>(b)], tile, to, 2, 2, run);
          else
            plan.copy_blocks(data_[static_cast<std::size_t>(b)], tile, to, 2,
                             data_[static_cast<std::size_t>(a)], source, from, 2 * stride * na, 2,
                             run);
        }
        k += run;
      }
    }
  }
  return runtime_.compile(plan);
}

void Fft3d::transform(int axis, bool forward, std::size_t fields) {
  const auto ua = static_cast<std::size_t>(axis);
  const auto length = static_cast<std::size_t>(n_[ua]);
  fftw_plan plan = forward ? forward_[ua] : backward_[ua];
  KernelWork work;
  const double stages = length > 1 ? std::log2(static_cast<double>(length)) : 0.0;
  work.flops_fp64 = 5.0 * static_cast<double>(length) * stages;
  work.bytes_loaded = work.bytes_stored = 16.0 * static_cast<double>(length) * stages;
  work.int_ops = static_cast<double>(length) * stages;
  work.value_bytes = 8;
  const auto body = [&, plan](Tile& t) {
    auto data = t.get(data_[ua]);
    const std::size_t lines = fields * pencils_[ua].lines(t.id());
    for (std::size_t l = 0; l < lines; ++l) {
      double* line = data.data() + 2 * l * length;
      fftw_execute_dft(plan, as_fftw(line), as_fftw(line));
    }
    t.charge(work, lines);
  };
  const std::string name = std::string("md.fft_") + "xyz"[axis] + (forward ? "" : "_back");
  // Forward: after the transform along x and y, the transpose to the next pencils; backward:
  // after z and y, to the previous ones.
  const ExchangePlan* next = nullptr;
  if (forward && axis < 2) next = &forward_plans_[fields - 1][ua];
  if (!forward && axis > 0) next = &backward_plans_[fields - 1][ua - 1];
  if (next)
    runtime_.superstep(name, body, {next});
  else
    runtime_.superstep(name, body);
}

void Fft3d::forward(std::size_t fields) {
  if (fields == 0 || fields > fields_)
    throw std::invalid_argument("Fft3d::forward: 1 to " + std::to_string(fields_) + " fields");
  for (int a = 0; a < 3; ++a) transform(a, true, fields);
}

void Fft3d::backward(std::size_t fields) {
  if (fields == 0 || fields > fields_)
    throw std::invalid_argument("Fft3d::backward: 1 to " + std::to_string(fields_) + " fields");
  for (int a = 2; a >= 0; --a) transform(a, false, fields);
}

}  // namespace tessera::md
