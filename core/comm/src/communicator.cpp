#include "tessera/comm/communicator.hpp"

#include <sched.h>

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
  int per_group = 1;                     // tiles per IPU in a group (the last may have fewer)
  std::vector<std::size_t> piece_start;  // [k] elements of the pieces of tiles 0..k-1
  std::size_t scratch_plane = 0;         // elements of one plane of the host scratch
  std::vector<int> tiles;                // every tile of this rank the call uses
  std::size_t supersteps = 0;            // the steps, and one to combine what the last delivered
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

// What one kind of call runs, compiled once: found by comparing a few integers (the last
// call's plan first), so that a repeated call does no string, map or allocation work.
struct Communicator::CallPlan {
  struct Key {
    std::uint64_t comm;
    Collective collective;
    Algorithm requested;
    DataType type;
    std::size_t n;
    int root, peer;
    std::uint64_t min_tile_bytes;
    bool operator==(const Key&) const = default;
  };
  Key key;
  Algorithm algorithm;  // what runs (automatic resolved, hierarchical where it applies)
  std::string label;    // "comm.<communicator>.<collective>.<algorithm>", the profile's name
  std::shared_ptr<const Compiled> compiled;  // once compiled (Context::compile)
  std::vector<SuperstepCost> costs;          // [superstep], the combine priced for the type
};

struct Communicator::Context {
  Runtime* runtime = nullptr;
  MPI_Comm agreement = MPI_COMM_NULL;  // our own context: no message of the runtime matches ours
  int ranks = 1;
  int me = 0;  // this rank in `agreement`
  double timeout = 60.0;
  std::string timed_out;  // the call that timed out, if one did (see wait())
  std::uint64_t min_tile_bytes = default_min_tile_bytes;
  std::vector<int> local_ipus;
  Variable<std::byte> data, incoming;  // every member's buffer and receive area, per tile

  using Compiled = Communicator::Compiled;
  using CallPlan = Communicator::CallPlan;
  // (communicator, collective, algorithm, element size, n, root, peer, bytes per tile)
  using Key =
      std::tuple<std::uint64_t, int, int, std::size_t, std::size_t, int, int, std::uint64_t>;
  std::map<Key, std::shared_ptr<const Compiled>> compiled;
  std::vector<std::unique_ptr<CallPlan>> plans;  // at most 64, searched linearly
  CallPlan* last_plan = nullptr;
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
  std::vector<std::byte> scratch;  // behind the pieces that are not the user's buffers

  // The fields every rank contributes to a call's agreement (Communicator::run), and what
  // the agreement returns: the element-wise maximum over ranks, then minus the minimum.
  static constexpr std::size_t fields = 15;
  using Fields = std::array<std::int64_t, fields>;
  using Agreed = std::array<std::int64_t, 2 * fields>;
  static constexpr std::size_t head = sizeof(Fields);  // bytes of a packet's fields
  // Buffers of the point-to-point agreement, kept from call to call (no allocation).
  std::vector<std::byte> packet;                // what this rank sends
  std::vector<std::vector<std::byte>> packets;  // [rank] what it received from each rank
  std::vector<MPI_Request> requests;
  std::vector<int> from;                   // the rank of each receive request
  std::vector<std::byte> members;          // the combine's partials (spread small all-reduce)
  std::vector<const std::byte*> partials;  // where each member's partial is (tree)
  std::vector<std::pair<std::uintptr_t, std::size_t>> ranges;  // run()'s overlap check

