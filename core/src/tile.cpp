#include "tessera/core/tile.hpp"

namespace tessera {

Tile::Tile(const Target& target, int id)
    : target_(&target), id_(id), memory_(id, target.tile_memory_bytes) {}

void Tile::post(int destination, std::span<const std::byte> bytes) {
  Outgoing m{destination, make_vector<std::byte>("exchange.outbox", bytes.size())};
  if (!bytes.empty()) std::memcpy(m.payload.data(), bytes.data(), bytes.size());
  outbox_.push_back(std::move(m));
}

}  // namespace tessera
