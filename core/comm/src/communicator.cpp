#include "tessera/comm/communicator.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

#include "tessera/comm/combine.hpp"
#include "tessera/core/error.hpp"

namespace tessera::comm {

namespace {

std::string format_number(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

SuperstepCost difference(const SuperstepCost& a, const SuperstepCost& b) {
  SuperstepCost d;
  d.compute_cycles = a.compute_cycles - b.compute_cycles;
  d.exchange_cycles = a.exchange_cycles - b.exchange_cycles;
  d.sync_cycles = a.sync_cycles - b.sync_cycles;
  d.link_seconds = a.link_seconds - b.link_seconds;
  d.gateway_seconds = a.gateway_seconds - b.gateway_seconds;
  d.exchange_bytes = a.exchange_bytes - b.exchange_bytes;
  d.link_bytes = a.link_bytes - b.link_bytes;
  d.gateway_bytes = a.gateway_bytes - b.gateway_bytes;
  return d;
}

// A chunk range a member combines at the start of a superstep.
struct Combine {
  int first_chunk, last_chunk;
  bool incoming_first;
};

}  // namespace

// A compiled call. Each tile of a member runs the schedule on its own part of every
// chunk, and traffic goes tile k -> tile k of the partner IPU, so the tiles with the same
// id on every IPU form independent rings (or trees). The call runs them one tile group
// (a few tiles per IPU) at a time, all steps of a group before the next group: the
// results and the simulated cost are those of running all tiles in lock step, but the
// host touches a group's data while it is still in its caches. Per group: the tiles of
// this rank and one exchange plan per step. Per step: the chunks each member combines
// at the start of the next superstep. Per superstep: the cost of all groups in lock step.
struct Communicator::Compiled {
  Compiled(Layout l, std::vector<Step> s) : layout(std::move(l)), steps(std::move(s)) {}
  struct Group {
    std::vector<int> tiles;           // global ids, this rank's IPUs
    std::vector<ExchangePlan> plans;  // [step]
  };
  Layout layout;
  std::vector<Step> steps;
  std::vector<std::vector<std::vector<Combine>>> combines;  // [step][member]
  bool uses_incoming = false;
  bool view = false;  // members' pieces are views of the user's buffers (tile-major layout)
  std::vector<Group> groups;
  int per_group = 1;                       // tiles per IPU in a group (the last may have fewer)
  std::vector<std::size_t> piece_start;    // [k] elements of the pieces of tiles 0..k-1
  std::size_t scratch_plane = 0;           // elements of one plane of the host scratch
  std::vector<int> tiles;                  // every tile of this rank the call uses
  std::vector<SuperstepCost> costs;        // [superstep] exchange and sync, all groups
  std::vector<std::size_t> most_combined;  // [superstep] most elements a tile combines
};

// The tag of the agreement packets of spread communicators (on the agreement's own
// MPI communicator, so no message of the runtime matches them).
constexpr int packet_tag = 31;

// A ring or tree all-reduce on a spread communicator sends its data with the agreement
// when a rank's members hold at most this many bytes (the latency-bound sizes).
constexpr std::size_t packet_bytes = 64 * 1024;

// The host memory behind the pieces: every piece of a call is a view (Tile::view), of the
// user's buffer (all-reduce's data) or of a scratch area that each tile group reuses
// (the receive area, and the data of the other collectives, loaded from and unloaded to
// the user's buffers group by group). The tiles' memory is charged as for owned pieces;
// the host's stays small and hot in the caches.
//
// Bytes of a tile group's pieces (data and receive area, every IPU of the rank) that the
// host works on at once: about what one core's L2 cache holds (1 MiB on the development
// machine), so that a step's combine finds what the exchange just copied in the cache.
constexpr std::size_t group_bytes = 768 * 1024;

struct Communicator::Context {
  Runtime* runtime = nullptr;
  MPI_Comm agreement = MPI_COMM_NULL;  // our own context: no message of the runtime matches ours
  int ranks = 1;
  double timeout = 60.0;
  std::uint64_t min_tile_bytes = default_min_tile_bytes;
  std::vector<int> local_ipus;
  Variable<std::byte> data, incoming;  // every member's buffer and receive area, per tile

  using Compiled = Communicator::Compiled;
  // (communicator, collective, algorithm, element size, n, root, peer, bytes per tile)
  using Key =
      std::tuple<std::uint64_t, int, int, std::size_t, std::size_t, int, int, std::uint64_t>;
  std::map<Key, std::unique_ptr<Compiled>> compiled;
  std::map<Key, Algorithm> chosen;
  // What the last call left on the tiles' memory: views or owned pieces, of how many
  // bytes per member, over how many tiles, with a receive area or not. A call that
  // leaves the same needs no allocation, so it cannot run out of tile memory.
  struct Charge {
    bool view;
    std::size_t bytes;
    int tiles;
    bool incoming;
    bool operator==(const Charge&) const = default;
  };
  std::optional<Charge> charge;
  std::vector<std::byte> scratch;               // behind the pieces that are not the user's buffers
  std::vector<std::vector<std::byte>> packets;  // exchange(): one receive buffer per rank

  ~Context() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && agreement != MPI_COMM_NULL) MPI_Comm_free(&agreement);
  }

