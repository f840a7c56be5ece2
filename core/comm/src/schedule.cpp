#include "tessera/comm/schedule.hpp"

#include <algorithm>

#include "tessera/core/error.hpp"

namespace tessera::comm {

const char* to_string(Op op) {
  switch (op) {
    case Op::sum:
      return "sum";
    case Op::product:
      return "product";
    case Op::max:
      return "max";
    case Op::min:
      return "min";
  }
  return "?";
}

const char* to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::automatic:
      return "automatic";
    case Algorithm::ring:
      return "ring";
    case Algorithm::tree:
      return "tree";
    case Algorithm::hierarchical:
      return "hierarchical";
  }
  return "?";
}

const char* to_string(Collective collective) {
  switch (collective) {
    case Collective::all_reduce:
      return "all_reduce";
    case Collective::reduce_scatter:
      return "reduce_scatter";
    case Collective::all_gather:
      return "all_gather";
    case Collective::broadcast:
      return "broadcast";
    case Collective::reduce:
      return "reduce";
    case Collective::send_recv:
      return "send_recv";
    case Collective::barrier:
      return "barrier";
  }
  return "?";
}

const char* to_string(DataType type) {
  switch (type) {
    case DataType::float32:
      return "float";
    case DataType::float64:
      return "double";
    case DataType::int32:
      return "int32";
    case DataType::int64:
      return "int64";
    case DataType::uint64:
      return "uint64";
  }
  return "?";
}