  ~Context() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && agreement != MPI_COMM_NULL) MPI_Comm_free(&agreement);
  }

  static Agreed own(const Fields& v) {
    Agreed all;
    for (std::size_t i = 0; i < fields; ++i) all[i] = v[i], all[fields + i] = -v[i];
    return all;
  }

  // Element-wise max over ranks of `v` followed by -v (so the second half gives minus
  // the minimum), with a non-blocking all-reduce polled against the deadline (wait()).
  Agreed agree(const Communicator& c, Collective collective, const Fields& v) {
    Agreed all = own(v);
    if (ranks == 1) return all;
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_INT64_T, MPI_MAX,
                   agreement, &request);
    wait(c, collective, std::span<MPI_Request>(&request, 1));
    return all;
  }

  // The agreement of a spread communicator (every group's members on different ranks):
  // every rank sends `v` and `payload` bytes (its members' data, or nothing) that
  // `fill(at)` writes, to every other rank in one packed message, point to point, all
  // posted at once. Returns what agree() does. A payload that would make the message
  // longer than eager_bytes goes in pieces when it is at most piece_limit bytes: the first
  // with the fields, the others, once the ranks have agreed to use the data, by
  // finish_exchange(). payload(q) is then what rank q sent after its fields, until the
  // next call.
  template <class Fill>
  Agreed exchange(const Communicator& c, Collective collective, const Fields& v,
                  std::size_t payload, std::size_t max_payload, Fill&& fill) {
    if (packet.size() < head + payload) packet.resize(head + payload);
    std::memcpy(packet.data(), v.data(), head);
    if (payload > 0) fill(packet.data() + head);
    payload_bytes = payload;
    payload_sent =
        head + payload <= eager_bytes || payload > piece_limit ? payload : eager_bytes - head;
    if (packets.size() < static_cast<std::size_t>(ranks))
      packets.resize(static_cast<std::size_t>(ranks));
    requests.clear();
    from.clear();
    for (int q = 0; q < ranks; ++q) {
      if (q == me) continue;
      std::vector<std::byte>& in = packets[static_cast<std::size_t>(q)];
      if (in.size() < head + max_payload) in.resize(head + max_payload);
      requests.emplace_back();
      MPI_Irecv(in.data(), static_cast<int>(head + max_payload), MPI_BYTE, q, packet_tag, agreement,
                &requests.back());
      from.push_back(q);
    }
    for (int q = 0; q < ranks; ++q) {
      if (q == me) continue;
      requests.emplace_back();
      MPI_Isend(packet.data(), static_cast<int>(head + payload_sent), MPI_BYTE, q, packet_tag,
                agreement, &requests.back());
    }
    wait(c, collective, requests);
    Agreed all = own(v);
    for (int q : from) {
      Fields theirs;
      std::memcpy(theirs.data(), packets[static_cast<std::size_t>(q)].data(), head);
      for (std::size_t i = 0; i < fields; ++i) {
        all[i] = std::max(all[i], theirs[i]);
        all[fields + i] = std::max(all[fields + i], -theirs[i]);
      }
    }
    return all;
  }
  // Sends the rest of the last exchange()'s payload, in rounds of one message of at most
  // eager_bytes to every other rank. Collective: every rank calls it after the same
  // exchange() (their payloads have the same size), or none does.
  void finish_exchange(const Communicator& c, Collective collective) {
    while (payload_sent < payload_bytes) {
      const std::size_t at = head + payload_sent;
      const std::size_t piece = std::min(eager_bytes, payload_bytes - payload_sent);
      requests.clear();
      for (int q = 0; q < ranks; ++q) {
        if (q == me) continue;
        requests.emplace_back();
        MPI_Irecv(packets[static_cast<std::size_t>(q)].data() + at, static_cast<int>(piece),
                  MPI_BYTE, q, packet_tag, agreement, &requests.back());
      }
      for (int q = 0; q < ranks; ++q) {
        if (q == me) continue;
        requests.emplace_back();
        MPI_Isend(packet.data() + at, static_cast<int>(piece), MPI_BYTE, q, packet_tag, agreement,
                  &requests.back());
      }
      wait(c, collective, requests);
      payload_sent += piece;
    }
  }
  // Open MPI's shared-memory transport sends a message of up to about 4000 bytes eagerly
  // (btl_vader_eager_limit, 4 KiB with its headers); a longer one waits for the receiver
  // (rendezvous) and is copied with a system call, 10-20 us on the development VM against
  // 0.6 us. So a payload of up to piece_limit bytes goes in rounds of eager messages
  // (measured: 4 KiB in two rounds 1.3 us, in one message 12 us); a longer one in one
  // message, as the rounds then add up.
  static constexpr std::size_t eager_bytes = 3968;
  static constexpr std::size_t piece_limit = 16 * 1024;
  std::size_t payload_bytes = 0, payload_sent = 0;

  // What rank q sent after its fields in the last exchange().
  const std::byte* payload(int q) const {
    return packets[static_cast<std::size_t>(q)].data() + head;
  }

  // Waits for `requests`, polled against the deadline: a rank that never joins makes this
  // one throw instead of waiting forever. Pending requests cannot be cancelled; the error
  // ends the job (run_main aborts it). Collectives usually meet within microseconds, so
  // the loop spins on MPI_Testall, reading the clock only every 256 polls; after 2000
  // polls it yields the core at every poll (a partner that was descheduled, or another
  // job on the same cores, gets it at once), and only after 10 ms it sleeps 50 us
  // between polls, so a rank that waits long does not hold a core.
  void wait(const Communicator& c, Collective collective, std::span<MPI_Request> requests) {
    double start = 0;
    bool sleeping = false;
    for (unsigned long polls = 0;; ++polls) {
      int done = 0;
      MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
      if (done) return;
      if (polls < spin_polls) continue;
      if (polls == spin_polls) start = now_seconds();
      if (polls % 256 == 0) {
        const double waited = now_seconds() - start;
        if (waited > timeout) {
          // The requests stay posted, into buffers later calls reuse: no call may follow.
          timed_out = c.where(collective);
          throw CommError(c.where(collective) + ": not every MPI rank joined the call within " +
                          format_number(timeout) +
                          " s: a rank exited early, failed, or called another collective or "
                          "none. If the ranks are only slow, raise the limit with "
                          "Communicator::set_timeout");
        }
        sleeping = waited > yield_seconds;
      }
      if (sleeping)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      else
        sched_yield();
    }
  }
  static constexpr unsigned long spin_polls = 2000;
  static constexpr double yield_seconds = 0.01;

  // The plan of a call, kept: the last call's plan is checked first, then the others (at
  // most 64, then all are dropped). Finding or making one involves no other rank (a call
  // finds its plan before the ranks agree on it); compile() then compiles it, after the
  // agreement.
  CallPlan& plan(const Communicator& c, Collective collective, DataType type, Algorithm requested,
                 std::size_t n, int root, int peer) {
    const CallPlan::Key key{c.id_, collective, requested, type, n, root, peer, min_tile_bytes};
    if (last_plan && last_plan->key == key) return *last_plan;
    for (const auto& known : plans)
      if (known->key == key) return *(last_plan = known.get());
    if (plans.size() >= 64) plans.clear(), last_plan = nullptr;
    const int p = c.size_;
    auto made = std::make_unique<CallPlan>();
    made->key = key;
    // automatic picks by the cost model; a hierarchical request that does not apply runs,
    // and is reported, as the ring (what make_schedule runs then).
    Algorithm a = requested;
    if (p == 1 || collective == Collective::send_recv)
      a = Algorithm::tree;
    else if (a == Algorithm::automatic)
      a = choose_algorithm(runtime->target(), c.groups_, collective, type, n, root, peer,
                           min_tile_bytes);
    if (a == Algorithm::hierarchical &&
        (collective != Collective::all_reduce || c.block_ <= 1 || c.block_ >= p))
      a = Algorithm::ring;
    made->algorithm = a;
    made->label = "comm." + c.name_ + "." + to_string(collective) + "." + to_string(a);
    plans.push_back(std::move(made));
    return *(last_plan = plans.back().get());
  }

  // The compiled call of `call` (layout, schedule, exchange plans), compiled on first use.
  // Collective: compiling an exchange plan involves every rank (Runtime::compile), so it
  // runs only after the agreement, and whether it runs depends on `compiled` alone, which
  // changes only here, the same on every rank (every rank makes the same agreed calls): a
  // plan holds a compiled call only while `compiled` does.
  const Compiled& compile(const Communicator& c, CallPlan& call) {
    if (call.compiled) return *call.compiled;
    const Target& t = runtime->target();
    const CallPlan::Key& k = call.key;
    const std::size_t esize = size_of(k.type);
    const Key key{k.comm,
                  static_cast<int>(k.collective),
                  static_cast<int>(call.algorithm),
                  esize,
                  k.n,
                  k.root,
                  k.peer,
                  k.min_tile_bytes};
    auto found = compiled.find(key);
    if (found == compiled.end()) {
      if (compiled.size() >= 64) {
        compiled.clear();
        for (const auto& other : plans) other->compiled.reset();
      }
      found = compiled
                  .emplace(key, c.compile(k.collective, call.algorithm, esize, k.n, k.root, k.peer,
                                          call.label))
                  .first;
    }
    call.compiled = found->second;
    const Compiled& plan = *call.compiled;
    // The cost model's account of the call, superstep by superstep (schedule.hpp): the same
    // figures comm::estimate sums, for this type's combine.
    call.costs = superstep_costs(t, c.groups_, k.collective, call.algorithm, k.type, k.n, k.root,
                                 k.peer, k.min_tile_bytes);
    return plan;
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
  MPI_Comm_rank(context->agreement, &context->me);
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
  c.id_ = c.hash();
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
  c.id_ = c.hash();
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
std::uint64_t Communicator::hash() const {
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

  // A last superstep only if the last step delivered data to combine (as superstep_costs
  // counts them).
  const bool combine_at_end =
      c->steps.empty() || std::any_of(c->combines.back().begin(), c->combines.back().end(),
                                      [](const std::vector<Combine>& m) { return !m.empty(); });
  c->supersteps = combine_at_end ? c->steps.size() + 1 : c->steps.size();
  return c;
}

CallReport Communicator::barrier() {
  return run(Collective::barrier, DataType::int32, Op::sum, Algorithm::tree, 0, 0, 0, {}, {}, true);
}

// One call's arguments, as run() received them.
struct Communicator::Request {
  Collective collective;
  DataType type;
  Op op;
  Algorithm algorithm;
  int root, peer;
  std::size_t count;
  const Bytes& send;
  const Bytes& recv;
  bool in_place;
  bool data_call() const { return collective != Collective::barrier; }
  std::size_t esize() const { return size_of(type); }
  // The elements of a member's whole buffer, from the size of its first buffer ("primary":
  // send, or data in place), which must agree over all members.
  std::size_t n_of(std::size_t primary, int p) const {
    if (collective == Collective::send_recv) return count;
    if (collective == Collective::all_gather && !in_place)
      return primary * static_cast<std::size_t>(p);
    return primary;
  }
};

// What this rank's members ask for: the fields every rank contributes to a call's
// agreement (Context::agree and Context::exchange carry them as an array).
struct Communicator::Fields {
  std::int64_t collective, type, op, algorithm, root, peer;
  std::int64_t comm_high, comm_low;                // the communicator's id (hash())
  std::int64_t smallest = LLONG_MAX, largest = 0;  // sizes of the members' first buffers
  std::int64_t bad_ipu = 0;   // 1 + the last IPU whose buffers have the wrong size, or 0
  std::int64_t bad_rank = 0;  // 1 + this rank if it did not pass one buffer per IPU, or 0
  std::int64_t in_place = 0;
  std::int64_t overlap = 0;       // 1 + the last IPU whose buffer overlaps another's, or 0
  std::int64_t carries_data = 0;  // the members' data travel with the agreement (spread)

  Context::Fields array() const {
    static_assert(sizeof(Context::Fields) == 15 * sizeof(std::int64_t));
    Context::Fields a;
    std::memcpy(a.data(), this, sizeof a);
    return a;
  }
};

// What the agreement returned: every field's maximum and minimum over the ranks.
struct Communicator::Agreement {
  static_assert(sizeof(Fields) == sizeof(Context::Fields) && std::is_standard_layout_v<Fields>);
  using Field = std::int64_t Fields::*;
  Context::Agreed all{};
  static std::size_t index(Field f) {
    static const Fields probe{};
    return static_cast<std::size_t>(reinterpret_cast<const char*>(&(probe.*f)) -
                                    reinterpret_cast<const char*>(&probe)) /
           sizeof(std::int64_t);
  }
  std::int64_t max(Field f) const { return all[index(f)]; }
  std::int64_t min(Field f) const { return -all[Context::fields + index(f)]; }
  bool same(Field f) const { return min(f) == max(f); }
};

CallReport Communicator::run(Collective collective, DataType type, Op op, Algorithm algorithm,
                             int root, int peer, std::size_t count, const Bytes& send,
                             const Bytes& recv, bool in_place) {
  Context& ctx = *context_;
  if (!ctx.timed_out.empty())
    throw CommError(where(collective) +
                    ": the communicators of this runtime cannot be used "
                    "after a call timed out (" +
                    ctx.timed_out + ")");
  Runtime& rt = *ctx.runtime;
  const Request q{collective, type, op, algorithm, root, peer, count, send, recv, in_place};
  // 1. What this rank's members ask for; 2. the agreement of every rank on it (with the
  // data of a spread small all-reduce); 3. the errors every rank then throws alike.
  CallPlan* call = nullptr;
  const Agreement all = agree(q, describe(q), call);
  const std::size_t n = check(q, all);

  const double start = now_seconds();
  const SuperstepCost total_before = rt.profile().total();
  const double simulated_before = rt.profile().simulated_seconds();
  const std::uint64_t steps_before = rt.profile().supersteps();
  auto report = [&](Algorithm used, double end) {
    CallReport r;
    r.algorithm = used;
    r.supersteps = static_cast<int>(rt.profile().supersteps() - steps_before);
    r.cost = rt.profile().total() - total_before;
    r.simulated_seconds = rt.profile().simulated_seconds() - simulated_before;
    r.wall_seconds = end - start;
    return r;
  };
  if (!q.data_call()) {
    rt.superstep("comm." + name_ + ".barrier", [](Tile&) {});
    return report(Algorithm::tree, now_seconds());
  }

  // 4. The call's plan and its compiled layout, schedule and exchange plans.
  if (!call || call->key.n != n)
    call = &ctx.plan(*this, collective, type, algorithm, n, root, peer);
  const Compiled& plan = ctx.compile(*this, *call);
  // 5. The data: combined from the agreement's packets (a spread small all-reduce), or
  // moved by the supersteps of the schedule. Either way the profile gets the schedule's
  // supersteps, priced by the cost model (superstep_costs).
  const bool from_packets = spread_ && ctx.ranks > 1 && collective == Collective::all_reduce &&
                            all.min(&Fields::carries_data) == 1 && size_ > 1;
  prepare_pieces(q, *call, plan, n);
  if (from_packets) {
    ctx.finish_exchange(*this, collective);
    if (n > 0) fold_packets(q, call->algorithm, plan.layout, n);
  } else {
    run_supersteps(q, *call, plan);
  }
  const double end = now_seconds();
  rt.record_supersteps(call->label, call->costs,
                       (end - start) / static_cast<double>(plan.supersteps));
  return report(call->algorithm, end);
}

Communicator::Fields Communicator::describe(const Request& q) const {
  Context& ctx = *context_;
  Runtime& rt = *ctx.runtime;
  const int p = size_;
  const auto& local = ctx.local_ipus;
  const Collective collective = q.collective;
  const Bytes &send = q.send, &recv = q.recv;
  const int root = q.root, peer = q.peer;
  const bool in_place = q.in_place, data_call = q.data_call();
  const std::size_t esize = q.esize(), count = q.count;
  Fields f{static_cast<std::int64_t>(collective),
           static_cast<std::int64_t>(q.type),
           static_cast<std::int64_t>(q.op),
           static_cast<std::int64_t>(q.algorithm),
           root,
           peer,
           static_cast<std::int64_t>(id_ >> 33),
           static_cast<std::int64_t>(id_ & 0x1ffffffffULL)};
  f.in_place = in_place ? 1 : 0;
  if (data_call && (send.data.size() != local.size() || recv.data.size() != local.size())) {
    f.bad_rank = rt.rank() + 1;
  } else if (data_call) {
    for (std::size_t i = 0; i < local.size(); ++i) {
      const int r = rank_of_ipu(local[i]);
      const bool source = r == root, destination = r == peer;
      std::size_t primary = send.elements[i];
      if (collective == Collective::send_recv) primary = count;
      f.smallest = std::min<std::int64_t>(f.smallest, static_cast<std::int64_t>(primary));
      f.largest = std::max<std::int64_t>(f.largest, static_cast<std::int64_t>(primary));
      const std::size_t n = q.n_of(primary, p);
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
      if (!ok) f.bad_ipu = std::max<std::int64_t>(f.bad_ipu, local[i] + 1);
    }
  }
  // All-reduce works in the members' buffers (recv, or data in place): they must not
  // overlap one another, nor a member's send buffer its recv buffer but exactly.
  if (collective == Collective::all_reduce && f.bad_rank == 0 && f.bad_ipu == 0 &&
      f.smallest == f.largest) {
    // Addresses as integers: buffers of different allocations have no pointer order.
    auto address = [](const std::byte* p) { return reinterpret_cast<std::uintptr_t>(p); };
    auto& ranges = ctx.ranges;  // (start, member) by start
    ranges.clear();
    for (std::size_t i = 0; i < local.size(); ++i) {
      const std::size_t bytes = recv.elements[i] * esize;
      if (bytes == 0) continue;
      ranges.emplace_back(address(recv.data[i]), i);
      const std::uintptr_t a = address(send.data[i]), b = address(recv.data[i]);
      if (a != b && a < b + bytes && b < a + bytes)
        f.overlap = std::max<std::int64_t>(f.overlap, local[i] + 1);
    }
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t j = 1; j < ranges.size(); ++j)
      if (ranges[j].first < ranges[j - 1].first + recv.elements[ranges[j - 1].second] * esize)
        f.overlap = std::max<std::int64_t>(f.overlap, local[ranges[j].second] + 1);
  }
  return f;
}

