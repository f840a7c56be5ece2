#include "tessera/core/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "error_report.hpp"
#include "tessera/core/atomic_file.hpp"
#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/host_memory.hpp"
#include "tile_pool.hpp"

namespace tessera {

class Runtime::Pool : public detail::TilePool {
 public:
  using detail::TilePool::TilePool;
};

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Per-thread results of a compute phase, padded to a cache line each.
struct alignas(64) ThreadResult {
  double max_cycles = 0;
  int failed_tile = INT_MAX;
  std::exception_ptr error;
  bool posted = false;
};

// FNV-1a over the copies of a plan: ranks compare it to catch diverging plans.
std::uint64_t plan_hash(const std::vector<ExchangeCopy>& copies) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ULL;
  };
  for (const auto& c : copies) {
    mix(static_cast<std::uint64_t>(c.source_tile)),
        mix(static_cast<std::uint64_t>(c.source_variable));
    mix(c.source_offset), mix(c.source_stride);
    mix(static_cast<std::uint64_t>(c.destination_tile));
    mix(static_cast<std::uint64_t>(c.destination_variable));
    mix(c.destination_offset), mix(c.destination_stride), mix(c.block_bytes), mix(c.blocks);
  }
  return h;
}

// Bytes a copy touches on one side: from offset to the end of its last block.
bool fits(std::size_t offset, std::size_t stride, const ExchangeCopy& c, std::size_t size) {
  if (c.blocks == 0 || c.block_bytes == 0) return true;
  const std::size_t end = offset + (c.blocks - 1) * stride + c.block_bytes;
  return end <= size && end >= offset;
}

void copy_blocks(std::byte* dst, std::size_t dst_stride, const std::byte* src,
                 std::size_t src_stride, const ExchangeCopy& c) {
  if (c.blocks == 1) {
    std::memcpy(dst, src, c.block_bytes);
    return;
  }
  for (std::size_t b = 0; b < c.blocks; ++b)
    std::memcpy(dst + b * dst_stride, src + b * src_stride, c.block_bytes);
}

constexpr int plan_tag = 101;
constexpr int message_tag = 102;

// The header that precedes each message in a packed cross-rank buffer.
struct MessageHeader {
  std::int32_t source, destination;
  std::uint64_t bytes;
};

std::size_t padded(std::size_t bytes) { return (bytes + 7) & ~std::size_t{7}; }

}  // namespace

Runtime::Runtime(Target target, int threads, MPI_Comm comm)
    : target_(std::move(target)), profile_(target_) {
  require_mpi("a tessera::Runtime");
  target_.validate();
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  const long long tiles = target_.total_tiles();
  if (ranks_ > tiles)
    throw ConfigError("target '" + target_.name + "' has " + std::to_string(tiles) +
                      " tiles, fewer than the " + std::to_string(ranks_) +
                      " MPI ranks; run fewer ranks");
  if (target_.ipus_per_process > 0 && ranks_ * target_.ipus_per_process != target_.ipus)
    throw ConfigError("target '" + target_.name + "' places " +
                      std::to_string(target_.ipus_per_process) +
                      " IPUs on each process, so it needs " +
                      std::to_string(target_.ipus / target_.ipus_per_process) + " MPI ranks, not " +
                      std::to_string(ranks_) + "; run that many or set ipus_per_process to 0");
  rank_first_tile_.resize(static_cast<std::size_t>(ranks_) + 1);
  for (int r = 0; r <= ranks_; ++r)
    rank_first_tile_[static_cast<std::size_t>(r)] = static_cast<int>(tiles * r / ranks_);
  first_tile_ = rank_first_tile_[static_cast<std::size_t>(rank_)];
  const int count = rank_first_tile_[static_cast<std::size_t>(rank_) + 1] - first_tile_;
  // The tiles' own bookkeeping on the host (the tile, its memory account and views; what a
  // program puts on a tile comes on top): refused up front rather than allocated until killed.
  require_host_memory(
      static_cast<double>(count) * (sizeof(Tile) + 2 * sizeof(void*) + 256),
      "target '" + target_.name + "' with " + std::to_string(count) + " tiles on this rank",
      "use fewer tiles (--tiles-per-ipu, --ipus) or more ranks");
  tiles_.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    tiles_.push_back(std::make_unique<Tile>(target_, first_tile_ + i));
  if (threads <= 0) threads = default_threads(comm_);
  pool_ = std::make_unique<Pool>(std::min(threads, std::max(count, 1)));
}