std::vector<Step> make_schedule(Collective collective, Algorithm algorithm, int p, int root,
                                int peer, int block) {
  std::vector<Step> steps;
  if (p <= 1) return steps;
  auto mod = [p](int x) { return ((x % p) + p) % p; };
  // Ring reduce-scatter: at step s member r passes its partial of chunk r-s-1 on to
  // r+1, which combines it as (incoming op own); member r ends with chunk r complete.
  auto ring_reduce_scatter = [&] {
    for (int s = 0; s < p - 1; ++s) {
      Step step;
      for (int r = 0; r < p; ++r)
        step.transfers.push_back({r, mod(r + 1), mod(r - s - 1), mod(r - s - 1) + 1, true, true});
      steps.push_back(std::move(step));
    }
  };
  // Ring all-gather: member r starts with chunk r and forwards chunk r-s at step s.
  auto ring_all_gather = [&] {
    for (int s = 0; s < p - 1; ++s) {
      Step step;
      for (int r = 0; r < p; ++r)
        step.transfers.push_back({r, mod(r + 1), mod(r - s), mod(r - s) + 1, false, false});
      steps.push_back(std::move(step));
    }
  };
  // Binomial reduce over members numbered q = r - root: at stride d, q absorbs q + d.
  auto tree_reduce = [&](int to) {
    for (int d = 1; d < p; d *= 2) {
      Step step;
      for (int q = d; q < p; q += 2 * d)
        step.transfers.push_back({mod(q + to), mod(q - d + to), 0, p, true, false});
      steps.push_back(std::move(step));
    }
  };
  // Binomial broadcast, the reverse: at stride d, every q that holds the data sends to q + d.
  auto tree_broadcast = [&](int from) {
    int top = 1;
    while (top * 2 < p) top *= 2;
    for (int d = top; d >= 1; d /= 2) {
      Step step;
      for (int q = 0; q + d < p; q += 2 * d)
        step.transfers.push_back({mod(q + from), mod(q + d + from), 0, p, false, false});
      steps.push_back(std::move(step));
    }
  };
  auto scatter = [&](int from) {
    Step step;
    for (int c = 0; c < p; ++c)
      if (c != from) step.transfers.push_back({from, c, c, c + 1, false, false});
    steps.push_back(std::move(step));
  };
  auto gather = [&](int to) {
    Step step;
    for (int c = 0; c < p; ++c)
      if (c != to) step.transfers.push_back({c, to, c, c + 1, false, false});
    steps.push_back(std::move(step));
  };
  // Hierarchical: member r = d * block + j is member j of block d; its buffer is cut into
  // `block` super-chunks of `blocks` chunks each (super-chunk j = chunks [j*blocks, ...)).
  const bool hierarchical = algorithm == Algorithm::hierarchical &&
                            collective == Collective::all_reduce && block > 1 && block < p &&
                            p % block == 0;
  if (hierarchical) {
    const int blocks = p / block;
    auto member = [&](int d, int j) { return ((d % blocks + blocks) % blocks) * block + j; };
    auto in_block = [&](int j) { return ((j % block) + block) % block; };
    auto across = [&](int d) { return ((d % blocks) + blocks) % blocks; };
    // Inside each block: reduce-scatter of the super-chunks; member j keeps super-chunk j.
    for (int s = 0; s < block - 1; ++s) {
      Step step;
      for (int d = 0; d < blocks; ++d)
        for (int j = 0; j < block; ++j) {
          const int sc = in_block(j - s - 1);
          step.transfers.push_back({member(d, j), member(d, in_block(j + 1)), sc * blocks,
                                    (sc + 1) * blocks, true, true});
        }
      steps.push_back(std::move(step));
    }
    // Across blocks: ring all-reduce of super-chunk j among the j-th members of the blocks.
    for (int phase = 0; phase < 2; ++phase)
      for (int s = 0; s < blocks - 1; ++s) {
        Step step;
        for (int d = 0; d < blocks; ++d)
          for (int j = 0; j < block; ++j) {
            const int c = j * blocks + across(phase == 0 ? d - s - 1 : d - s);
            step.transfers.push_back(
                {member(d, j), member(d + 1, j), c, c + 1, phase == 0, phase == 0});
          }
        steps.push_back(std::move(step));
      }
    // Inside each block: all-gather of the super-chunks.
    for (int s = 0; s < block - 1; ++s) {
      Step step;
      for (int d = 0; d < blocks; ++d)
        for (int j = 0; j < block; ++j) {
          const int sc = in_block(j - s);
          step.transfers.push_back({member(d, j), member(d, in_block(j + 1)), sc * blocks,
                                    (sc + 1) * blocks, false, false});
        }
      steps.push_back(std::move(step));
    }
    return steps;
  }
  const bool ring = algorithm == Algorithm::ring || algorithm == Algorithm::hierarchical;
  switch (collective) {
    case Collective::all_reduce:
      if (ring) {
        ring_reduce_scatter(), ring_all_gather();
      } else {
        tree_reduce(0), tree_broadcast(0);
      }
      break;
    case Collective::reduce_scatter:
      if (ring) {
        ring_reduce_scatter();
      } else {
        tree_reduce(0), scatter(0);
      }
      break;
    case Collective::all_gather:
      if (ring) {
        ring_all_gather();
      } else {
        gather(0), tree_broadcast(0);
      }
      break;
    case Collective::broadcast:
      if (ring) {
        scatter(root), ring_all_gather();
      } else {
        tree_broadcast(root);
      }
      break;
    case Collective::reduce:
      if (ring) {
        ring_reduce_scatter(), gather(root);
      } else {
        tree_reduce(root);
      }
      break;
    case Collective::send_recv:
      if (root != peer) steps.push_back({{{root, peer, 0, p, false, false}}});
      break;
    case Collective::barrier:
      break;
  }
  return steps;
}

int link_domain_block(const Target& target, const std::vector<std::vector<int>>& groups) {
  if (groups.empty() || groups.front().size() < 2) return 0;
  const int p = static_cast<int>(groups.front().size());
  auto domain = [&](int ipu) { return ipu / target.ipus_per_link_domain; };
  int block = 1;
  while (block < p && domain(groups[0][static_cast<std::size_t>(block)]) == domain(groups[0][0]))
    ++block;
  if (p % block != 0) return 0;
  for (const auto& g : groups)
    for (int r = 0; r < p; ++r)
      for (int q = 0; q < p; ++q)
        if ((domain(g[static_cast<std::size_t>(r)]) == domain(g[static_cast<std::size_t>(q)])) !=
            (r / block == q / block))
          return 0;
  return block;
}

