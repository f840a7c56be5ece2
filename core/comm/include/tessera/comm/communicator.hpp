// Communicator: GCL-like collectives over the simulated IPUs of a Runtime's target.
//
// A communicator splits the target's IPUs into groups of equal size (MPI's
// communicator, GCL's replica groups): the world is one group of every IPU;
// split() makes groups of every k-th IPU (Grouping::orthogonal) or of
// contiguous blocks (Grouping::consecutive). An IPU's rank is its position in
// its group. A collective runs in every group at once, each group on its own.
//
// Calls are collective over the runtime's MPI ranks: every rank calls the same
// collective with one buffer per IPU it hosts, in the order of local_ipus()
// (a rank must host whole IPUs). Inside a process the data moves through the
// runtime's exchange plans, tile to tile; between processes the runtime sends it
// with non-blocking MPI point-to-point messages. Each member's buffer is spread
// over the tiles of its IPU (schedule.hpp), and every step is one superstep.
// An all-reduce works in the user's buffers (recv, or data in place), which must not
// overlap; a call's plans are compiled once per size, and its steps run one tile group
// at a time, without a cross-rank agreement per step (docs/comm.md, "How a collective
// runs"). On a spread() communicator a small all-reduce takes one round of messages
// (a few rounds of eager-sized messages from about 4 KB to 16 KB per rank).
//
// Semantics of the buffers (n = elements per member, p = group size, r = rank):
//   all_reduce      send n, recv n                     every member gets op over members
//   reduce_scatter  send p*c, recv c                   member r gets block r of the reduction
//   all_gather      send c, recv p*c                   block q of recv is member q's send
//   broadcast       data n                             the root's data overwrites the others
//   reduce          send n, recv n at the root only    the root gets op over members
//   send_recv       count n                            source's send -> destination's recv
// In-place forms follow NCCL: reduce_scatter(data) leaves member r's result in block r
// of data, all_gather(data) takes member r's contribution from block r of data. A
// member that does not read or write a buffer (reduce's non-roots' recv, send_recv's
// bystanders) may pass an empty span.
//
// Determinism: the reduction order is fixed by the algorithm, p, the root and the
// groups' link-domain blocks (schedule.hpp), so results are bitwise identical for any thread and
// rank count; every member of a group receives the same bits. Algorithm::automatic picks ring, tree
// or (for an all-reduce across link domains) hierarchical by the cost model's estimate for this
// size on this target; a hierarchical request that does not apply runs, and is reported, as ring.
//
// Errors: members that disagree on the collective, type, operation, root or size,
// or pass buffers of the wrong size, make every rank throw the same CommError. The
// ranks agree on each call with a non-blocking MPI reduction polled against a
// deadline (timeout(), 60 s by default): a rank that never joins (it exited, failed
// or called something else) makes the others throw a CommError naming the
// communicator and the operation, which run_main reports before ending the job.
//
// Cost: each call's steps are supersteps of the runtime, recorded in its profile
// as "comm.<name>.<collective>.<algorithm>"; the call returns its simulated time.
// A Communicator must not outlive its Runtime.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/comm/schedule.hpp"
#include "tessera/core/cost_model.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/runtime.hpp"

namespace tessera::comm {

enum class Grouping {
  consecutive,  // groups of contiguous members: {0..k-1}, {k..2k-1}, ...
  orthogonal,   // groups of every (size/k)-th member: {0, g, 2g, ...}, {1, g+1, ...}
};

// One buffer per IPU hosted by this rank, in the order of Communicator::local_ipus().
template <class T>
using PerIpu = std::span<const std::span<T>>;

// What one call did, the same on every rank.
struct CallReport {
  Algorithm algorithm = Algorithm::tree;
  int supersteps = 0;
  SuperstepCost cost;            // the sum of the call's supersteps
  double simulated_seconds = 0;  // on the target, by the cost model
  double wall_seconds = 0;       // on this host
};

class Communicator {
 public:
  // All IPUs of the runtime's target, one group. Collective over the runtime's ranks.
  static Communicator world(Runtime& runtime);

