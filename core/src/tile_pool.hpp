// TilePool: the host threads that run a compute phase (internal to the runtime).
//
// run(n, body) splits [0, n) into one contiguous chunk per thread and calls
// body(thread, begin, end) on each; the calling thread takes chunk 0. Workers
// spin briefly between phases (supersteps are short), then sleep on an atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace tessera::detail {

class TilePool {
 public:
  using Body = std::function<void(int thread, int begin, int end)>;

  // Throws tessera::Error naming the thread count and the process limits when the system
  // refuses a thread.
  explicit TilePool(int threads);
  ~TilePool();
  TilePool(const TilePool&) = delete;
  TilePool& operator=(const TilePool&) = delete;

  int threads() const { return threads_; }
  // `body` must not throw; the runtime catches per tile.
  void run(int n, const Body& body);

 private:
  void worker(int index);
  void stop_workers();
  int threads_;
  const Body* body_ = nullptr;
  int n_ = 0;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

}  // namespace tessera::detail