  // Element-wise max over ranks of `v` followed by -v (so the second half gives minus
  // the minimum), with a non-blocking all-reduce polled against the deadline (wait()).
  std::vector<std::int64_t> agree(const std::string& where, const std::vector<std::int64_t>& v) {
    std::vector<std::int64_t> all(2 * v.size());
    for (std::size_t i = 0; i < v.size(); ++i) all[i] = v[i], all[v.size() + i] = -v[i];
    if (ranks == 1) return all;
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_INT64_T, MPI_MAX,
                   agreement, &request);
    wait(where, std::span<MPI_Request>(&request, 1), nullptr);
    return all;
  }

  // The agreement of a spread communicator (every group's members on different ranks):
  // every rank sends `v` and `payload` (its members' data, or nothing) to every other rank
  // in one packed message, point to point, all posted at once. Returns what agree() does;
  // payloads[q] is what rank q sent after its fields (this rank's own entry stays empty).
  std::vector<std::int64_t> exchange(const std::string& where, const std::vector<std::int64_t>& v,
                                     std::span<const std::byte> payload, std::size_t max_payload,
                                     std::vector<std::vector<std::byte>>& payloads) {
    const std::size_t head = v.size() * sizeof(std::int64_t);
    std::vector<std::byte> packet(head + payload.size());
    std::memcpy(packet.data(), v.data(), head);
    if (!payload.empty()) std::memcpy(packet.data() + head, payload.data(), payload.size());
    const auto count = static_cast<std::size_t>(ranks);
    payloads.assign(count, {});
    std::vector<std::vector<std::byte>>& in = packets;
    in.resize(count);
    std::vector<MPI_Request> requests;
    std::vector<int> from;  // the rank of each receive request
    int me = 0;
    MPI_Comm_rank(agreement, &me);
    for (int q = 0; q < ranks; ++q) {
      if (q == me) continue;
      if (in[static_cast<std::size_t>(q)].size() < head + max_payload)
        in[static_cast<std::size_t>(q)].resize(head + max_payload);
      requests.emplace_back();
      MPI_Irecv(in[static_cast<std::size_t>(q)].data(), static_cast<int>(head + max_payload),
                MPI_BYTE, q, packet_tag, agreement, &requests.back());
      from.push_back(q);
    }
    for (int q = 0; q < ranks; ++q) {
      if (q == me) continue;
      requests.emplace_back();
      MPI_Isend(packet.data(), static_cast<int>(packet.size()), MPI_BYTE, q, packet_tag, agreement,
                &requests.back());
    }
    std::vector<MPI_Status> statuses(requests.size());
    wait(where, requests, statuses.data());
    std::vector<std::int64_t> all(2 * v.size());
    for (std::size_t i = 0; i < v.size(); ++i) all[i] = v[i], all[v.size() + i] = -v[i];
    for (std::size_t j = 0; j < from.size(); ++j) {
      const auto q = static_cast<std::size_t>(from[j]);
      int bytes = 0;
      MPI_Get_count(&statuses[j], MPI_BYTE, &bytes);
      std::vector<std::int64_t> theirs(v.size());
      std::memcpy(theirs.data(), in[q].data(), head);
      for (std::size_t i = 0; i < v.size(); ++i) {
        all[i] = std::max(all[i], theirs[i]);
        all[v.size() + i] = std::max(all[v.size() + i], -theirs[i]);
      }
      payloads[q].assign(in[q].begin() + static_cast<std::ptrdiff_t>(head), in[q].begin() + bytes);
    }
    return all;
  }

  // Waits for `requests`, polled against the deadline: a rank that never joins makes this
  // one throw instead of waiting forever. Pending requests cannot be cancelled; the error
  // ends the job (run_main aborts it).
  void wait(const std::string& where, std::span<MPI_Request> requests, MPI_Status* statuses) {
    const double start = now_seconds();
    for (long polls = 0;; ++polls) {
      int done = 0;
      MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                  statuses ? statuses : MPI_STATUSES_IGNORE);
      if (done) return;
      if (now_seconds() - start > timeout)
        throw CommError(where + ": not every MPI rank joined the call within " +
                        format_number(timeout) +
                        " s: a rank exited early, failed, or called another collective or none. "
                        "If the ranks are only slow, raise the limit with "
                        "Communicator::set_timeout");
      // Spin briefly (collectives usually meet within microseconds), then yield the core.
      if (polls > 2000) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
};

// Whether every group's members live on different MPI ranks (ranks hold equal,
// contiguous blocks of IPUs): then no data of a collective moves inside a process.
bool members_on_different_ranks(const std::vector<std::vector<int>>& groups, int ipus, int ranks) {
  if (ranks < 2) return false;
  const int per_rank = ipus / ranks;
  for (const auto& g : groups) {
    std::vector<int> owners;
    for (int ipu : g) owners.push_back(ipu / per_rank);
    std::sort(owners.begin(), owners.end());
    if (std::adjacent_find(owners.begin(), owners.end()) != owners.end()) return false;
  }
  return true;
}