// On a spread communicator the ranks agree point to point, and a small ring or tree
// all-reduce sends its members' data along: with every member's data on every rank, each
// rank combines its members' results itself, in the schedule's order (fold_packets), and
// the call costs one round of messages (or a few, Context::exchange). The data is used only
// if every rank sent it (Fields::carries_data). The plan of such a call is found before the
// agreement (it tells the algorithm), from this rank's size; if the ranks disagree, the
// call fails in check().
Communicator::Agreement Communicator::agree(const Request& q, const Fields& mine,
                                            CallPlan*& call) const {
  Context& ctx = *context_;
  const auto& local = ctx.local_ipus;
  const std::size_t esize = q.esize();
  Agreement a;
  if (!(spread_ && ctx.ranks > 1)) {
    a.all = ctx.agree(*this, q.collective, mine.array());
    return a;
  }
  Fields with = mine;
  if (q.collective == Collective::all_reduce && size_ > 1 && mine.bad_rank == 0 &&
      mine.bad_ipu == 0 && mine.overlap == 0 && mine.smallest == mine.largest &&
      static_cast<std::size_t>(mine.smallest) * esize * local.size() <= packet_bytes) {
    call = &ctx.plan(*this, q.collective, q.type, q.algorithm,
                     static_cast<std::size_t>(mine.smallest), q.root, q.peer);
    with.carries_data = call->algorithm != Algorithm::hierarchical ? 1 : 0;
  }
  const std::size_t member_bytes =
      with.carries_data ? static_cast<std::size_t>(mine.smallest) * esize : 0;
  const std::size_t payload = member_bytes * local.size();
  a.all =
      ctx.exchange(*this, q.collective, with.array(), payload, packet_bytes, [&](std::byte* at) {
        for (std::size_t i = 0; i < local.size(); ++i)
          std::memcpy(at + i * member_bytes, q.send.data[i], member_bytes);
      });
  return a;
}

