// Pins the counted work of the MD kernels (kernel_work.hpp) and its price on a GC200.
#include "tessera/md/kernel_work.hpp"

#include <gtest/gtest.h>

namespace tessera::md {
namespace {

TEST(MdKernelWork, LjPairCountsItsDoubleOperationsAndLoads) {
  // 25 operations and a division (1/r^2), 3 integer instructions, j's index and type, x_j,
  // three coefficients and f_j loaded, f_j stored.
  EXPECT_DOUBLE_EQ(pair_work.flops_fp64, 25);
  EXPECT_DOUBLE_EQ(pair_work.transcendentals_fp64, 1);
  EXPECT_DOUBLE_EQ(pair_work.bytes_loaded, 80);
  EXPECT_DOUBLE_EQ(pair_work.bytes_stored, 24);
  // On gc200 (40 cycles per emulated operation, 20 operations per division): 25 x 40 +
  // 800 + 3 + 13 accesses of 8 bytes + 1 branch per pair, per worker.
  const Target t = Target::preset("gc200");
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, pair_work), 1000 + 800 + 3 + 13 + 1);
  // A tile's 600 pairs: 100 per worker, six taking turns.
  EXPECT_EQ(estimate_cycles(t, pair_work, 600), 120u + 6u * 100u * 1817u);
}

TEST(MdKernelWork, IntegrationListAndGhostKernels) {
  const Target t = Target::preset("gc200");
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, integrate_work), 21 * 40 + 800 + 1 + 19.5 + 1);
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, kick_work), 6 * 40 + 800 + 1 + 10.5 + 1);
  EXPECT_GT(worker_cycles_per_item(t, kick_kinetic_work), worker_cycles_per_item(t, kick_work));
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, list_work), 9 * 40 + 3 + 4.5 + 1);
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, ghost_select_work), 9 * 40 + 2 + 3 + 1);
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, pack_work), 3 * 40 + 1 + 6.5 + 1);
}

TEST(MdKernelWork, DeepmdFloat32UsesTheAmpAndFloat64IsEmulated) {
  const Target t = Target::preset("gc200");  // AMP: 32 FP32 flop per cycle per tile
  // 6400 flops of matrix products: 200 AMP cycles, and a loop branch per 64 flops on the
  // workers (100 vectors, 17 on the longest worker, six taking turns).
  EXPECT_EQ(estimate_cycles(t, deepmd_matmul_work(true), 6400), 120u + 6u * 17u + 200u);
  // float64: 40 cycles an operation, half an 8-byte load and half a branch (per MAC).
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, deepmd_matmul_work(false)), 41.0);
  // tanh: 20 float operations on 2 lanes, or 20 emulated double operations.
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, deepmd_tanh_work(true)), 10 + 1 + 0.5);
  EXPECT_DOUBLE_EQ(worker_cycles_per_item(t, deepmd_tanh_work(false)), 800 + 2 + 1);
}

}  // namespace
}  // namespace tessera::md
