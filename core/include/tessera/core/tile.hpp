// Tile: one tile of the target, as seen by a tile function in a compute phase.
//
// A tile has an identity (global id, IPU, id within the IPU), a memory budget
// that every byte it owns counts against, the pieces of the runtime's
// variables that live on it, a cycle account for the current superstep, and
// an outbox and inbox of messages. A tile function may touch only its own
// tile; data moves between tiles in the exchange phase.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "tessera/core/cycle_estimate.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/target.hpp"
#include "tessera/core/tile_memory.hpp"

namespace tessera {

// A handle on a per-tile array created by Runtime::create_variable: every tile
// holds its own piece, of its own length, in its own memory.
template <class T>
struct Variable {
  static_assert(std::is_trivially_copyable_v<T>, "variables hold trivially copyable data");
  int id = -1;
};

// A message delivered at a sync: the sending tile and the bytes it posted.
struct Message {
  int source = -1;
  TileVector<std::byte> payload;

  template <class T>
  std::span<const T> as() const {
    static_assert(std::is_trivially_copyable_v<T>);
    return {reinterpret_cast<const T*>(payload.data()), payload.size() / sizeof(T)};
  }
};

namespace detail {
// Storage of one variable's piece on one tile. The base keeps the address and
// size of the data, so that the exchange reads them without knowing the type;
// Tile refreshes them after every change of the vector.
struct PieceBase {
  virtual ~PieceBase() = default;
  std::byte* bytes = nullptr;
  std::size_t size_bytes = 0;
};
// A piece is either owned (`data`) or, after Tile::view, a view of memory the caller
// owns (`view`), whose bytes stay charged to the tile's memory as if it owned them.
template <class T>
struct Piece final : PieceBase {
  Piece(TileMemory& memory, const char* label, std::size_t n)
      : data(n, T{}, TileAllocator<T>(memory, label)) {
    refresh();
  }
  ~Piece() override { drop_view(); }
  void refresh() {
    bytes = reinterpret_cast<std::byte*>(viewing ? view.data() : data.data());
    size_bytes = (viewing ? view.size() : data.size()) * sizeof(T);
  }
  std::span<T> span() { return viewing ? view : std::span<T>(data); }
  void drop_view() noexcept {
    if (viewing) data.get_allocator().memory()->release(charged, data.get_allocator().label());
    viewing = false, view = {}, charged = 0;
  }
  TileVector<T> data;
  std::span<T> view;
  bool viewing = false;
  std::size_t charged = 0;  // bytes of the view charged to the tile
};
}  // namespace detail

class Tile {
 public:
  Tile(const Target& target, int id);
  Tile(const Tile&) = delete;
  Tile& operator=(const Tile&) = delete;
  Tile(Tile&&) = delete;

  int id() const { return id_; }
  int ipu() const { return id_ / target_->tiles_per_ipu; }
  int id_on_ipu() const { return id_ % target_->tiles_per_ipu; }
  const Target& target() const { return *target_; }
  TileMemory& memory() { return memory_; }
  const TileMemory& memory() const { return memory_; }

  // A vector in this tile's memory; `label` must be a string literal.
  template <class T>
  TileVector<T> make_vector(const char* label, std::size_t n = 0) {
    return TileVector<T>(n, T{}, TileAllocator<T>(memory_, label));
  }

  // This tile's piece of a variable.
  template <class T>
  std::span<T> get(Variable<T> v) {
    return piece(v).span();
  }
  template <class T>
  std::span<const T> get(Variable<T> v) const {
    return const_cast<Tile*>(this)->piece(v).span();
  }
  // Resizes the piece (a view becomes an owned piece of n value-initialised elements).
  template <class T>
  void resize(Variable<T> v, std::size_t n) {
    if (piece(v).viewing) piece(v).drop_view();
    piece(v).data.resize(n);
    piece(v).refresh();
    pieces_changed_ = true;
  }
  // Makes this tile's piece of `v` a view of `memory`, which the caller owns and keeps
  // alive (and does not touch from other threads) while the piece is used, e.g. a user's
  // buffer that a collective works on in place. The exchange and get() then read and
  // write `memory` directly. Its bytes are charged to this tile's memory under the
  // variable's label, as an owned piece of that size would be (TileOutOfMemory if they
  // do not fit, leaving an empty piece); re-viewing the same number of bytes changes no
  // charge and cannot throw. The view lasts until the next view() or resize().
  template <class T>
  void view(Variable<T> v, std::span<T> memory) {
    detail::Piece<T>& p = piece(v);
    const std::size_t bytes = memory.size() * sizeof(T);
    if (!p.viewing || p.charged != bytes) {
      p.drop_view();
      TileVector<T>(p.data.get_allocator()).swap(p.data);  // release an owned piece
      p.refresh();
      pieces_changed_ = true;
      memory_.charge(bytes, p.data.get_allocator().label());
      p.charged = bytes;
    }
    p.view = memory;
    p.viewing = true;
    p.refresh();
    pieces_changed_ = true;
  }
  // Exchanges the contents of two owned pieces (double buffering without a copy).
  template <class T>
  void swap(Variable<T> a, Variable<T> b) {
    piece(a).data.swap(piece(b).data);
    piece(a).refresh();
    piece(b).refresh();
    pieces_changed_ = true;
  }

  // Adds the estimated cost of a kernel over `items` items, shared by the tile's workers,
  // to this superstep (cycle_estimate.hpp).
  void charge(const KernelWork& work, std::uint64_t items) {
    cycles_ += estimate_cycles(*target_, work, items);
  }
  // The same when worker w handles items_per_worker[w] items.
  void charge(const KernelWork& work, std::span<const std::uint64_t> items_per_worker) {
    cycles_ += estimate_cycles(*target_, work, items_per_worker);
  }
  void charge_cycles(std::uint64_t cycles) { cycles_ += cycles; }
  std::uint64_t cycles() const { return cycles_; }

  // Sends bytes to another tile; they arrive in its inbox at the next sync.
  void post(int destination, std::span<const std::byte> bytes);
  template <class T>
  void post(int destination, std::span<const T> values) {
    static_assert(std::is_trivially_copyable_v<T>);
    post(destination, std::as_bytes(values));
  }
  // Messages delivered at the last sync, ordered by source tile, then by posting order.
  const std::vector<Message>& inbox() const { return inbox_; }

 private:
  friend class Runtime;

  template <class T>
  detail::Piece<T>& piece(Variable<T> v) {
    return static_cast<detail::Piece<T>&>(*pieces_.at(static_cast<std::size_t>(v.id)));
  }

  const Target* target_;
  int id_;
  TileMemory memory_;
  std::vector<std::unique_ptr<detail::PieceBase>> pieces_;  // indexed by variable id
  bool pieces_changed_ = true;  // since the runtime last read their addresses
  std::uint64_t cycles_ = 0;
  struct Outgoing {
    int destination;
    TileVector<std::byte> payload;
  };
  std::vector<Outgoing> outbox_;
  std::vector<Message> inbox_;
};

}  // namespace tessera