std::size_t Communicator::check(const Request& q, const Agreement& all) const {
  const int p = size_;
  auto fail = [&](const std::string& what) {
    CommError e(where(q.collective) + ": " + what);
    e.set_collective();
    throw e;
  };
  if (!all.same(&Fields::collective))
    fail(std::string("MPI ranks called different collectives (") +
         to_string(static_cast<Collective>(all.min(&Fields::collective))) + " and " +
         to_string(static_cast<Collective>(all.max(&Fields::collective))) +
         "); every rank must make the same calls");
  if (!all.same(&Fields::comm_high) || !all.same(&Fields::comm_low))
    fail("MPI ranks called it on different communicators; every rank must use the same one");
  if (all.max(&Fields::bad_rank) > 0)
    fail("MPI rank " + std::to_string(all.max(&Fields::bad_rank) - 1) +
         " did not pass one buffer per IPU it hosts (in the order of local_ipus())");
  if (!all.same(&Fields::type))
    fail(std::string("members passed different element types (") +
         to_string(static_cast<DataType>(all.min(&Fields::type))) + " and " +
         to_string(static_cast<DataType>(all.max(&Fields::type))) + ")");
  if (!all.same(&Fields::op))
    fail(std::string("members asked for different operations (") +
         to_string(static_cast<Op>(all.min(&Fields::op))) + " and " +
         to_string(static_cast<Op>(all.max(&Fields::op))) + ")");
  if (!all.same(&Fields::algorithm))
    fail(std::string("members asked for different algorithms (") +
         to_string(static_cast<Algorithm>(all.min(&Fields::algorithm))) + " and " +
         to_string(static_cast<Algorithm>(all.max(&Fields::algorithm))) + ")");
  if (!all.same(&Fields::root) || !all.same(&Fields::peer))
    fail("members named different roots or peers (roots " + std::to_string(all.min(&Fields::root)) +
         ".." + std::to_string(all.max(&Fields::root)) + ", peers " +
         std::to_string(all.min(&Fields::peer)) + ".." + std::to_string(all.max(&Fields::peer)) +
         ")");
  if (!all.same(&Fields::in_place)) fail("some members called the in-place form and some did not");
  if (q.data_call() && all.min(&Fields::smallest) != all.max(&Fields::largest))
    fail("members passed buffers of different sizes (from " +
         std::to_string(all.min(&Fields::smallest)) + " to " +
         std::to_string(all.max(&Fields::largest)) +
         " elements); every member must pass the same size");
  if (q.root < 0 || q.root >= p || q.peer < 0 || q.peer >= p)
    fail("root or peer outside the group's ranks 0.." + std::to_string(p - 1) + " (root " +
         std::to_string(q.root) + ", peer " + std::to_string(q.peer) + ")");
  const std::size_t n =
      q.data_call() ? q.n_of(static_cast<std::size_t>(all.max(&Fields::largest)), p) : 0;
  if (q.collective == Collective::reduce_scatter && n % static_cast<std::size_t>(p) != 0)
    fail("needs p x count elements to scatter (p = " + std::to_string(p) + "), but members pass " +
         std::to_string(n) + ", not a multiple of " + std::to_string(p));
  if (all.max(&Fields::bad_ipu) > 0) {
    std::string need;
    if (q.collective == Collective::reduce_scatter)
      need = "a receive buffer of " + std::to_string(n / static_cast<std::size_t>(p));
    else if (q.collective == Collective::send_recv)
      need = "a send (at the source) and a receive buffer (at the destination) of " +
             std::to_string(n);
    else
      need = "a receive buffer of " + std::to_string(n);
    fail("IPU " + std::to_string(all.max(&Fields::bad_ipu) - 1) +
         " passed a buffer of the wrong size: this " + "call needs " + need + " elements");
  }

  if (all.max(&Fields::overlap) > 0)
    fail("IPU " + std::to_string(all.max(&Fields::overlap) - 1) +
         " passed a buffer that overlaps another member's buffer (or, out of place, its own " +
         "send buffer in part): every member needs a buffer of its own");

  return n;
}

