// Runtime: the tiles of a target hosted by this process, and the supersteps
// that run on them.
//
// A superstep is a compute phase, a sync and an exchange phase:
//   1. compute: the tile function runs once on every tile, in parallel over the
//      host thread pool; it may touch only its own tile;
//   2. sync: every tile (on every rank) has finished computing; if any tile
//      threw, every rank throws the error of the lowest-numbered failing tile;
//   3. exchange: the given plans' copies run, and the messages posted during
//      compute are delivered to their destination inboxes.
// Writes to other tiles are thus visible only after the sync. Tiles are spread
// over MPI ranks in contiguous blocks; all ranks must issue the same supersteps
// in the same order (they are collective over the runtime's communicator).
//
// Determinism: for a fixed target, results do not depend on the number of
// threads or ranks. Reductions combine per-tile values in a fixed binary tree
// over tile ids; messages arrive ordered by source tile, then posting order.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/core/combine.hpp"
#include "tessera/core/exchange_plan.hpp"
#include "tessera/core/options.hpp"
#include "tessera/core/profile.hpp"
#include "tessera/core/target.hpp"
#include "tessera/core/tile.hpp"

namespace tessera {

using TileFunction = std::function<void(Tile&)>;

// Options of Runtime::superstep's last form, for libraries that run many short
// supersteps whose outcome they already know (core/comm's collective steps).
struct SuperstepOptions {
  // The compute runs on these local tiles only (global ids); empty: on every local tile.
  // The other tiles keep their pieces and get no inbox from this superstep.
  std::span<const int> tiles;
  // false: skip the sync's cross-rank agreement (one MPI_Allreduce per superstep). The
  // caller vouches that every rank runs this superstep with the same plans, that compute
  // cannot throw and posts no messages, and that the plans' copies fit: if one does
  // throw, or posts, or a copy does not fit, the error is thrown on this rank only.
  bool agree = true;
  // false: the superstep is not recorded in the profile. With agree = false the runtime
  // cannot know the other ranks' slowest tile, so the caller prices what it ran and
  // records that with Runtime::record_superstep (core/comm runs the independent rings of
  // a collective's tiles one tile group at a time, and records each step once).
  bool record = true;
};

class Runtime {
 public:
  // Hosts this rank's share of `target`'s tiles on `threads` host threads
  // (0: the hardware threads divided by the ranks on this node). Collective over `comm`.
  Runtime(Target target, int threads = 0, MPI_Comm comm = MPI_COMM_WORLD);
  // The runtime a program's common options ask for (target, threads, profile file).
  explicit Runtime(const RuntimeOptions& options, MPI_Comm comm = MPI_COMM_WORLD);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const Target& target() const { return target_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  int threads() const;
  MPI_Comm comm() const { return comm_; }

  // Tiles hosted here: global ids [first_tile(), first_tile() + local_tiles().size()).
  int first_tile() const { return first_tile_; }
  std::span<const std::unique_ptr<Tile>> local_tiles() const { return tiles_; }
  bool is_local(int tile) const {
    return tile >= first_tile_ && tile < first_tile_ + static_cast<int>(tiles_.size());
  }
  int rank_of_tile(int tile) const;

  // A variable with `elements_per_tile` value-initialised elements on every tile,
  // charged to each tile's memory under `label` (a string literal).
  template <class T>
  Variable<T> create_variable(const char* label, std::size_t elements_per_tile) {
    return create_variable<T>(label,
                              [elements_per_tile](const Tile&) { return elements_per_tile; });
  }
  // A variable whose piece on each tile has `elements(tile)` elements.
  template <class T>
  Variable<T> create_variable(const char* label,
                              const std::function<std::size_t(const Tile&)>& elements) {
    Variable<T> v{reserve_variable(sizeof(T))};
    allocate_pieces(v.id, [&](Tile& t) {
      return std::unique_ptr<detail::PieceBase>(
          new detail::Piece<T>(t.memory(), label, elements(t)));
    });
    return v;
  }

  // Frees a variable's pieces on every local tile, returning their bytes to the tiles'
  // memory; a later create_variable may reuse its id. Not collective, no superstep: call it
  // between supersteps, on every rank, after the last plan that copies the variable has run
  // (plans compiled afterwards refuse it). Using the variable afterwards is undefined.
  template <class T>
  void destroy_variable(Variable<T> v) noexcept {
    release_variable(v.id);
  }

  // Compiles a plan. Collective: every rank must pass the same copies.
  ExchangePlan compile(const ExchangePlanBuilder& builder);

  // One superstep: compute on every tile, sync, then run `plans` and deliver messages.
  void superstep(std::string_view name, const TileFunction& compute,
                 std::initializer_list<const ExchangePlan*> plans = {});
  // The same with options (SuperstepOptions): a subset of the tiles, no agreement, a
  // cost the caller knows. Collective like every superstep.
  void superstep(std::string_view name, const TileFunction& compute,
                 std::initializer_list<const ExchangePlan*> plans, const SuperstepOptions& options);
  // The same with a list of plans made at run time.
  void superstep(std::string_view name, const TileFunction& compute,
                 std::span<const ExchangePlan* const> plans, const SuperstepOptions& options = {});
  // A superstep with no compute: sync, then run the plans and deliver messages.
  void exchange(std::string_view name, std::initializer_list<const ExchangePlan*> plans);

  // Reduces one value per tile, in a fixed order; every rank gets the result.
  template <class T>
  T all_reduce(std::string_view name, ReduceOp op, const std::function<T(Tile&)>& contribution) {
    std::vector<T> r =
        all_reduce<T>(name, op, 1, [&](Tile& t, std::span<T> out) { out[0] = contribution(t); });
    return r[0];
  }
  // Reduces `n` values per tile element-wise; every rank gets the n results.
  template <class T>
  std::vector<T> all_reduce(std::string_view name, ReduceOp op, std::size_t n,
                            const std::function<void(Tile&, std::span<T>)>& contribution);

  // Gathers one value per tile onto every rank, in tile order.
  template <class T>
  std::vector<T> gather(std::string_view name, const std::function<T(Tile&)>& value);
  // Gathers `n` values per tile onto every rank: value k of tile t lands at [t * n + k].
  template <class T>
  std::vector<T> gather(std::string_view name, std::size_t n,
                        const std::function<void(Tile&, std::span<T>)>& values);

  // Collects any number of values per tile on rank 0, concatenated in tile order
  // (output to the host: dumps, data files); the other ranks get an empty vector.
  // On an IPU target the transfer is priced over each chassis' host link (host_seconds).
  template <class T>
  std::vector<T> collect(std::string_view name,
                         const std::function<void(Tile&, std::vector<T>&)>& values);

  // Records a superstep the caller priced itself (SuperstepOptions::record = false) in
  // the profile, as a superstep run by superstep() would be. Not collective, but every
  // rank must record the same names and costs to keep the profile the same everywhere.
  void record_superstep(std::string_view name, const SuperstepCost& cost, double wall_seconds);
  // record_superstep of each cost in order, all of one name (one look-up of the name).
  void record_supersteps(std::string_view name, std::span<const SuperstepCost> costs,
                         double wall_seconds);

  // Cost model account of everything run so far.
  const Profile& profile() const { return profile_; }
  // Memory high-water mark of every tile of the target (collective).
  std::vector<std::uint64_t> tile_high_water() const;
  // Writes the profile as JSON to `path` (collective; rank 0 writes).
  void write_profile(const std::string& path) const;
  // The end-of-run summary (collective; meaningful on every rank).
  std::string summary() const;
  // Where the profile goes at finish(), and when a tile runs out of memory; empty: nowhere.
  void set_profile_path(std::string path) { profile_path_ = std::move(path); }
  // Ends a run (collective): writes the profile if a path is set, and returns the summary.
  std::string finish() const;

 private:
  class Pool;
  struct ComputeResult {
    double max_cycles = 0;  // slowest tile, over all ranks
    bool posted = false;    // a tile on some rank posted a message
  };
  // The id of a new variable of `element_size`-byte elements: the lowest freed one, or the next.
  int reserve_variable(std::size_t element_size);
  void allocate_pieces(int variable,
                       const std::function<std::unique_ptr<detail::PieceBase>(Tile&)>& make);
  void release_variable(int variable) noexcept;
  // Runs `compute` on every local tile, checks that the copies of `plans` fit
  // the pieces they touch here, then agrees with the other ranks that no tile
  // failed (throwing the lowest failing tile's error on every rank).
  ComputeResult compute_phase(const TileFunction& compute, bool measure,
                              std::span<const ExchangePlan* const> plans = {},
                              const SuperstepOptions* options = nullptr);
  // The lowest tile whose piece a copy of `plan` would overrun, with the error.
  std::pair<int, std::exception_ptr> check_bounds(const ExchangePlan& plan);
  void agree_on_failure(int failed_tile, const std::exception_ptr& error);
  void run_plan(const ExchangePlan& plan);
  SuperstepCost deliver_messages();
  // Gathers bytes_per_tile bytes of every tile onto every rank, priced as a binary tree
  // whose levels move `result_bytes` between IPUs and run `combine` over `elements` items
  // (reduction_cost; elements 0 for a plain gather).
  std::vector<std::byte> gather_bytes(std::string_view name, std::size_t bytes_per_tile,
                                      const std::function<void(Tile&, std::span<std::byte>)>& fill,
                                      std::uint64_t result_bytes, const KernelWork& combine,
                                      std::uint64_t elements);
  std::vector<std::byte> collect_bytes(
      std::string_view name, const std::function<void(Tile&, std::vector<std::byte>&)>& fill);
  void finish_superstep(std::string_view name, SuperstepCost cost, double start_seconds);
  // Seconds the chassis take to stream these local tiles' bytes to the host (collective).
  double host_transfer_seconds(const std::vector<std::vector<std::byte>>& per_tile) const;

  Target target_;
  MPI_Comm comm_;
  int rank_ = 0, ranks_ = 1;
  int first_tile_ = 0;
  std::vector<int> rank_first_tile_;  // ranks_ + 1 entries
  std::vector<std::unique_ptr<Tile>> tiles_;
  std::vector<std::size_t> element_sizes_;  // per variable id; 0: destroyed, free for reuse
  // Address and size of every piece, [variable * local tiles + local tile],
  // refreshed after each tile's compute: the exchange reads this flat table.
  struct PieceView {
    std::byte* bytes = nullptr;
    std::size_t size = 0;
  };
  std::vector<PieceView> views_;
  std::size_t view_of(int variable, int tile) const {
    return static_cast<std::size_t>(variable) * tiles_.size() +
           static_cast<std::size_t>(tile - first_tile_);
  }
  void refresh_views(Tile& tile);
  std::unique_ptr<Pool> pool_;
  bool inboxes_filled_ = false;
  std::string profile_path_;  // some inbox may hold messages from the last sync
  Profile profile_;
};

template <class T>
std::vector<T> Runtime::all_reduce(std::string_view name, ReduceOp op, std::size_t n,
                                   const std::function<void(Tile&, std::span<T>)>& contribution) {
  constexpr DataType type = data_type_of<T>();
  const std::vector<std::byte> all = gather_bytes(
      name, n * sizeof(T),
      [&](Tile& t, std::span<std::byte> out) {
        contribution(t, {reinterpret_cast<T*>(out.data()), n});
      },
      n * sizeof(T), combine_work(type), n);
  // Pairwise tree over tile ids: level by level, tile i absorbs tile i + stride (own op
  // incoming), with the combine kernel of every reduction (combine.hpp).
  const std::size_t tiles = static_cast<std::size_t>(target_.total_tiles());
  std::vector<std::byte> values = all;
  const std::size_t row = n * sizeof(T);
  for (std::size_t stride = 1; stride < tiles; stride *= 2)
    for (std::size_t i = 0; i + stride < tiles; i += 2 * stride)
      detail::combine(type, op, values.data() + i * row, values.data() + (i + stride) * row, n,
                      false);
  std::vector<T> out(n);
  if (n > 0) std::memcpy(out.data(), values.data(), row);
  return out;
}

template <class T>
std::vector<T> Runtime::gather(std::string_view name, const std::function<T(Tile&)>& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::size_t tiles = static_cast<std::size_t>(target_.total_tiles());
  const std::vector<std::byte> all = gather_bytes(
      name, sizeof(T),
      [&](Tile& t, std::span<std::byte> out) {
        const T v = value(t);
        std::memcpy(out.data(), &v, sizeof(T));
      },
      tiles * sizeof(T), KernelWork{}, 0);
  std::vector<T> out(tiles);
  std::memcpy(out.data(), all.data(), all.size());
  return out;
}

template <class T>
std::vector<T> Runtime::gather(std::string_view name, std::size_t n,
                               const std::function<void(Tile&, std::span<T>)>& values) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::size_t tiles = static_cast<std::size_t>(target_.total_tiles());
  const std::vector<std::byte> all = gather_bytes(
      name, n * sizeof(T),
      [&](Tile& t, std::span<std::byte> out) {
        std::vector<T> v(n);
        values(t, v);
        if (n > 0) std::memcpy(out.data(), v.data(), n * sizeof(T));
      },
      tiles * n * sizeof(T), KernelWork{}, 0);
  std::vector<T> out(tiles * n);
  if (!all.empty()) std::memcpy(out.data(), all.data(), all.size());
  return out;
}

template <class T>
std::vector<T> Runtime::collect(std::string_view name,
                                const std::function<void(Tile&, std::vector<T>&)>& values) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::vector<std::byte> all = collect_bytes(name, [&](Tile& t, std::vector<std::byte>& out) {
    std::vector<T> v;
    values(t, v);
    out.resize(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  });
  std::vector<T> out(all.size() / sizeof(T));
  if (!all.empty()) std::memcpy(out.data(), all.data(), all.size());
  return out;
}

}  // namespace tessera
