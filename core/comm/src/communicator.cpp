#include "tessera/comm/communicator.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <map>
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

struct Communicator::Context {
  Runtime* runtime = nullptr;
  MPI_Comm agreement = MPI_COMM_NULL;  // our own context: no message of the runtime matches ours
  int ranks = 1;
  double timeout = 60.0;
  std::uint64_t min_tile_bytes = default_min_tile_bytes;
  std::vector<int> local_ipus;
  Variable<std::byte> data, incoming;  // every member's buffer and receive area, per tile

  // A compiled call: the layout, the steps, one exchange plan per step, and for every
  // step the chunks each member combines at the start of the next superstep.
  struct Compiled {
    Layout layout;
    std::vector<Step> steps;
    std::vector<ExchangePlan> plans;
    std::vector<std::vector<std::vector<Combine>>> combines;  // [step][member]
    bool uses_incoming = false;
  };
  // (communicator, collective, algorithm, element size, n, root, peer, bytes per tile)
  using Key =
      std::tuple<std::uint64_t, int, int, std::size_t, std::size_t, int, int, std::uint64_t>;
  std::map<Key, std::unique_ptr<Compiled>> compiled;
  std::map<Key, Algorithm> chosen;

  ~Context() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && agreement != MPI_COMM_NULL) MPI_Comm_free(&agreement);
  }

  // Element-wise max over ranks of `v` followed by -v (so the second half gives minus
  // the minimum), polled against the deadline: a rank that never joins makes this one
  // throw instead of waiting forever. The pending request cannot be cancelled; the
  // error ends the job (run_main aborts it).
  std::vector<std::int64_t> agree(const std::string& where, const std::vector<std::int64_t>& v) {
    std::vector<std::int64_t> all(2 * v.size());
    for (std::size_t i = 0; i < v.size(); ++i) all[i] = v[i], all[v.size() + i] = -v[i];
    if (ranks == 1) return all;
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_INT64_T, MPI_MAX,
                   agreement, &request);
    const double start = now_seconds();
    for (long polls = 0;; ++polls) {
      int done = 0;
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done) return all;
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
  const std::uint64_t comm_id = id();
  const std::vector<std::int64_t> mine = {static_cast<std::int64_t>(collective),
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
                                          in_place ? 1 : 0};
  const std::vector<std::int64_t> all = ctx.agree(here, mine);
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

  const std::size_t esize = size_of(type);
  Context::Key key{comm_id,           static_cast<int>(collective), 0, esize, n, root, peer,
                   ctx.min_tile_bytes};
  if (p == 1) {
    algorithm = Algorithm::tree;
  } else if (algorithm == Algorithm::automatic) {
    auto it = ctx.chosen.find(key);
    if (it == ctx.chosen.end())
      it = ctx.chosen
               .emplace(key, choose_algorithm(rt.target(), groups_, collective, type, n, root, peer,
                                              ctx.min_tile_bytes))
               .first;
    algorithm = it->second;
  }
  if (collective == Collective::send_recv) algorithm = Algorithm::tree;
  if (algorithm == Algorithm::hierarchical &&
      (collective != Collective::all_reduce || block_ <= 1 || block_ >= p))
    algorithm = Algorithm::ring;  // what make_schedule runs then: say so in the report
  std::get<2>(key) = static_cast<int>(algorithm);
  const std::string label =
      "comm." + name_ + "." + to_string(collective) + "." + to_string(algorithm);

  auto found = ctx.compiled.find(key);
  if (found == ctx.compiled.end()) {
    // Every rank makes the same calls, so every rank's cache holds the same entries.
    if (ctx.compiled.size() >= 64) ctx.compiled.clear();
    const Target& t = rt.target();
    auto c = std::make_unique<Context::Compiled>(
        Context::Compiled{Layout(n, p, tiles_for(t, n * esize, ctx.min_tile_bytes)),
                          make_schedule(collective, algorithm, p, root, peer, block_),
                          {},
                          {},
                          false});
    const Layout& layout = c->layout;
    c->combines.assign(c->steps.size(),
                       std::vector<std::vector<Combine>>(static_cast<std::size_t>(p)));
    for (std::size_t s = 0; s < c->steps.size(); ++s) {
      ExchangePlanBuilder b(label + ".step" + std::to_string(s));
      for (const auto& group : groups_)
        for (const Transfer& tr : c->steps[s].transfers) {
          const int from = group[static_cast<std::size_t>(tr.source)] * t.tiles_per_ipu;
          const int to = group[static_cast<std::size_t>(tr.destination)] * t.tiles_per_ipu;
          for (int k = 0; k < layout.tiles(); ++k) {
            const std::size_t at = layout.piece_offset(k, tr.first_chunk) * esize;
            const std::size_t bytes = layout.piece_offset(k, tr.last_chunk) * esize - at;
            if (bytes > 0)
              b.copy(ctx.data, from + k, at, tr.combine ? ctx.incoming : ctx.data, to + k, at,
                     bytes);
          }
        }
      for (const Transfer& tr : c->steps[s].transfers)
        if (tr.combine) {
          c->combines[s][static_cast<std::size_t>(tr.destination)].push_back(
              {tr.first_chunk, tr.last_chunk, tr.incoming_first});
          c->uses_incoming = true;
        }
      c->plans.push_back(rt.compile(b));
    }
    found = ctx.compiled.emplace(key, std::move(c)).first;
  }
  const Context::Compiled& plan = *found->second;
  const Layout& layout = plan.layout;
  const std::size_t steps = plan.steps.size();
  const KernelCost kernel = combine_cost(type);
  const int first_local = local.front();

  // Copies chunks [c0, c1) of tile k's slice between its piece and a user buffer whose
  // element 0 is element `shift` of the member's whole buffer.
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
  // Copies the results of one tile out to the user's buffers.
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
  // Superstep s loads (s = 0) or combines what step s-1 delivered, then runs step s.
  // A last superstep is needed only to combine what the last step delivered.
  const bool combine_at_end =
      steps == 0 || std::any_of(plan.combines.back().begin(), plan.combines.back().end(),
                                [](const std::vector<Combine>& c) { return !c.empty(); });
  const std::size_t supersteps = combine_at_end ? steps + 1 : steps;
  for (std::size_t s = 0; s < supersteps; ++s) {
    auto body = [&](Tile& t) {
      const int k = t.id_on_ipu();
      if (k >= layout.tiles()) return;
      const int ipu = t.ipu();
      const auto i = static_cast<std::size_t>(ipu - first_local);
      const int r = rank_of_ipu(ipu);
      if (s == 0) {
        const std::size_t size = layout.piece_offset(k, p) * esize;
        t.resize(ctx.data, size);
        if (plan.uses_incoming) t.resize(ctx.incoming, size);
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
      } else {
        std::byte* mine = t.get(ctx.data).data();
        const std::byte* in = t.get(ctx.incoming).data();
        std::size_t combined = 0;
        for (const Combine& c : plan.combines[s - 1][static_cast<std::size_t>(r)]) {
          const std::size_t at = layout.piece_offset(k, c.first_chunk);
          const std::size_t length = layout.piece_offset(k, c.last_chunk) - at;
          detail::combine(type, op, mine + at * esize, in + at * esize, length, c.incoming_first);
          combined += length;
        }
        if (combined > 0) t.charge(kernel, combined);
      }
      if (s == steps) unload(t);
    };
    if (s < steps)
      rt.superstep(label, body, {&plan.plans[s]});
    else
      rt.superstep(label, body);
  }
  // Otherwise the host reads the results straight from the tiles after the last
  // exchange, as it streams data off an IPU: no superstep (and no sync) for it.
  if (!combine_at_end)
    for (const auto& tile : rt.local_tiles())
      if (tile->id_on_ipu() < layout.tiles()) unload(*tile);
  return report(algorithm);
}

}  // namespace tessera::comm