namespace {
// `comm`, once MPI is known to be running. The arguments of the delegating constructor
// below are evaluated in no fixed order, so each MPI call among them goes through this.
MPI_Comm running(MPI_Comm comm) {
  require_mpi("a tessera::Runtime");
  return comm;
}

int world_size(MPI_Comm comm) {
  int n = 1;
  MPI_Comm_size(running(comm), &n);
  return n;
}
}  // namespace

Runtime::Runtime(const RuntimeOptions& options, MPI_Comm comm)
    : Runtime(
          resolve_target(options, resolve_threads(options, running(comm)), world_size(comm), comm),
          resolve_threads(options, running(comm)), comm) {
  profile_path_ = options.profile_path;
}

Runtime::~Runtime() {
  pool_.reset();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&comm_);
}

void Runtime::refresh_views(Tile& tile) {
  if (!tile.pieces_changed_) return;
  tile.pieces_changed_ = false;
  for (std::size_t v = 0; v < tile.pieces_.size(); ++v) {
    const detail::PieceBase* p = tile.pieces_[v].get();  // null: a destroyed variable
    views_[view_of(static_cast<int>(v), tile.id_)] = {p ? p->bytes : nullptr,
                                                       p ? p->size_bytes : 0};
  }
}

int Runtime::threads() const { return pool_->threads(); }

int Runtime::rank_of_tile(int tile) const {
  auto it = std::upper_bound(rank_first_tile_.begin(), rank_first_tile_.end(), tile);
  return static_cast<int>(it - rank_first_tile_.begin()) - 1;
}

int Runtime::reserve_variable(std::size_t element_size) {
  const auto free = std::find(element_sizes_.begin(), element_sizes_.end(), std::size_t{0});
  const int id = static_cast<int>(free - element_sizes_.begin());
  if (free == element_sizes_.end()) {
    element_sizes_.push_back(element_size);
    views_.resize(element_sizes_.size() * tiles_.size());
  } else {
    *free = element_size;
  }
  return id;
}

void Runtime::allocate_pieces(
    int variable, const std::function<std::unique_ptr<detail::PieceBase>(Tile&)>& make) {
  const auto slot = static_cast<std::size_t>(variable);
  compute_phase(
      [&](Tile& t) {
        if (slot == t.pieces_.size()) t.pieces_.emplace_back();
        t.pieces_[slot] = make(t);
        t.pieces_changed_ = true;
      },
      false);
}

void Runtime::release_variable(int variable) noexcept {
  const auto slot = static_cast<std::size_t>(variable);
  if (variable < 0 || slot >= element_sizes_.size() || element_sizes_[slot] == 0) return;
  for (const auto& t : tiles_) {
    t->pieces_[slot].reset();
    t->pieces_changed_ = true;
  }
  element_sizes_[slot] = 0;
}