  // Splits every group of this communicator into groups of `size` members.
  // Throws ConfigError unless `size` divides this communicator's size.
  Communicator split(Grouping grouping, int size, std::string name) const;

  const std::string& name() const { return name_; }
  int size() const { return size_; }  // members per group
  int groups() const { return static_cast<int>(groups_.size()); }
  int group_of_ipu(int ipu) const { return group_of_ipu_[static_cast<std::size_t>(ipu)]; }
  int rank_of_ipu(int ipu) const { return rank_of_ipu_[static_cast<std::size_t>(ipu)]; }
  int ipu(int group, int rank) const {
    return groups_[static_cast<std::size_t>(group)][static_cast<std::size_t>(rank)];
  }
  const std::vector<std::vector<int>>& group_table() const { return groups_; }
  // Whether every group's members are on different MPI ranks: then no data moves inside a
  // process, the ranks agree on each call point to point, and a small ring or tree
  // all-reduce (<= 64 KiB per rank) travels with that agreement: one round of messages
  // (from about 4 KB to 16 KB per rank, a few rounds of eager-sized messages).
  bool spread() const { return spread_; }
  // The IPUs hosted by this MPI rank, ascending: the order of every PerIpu argument.
  const std::vector<int>& local_ipus() const;
  Runtime& runtime() const;

  // Seconds a rank waits for the others to join a call before it gives up (shared by
  // the communicators split from one world).
  void set_timeout(double seconds);
  double timeout() const;
  // The least bytes per tile a member's buffer is spread over (schedule.hpp, tiles_for;
  // shared like the timeout). Must be the same on every rank.
  void set_min_tile_bytes(std::uint64_t bytes);
  std::uint64_t min_tile_bytes() const;

  template <class T>
  CallReport all_reduce(PerIpu<const T> send, PerIpu<T> recv, Op op,
                        Algorithm algorithm = Algorithm::automatic) {
    return run(Collective::all_reduce, data_type_of<T>(), op, algorithm, 0, 0, 0, bytes(send),
               bytes(recv), false);
  }
  template <class T>
  CallReport all_reduce(PerIpu<T> data, Op op, Algorithm algorithm = Algorithm::automatic) {
    return run(Collective::all_reduce, data_type_of<T>(), op, algorithm, 0, 0, 0, bytes(data),
               bytes(data), true);
  }
  template <class T>
  CallReport reduce_scatter(PerIpu<const T> send, PerIpu<T> recv, Op op,
                            Algorithm algorithm = Algorithm::automatic) {
    return run(Collective::reduce_scatter, data_type_of<T>(), op, algorithm, 0, 0, 0, bytes(send),
               bytes(recv), false);
  }
  template <class T>
  CallReport reduce_scatter(PerIpu<T> data, Op op, Algorithm algorithm = Algorithm::automatic) {
    return run(Collective::reduce_scatter, data_type_of<T>(), op, algorithm, 0, 0, 0, bytes(data),
               bytes(data), true);
  }
  template <class T>
  CallReport all_gather(PerIpu<const T> send, PerIpu<T> recv,
                        Algorithm algorithm = Algorithm::automatic) {
    return run(Collective::all_gather, data_type_of<T>(), Op::sum, algorithm, 0, 0, 0, bytes(send),
               bytes(recv), false);
  }
  template <class T>
  CallReport all_gather(PerIpu<T> data, Algorithm algorithm = Algorithm::automatic) {
    return run(Collective::all_gather, data_type_of<T>(), Op::sum, algorithm, 0, 0, 0, bytes(data),
               bytes(data), true);
  }
  template <class T>
  CallReport broadcast(int root, PerIpu<T> data, Algorithm algorithm = Algorithm::automatic) {
    return run(Collective::broadcast, data_type_of<T>(), Op::sum, algorithm, root, 0, 0,
               bytes(data), bytes(data), true);
  }
  template <class T>
  CallReport reduce(int root, PerIpu<const T> send, PerIpu<T> recv, Op op,
                    Algorithm algorithm = Algorithm::automatic) {
    return run(Collective::reduce, data_type_of<T>(), op, algorithm, root, 0, 0, bytes(send),
               bytes(recv), false);
  }
  template <class T>
  CallReport reduce(int root, PerIpu<T> data, Op op, Algorithm algorithm = Algorithm::automatic) {
    return run(Collective::reduce, data_type_of<T>(), op, algorithm, root, 0, 0, bytes(data),
               bytes(data), true);
  }
  // In every group, member `source` sends `count` elements to member `destination`.
  template <class T>
  CallReport send_recv(int source, int destination, std::size_t count, PerIpu<const T> send,
                       PerIpu<T> recv) {
    return run(Collective::send_recv, data_type_of<T>(), Op::sum, Algorithm::tree, source,
               destination, count, bytes(send), bytes(recv), false);
  }
  // Every member of every group has arrived (one cross-IPU sync).
  CallReport barrier();