Communicator Communicator::world(Runtime& runtime) {
  const Target& t = runtime.target();
  const int tiles = static_cast<int>(runtime.local_tiles().size());
  int whole =
      runtime.first_tile() % t.tiles_per_ipu == 0 && tiles % t.tiles_per_ipu == 0 && tiles > 0;
  MPI_Allreduce(MPI_IN_PLACE, &whole, 1, MPI_INT, MPI_MIN, runtime.comm());
  if (!whole) {
    ConfigError e("comm: target '" + t.name + "' has " + std::to_string(t.ipus) + " IPUs over " +
                  std::to_string(runtime.ranks()) +
                  " MPI ranks, so some rank holds part of an IPU; collectives need whole IPUs "
                  "on every rank: run a number of ranks that divides the IPU count");
    e.set_collective();
    throw e;
  }
  auto context = std::make_shared<Context>();
  context->runtime = &runtime;
  context->ranks = runtime.ranks();
  MPI_Comm_dup(runtime.comm(), &context->agreement);
  for (int i = 0; i < tiles / t.tiles_per_ipu; ++i)
    context->local_ipus.push_back(runtime.first_tile() / t.tiles_per_ipu + i);
  context->data = runtime.create_variable<std::byte>("comm.data", 0);
  context->incoming = runtime.create_variable<std::byte>("comm.incoming", 0);

  Communicator c;
  c.context_ = std::move(context);
  c.name_ = "world";
  c.size_ = t.ipus;
  c.groups_.assign(1, {});
  for (int i = 0; i < t.ipus; ++i) c.groups_[0].push_back(i);
  c.group_of_ipu_.assign(static_cast<std::size_t>(t.ipus), 0);
  c.rank_of_ipu_ = c.groups_[0];
  c.block_ = link_domain_block(t, c.groups_);
  c.spread_ = members_on_different_ranks(c.groups_, t.ipus, runtime.ranks());
  return c;
}

Communicator Communicator::split(Grouping grouping, int size, std::string name) const {
  if (size < 1 || size_ % size != 0)
    throw ConfigError("communicator '" + name_ + "' has groups of " + std::to_string(size_) +
                      " IPUs; split into groups of " + std::to_string(size) +
                      " needs a size that divides " + std::to_string(size_));
  Communicator c;
  c.context_ = context_;
  c.name_ = std::move(name);
  c.size_ = size;
  const int parts = size_ / size;
  for (const auto& parent : groups_)
    for (int j = 0; j < parts; ++j) {
      std::vector<int> g;
      for (int m = 0; m < size; ++m)
        g.push_back(parent[static_cast<std::size_t>(
            grouping == Grouping::consecutive ? j * size + m : j + m * parts)]);
      c.groups_.push_back(std::move(g));
    }
  c.group_of_ipu_.assign(group_of_ipu_.size(), 0);
  c.rank_of_ipu_.assign(rank_of_ipu_.size(), 0);
  for (std::size_t g = 0; g < c.groups_.size(); ++g)
    for (std::size_t m = 0; m < c.groups_[g].size(); ++m) {
      c.group_of_ipu_[static_cast<std::size_t>(c.groups_[g][m])] = static_cast<int>(g);
      c.rank_of_ipu_[static_cast<std::size_t>(c.groups_[g][m])] = static_cast<int>(m);
    }
  c.block_ = link_domain_block(runtime().target(), c.groups_);
  c.spread_ =
      members_on_different_ranks(c.groups_, runtime().target().ipus, context_->runtime->ranks());
  return c;
}

const std::vector<int>& Communicator::local_ipus() const { return context_->local_ipus; }
Runtime& Communicator::runtime() const { return *context_->runtime; }
void Communicator::set_timeout(double seconds) { context_->timeout = seconds; }
double Communicator::timeout() const { return context_->timeout; }
void Communicator::set_min_tile_bytes(std::uint64_t bytes) { context_->min_tile_bytes = bytes; }
std::uint64_t Communicator::min_tile_bytes() const { return context_->min_tile_bytes; }

std::string Communicator::where(Collective collective) const {
  return "communicator '" + name_ + "' (" + std::to_string(groups()) + " group" +
         (groups() == 1 ? "" : "s") + " of " + std::to_string(size_) + " IPU" +
         (size_ == 1 ? "" : "s") + "), " + to_string(collective);
}

// FNV-1a over the name and the groups: ranks compare it to catch calls on different
// communicators.
std::uint64_t Communicator::id() const {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
  for (char ch : name_) mix(static_cast<unsigned char>(ch));
  for (const auto& g : groups_) {
    mix(0xffffffffULL);
    for (int i : g) mix(static_cast<std::uint64_t>(i));
  }
  return h;
}