Runtime::ComputeResult Runtime::compute_phase(const TileFunction& compute, bool measure,
                                              std::span<const ExchangePlan* const> plans,
                                              const SuperstepOptions* options) {
  const int threads = pool_->threads();
  std::vector<ThreadResult> results(static_cast<std::size_t>(threads));
  const bool host = target_.kind == TargetKind::host;
  const double cycles_per_second = target_.clock_hz;
  const std::span<const int> subset = options ? options->tiles : std::span<const int>{};
  for (int id : subset)
    if (!is_local(id))
      throw Error("superstep: SuperstepOptions::tiles names tile " + std::to_string(id) +
                  ", which this rank does not host (tiles " + std::to_string(first_tile_) + ".." +
                  std::to_string(first_tile_ + static_cast<int>(tiles_.size()) - 1) + ")");
  const int count = static_cast<int>(subset.empty() ? tiles_.size() : subset.size());
  pool_->run(count, [&](int thread, int begin, int end) {
    ThreadResult& r = results[static_cast<std::size_t>(thread)];
    for (int i = begin; i < end; ++i) {
      Tile& tile = *tiles_[static_cast<std::size_t>(
          subset.empty() ? i : subset[static_cast<std::size_t>(i)] - first_tile_)];
      tile.cycles_ = 0;
      try {
        if (measure && host) {
          const auto t0 = std::chrono::steady_clock::now();
          compute(tile);
          const double dt =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          tile.cycles_ = static_cast<std::uint64_t>(dt * cycles_per_second);
        } else {
          compute(tile);
        }
      } catch (...) {
        if (tile.id_ < r.failed_tile) {
          r.failed_tile = tile.id_;
          r.error = std::current_exception();
        }
      }
      refresh_views(tile);
      r.max_cycles = std::max(r.max_cycles, static_cast<double>(tile.cycles_));
      r.posted = r.posted || !tile.outbox_.empty();
    }
  });
  ThreadResult total;
  for (auto& r : results) {
    total.max_cycles = std::max(total.max_cycles, r.max_cycles);
    total.posted = total.posted || r.posted;
    if (r.failed_tile < total.failed_tile) total.failed_tile = r.failed_tile, total.error = r.error;
  }
  for (const ExchangePlan* plan : plans) {
    auto [tile, error] = check_bounds(*plan);
    if (tile < total.failed_tile) total.failed_tile = tile, total.error = error;
  }
  if (options && !options->agree) {
    // The caller vouched that nothing fails: what does is this rank's error alone.
    if (total.error) std::rethrow_exception(total.error);
    if (total.posted) {
      for (auto& tile : tiles_) tile->outbox_.clear();
      throw Error(
          "superstep: a tile posted a message in a superstep without agreement "
          "(SuperstepOptions::agree = false); messages need the agreed sync");
    }
    return {total.max_cycles, false};
  }
  if (ranks_ > 1) {
    // One agreement per superstep: the lowest failing tile, the slowest tile, any messages.
    double v[3] = {
        total.failed_tile == INT_MAX ? -1.0 : static_cast<double>(INT_MAX - total.failed_tile),
        total.max_cycles, total.posted ? 1.0 : 0.0};
    MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_MAX, comm_);
    const int failed = v[0] < 0 ? INT_MAX : INT_MAX - static_cast<int>(v[0]);
    if (failed != INT_MAX)
      agree_on_failure(failed, failed == total.failed_tile ? total.error : nullptr);
    return {v[1], v[2] > 0};
  }
  if (total.error) agree_on_failure(total.failed_tile, total.error);
  return {total.max_cycles, total.posted};
}

void Runtime::agree_on_failure(int failed_tile, const std::exception_ptr& error) {
  // The rank that owns the failing tile tells every rank what went wrong; all throw it.
  ErrorReport report;
  if (error) report = describe_error(error, failed_tile);
  if (ranks_ > 1) broadcast_error(comm_, rank_of_tile(failed_tile), report);
  if (report.kind == ErrorReport::tile_memory && !profile_path_.empty()) {
    // Every rank is here together: write the memory report, then throw the amended message.
    write_profile(profile_path_);
    report.message +=
        "\nThe profile, with every tile's memory high-water mark, is in " + profile_path_ + ".";
    throw_collective(report, failed_tile, target_.tile_memory_bytes);
  }
  if (!error) throw_collective(report, failed_tile, target_.tile_memory_bytes);
  try {
    std::rethrow_exception(error);
  } catch (Error& e) {
    e.set_collective();
    throw;
  } catch (...) {
    throw_collective(report, failed_tile, target_.tile_memory_bytes);
  }
}

