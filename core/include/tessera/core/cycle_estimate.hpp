// Cycle estimators for tile kernels, in the style of PopLibs' codelet estimators.
//
// A kernel declares what one item of its loop does (KernelWork: operations by precision,
// bytes loaded and stored, vector width), counted from its code; the Target turns that into
// cycles. No kernel states cycles itself.
//
// The issue model (Target figures in brackets):
//  - one worker's instruction cycles per item are
//      fp32 ops / lanes + fp16 ops / lanes + fp64 ops x [fp64_cycles_per_flop]
//      + transcendentals x [transcendental_flops] (as operations of their precision)
//      + integer ops + (bytes loaded + stored) / bytes per access
//      + [loop_overhead_cycles] / vector width,
//    where lanes = min(vector width, [vector_lanes_fp32 | _fp16]) and an access moves
//    min([load_store_bytes], vector width x value bytes); a co-issuing kernel (hand-written
//    assembly) pairs memory and arithmetic instructions: max(memory + integer + loop, fp);
//  - the tile issues one instruction per cycle, its [workers_per_tile] workers taking turns,
//    so a kernel costs workers x the cycles of its longest worker (about the sum of its
//    workers' cycles when all six are busy, six times the longest when fewer are), plus
//    [kernel_launch_cycles];
//  - matrix products declared as matmul flops run on the tile's AMP unit at
//    [amp_flops_per_cycle_fp32 | _fp16] (tile cycles, not shared by turns), or, on a target
//    without one, as vector operations;
//  - the result is at least the kernel's bytes / [memory_bytes_per_cycle].
#pragma once

#include <cstdint>
#include <span>

#include "tessera/core/target.hpp"

namespace tessera {

// The counted work of one item of a kernel's loop (an element, a point, a pair, an atom).
struct KernelWork {
  double flops_fp16 = 0;            // half-precision operations (vector unit)
  double flops_fp32 = 0;            // single-precision operations (vector unit)
  double flops_fp64 = 0;            // double-precision operations (emulated)
  double transcendentals_fp32 = 0;  // exp, log, tanh, division, sqrt in float (or half)
  double transcendentals_fp64 = 0;  // the same in double
  double matmul_flops_fp16 = 0;     // multiply-add work of matrix products (2 per MAC), AMP
  double matmul_flops_fp32 = 0;
  double int_ops = 0;       // integer, compare, select, branch and address instructions
  double bytes_loaded = 0;  // from tile memory
  double bytes_stored = 0;
  int vector_width = 1;   // items one instruction handles (1: scalar code)
  int value_bytes = 4;    // bytes of one loaded or stored value
  bool co_issue = false;  // hand-scheduled code pairing memory and arithmetic instructions
};

// One worker's instruction cycles per item (the first point above).
double worker_cycles_per_item(const Target& target, const KernelWork& work);

// Tile cycles of `items` items shared as evenly as the vector width allows over the
// tile's workers.
std::uint64_t estimate_cycles(const Target& target, const KernelWork& work, std::uint64_t items);
// Tile cycles when worker w handles items_per_worker[w] items (at most workers_per_tile).
std::uint64_t estimate_cycles(const Target& target, const KernelWork& work,
                              std::span<const std::uint64_t> items_per_worker);

// Cycles to move `bytes` in `fragments` contiguous blocks through one tile's exchange port:
// bytes / exchange_bytes_per_cycle + fragments x exchange_cycles_per_fragment, rounded up.
std::uint64_t exchange_cycles(const Target& target, std::uint64_t bytes,
                              std::uint64_t fragments = 0);

// Cycles of an on-tile copy of `bytes` in `blocks` contiguous blocks (data rearrangement):
// blocks x copy_cycles_per_block + bytes / copy_bytes_per_cycle, rounded up.
std::uint64_t copy_cycles(const Target& target, std::uint64_t bytes, std::uint64_t blocks);

}  // namespace tessera
