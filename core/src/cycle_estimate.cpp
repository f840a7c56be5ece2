#include "tessera/core/cycle_estimate.hpp"

#include <algorithm>
#include <cmath>

namespace tessera {
namespace {

double lanes(int width, int target_lanes) {
  return static_cast<double>(std::clamp(width, 1, std::max(target_lanes, 1)));
}

// Tile cycles of the AMP work of one item (matrix products), or 0 when the target has no
// AMP (worker_cycles_per_item then prices them as vector operations).
double amp_cycles_per_item(const Target& t, const KernelWork& w) {
  double c = 0;
  if (t.amp_flops_per_cycle_fp32 > 0) c += w.matmul_flops_fp32 / t.amp_flops_per_cycle_fp32;
  if (t.amp_flops_per_cycle_fp16 > 0) c += w.matmul_flops_fp16 / t.amp_flops_per_cycle_fp16;
  return c;
}

std::uint64_t finish(const Target& t, const KernelWork& w, std::uint64_t items,
                     std::uint64_t longest_worker_items) {
  if (items == 0) return static_cast<std::uint64_t>(std::ceil(t.kernel_launch_cycles));
  const double issue = static_cast<double>(t.workers_per_tile) *
                       static_cast<double>(longest_worker_items) * worker_cycles_per_item(t, w);
  const double n = static_cast<double>(items);
  const double amp = n * amp_cycles_per_item(t, w);
  const double memory = n * (w.bytes_loaded + w.bytes_stored) / t.memory_bytes_per_cycle;
  return static_cast<std::uint64_t>(
      std::ceil(t.kernel_launch_cycles + std::max(issue + amp, memory)));
}

}  // namespace

double worker_cycles_per_item(const Target& t, const KernelWork& w) {
  const double l32 = lanes(w.vector_width, t.vector_lanes_fp32);
  const double l16 = lanes(w.vector_width, t.vector_lanes_fp16);
  double fp = w.flops_fp32 / l32 + w.flops_fp16 / l16 + w.flops_fp64 * t.fp64_cycles_per_flop;
  fp += w.transcendentals_fp32 * t.transcendental_flops / l32 +
        w.transcendentals_fp64 * t.transcendental_flops * t.fp64_cycles_per_flop;
  // Matrix products on a target without an AMP unit run as vector operations.
  if (!(t.amp_flops_per_cycle_fp32 > 0)) fp += w.matmul_flops_fp32 / l32;
  if (!(t.amp_flops_per_cycle_fp16 > 0)) fp += w.matmul_flops_fp16 / l16;
  const double access = std::min(t.load_store_bytes,
                                 std::max(w.vector_width, 1) * static_cast<double>(w.value_bytes));
  const double memory = (w.bytes_loaded + w.bytes_stored) / std::max(access, 1.0);
  const double control = w.int_ops + t.loop_overhead_cycles / std::max(w.vector_width, 1);
  return w.co_issue ? std::max(memory + control, fp) : fp + memory + control;
}

std::uint64_t estimate_cycles(const Target& t, const KernelWork& w, std::uint64_t items) {
  // Items go to the workers in whole vectors: the longest worker has ceil(vectors / workers).
  const auto width = static_cast<std::uint64_t>(std::max(w.vector_width, 1));
  const std::uint64_t vectors = (items + width - 1) / width;
  const auto workers = static_cast<std::uint64_t>(std::max(t.workers_per_tile, 1));
  const std::uint64_t longest = std::min(items, (vectors + workers - 1) / workers * width);
  return finish(t, w, items, longest);
}

std::uint64_t estimate_cycles(const Target& t, const KernelWork& w,
                              std::span<const std::uint64_t> items_per_worker) {
  std::uint64_t items = 0, longest = 0;
  for (std::uint64_t n : items_per_worker) items += n, longest = std::max(longest, n);
  return finish(t, w, items, longest);
}

std::uint64_t exchange_cycles(const Target& t, std::uint64_t bytes, std::uint64_t fragments) {
  return static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(bytes) / t.exchange_bytes_per_cycle +
                static_cast<double>(fragments) * t.exchange_cycles_per_fragment));
}

std::uint64_t copy_cycles(const Target& t, std::uint64_t bytes, std::uint64_t blocks) {
  if (bytes == 0) return 0;
  return static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(blocks) * t.copy_cycles_per_block +
                static_cast<double>(bytes) / t.copy_bytes_per_cycle));
}

}  // namespace tessera