ExchangePlan Runtime::compile(const ExchangePlanBuilder& builder) {
  ExchangePlan plan;
  plan.name_ = builder.name();
  const int tiles = target_.total_tiles();
  const int variables = static_cast<int>(element_sizes_.size());
  constexpr std::size_t remote = static_cast<std::size_t>(-1);
  TrafficTally tally(target_);
  std::vector<int> send_index(static_cast<std::size_t>(ranks_), -1), receive_index(send_index);
  for (const ExchangeCopy& c : builder.copies()) {
    auto where = [&] { return "exchange plan '" + plan.name_ + "': "; };
    for (int tile : {c.source_tile, c.destination_tile})
      if (tile < 0 || tile >= tiles)
        throw ExchangeError(where() + "a copy names tile " + std::to_string(tile) +
                            ", but the target has tiles 0.." + std::to_string(tiles - 1));
    for (int variable : {c.source_variable, c.destination_variable})
      if (variable < 0 || variable >= variables)
        throw ExchangeError(where() + "a copy names a variable this runtime did not create");
      else if (element_sizes_[static_cast<std::size_t>(variable)] == 0)
        throw ExchangeError(where() + "a copy names a variable that was destroyed");
    const std::uint64_t bytes = static_cast<std::uint64_t>(c.block_bytes) * c.blocks;
    tally.add(c.source_tile, c.destination_tile, bytes, c.blocks);
    const bool src_here = is_local(c.source_tile), dst_here = is_local(c.destination_tile);
    const ExchangePlan::Compiled compiled{
        c, src_here ? view_of(c.source_variable, c.source_tile) : remote,
        dst_here ? view_of(c.destination_variable, c.destination_tile) : remote};
    auto peer_traffic = [&](std::vector<ExchangePlan::PeerTraffic>& list, std::vector<int>& index,
                            int peer) -> ExchangePlan::PeerTraffic& {
      int& i = index[static_cast<std::size_t>(peer)];
      if (i < 0) i = static_cast<int>(list.size()), list.push_back({peer, {}, 0, {}});
      return list[static_cast<std::size_t>(i)];
    };
    if (src_here && dst_here) {
      plan.local_.push_back(compiled);
    } else if (src_here) {
      auto& p = peer_traffic(plan.sends_, send_index, rank_of_tile(c.destination_tile));
      p.copies.push_back(compiled);
      p.bytes += bytes;
    } else if (dst_here) {
      auto& p = peer_traffic(plan.receives_, receive_index, rank_of_tile(c.source_tile));
      p.copies.push_back(compiled);
      p.bytes += bytes;
    }
  }
  // Group the local copies by destination tile, keeping plan order within a tile.
  std::stable_sort(plan.local_.begin(), plan.local_.end(), [](const auto& a, const auto& b) {
    return a.copy.destination_tile < b.copy.destination_tile;
  });
  plan.local_begin_.assign(tiles_.size() + 1, 0);
  for (const auto& c : plan.local_)
    ++plan.local_begin_[static_cast<std::size_t>(c.copy.destination_tile - first_tile_) + 1];
  for (std::size_t i = 0; i < tiles_.size(); ++i) plan.local_begin_[i + 1] += plan.local_begin_[i];
  plan.disjoint_ = builder.is_disjoint();
  for (auto& p : plan.sends_)
    if (!plan.direct(p)) p.buffer.resize(p.bytes);
  for (auto& p : plan.receives_)
    if (!plan.direct(p)) p.buffer.resize(p.bytes);
  plan.cost_ = tally.cost();
  if (ranks_ > 1) {
    const std::uint64_t h = plan_hash(builder.copies());
    std::uint64_t lo = h, hi = h;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, comm_);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, comm_);
    if (lo != hi) {
      ExchangeError e("exchange plan '" + plan.name_ +
                      "' differs between MPI ranks; every rank must build the same copies");
      e.set_collective();
      throw e;
    }
  }
  return plan;
}

void Runtime::superstep(std::string_view name, const TileFunction& compute,
                        std::initializer_list<const ExchangePlan*> plans) {
  superstep(name, compute, std::span<const ExchangePlan* const>(plans.begin(), plans.size()),
            SuperstepOptions{});
}

