#include "tile_pool.hpp"

#include <sys/resource.h>

#include <string>
#include <system_error>

#include "tessera/core/error.hpp"

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

// The process limits that bound how many threads can start, for the message.
static std::string thread_limits() {
  auto text = [](int resource, const char* name, bool bytes) {
    rlimit l{};
    if (getrlimit(resource, &l) != 0) return std::string();
    std::string v =
        l.rlim_cur == RLIM_INFINITY
            ? "unlimited"
            : (bytes ? std::to_string(l.rlim_cur / 1024) + " KiB" : std::to_string(l.rlim_cur));
    return std::string(name) + " " + v;
  };
  return text(RLIMIT_AS, "address space (ulimit -v)", true) + ", " +
         text(RLIMIT_STACK, "stack per thread (ulimit -s)", true) + ", " +
         text(RLIMIT_NPROC, "processes and threads (ulimit -u)", false);
}

TilePool::TilePool(int threads) : threads_(threads < 1 ? 1 : threads) {
  try {
    for (int k = 1; k < threads_; ++k) workers_.emplace_back([this, k] { worker(k); });
  } catch (const std::system_error& e) {
    // std::thread throws when the system refuses a thread (an address-space or process limit);
    // stop the ones started and say so, rather than let the exception end the program.
    const auto started = workers_.size() + 1;
    stop_workers();
    throw Error("cannot start " + std::to_string(threads_) + " host threads: thread " +
                std::to_string(started + 1) + " failed (" + e.what() + "); the limits are " +
                thread_limits() + "; ask for fewer with --threads, or raise the limit");
  }
}

TilePool::~TilePool() { stop_workers(); }

void TilePool::stop_workers() {
  stop_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
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