// Where a call's data lies on the tiles, for one compiled call: the tiles' pieces are views
// (Tile::view) of the user's buffers (all-reduce) or of the context's scratch, and the data
// of the other collectives is loaded from and unloaded to the user's buffers.
struct Communicator::Pieces {
  const Communicator& c;
  const Request& q;
  const Compiled& plan;
  Context& ctx;
  const Layout& layout;
  const int p;
  const std::size_t esize;
  const int first_local;

  Pieces(const Communicator& comm, const Request& request, const Compiled& compiled)
      : c(comm),
        q(request),
        plan(compiled),
        ctx(*comm.context_),
        layout(compiled.layout),
        p(comm.size_),
        esize(request.esize()),
        first_local(comm.context_->local_ipus.front()) {
    // The scratch: data (unless the pieces view the user's buffers) and the receive area.
    const std::size_t planes = (plan.view ? 0 : 1) + (plan.uses_incoming ? 1 : 0);
    if (ctx.scratch.size() < planes * plan.scratch_plane * esize)
      ctx.scratch.resize(planes * plan.scratch_plane * esize);
  }

  // Copies chunks [c0, c1) of tile t's part between its (owned) piece and a user buffer
  // whose element 0 is element `shift` of the member's whole buffer.
  void move(Tile& t, int c0, int c1, std::byte* user, std::size_t shift, bool to_user) const {
    const int k = t.id_on_ipu();
    std::byte* piece = t.get(ctx.data).data();
    for (int ch = c0; ch < c1; ++ch) {
      const std::size_t at = layout.piece_offset(k, ch);
      const std::size_t length = layout.piece_offset(k, ch + 1) - at;
      if (length == 0) continue;
      std::byte* u = user + (layout.slice_begin(ch, k) - shift) * esize;
      if (to_user)
        std::memcpy(u, piece + at * esize, length * esize);
      else
        std::memcpy(piece + at * esize, u, length * esize);
    }
  }
  // Copies the results of one tile out to the user's buffers (owned pieces only).
  void unload(Tile& t) const {
    const int ipu = t.ipu();
    const auto i = static_cast<std::size_t>(ipu - first_local);
    const int r = c.rank_of_ipu(ipu);
    switch (q.collective) {
      case Collective::reduce_scatter:
        move(t, r, r + 1, q.recv.data[i], q.in_place ? 0 : layout.chunk_begin(r), true);
        break;
      case Collective::broadcast:
        if (r != q.root) move(t, 0, p, q.recv.data[i], 0, true);
        break;
      case Collective::reduce:
        if (r == q.root) move(t, 0, p, q.recv.data[i], 0, true);
        break;
      case Collective::send_recv:
        if (r == q.peer) move(t, 0, p, q.recv.data[i], 0, true);
        break;
      default:
        move(t, 0, p, q.recv.data[i], 0, true);
    }
  }
  // Points tile t's pieces at their memory: data at the user's buffer (all-reduce) or at
  // the first plane of the scratch, the receive area at the next plane, where tile k of
  // the i-th local IPU of the group of tiles [k0, ...) starts at element
  // i * (elements of the group's pieces of one IPU) + (elements of tiles k0..k-1).
  void bind(Tile& t, std::size_t i) const {
    const int k = t.id_on_ipu();
    const int k0 = k / plan.per_group * plan.per_group;
    const int k1 = std::min(layout.tiles(), k0 + plan.per_group);
    const auto at = [&](int j) { return plan.piece_start[static_cast<std::size_t>(j)]; };
    const std::size_t size = layout.piece_offset(k, p) * esize;
    std::byte* plane = ctx.scratch.data() + (i * (at(k1) - at(k0)) + at(k) - at(k0)) * esize;
    if (plan.view) {
      t.view(ctx.data, std::span<std::byte>(q.recv.data[i] + layout.tile_begin(k) * esize, size));
    } else {
      t.view(ctx.data, std::span<std::byte>(plane, size));
      plane += plan.scratch_plane * esize;
    }
    if (plan.uses_incoming) t.view(ctx.incoming, std::span<std::byte>(plane, size));
  }
  // Loads tile t's part of a member's buffer: for all-reduce out of place, copies send
  // into recv, where the call then works; otherwise copies the user's data to the piece.
  void load(Tile& t, std::size_t i, int r) const {
    const int k = t.id_on_ipu();
    if (plan.view) {
      const std::size_t size = layout.piece_offset(k, p) * esize;
      std::byte* work = q.recv.data[i] + layout.tile_begin(k) * esize;
      const std::byte* from = q.send.data[i] + layout.tile_begin(k) * esize;
      if (size > 0 && from != work) std::memcpy(work, from, size);
      bind(t, i);
      return;
    }
    bind(t, i);
    switch (q.collective) {
      case Collective::all_gather:
        move(t, r, r + 1, q.send.data[i], q.in_place ? 0 : layout.chunk_begin(r), false);
        break;
      case Collective::broadcast:
      case Collective::send_recv:
        if (r == q.root) move(t, 0, p, q.send.data[i], 0, false);
        break;
      default:
        move(t, 0, p, q.send.data[i], 0, false);
    }
  }
};