void Runtime::superstep(std::string_view name, const TileFunction& compute,
                        std::initializer_list<const ExchangePlan*> plans,
                        const SuperstepOptions& options) {
  superstep(name, compute, std::span<const ExchangePlan* const>(plans.begin(), plans.size()),
            options);
}

void Runtime::superstep(std::string_view name, const TileFunction& compute,
                        std::span<const ExchangePlan* const> plans,
                        const SuperstepOptions& options) {
  const double start = now_seconds();
  const ComputeResult computed = compute_phase(compute, options.record, plans, &options);
  SuperstepCost cost;
  cost.compute_cycles = computed.max_cycles;
  cost.sync_cycles = target_.sync_cycles_ipu;
  for (const ExchangePlan* plan : plans) {
    run_plan(*plan);
    cost.add_exchange(plan->cost());
  }
  if (inboxes_filled_) {
    for (auto& tile : tiles_) tile->inbox_.clear();
    inboxes_filled_ = false;
  }
  if (computed.posted) {
    cost.add_exchange(deliver_messages());
    inboxes_filled_ = true;
  }
  if (options.record) finish_superstep(name, cost, start);
}

void Runtime::record_superstep(std::string_view name, const SuperstepCost& cost,
                               double wall_seconds) {
  profile_.record(name, cost, wall_seconds);
}

void Runtime::record_supersteps(std::string_view name, std::span<const SuperstepCost> costs,
                                double wall_seconds) {
  profile_.record(name, costs, wall_seconds);
}

void Runtime::exchange(std::string_view name, std::initializer_list<const ExchangePlan*> plans) {
  superstep(
      name, [](Tile&) {}, plans);
}

void Runtime::run_plan(const ExchangePlan& plan) {
  // Bounds were checked by compute_phase, before the sync.
  using Compiled = ExchangePlan::Compiled;
  auto source = [&](const Compiled& c) -> const std::byte* {
    return views_[c.source_view].bytes + c.copy.source_offset;
  };
  auto destination = [&](const Compiled& c) {
    return views_[c.destination_view].bytes + c.copy.destination_offset;
  };

  // Post the receives, pack and send, copy locally while MPI works, then unpack.
  std::vector<MPI_Request> requests;
  requests.reserve(plan.sends_.size() + plan.receives_.size());
  // A direct peer's single contiguous copy goes straight between the pieces.
  for (const auto& r : plan.receives_) {
    requests.emplace_back();
    MPI_Irecv(plan.direct(r) ? destination(r.copies.front()) : r.buffer.data(),
              static_cast<int>(r.bytes), MPI_BYTE, r.rank, plan_tag, comm_, &requests.back());
  }
  for (const auto& s : plan.sends_) {
    if (plan.direct(s)) {
      requests.emplace_back();
      MPI_Isend(source(s.copies.front()), static_cast<int>(s.bytes), MPI_BYTE, s.rank, plan_tag,
                comm_, &requests.back());
      continue;
    }
    std::byte* out = s.buffer.data();
    for (const Compiled& c : s.copies) {
      copy_blocks(out, c.copy.block_bytes, source(c), c.copy.source_stride, c.copy);
      out += c.copy.block_bytes * c.copy.blocks;
    }
    requests.emplace_back();
    MPI_Isend(s.buffer.data(), static_cast<int>(s.bytes), MPI_BYTE, s.rank, plan_tag, comm_,
              &requests.back());
  }
  if (!plan.local_.empty())
    pool_->run(static_cast<int>(tiles_.size()), [&](int, int begin, int end) {
      const auto first = plan.local_begin_[static_cast<std::size_t>(begin)];
      const auto last = plan.local_begin_[static_cast<std::size_t>(end)];
      for (auto k = first; k < last; ++k) {
        const Compiled& c = plan.local_[k];
        copy_blocks(destination(c), c.copy.destination_stride, source(c), c.copy.source_stride,
                    c.copy);
      }
    });
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  for (const auto& r : plan.receives_) {
    if (plan.direct(r)) continue;
    const std::byte* in = r.buffer.data();
    for (const Compiled& c : r.copies) {
      copy_blocks(destination(c), c.copy.destination_stride, in, c.copy.block_bytes, c.copy);
      in += c.copy.block_bytes * c.copy.blocks;
    }
  }
}