std::unique_ptr<Communicator::Compiled> Communicator::compile(Collective collective,
                                                              Algorithm algorithm,
                                                              std::size_t esize, std::size_t n,
                                                              int root, int peer,
                                                              const std::string& label) const {
  Context& ctx = *context_;
  Runtime& rt = *ctx.runtime;
  const Target& t = rt.target();
  const int p = size_;
  auto c = std::make_unique<Compiled>(
      layout_for(collective, n, p, tiles_for(t, n * esize, ctx.min_tile_bytes)),
      make_schedule(collective, algorithm, p, root, peer, block_));
  const Layout& layout = c->layout;
  const int tiles = layout.tiles();
  c->view = layout.tile_major();
  c->combines.assign(c->steps.size(),
                     std::vector<std::vector<Combine>>(static_cast<std::size_t>(p)));
  for (std::size_t s = 0; s < c->steps.size(); ++s)
    for (const Transfer& tr : c->steps[s].transfers)
      if (tr.combine) {
        c->combines[s][static_cast<std::size_t>(tr.destination)].push_back(
            {tr.first_chunk, tr.last_chunk, tr.incoming_first});
        c->uses_incoming = true;
      }

  // Tile groups: as many tiles per IPU as keep the group's pieces near group_bytes.
  const std::size_t piece_bytes =
      std::max<std::size_t>(n * esize / static_cast<std::size_t>(tiles), 1) *
      (c->uses_incoming ? 2 : 1) * ctx.local_ipus.size();
  const int per_group = static_cast<int>(
      std::clamp<std::size_t>(group_bytes / piece_bytes, 1, static_cast<std::size_t>(tiles)));
  c->per_group = per_group;
  c->piece_start.assign(static_cast<std::size_t>(tiles) + 1, 0);
  for (int k = 0; k < tiles; ++k)
    c->piece_start[static_cast<std::size_t>(k) + 1] =
        c->piece_start[static_cast<std::size_t>(k)] + layout.piece_offset(k, p);
  for (int k0 = 0; k0 < tiles; k0 += per_group) {
    const int k1 = std::min(tiles, k0 + per_group);
    c->scratch_plane = std::max(c->scratch_plane, c->piece_start[static_cast<std::size_t>(k1)] -
                                                      c->piece_start[static_cast<std::size_t>(k0)]);
    Compiled::Group g;
    for (int ipu : ctx.local_ipus)
      for (int k = k0; k < k1; ++k) g.tiles.push_back(ipu * t.tiles_per_ipu + k);
    for (std::size_t s = 0; s < c->steps.size(); ++s) {
      // Every step writes only chunks it does not read (schedule_test checks it), so a rank
      // pair's single copy may go straight between the pieces.
      ExchangePlanBuilder b(label + ".step" + std::to_string(s));
      b.disjoint();
      for (const auto& group : groups_)
        for (const Transfer& tr : c->steps[s].transfers) {
          const int from = group[static_cast<std::size_t>(tr.source)] * t.tiles_per_ipu;
          const int to = group[static_cast<std::size_t>(tr.destination)] * t.tiles_per_ipu;
          for (int k = k0; k < k1; ++k) {
            const std::size_t at = layout.piece_offset(k, tr.first_chunk) * esize;
            const std::size_t bytes = layout.piece_offset(k, tr.last_chunk) * esize - at;
            if (bytes > 0)
              b.copy(ctx.data, from + k, at, tr.combine ? ctx.incoming : ctx.data, to + k, at,
                     bytes);
          }
        }
      g.plans.push_back(rt.compile(b));
    }
    c->tiles.insert(c->tiles.end(), g.tiles.begin(), g.tiles.end());
    c->groups.push_back(std::move(g));
  }
  std::sort(c->tiles.begin(), c->tiles.end());
  c->scratch_plane *= ctx.local_ipus.size();

  // The cost of each superstep with every tile in lock step, the same on every rank: the
  // exchange of all its copies (as Runtime::compile tallies a plan), the IPU sync, and
  // the combine of the tile that combines the most (priced per call: it depends on the
  // type). A last superstep only if the last step delivered data to combine.
  const bool combine_at_end =
      c->steps.empty() || std::any_of(c->combines.back().begin(), c->combines.back().end(),
                                      [](const std::vector<Combine>& m) { return !m.empty(); });
  const std::size_t supersteps = combine_at_end ? c->steps.size() + 1 : c->steps.size();
  c->costs.resize(supersteps);
  c->most_combined.assign(supersteps, 0);
  for (std::size_t s = 0; s < supersteps; ++s) {
    c->costs[s].sync_cycles = t.sync_cycles_ipu;
    if (s < c->steps.size()) {
      TrafficTally tally(t);
      for (const auto& group : groups_)
        for (const Transfer& tr : c->steps[s].transfers) {
          const int from = group[static_cast<std::size_t>(tr.source)] * t.tiles_per_ipu;
          const int to = group[static_cast<std::size_t>(tr.destination)] * t.tiles_per_ipu;
          for (int k = 0; k < tiles; ++k) {
            const std::size_t bytes =
                (layout.piece_offset(k, tr.last_chunk) - layout.piece_offset(k, tr.first_chunk)) *
                esize;
            if (bytes > 0) tally.add(from + k, to + k, bytes);
          }
        }
      c->costs[s].add_exchange(tally.cost());
    }
    if (s == 0) continue;
    std::size_t most = 0;
    for (const auto& member : c->combines[s - 1])
      for (int k = 0; k < tiles; ++k) {
        std::size_t combined = 0;
        for (const Combine& m : member)
          combined += layout.piece_offset(k, m.last_chunk) - layout.piece_offset(k, m.first_chunk);
        most = std::max(most, combined);
      }
    c->most_combined[s] = most;
  }
  return c;
}

CallReport Communicator::barrier() {
  return run(Collective::barrier, DataType::int32, Op::sum, Algorithm::tree, 0, 0, 0, {}, {}, true);
}