// Before the first call of a size, an agreed superstep makes the tiles' pieces (a buffer
// that does not fit the tiles then throws on every rank); a call that leaves the same
// charge on the tiles' memory needs no allocation, so it cannot run out of tile memory.
void Communicator::prepare_pieces(const Request& q, const CallPlan& call, const Compiled& plan,
                                  std::size_t n) const {
  Context& ctx = *context_;
  const Pieces pieces(*this, q, plan);
  const Context::Charge charge{plan.view, n * q.esize(), plan.layout.tiles(), plan.uses_incoming};
  if (ctx.charge && *ctx.charge == charge) return;
  ctx.charge.reset();  // until every rank has the new pieces
  SuperstepOptions options;
  options.tiles = plan.tiles;
  options.record = false;
  ctx.runtime->superstep(
      call.label,
      [&](Tile& t) { pieces.bind(t, static_cast<std::size_t>(t.ipu() - pieces.first_local)); }, {},
      options);
  ctx.charge = charge;
}

// A spread communicator's small all-reduce: every rank got every member's data with the
// agreement, and combines its own members' results in the order of the schedule
// (make_schedule: the tree's member q - d absorbs member q as own op incoming at stride d =
// 1, 2, 4, ...; the ring's chunk c runs from member c + 1 round to c), so the bits are those
// of the supersteps run_supersteps would run.
void Communicator::fold_packets(const Request& q, Algorithm algorithm, const Layout& layout,
                                std::size_t n) const {
  Context& ctx = *context_;
  const auto& local = ctx.local_ipus;
  const int p = size_;
  const std::size_t esize = q.esize();
  const DataType type = q.type;
  const Op op = q.op;
  const Bytes &send = q.send, &recv = q.recv;
  // Every member but this rank's own is on another rank (spread), its data in that
  // rank's packet. The result is computed in recv, which first gets the own member's
  // data (in place it holds it already), so that no other buffer is written but the
  // scratch of partials, and no operand is copied that the fold can read where it is.
  const std::size_t bytes = n * esize;
  const std::size_t per_rank = local.size();
  if (ctx.members.size() < static_cast<std::size_t>(p) * bytes)
    ctx.members.resize(static_cast<std::size_t>(p) * bytes);
  std::byte* scratch = ctx.members.data();
  for (std::size_t i = 0; i < local.size(); ++i) {
    std::byte* out = recv.data[i];
    if (send.data[i] != out) std::memcpy(out, send.data[i], bytes);
    const int g = group_of_ipu(local[i]);
    const int own = rank_of_ipu(local[i]);
    // Member m's data (m taken modulo p); the own member's is `out` itself.
    auto x = [&](int m) -> const std::byte* {
      const auto at = static_cast<std::size_t>(ipu(g, m % p));
      return ctx.payload(static_cast<int>(at / per_rank)) + (at % per_rank) * bytes;
    };
    if (algorithm == Algorithm::tree) {
      // Binomial: member q - d absorbs member q as (own op incoming), d = 1, 2, 4, ...;
      // the result is member 0's. Member 0's partial is built in `out` when it is this
      // rank's member, else in the scratch (out still holds the own member's value,
      // which the fold reads), as are the other members' partials.
      if (p == 2 && own == 1) {
        detail::combine(type, op, out, x(0), n, true);
        continue;
      }
      std::vector<const std::byte*>& partial = ctx.partials;
      partial.resize(static_cast<std::size_t>(p));
      for (int m = 0; m < p; ++m) partial[static_cast<std::size_t>(m)] = m == own ? out : x(m);
      for (int d = 1; d < p; d *= 2)
        for (int q = d; q < p; q += 2 * d) {
          const auto w = static_cast<std::size_t>(q - d);
          std::byte* into =
              (q - d == own) ? out : scratch + w * bytes;  // never member `own`'s original
          if (partial[w] != into) std::memcpy(into, partial[w], bytes);
          partial[w] = into;
          detail::combine(type, op, into, partial[static_cast<std::size_t>(q)], n, false);
        }
      if (own != 0) std::memcpy(out, partial[0], bytes);
      continue;
    }
    // Ring: chunk c is ((x[c+1] op x[c+2]) op ...) op x[c+p], on every tile's part of
    // it. With `out` holding the own member's part: the members before it in that order
    // are folded into the scratch (or read where they are, if only one), combined as
    // (partial op own) into out, and the members after it combined as (out op x).
    for (int k = 0; k < layout.tiles(); ++k)
      for (int c = 0; c < p; ++c) {
        const std::size_t at = layout.slice_begin(c, k) * esize;
        const std::size_t length = layout.piece_offset(k, c + 1) - layout.piece_offset(k, c);
        if (length == 0) continue;
        const int before = ((own - c - 1) % p + p) % p;  // members c+1 .. own-1
        if (before == 1) {
          detail::combine(type, op, out + at, x(c + 1) + at, length, true);
        } else if (before > 1) {
          std::memcpy(scratch, x(c + 1) + at, length * esize);
          for (int j = 2; j <= before; ++j)
            detail::combine(type, op, scratch, x(c + j) + at, length, false);
          detail::combine(type, op, out + at, scratch, length, true);
        }
        for (int j = before + 2; j <= p; ++j)
          detail::combine(type, op, out + at, x(c + j) + at, length, false);
      }
  }
}