Layout::Layout(std::size_t n, int chunks, int tiles, bool tile_major)
    : n_(n), chunks_(chunks), tiles_(tiles), tile_major_(tile_major) {
  const auto stride = static_cast<std::size_t>(chunks) + 1;
  const auto p = static_cast<std::size_t>(chunks);
  offsets_.resize(static_cast<std::size_t>(tiles) * stride);
  chunk_total_.assign(stride, 0);
  for (int k = 0; k < tiles; ++k) {
    const std::size_t slice = tile_begin(k + 1) - tile_begin(k);  // tile-major
    std::size_t at = 0;
    for (int c = 0; c < chunks; ++c) {
      offsets_[static_cast<std::size_t>(k) * stride + static_cast<std::size_t>(c)] = at;
      const std::size_t length = tile_major ? slice * (static_cast<std::size_t>(c) + 1) / p -
                                                  slice * static_cast<std::size_t>(c) / p
                                            : slice_begin(c, k + 1) - slice_begin(c, k);
      chunk_total_[static_cast<std::size_t>(c) + 1] += length;
      at += length;
    }
    offsets_[static_cast<std::size_t>(k) * stride + static_cast<std::size_t>(chunks)] = at;
  }
  for (std::size_t c = 1; c < stride; ++c) chunk_total_[c] += chunk_total_[c - 1];
}

std::size_t Layout::chunk_begin(int c) const {
  return n_ * static_cast<std::size_t>(c) / static_cast<std::size_t>(chunks_);
}

std::size_t Layout::tile_begin(int k) const {
  return n_ * static_cast<std::size_t>(k) / static_cast<std::size_t>(tiles_);
}

std::size_t Layout::slice_begin(int c, int k) const {
  if (tile_major_) {
    // Only reached for k < tiles: tile k's part of chunk c lies at its piece offset.
    return tile_begin(k) + (tile_begin(k + 1) - tile_begin(k)) * static_cast<std::size_t>(c) /
                               static_cast<std::size_t>(chunks_);
  }
  const std::size_t length = chunk_begin(c + 1) - chunk_begin(c);
  return chunk_begin(c) + length * static_cast<std::size_t>(k) / static_cast<std::size_t>(tiles_);
}

Layout layout_for(Collective collective, std::size_t n, int p, int tiles) {
  return Layout(n, p, tiles, collective == Collective::all_reduce);
}

int tiles_for(const Target& target, std::uint64_t bytes, std::uint64_t min_tile_bytes) {
  const std::uint64_t grain = std::max<std::uint64_t>(min_tile_bytes, 1);
  const std::uint64_t wanted = (bytes + grain - 1) / grain;
  return static_cast<int>(
      std::clamp<std::uint64_t>(wanted, 1, static_cast<std::uint64_t>(target.tiles_per_ipu)));
}