  struct Context;  // shared by a world and the communicators split from it

 private:
  // A short list kept inline up to 8 entries (the usual 1-4 IPUs per rank), so that a
  // call's arguments cost no allocation; longer lists go to the heap.
  template <class V>
  class Few {
   public:
    void push_back(V v) {
      if (size_ < inline_.size()) {
        inline_[size_] = v;
      } else {
        if (heap_.empty()) heap_.assign(inline_.begin(), inline_.end());
        heap_.push_back(v);
      }
      ++size_;
    }
    std::size_t size() const { return size_; }
    V operator[](std::size_t i) const { return size_ <= inline_.size() ? inline_[i] : heap_[i]; }

   private:
    std::array<V, 8> inline_{};
    std::vector<V> heap_;
    std::size_t size_ = 0;
  };
  struct Bytes {
    Few<std::byte*> data;
    Few<std::size_t> elements;
  };
  template <class T>
  static Bytes bytes(PerIpu<T> buffers) {
    Bytes b;
    for (const auto& s : buffers) {
      b.data.push_back(const_cast<std::byte*>(reinterpret_cast<const std::byte*>(s.data())));
      b.elements.push_back(s.size());
    }
    return b;
  }
  // A call, phase by phase (communicator.cpp): describe() what this rank's members ask
  // for, agree() with the other ranks (the fields, and the data of a spread small
  // all-reduce), check() the agreement (every rank throws the same CommError), then
  // prepare_pieces() and fold_packets() or run_supersteps().
  CallReport run(Collective collective, DataType type, Op op, Algorithm algorithm, int root,
                 int peer, std::size_t count, const Bytes& send, const Bytes& recv, bool in_place);
  struct Compiled;   // a call's layout, schedule and exchange plans, cached in the Context
  struct CallPlan;   // what one kind of call runs, found without string or map work
  struct Request;    // run()'s arguments
  struct Fields;     // what a rank's members ask for: the agreement's fields, by name
  struct Agreement;  // the fields' maxima and minima over the ranks
  struct Pieces;     // where a compiled call's data lies on the tiles
  Fields describe(const Request& q) const;
  Agreement agree(const Request& q, const Fields& mine, CallPlan*& call) const;
  std::size_t check(const Request& q, const Agreement& all) const;  // the elements n
  void prepare_pieces(const Request& q, const CallPlan& call, const Compiled& plan,
                      std::size_t n) const;
  void fold_packets(const Request& q, Algorithm algorithm, const Layout& layout,
                    std::size_t n) const;
  void run_supersteps(const Request& q, const CallPlan& call, const Compiled& plan) const;
  std::unique_ptr<Compiled> compile(Collective collective, Algorithm algorithm, std::size_t esize,
                                    std::size_t n, int root, int peer,
                                    const std::string& label) const;
  std::string where(Collective collective) const;
  std::uint64_t hash() const;

  std::shared_ptr<Context> context_;
  std::string name_;
  int size_ = 1;
  std::vector<std::vector<int>> groups_;  // IPUs of each group, in rank order
  std::vector<int> group_of_ipu_, rank_of_ipu_;
  int block_ = 0;         // link_domain_block of the groups
  bool spread_ = false;   // every group's members are on different MPI ranks
  std::uint64_t id_ = 0;  // hash() of the name and groups, to tell communicators apart
};

}  // namespace tessera::comm