// The supersteps of the schedule: superstep s loads (s = 0) or combines what step s-1
// delivered, then runs step s; a last superstep is needed only to combine what the last
// step delivered. The tile groups run one after the other (Compiled), each on its own
// tiles, without an agreement across ranks (no superstep can fail), and each step is
// recorded once, by run(), with the cost of all groups in lock step.
void Communicator::run_supersteps(const Request& q, const CallPlan& call,
                                  const Compiled& plan) const {
  Context& ctx = *context_;
  Runtime& rt = *ctx.runtime;
  const Pieces pieces(*this, q, plan);
  const Layout& layout = plan.layout;
  const std::size_t steps = plan.steps.size(), supersteps = plan.supersteps;
  const std::size_t esize = q.esize();
  const int first_local = pieces.first_local;
  const std::string& label = call.label;
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
          pieces.load(t, i, r);
        } else {
          std::byte* mine = t.get(ctx.data).data();
          const std::byte* in = t.get(ctx.incoming).data();
          for (const Combine& c : plan.combines[s - 1][static_cast<std::size_t>(r)]) {
            const std::size_t at = layout.piece_offset(k, c.first_chunk);
            const std::size_t length = layout.piece_offset(k, c.last_chunk) - at;
            detail::combine(q.type, q.op, mine + at * esize, in + at * esize, length,
                            c.incoming_first);
          }
        }
        if (s == steps && !plan.view) pieces.unload(t);
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
        pieces.unload(*rt.local_tiles()[static_cast<std::size_t>(id - rt.first_tile())]);
  }
}

}  // namespace tessera::comm