std::pair<int, std::exception_ptr> Runtime::check_bounds(const ExchangePlan& plan) {
  int failed = INT_MAX;
  std::exception_ptr error;
  auto check = [&](const ExchangePlan::Compiled& compiled, bool source) {
    const ExchangeCopy& c = compiled.copy;
    const int tile = source ? c.source_tile : c.destination_tile;
    const std::size_t size = views_[source ? compiled.source_view : compiled.destination_view].size;
    if (tile < failed && !fits(source ? c.source_offset : c.destination_offset,
                               source ? c.source_stride : c.destination_stride, c, size)) {
      failed = tile;
      error = std::make_exception_ptr(ExchangeError(
          "exchange plan '" + plan.name_ + "': a copy " + (source ? "from" : "to") + " tile " +
          std::to_string(tile) + " runs past the end of that tile's piece of variable " +
          std::to_string(source ? c.source_variable : c.destination_variable) + " (" +
          std::to_string(size) + " bytes); rebuild the plan after resizing"));
    }
  };
  for (const auto& c : plan.local_) check(c, true), check(c, false);
  for (const auto& s : plan.sends_)
    for (const auto& c : s.copies) check(c, true);
  for (const auto& r : plan.receives_)
    for (const auto& c : r.copies) check(c, false);
  return {failed, error};
}

SuperstepCost Runtime::deliver_messages() {
  TrafficTally tally(target_);
  int failed_tile = INT_MAX;
  std::exception_ptr error;
  auto deliver = [&](int source, int destination, const std::byte* bytes, std::size_t size) {
    Tile& dst = *tiles_[static_cast<std::size_t>(destination - first_tile_)];
    try {
      Message m{source, dst.make_vector<std::byte>("exchange.inbox", size)};
      if (size > 0) std::memcpy(m.payload.data(), bytes, size);
      dst.inbox_.push_back(std::move(m));
    } catch (...) {
      if (destination < failed_tile) failed_tile = destination, error = std::current_exception();
    }
  };
  const int tiles = target_.total_tiles();
  for (auto& t : tiles_)
    for (const auto& m : t->outbox_)
      if (m.destination < 0 || m.destination >= tiles)
        if (t->id_ < failed_tile)
          failed_tile = t->id_, error = std::make_exception_ptr(ExchangeError(
                                    "tile " + std::to_string(t->id_) +
                                    " posted a message to tile " + std::to_string(m.destination) +
                                    ", but the target has tiles 0.." + std::to_string(tiles - 1)));

  // Pack what leaves this rank, one buffer per destination rank, in tile then posting order.
  std::vector<std::vector<std::byte>> outgoing(static_cast<std::size_t>(ranks_));
  for (auto& t : tiles_)
    for (const auto& m : t->outbox_) {
      if (m.destination < 0 || m.destination >= tiles) continue;
      tally.add(t->id_, m.destination, m.payload.size());
      const int peer = rank_of_tile(m.destination);
      if (peer == rank_) continue;
      auto& buf = outgoing[static_cast<std::size_t>(peer)];
      const std::size_t at = buf.size();
      buf.resize(at + sizeof(MessageHeader) + padded(m.payload.size()));
      const MessageHeader h{t->id_, m.destination, m.payload.size()};
      std::memcpy(buf.data() + at, &h, sizeof h);
      if (!m.payload.empty())
        std::memcpy(buf.data() + at + sizeof h, m.payload.data(), m.payload.size());
    }
  std::vector<std::vector<std::byte>> incoming(static_cast<std::size_t>(ranks_));
  if (ranks_ > 1) {
    std::vector<std::uint64_t> send_bytes(static_cast<std::size_t>(ranks_)),
        receive_bytes(send_bytes.size());
    for (int r = 0; r < ranks_; ++r)
      send_bytes[static_cast<std::size_t>(r)] = outgoing[static_cast<std::size_t>(r)].size();
    MPI_Alltoall(send_bytes.data(), 1, MPI_UINT64_T, receive_bytes.data(), 1, MPI_UINT64_T, comm_);
    std::vector<MPI_Request> requests;
    for (int r = 0; r < ranks_; ++r) {
      auto& in = incoming[static_cast<std::size_t>(r)];
      in.resize(receive_bytes[static_cast<std::size_t>(r)]);
      if (!in.empty()) {
        requests.emplace_back();
        MPI_Irecv(in.data(), static_cast<int>(in.size()), MPI_BYTE, r, message_tag, comm_,
                  &requests.back());
      }
      auto& out = outgoing[static_cast<std::size_t>(r)];
      if (!out.empty()) {
        requests.emplace_back();
        MPI_Isend(out.data(), static_cast<int>(out.size()), MPI_BYTE, r, message_tag, comm_,
                  &requests.back());
      }
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  }
  // Deliver in global source-tile order: lower ranks, this rank, higher ranks.
  auto unpack = [&](const std::vector<std::byte>& buf) {
    for (std::size_t at = 0; at < buf.size();) {
      MessageHeader h;
      std::memcpy(&h, buf.data() + at, sizeof h);
      deliver(h.source, h.destination, buf.data() + at + sizeof h, h.bytes);
      at += sizeof h + padded(h.bytes);
    }
  };
  for (int r = 0; r < rank_; ++r) unpack(incoming[static_cast<std::size_t>(r)]);
  for (auto& t : tiles_) {
    for (auto& m : t->outbox_)
      if (m.destination >= 0 && m.destination < tiles && is_local(m.destination))
        deliver(t->id_, m.destination, m.payload.data(), m.payload.size());
    t->outbox_.clear();
  }
  for (int r = rank_ + 1; r < ranks_; ++r) unpack(incoming[static_cast<std::size_t>(r)]);

  if (ranks_ > 1) {
    // Each message was tallied once, by its sender: sums over ranks give the whole exchange.
    MPI_Allreduce(MPI_IN_PLACE, &failed_tile, 1, MPI_INT, MPI_MIN, comm_);
    std::vector<std::uint64_t>& v = tally.counters();
    MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, MPI_SUM, comm_);
  }
  if (failed_tile != INT_MAX) agree_on_failure(failed_tile, error);
  return tally.cost();
}

