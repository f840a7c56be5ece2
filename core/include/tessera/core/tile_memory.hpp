// TileMemory: the byte budget of one tile, and the allocator that charges it.
//
// Every byte a tile owns is allocated through a TileAllocator, which charges
// the tile's TileMemory before it touches the host heap. A request that would
// exceed the budget throws TileOutOfMemory before anything is allocated, with
// a report of the tile's largest allocations. Labels are string literals
// ("heat2d.u", "exchange.inbox") that say what the bytes are for.
//
// Thread safety: a tile's memory is used by one thread at a time (the thread
// running the tile in a compute phase, or the runtime between phases).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera {

class TileMemory {
 public:
  // budget_bytes == 0 means no limit (host targets).
  TileMemory(int tile, std::size_t budget_bytes) : tile_(tile), budget_(budget_bytes) {}

  // Counts `bytes` under `label`; throws TileOutOfMemory if the budget would be exceeded.
  void charge(std::size_t bytes, const char* label);
  void release(std::size_t bytes, const char* label) noexcept;

  int tile() const { return tile_; }
  std::size_t budget() const { return budget_; }
  std::size_t used() const { return used_; }
  std::size_t high_water() const { return high_water_; }
  // Bytes in use per label, largest first (at most `n` entries).
  std::vector<std::pair<std::string, std::size_t>> largest(std::size_t n) const;
  // A few lines: budget, use, high-water mark, largest allocations.
  std::string report() const;

 private:
  int tile_;
  std::size_t budget_;
  std::size_t used_ = 0;
  std::size_t high_water_ = 0;
  std::map<std::string, std::size_t, std::less<>> by_label_;
};

// A standard allocator that charges a TileMemory; use it through TileVector.
template <class T>
class TileAllocator {
 public:
  using value_type = T;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  TileAllocator(TileMemory& memory, const char* label) : memory_(&memory), label_(label) {}
  template <class U>
  TileAllocator(const TileAllocator<U>& other) : memory_(other.memory()), label_(other.label()) {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    memory_->charge(bytes, label_);
    try {
      return static_cast<T*>(::operator new (bytes, std::align_val_t{alignment}));
    } catch (...) {
      memory_->release(bytes, label_);
      throw;
    }
  }
  void deallocate(T* p, std::size_t n) noexcept {
    memory_->release(n * sizeof(T), label_);
    ::operator delete (p, std::align_val_t{alignment});
  }

  TileMemory* memory() const { return memory_; }
  const char* label() const { return label_; }
  friend bool operator==(const TileAllocator& a, const TileAllocator& b) {
    return a.memory_ == b.memory_ && std::string_view(a.label_) == b.label_;
  }

 private:
  // 64 bytes: a cache line, and enough for any SIMD load Eigen may issue.
  static constexpr std::size_t alignment = alignof(T) > 64 ? alignof(T) : 64;
  TileMemory* memory_;
  const char* label_;
};

template <class T>
using TileVector = std::vector<T, TileAllocator<T>>;

}  // namespace tessera
