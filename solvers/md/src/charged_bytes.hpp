// Bytes a tile holds outside its TileVectors (a pair style's models and tables, scratch), kept
// charged to the tile's memory: set() charges or releases the difference; the destructor
// releases the rest. One tile's, used by the thread running it (TileMemory's rule).
#pragma once

#include <cstddef>

#include "tessera/core/tile_memory.hpp"

namespace tessera::md {

class ChargedBytes {
 public:
  ChargedBytes(TileMemory& memory, const char* label) : memory_(memory), label_(label) {}
  ChargedBytes(const ChargedBytes&) = delete;
  ChargedBytes& operator=(const ChargedBytes&) = delete;
  ~ChargedBytes() { memory_.release(bytes_, label_); }
  void set(std::size_t bytes) {
    if (bytes > bytes_)
      memory_.charge(bytes - bytes_, label_);
    else
      memory_.release(bytes_ - bytes, label_);
    bytes_ = bytes;
  }

 private:
  TileMemory& memory_;
  const char* label_;
  std::size_t bytes_ = 0;
};

}  // namespace tessera::md