std::vector<std::byte> Runtime::gather_bytes(
    std::string_view name, std::size_t bytes_per_tile,
    const std::function<void(Tile&, std::span<std::byte>)>& fill, std::uint64_t result_bytes,
    const KernelWork& combine, std::uint64_t elements) {
  const double start = now_seconds();
  std::vector<std::byte> all(static_cast<std::size_t>(target_.total_tiles()) * bytes_per_tile);
  std::byte* mine = all.data() + static_cast<std::size_t>(first_tile_) * bytes_per_tile;
  const ComputeResult computed = compute_phase(
      [&](Tile& t) {
        fill(t, {mine + static_cast<std::size_t>(t.id_ - first_tile_) * bytes_per_tile,
                 bytes_per_tile});
      },
      true);
  if (ranks_ > 1) {
    std::vector<int> counts(static_cast<std::size_t>(ranks_)), displacements(counts.size());
    for (int r = 0; r < ranks_; ++r) {
      const auto i = static_cast<std::size_t>(r);
      counts[i] = static_cast<int>(
          static_cast<std::size_t>(rank_first_tile_[i + 1] - rank_first_tile_[i]) * bytes_per_tile);
      displacements[i] =
          static_cast<int>(static_cast<std::size_t>(rank_first_tile_[i]) * bytes_per_tile);
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, all.data(), counts.data(), displacements.data(),
                   MPI_BYTE, comm_);
  }
  SuperstepCost cost = reduction_cost(target_, bytes_per_tile, result_bytes, combine, elements);
  cost.compute_cycles += computed.max_cycles;
  finish_superstep(name, cost, start);
  return all;
}