std::vector<SuperstepCost> superstep_costs(const Target& target,
                                           const std::vector<std::vector<int>>& groups,
                                           Collective collective, Algorithm algorithm,
                                           DataType type, std::size_t n, int root, int peer,
                                           std::uint64_t min_tile_bytes) {
  if (groups.empty() || groups.front().empty())
    throw ConfigError("comm::estimate needs at least one group of at least one IPU");
  const int p = static_cast<int>(groups.front().size());
  const std::vector<Step> steps =
      make_schedule(collective, algorithm, p, root, peer, link_domain_block(target, groups));
  const std::size_t esize = size_of(type);
  const int tiles = tiles_for(target, n * esize, min_tile_bytes);
  // Every tile of a member carries its share of each transfer to the same tile of the
  // partner, all in parallel: a transfer is `tiles` tile pairs of one fragment each
  // (TrafficTally::add_spread), and as many blocks leave the IPU. The tally needs one tile
  // per IPU to stand for them.
  Target per_ipu = target;
  per_ipu.tiles_per_ipu = 1;
  TrafficTally tally(per_ipu);
  const KernelWork kernel = combine_work(type);
  const Layout layout = layout_for(collective, n, p, tiles);
  auto elements = [&](int first, int last) { return layout.chunk_elements(first, last); };
  std::vector<std::size_t> combined(static_cast<std::size_t>(p), 0);  // per member, this step
  // As the Communicator runs it: a last superstep only if the last step combines.
  bool combine_at_end = steps.empty();
  if (!steps.empty())
    for (const Transfer& t : steps.back().transfers) combine_at_end = combine_at_end || t.combine;
  const std::size_t supersteps = combine_at_end ? steps.size() + 1 : steps.size();
  std::vector<SuperstepCost> costs(supersteps);
  for (std::size_t s = 0; s < supersteps; ++s) {
    SuperstepCost& c = costs[s];
    // The combine of what the last step delivered, on the tile with the largest share.
    const std::size_t most = *std::max_element(combined.begin(), combined.end());
    if (most > 0 && target.kind == TargetKind::ipu)
      c.compute_cycles = static_cast<double>(
          estimate_cycles(target, kernel, (most + static_cast<std::size_t>(tiles) - 1) / tiles));
    c.sync_cycles = target.sync_cycles_ipu;
    std::fill(combined.begin(), combined.end(), 0);
    if (s < steps.size()) {
      std::fill(tally.counters().begin(), tally.counters().end(), 0);
      for (const auto& group : groups)
        for (const Transfer& t : steps[s].transfers)
          tally.add_spread(group[static_cast<std::size_t>(t.source)],
                           group[static_cast<std::size_t>(t.destination)],
                           elements(t.first_chunk, t.last_chunk) * esize, tiles);
      for (const Transfer& t : steps[s].transfers)
        if (t.combine)
          combined[static_cast<std::size_t>(t.destination)] +=
              elements(t.first_chunk, t.last_chunk);
      c.add_exchange(tally.cost());
    }
  }
  return costs;
}

Estimate estimate(const Target& target, const std::vector<std::vector<int>>& groups,
                  Collective collective, Algorithm algorithm, DataType type, std::size_t n,
                  int root, int peer, std::uint64_t min_tile_bytes) {
  Estimate e;
  for (const SuperstepCost& c : superstep_costs(target, groups, collective, algorithm, type, n,
                                                root, peer, min_tile_bytes)) {
    e.cost += c;
    e.seconds += c.seconds(target);
    ++e.supersteps;
  }
  return e;
}

Algorithm choose_algorithm(const Target& target, const std::vector<std::vector<int>>& groups,
                           Collective collective, DataType type, std::size_t n, int root, int peer,
                           std::uint64_t min_tile_bytes) {
  if (collective == Collective::send_recv || collective == Collective::barrier)
    return Algorithm::tree;
  const double ring =
      estimate(target, groups, collective, Algorithm::ring, type, n, root, peer, min_tile_bytes)
          .seconds;
  const double tree =
      estimate(target, groups, collective, Algorithm::tree, type, n, root, peer, min_tile_bytes)
          .seconds;
  Algorithm best = ring < tree ? Algorithm::ring : Algorithm::tree;
  const int block = link_domain_block(target, groups);
  if (collective == Collective::all_reduce && block > 1 &&
      block < static_cast<int>(groups.front().size())) {
    const double two_level = estimate(target, groups, collective, Algorithm::hierarchical, type, n,
                                      root, peer, min_tile_bytes)
                                 .seconds;
    if (two_level < std::min(ring, tree)) best = Algorithm::hierarchical;
  }
  return best;
}

}  // namespace tessera::comm