CallReport Communicator::run(Collective collective, DataType type, Op op, Algorithm algorithm,
                             int root, int peer, std::size_t count, const Bytes& send,
                             const Bytes& recv, bool in_place) {
  Context& ctx = *context_;
  Runtime& rt = *ctx.runtime;
  const std::string here = where(collective);
  const int p = size_;
  const auto& local = ctx.local_ipus;
  const bool data_call = collective != Collective::barrier;

  // What this rank's members ask for. The size of the first buffer ("primary": send,
  // or data in place) must agree over all members; n follows from it.
  auto n_of = [&](std::size_t primary) -> std::size_t {
    if (collective == Collective::send_recv) return count;
    if (collective == Collective::all_gather && !in_place)
      return primary * static_cast<std::size_t>(p);
    return primary;
  };
  std::int64_t low = LLONG_MAX, high = 0, bad_ipu = 0, bad_rank = 0;
  if (data_call && (send.data.size() != local.size() || recv.data.size() != local.size())) {
    bad_rank = rt.rank() + 1;
  } else if (data_call) {
    for (std::size_t i = 0; i < local.size(); ++i) {
      const int r = rank_of_ipu(local[i]);
      const bool source = r == root, destination = r == peer;
      std::size_t primary = send.elements[i];
      if (collective == Collective::send_recv) primary = count;
      low = std::min<std::int64_t>(low, static_cast<std::int64_t>(primary));
      high = std::max<std::int64_t>(high, static_cast<std::int64_t>(primary));
      const std::size_t n = n_of(primary);
      bool ok = true;
      switch (collective) {
        case Collective::all_reduce:
        case Collective::all_gather:
          ok = recv.elements[i] == n;
          break;
        case Collective::reduce_scatter:
          ok = in_place || recv.elements[i] == n / static_cast<std::size_t>(p);
          break;
        case Collective::reduce:
          ok = !source || recv.elements[i] == n;
          break;
        case Collective::send_recv:
          ok = (!source || send.elements[i] == n) && (!destination || recv.elements[i] == n);
          break;
        default:
          break;
      }
      if (!ok) bad_ipu = std::max<std::int64_t>(bad_ipu, local[i] + 1);
    }
  }
  // All-reduce works in the members' buffers (recv, or data in place): they must not
  // overlap one another, nor a member's send buffer its recv buffer but exactly.
  std::int64_t overlap = 0;
  if (collective == Collective::all_reduce && bad_rank == 0 && bad_ipu == 0 && low == high) {
    // Addresses as integers: buffers of different allocations have no pointer order.
    std::vector<std::pair<std::uintptr_t, std::size_t>> ranges;  // (start, member) by start
    const std::size_t esize = size_of(type);
    auto address = [](const std::byte* p) { return reinterpret_cast<std::uintptr_t>(p); };
    for (std::size_t i = 0; i < local.size(); ++i) {
      const std::size_t bytes = recv.elements[i] * esize;
      if (bytes == 0) continue;
      ranges.emplace_back(address(recv.data[i]), i);
      const std::uintptr_t a = address(send.data[i]), b = address(recv.data[i]);
      if (a != b && a < b + bytes && b < a + bytes)
        overlap = std::max<std::int64_t>(overlap, local[i] + 1);
    }
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t j = 1; j < ranges.size(); ++j)
      if (ranges[j].first < ranges[j - 1].first + recv.elements[ranges[j - 1].second] * esize)
        overlap = std::max<std::int64_t>(overlap, local[ranges[j].second] + 1);
  }
  const std::uint64_t comm_id = id();
  const std::size_t esize = size_of(type);
  // The algorithm that runs for n elements: automatic picks by the cost model (cached).
  auto resolve = [&](std::size_t n) {
    if (p == 1 || collective == Collective::send_recv) return Algorithm::tree;
    Algorithm a = algorithm;
    if (a == Algorithm::automatic) {
      const Context::Key key{
          comm_id, static_cast<int>(collective), 0, esize, n, root, peer, ctx.min_tile_bytes};
      auto it = ctx.chosen.find(key);
      if (it == ctx.chosen.end())
        it = ctx.chosen
                 .emplace(key, choose_algorithm(rt.target(), groups_, collective, type, n, root,
                                                peer, ctx.min_tile_bytes))
                 .first;
      a = it->second;
    }
    if (a == Algorithm::hierarchical &&
        (collective != Collective::all_reduce || block_ <= 1 || block_ >= p))
      a = Algorithm::ring;  // what make_schedule runs then: say so in the report
    return a;
  };
  std::vector<std::int64_t> mine = {static_cast<std::int64_t>(collective),
                                    static_cast<std::int64_t>(type),
                                    static_cast<std::int64_t>(op),
                                    static_cast<std::int64_t>(algorithm),
                                    root,
                                    peer,
                                    static_cast<std::int64_t>(comm_id >> 33),
                                    static_cast<std::int64_t>(comm_id & 0x1ffffffffULL),
                                    low,
                                    high,
                                    bad_ipu,
                                    bad_rank,
                                    in_place ? 1 : 0,
                                    overlap,
                                    0};
  // On a spread communicator the ranks agree point to point, and a small ring or tree
  // all-reduce sends its members' data along: with every member's data on every rank, each
  // rank combines its members' results itself, in the schedule's order (below), and the call
  // costs one round of messages. The data is used only if every rank sent it (field 14).
  const bool spread = spread_ && ctx.ranks > 1;
  std::vector<std::byte> payload;
  std::vector<std::vector<std::byte>> payloads;
  if (spread && collective == Collective::all_reduce && bad_rank == 0 && bad_ipu == 0 &&
      overlap == 0 && low == high &&
      resolve(static_cast<std::size_t>(low)) != Algorithm::hierarchical &&
      static_cast<std::size_t>(low) * esize * local.size() <= packet_bytes) {
    const std::size_t bytes = static_cast<std::size_t>(low) * esize;
    payload.resize(bytes * local.size());
    for (std::size_t i = 0; i < local.size(); ++i)
      if (bytes > 0) std::memcpy(payload.data() + i * bytes, send.data[i], bytes);
    mine.back() = 1;
  }
  const std::vector<std::int64_t> all =
      spread ? ctx.exchange(here, mine, payload, packet_bytes, payloads) : ctx.agree(here, mine);
  const std::size_t fields = mine.size();
  auto max_of = [&](std::size_t i) { return all[i]; };
  auto min_of = [&](std::size_t i) { return -all[fields + i]; };
  auto fail = [&](const std::string& what) {
    CommError e(here + ": " + what);
    e.set_collective();
    throw e;
  };
  if (min_of(0) != max_of(0))
    fail(std::string("MPI ranks called different collectives (") +
         to_string(static_cast<Collective>(min_of(0))) + " and " +
         to_string(static_cast<Collective>(max_of(0))) + "); every rank must make the same calls");
  if (min_of(6) != max_of(6) || min_of(7) != max_of(7))
    fail("MPI ranks called it on different communicators; every rank must use the same one");
  if (max_of(11) > 0)
    fail("MPI rank " + std::to_string(max_of(11) - 1) +
         " did not pass one buffer per IPU it hosts (in the order of local_ipus())");
  if (min_of(1) != max_of(1))
    fail(std::string("members passed different element types (") +
         to_string(static_cast<DataType>(min_of(1))) + " and " +
         to_string(static_cast<DataType>(max_of(1))) + ")");
  if (min_of(2) != max_of(2))
    fail(std::string("members asked for different operations (") +
         to_string(static_cast<Op>(min_of(2))) + " and " + to_string(static_cast<Op>(max_of(2))) +
         ")");
  if (min_of(3) != max_of(3))
    fail(std::string("members asked for different algorithms (") +
         to_string(static_cast<Algorithm>(min_of(3))) + " and " +
         to_string(static_cast<Algorithm>(max_of(3))) + ")");
  if (min_of(4) != max_of(4) || min_of(5) != max_of(5))
    fail("members named different roots or peers (roots " + std::to_string(min_of(4)) + ".." +
         std::to_string(max_of(4)) + ", peers " + std::to_string(min_of(5)) + ".." +
         std::to_string(max_of(5)) + ")");
  if (min_of(12) != max_of(12)) fail("some members called the in-place form and some did not");
  if (data_call && min_of(8) != max_of(9))
    fail("members passed buffers of different sizes (from " + std::to_string(min_of(8)) + " to " +
         std::to_string(max_of(9)) + " elements); every member must pass the same size");
  if (root < 0 || root >= p || peer < 0 || peer >= p)
    fail("root or peer outside the group's ranks 0.." + std::to_string(p - 1) + " (root " +
         std::to_string(root) + ", peer " + std::to_string(peer) + ")");
  const std::size_t n = data_call ? n_of(static_cast<std::size_t>(max_of(9))) : 0;
  if (collective == Collective::reduce_scatter && n % static_cast<std::size_t>(p) != 0)
    fail("needs p x count elements to scatter (p = " + std::to_string(p) + "), but members pass " +
         std::to_string(n) + ", not a multiple of " + std::to_string(p));
  if (max_of(10) > 0) {
    std::string need;
    if (collective == Collective::reduce_scatter)
      need = "a receive buffer of " + std::to_string(n / static_cast<std::size_t>(p));
    else if (collective == Collective::send_recv)
      need = "a send (at the source) and a receive buffer (at the destination) of " +
             std::to_string(n);
    else
      need = "a receive buffer of " + std::to_string(n);
    fail("IPU " + std::to_string(max_of(10) - 1) + " passed a buffer of the wrong size: this " +
         "call needs " + need + " elements");
  }

  if (max_of(13) > 0)
    fail("IPU " + std::to_string(max_of(13) - 1) +
         " passed a buffer that overlaps another member's buffer (or, out of place, its own " +
         "send buffer in part): every member needs a buffer of its own");

  const double start = now_seconds();
  const SuperstepCost total_before = rt.profile().total();
  const double simulated_before = rt.profile().simulated_seconds();
  const std::uint64_t steps_before = rt.profile().supersteps();
  auto report = [&](Algorithm used) {
    CallReport r;
    r.algorithm = used;
    r.supersteps = static_cast<int>(rt.profile().supersteps() - steps_before);
    r.cost = difference(rt.profile().total(), total_before);
    r.simulated_seconds = rt.profile().simulated_seconds() - simulated_before;
    r.wall_seconds = now_seconds() - start;
    return r;
  };
  if (!data_call) {
    rt.superstep("comm." + name_ + ".barrier", [](Tile&) {});
    return report(Algorithm::tree);
  }

  Context::Key key{comm_id,           static_cast<int>(collective), 0, esize, n, root, peer,
                   ctx.min_tile_bytes};
  algorithm = resolve(n);
  std::get<2>(key) = static_cast<int>(algorithm);
  const std::string label =
      "comm." + name_ + "." + to_string(collective) + "." + to_string(algorithm);

  auto found = ctx.compiled.find(key);
  if (found == ctx.compiled.end()) {
    // Every rank makes the same calls, so every rank's cache holds the same entries.
    if (ctx.compiled.size() >= 64) ctx.compiled.clear();
    found = ctx.compiled.emplace(key, compile(collective, algorithm, esize, n, root, peer, label))
                .first;
  }
  const Compiled& plan = *found->second;
  const Layout& layout = plan.layout;
  const std::size_t steps = plan.steps.size();
  const int first_local = local.front();

  // Copies chunks [c0, c1) of tile k's part between its (owned) piece and a user buffer
  // whose element 0 is element `shift` of the member's whole buffer.
  auto move = [&](Tile& t, int c0, int c1, std::byte* user, std::size_t shift, bool to_user) {
    const int k = t.id_on_ipu();
    std::byte* piece = t.get(ctx.data).data();
    for (int c = c0; c < c1; ++c) {
      const std::size_t at = layout.piece_offset(k, c);
      const std::size_t length = layout.piece_offset(k, c + 1) - at;
      if (length == 0) continue;
      std::byte* u = user + (layout.slice_begin(c, k) - shift) * esize;
      if (to_user)
        std::memcpy(u, piece + at * esize, length * esize);
      else
        std::memcpy(piece + at * esize, u, length * esize);
    }
  };
  // Copies the results of one tile out to the user's buffers (owned pieces only).
  auto unload = [&](Tile& t) {
    const int ipu = t.ipu();
    const auto i = static_cast<std::size_t>(ipu - first_local);
    const int r = rank_of_ipu(ipu);
    switch (collective) {
      case Collective::reduce_scatter:
        move(t, r, r + 1, recv.data[i], in_place ? 0 : layout.chunk_begin(r), true);
        break;
      case Collective::broadcast:
        if (r != root) move(t, 0, p, recv.data[i], 0, true);
        break;
      case Collective::reduce:
        if (r == root) move(t, 0, p, recv.data[i], 0, true);
        break;
      case Collective::send_recv:
        if (r == peer) move(t, 0, p, recv.data[i], 0, true);
        break;
      default:
        move(t, 0, p, recv.data[i], 0, true);
    }
  };
  // Points tile t's pieces at their memory: data at the user's buffer (all-reduce) or at
  // the first plane of the scratch, the receive area at the next plane, where tile k of
  // the i-th local IPU of the group of tiles [k0, ...) starts at element
  // i * (elements of the group's pieces of one IPU) + (elements of tiles k0..k-1).
  const std::size_t planes = (plan.view ? 0 : 1) + (plan.uses_incoming ? 1 : 0);
  if (ctx.scratch.size() < planes * plan.scratch_plane * esize)
    ctx.scratch.resize(planes * plan.scratch_plane * esize);
  auto bind = [&](Tile& t, std::size_t i) {
    const int k = t.id_on_ipu();
    const int k0 = k / plan.per_group * plan.per_group;
    const int k1 = std::min(layout.tiles(), k0 + plan.per_group);
    const auto at = [&](int j) { return plan.piece_start[static_cast<std::size_t>(j)]; };
    const std::size_t size = layout.piece_offset(k, p) * esize;
    std::byte* plane = ctx.scratch.data() + (i * (at(k1) - at(k0)) + at(k) - at(k0)) * esize;
    if (plan.view) {
      t.view(ctx.data, std::span<std::byte>(recv.data[i] + layout.tile_begin(k) * esize, size));
    } else {
      t.view(ctx.data, std::span<std::byte>(plane, size));
      plane += plan.scratch_plane * esize;
    }
    if (plan.uses_incoming) t.view(ctx.incoming, std::span<std::byte>(plane, size));
  };
  // Loads tile t's part of a member's buffer: for all-reduce out of place, copies send
  // into recv, where the call then works; otherwise copies the user's data to the piece.
  auto load = [&](Tile& t, std::size_t i, int r) {
    const int k = t.id_on_ipu();
    if (plan.view) {
      const std::size_t size = layout.piece_offset(k, p) * esize;
      std::byte* work = recv.data[i] + layout.tile_begin(k) * esize;
      const std::byte* from = send.data[i] + layout.tile_begin(k) * esize;
      if (size > 0 && from != work) std::memcpy(work, from, size);
      bind(t, i);
      return;
    }
    bind(t, i);
    switch (collective) {
      case Collective::all_gather:
        move(t, r, r + 1, send.data[i], in_place ? 0 : layout.chunk_begin(r), false);
        break;
      case Collective::broadcast:
      case Collective::send_recv:
        if (r == root) move(t, 0, p, send.data[i], 0, false);
        break;
      default:
        move(t, 0, p, send.data[i], 0, false);
    }
  };
  // Superstep s loads (s = 0) or combines what step s-1 delivered, then runs step s; a
  // last superstep is needed only to combine what the last step delivered. The tile
  // groups run one after the other (Compiled), each on its own tiles, and each step is
  // recorded once, with the cost of all groups in lock step. No superstep can fail, so
  // none pays for an agreement across ranks, except one that may change the tiles'
  // memory: before the first call of a size, an agreed superstep makes the pieces (a
  // buffer that does not fit the tiles then throws on every rank).
  const std::size_t supersteps = plan.costs.size();
  const Context::Charge charge{plan.view, n * esize, layout.tiles(), plan.uses_incoming};
  if (!ctx.charge || *ctx.charge != charge) {
    ctx.charge.reset();  // until every rank has the new pieces
    SuperstepOptions options;
    options.tiles = plan.tiles;
    options.record = false;
    rt.superstep(
        label, [&](Tile& t) { bind(t, static_cast<std::size_t>(t.ipu() - first_local)); }, {},
        options);
    ctx.charge = charge;
  }
  // A spread communicator's small all-reduce: every rank got every member's data with
  // the agreement, and combines its own members' results in the order of the schedule
  // (make_schedule: the tree's member q - d absorbs member q as own op incoming at stride
  // d = 1, 2, 4, ...; the ring's chunk c runs from member c + 1 round to c), so the bits
  // are those of the supersteps below.
  const bool from_packets =
      spread && collective == Collective::all_reduce && min_of(14) == 1 && p > 1;
  if (from_packets) {
    const std::size_t bytes = n * esize;
    const std::size_t per_rank = local.size();
    std::vector<std::byte> v(static_cast<std::size_t>(p) * bytes);
    for (std::size_t i = 0; i < local.size() && bytes > 0; ++i) {
      const int g = group_of_ipu(local[i]);
      for (int m = 0; m < p; ++m) {
        const auto x = static_cast<std::size_t>(ipu(g, m));
        const auto first = static_cast<std::size_t>(first_local);
        const std::byte* from = x >= first && x < first + per_rank
                                    ? send.data[x - first]
                                    : payloads[x / per_rank].data() + (x % per_rank) * bytes;
        std::memcpy(v.data() + static_cast<std::size_t>(m) * bytes, from, bytes);
      }
      auto x = [&](int m) { return v.data() + static_cast<std::size_t>(m % p) * bytes; };
      if (algorithm == Algorithm::tree) {
        for (int d = 1; d < p; d *= 2)
          for (int q = d; q < p; q += 2 * d) detail::combine(type, op, x(q - d), x(q), n, false);
        std::memcpy(recv.data[i], v.data(), bytes);
        continue;
      }
      // Ring: chunk c is ((x[c+1] op x[c+2]) op ...) op x[c], on every tile's part of it.
      for (int k = 0; k < layout.tiles(); ++k)
        for (int c = 0; c < p; ++c) {
          const std::size_t at = layout.slice_begin(c, k) * esize;
          const std::size_t length = layout.piece_offset(k, c + 1) - layout.piece_offset(k, c);
          std::byte* out = recv.data[i] + at;
          std::memcpy(out, x(c + 1) + at, length * esize);
          for (int j = 2; j <= p; ++j) detail::combine(type, op, out, x(c + j) + at, length, false);
        }
    }
  }
  if (!from_packets)
    for (const Compiled::Group& group : plan.groups) {
      SuperstepOptions options;
      options.tiles = group.tiles;
      options.agree = false;
      options.record = false;
      for (std::size_t s = 0; s < supersteps; ++s) {
        auto body = [&](Tile& t) {
          const int k = t.id_on_ipu();
          const int ipu = t.ipu();
          const auto i = static_cast<std::size_t>(ipu - first_local);
          const int r = rank_of_ipu(ipu);
          if (s == 0) {
            load(t, i, r);
          } else {
            std::byte* mine = t.get(ctx.data).data();
            const std::byte* in = t.get(ctx.incoming).data();
            for (const Combine& c : plan.combines[s - 1][static_cast<std::size_t>(r)]) {
              const std::size_t at = layout.piece_offset(k, c.first_chunk);
              const std::size_t length = layout.piece_offset(k, c.last_chunk) - at;
              detail::combine(type, op, mine + at * esize, in + at * esize, length,
                              c.incoming_first);
            }
          }
          if (s == steps && !plan.view) unload(t);
        };
        if (s < steps)
          rt.superstep(label, body, {&group.plans[s]}, options);
        else
          rt.superstep(label, body, {}, options);
      }
      // Otherwise the host reads the results straight from the tiles after the last
      // exchange, as it streams data off an IPU: no superstep (and no sync) for it.
      if (steps > 0 && supersteps == steps && !plan.view)
        for (int id : group.tiles)
          unload(*rt.local_tiles()[static_cast<std::size_t>(id - rt.first_tile())]);
    }
  const double wall = (now_seconds() - start) / static_cast<double>(supersteps);
  for (std::size_t s = 0; s < supersteps; ++s) {
    SuperstepCost cost = plan.costs[s];
    if (plan.most_combined[s] > 0 && rt.target().kind == TargetKind::ipu)
      cost.compute_cycles = static_cast<double>(
          estimate_cycles(rt.target(), combine_cost(type), plan.most_combined[s]));
    rt.record_superstep(label, cost, wall);
  }
  return report(algorithm);
}

}  // namespace tessera::comm