std::vector<std::byte> Runtime::collect_bytes(
    std::string_view name, const std::function<void(Tile&, std::vector<std::byte>&)>& fill) {
  const double start = now_seconds();
  std::vector<std::vector<std::byte>> per_tile(tiles_.size());
  const ComputeResult computed = compute_phase(
      [&](Tile& t) { fill(t, per_tile[static_cast<std::size_t>(t.id_ - first_tile_)]); }, true);
  std::vector<std::byte> mine;
  for (auto& v : per_tile) mine.insert(mine.end(), v.begin(), v.end());
  std::vector<std::byte> all;
  if (ranks_ == 1) {
    all = std::move(mine);
  } else {
    long long size = static_cast<long long>(mine.size());
    std::vector<long long> sizes(static_cast<std::size_t>(ranks_));
    MPI_Allgather(&size, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, comm_);
    std::vector<int> counts(sizes.size()), displacements(sizes.size());
    long long total = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      counts[r] = static_cast<int>(sizes[r]);
      displacements[r] = static_cast<int>(total);
      total += sizes[r];
    }
    if (total > std::numeric_limits<int>::max()) {
      CommError e("collect '" + std::string(name) + "': more than 2 GiB for rank 0");
      e.set_collective();
      throw e;
    }
    all.resize(rank_ == 0 ? static_cast<std::size_t>(total) : 0);
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, all.data(), counts.data(),
                displacements.data(), MPI_BYTE, 0, comm_);
  }
  SuperstepCost cost;
  cost.compute_cycles = computed.max_cycles;
  cost.sync_cycles = target_.sync_cycles_ipu;
  cost.host_seconds = host_transfer_seconds(per_tile);
  for (const auto& v : per_tile) cost.host_bytes += v.size();
  if (ranks_ > 1) MPI_Allreduce(MPI_IN_PLACE, &cost.host_bytes, 1, MPI_UINT64_T, MPI_SUM, comm_);
  finish_superstep(name, cost, start);
  return all;
}

double Runtime::host_transfer_seconds(const std::vector<std::vector<std::byte>>& per_tile) const {
  // Each chassis streams its tiles' bytes over its own host link.
  if (target_.kind != TargetKind::ipu || !(target_.host_link_bytes_per_s > 0)) return 0;
  const int chassis = (target_.ipus + target_.ipus_per_chassis - 1) / target_.ipus_per_chassis;
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(chassis), 0);
  for (std::size_t i = 0; i < per_tile.size(); ++i)
    bytes[static_cast<std::size_t>(target_.chassis_of_ipu(
        target_.ipu_of_tile(first_tile_ + static_cast<int>(i))))] += per_tile[i].size();
  if (ranks_ > 1) MPI_Allreduce(MPI_IN_PLACE, bytes.data(), chassis, MPI_UINT64_T, MPI_SUM, comm_);
  const std::uint64_t most = *std::max_element(bytes.begin(), bytes.end());
  if (most == 0) return 0;
  return target_.host_link_latency_s + static_cast<double>(most) / target_.host_link_bytes_per_s;
}

void Runtime::finish_superstep(std::string_view name, SuperstepCost cost, double start_seconds) {
  profile_.record(name, cost, now_seconds() - start_seconds);
}

std::vector<std::uint64_t> Runtime::tile_high_water() const {
  std::vector<std::uint64_t> all(static_cast<std::size_t>(target_.total_tiles()));
  for (const auto& t : tiles_) all[static_cast<std::size_t>(t->id_)] = t->memory_.high_water();
  if (ranks_ > 1)
    MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_UINT64_T, MPI_MAX,
                  comm_);
  return all;
}

void Runtime::write_profile(const std::string& path) const {
  const auto high_water = tile_high_water();
  if (rank_ == 0) {
    nlohmann::json j = profile_.to_json(high_water);
    j["ranks"] = ranks_;
    j["threads_per_rank"] = threads();
    write_file_atomically(path, j.dump(1) + "\n");
  }
}

std::string Runtime::summary() const { return profile_.summary(tile_high_water()); }

std::string Runtime::finish() const {
  if (!profile_path_.empty()) write_profile(profile_path_);
  return summary();
}

}  // namespace tessera
