#include "tile_pool.hpp"

namespace tessera::detail {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins for a while on `value` changing from `old`, then sleeps until it does.
template <class T>
void await_change(const std::atomic<T>& value, T old) {
  for (int i = 0; i < 4000; ++i) {
    if (value.load(std::memory_order_acquire) != old) return;
    cpu_relax();
  }
  while (value.load(std::memory_order_acquire) == old) value.wait(old, std::memory_order_acquire);
}

inline int chunk_begin(int n, int threads, int k) {
  return static_cast<int>(static_cast<long long>(n) * k / threads);
}

}  // namespace

TilePool::TilePool(int threads) : threads_(threads < 1 ? 1 : threads) {
  for (int k = 1; k < threads_; ++k) workers_.emplace_back([this, k] { worker(k); });
}

TilePool::~TilePool() {
  stop_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  for (auto& w : workers_) w.join();
}

void TilePool::run(int n, const Body& body) {
  if (threads_ == 1) {
    body(0, 0, n);
    return;
  }
  body_ = &body;
  n_ = n;
  pending_.store(threads_ - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  body(0, 0, chunk_begin(n, threads_, 1));
  for (int left = pending_.load(std::memory_order_acquire); left != 0;
       left = pending_.load(std::memory_order_acquire))
    await_change(pending_, left);
}

void TilePool::worker(int k) {
  std::uint64_t seen = 0;
  for (;;) {
    await_change(generation_, seen);
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    (*body_)(k, chunk_begin(n_, threads_, k), chunk_begin(n_, threads_, k + 1));
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }
}

}  // namespace tessera::detail
