#include "tessera/core/tile_memory.hpp"

#include <algorithm>
#include <sstream>

#include "tessera/core/error.hpp"
#include "tessera/core/format.hpp"

namespace tessera {

void TileMemory::charge(std::size_t bytes, const char* label) {
  if (budget_ != 0 && bytes > budget_ - used_) {
    std::ostringstream msg;
    msg << "tile " << tile_ << " is out of memory: '" << label << "' asked for "
        << format_bytes(bytes) << " with " << format_bytes(used_) << " of its "
        << format_bytes(budget_) << " in use.\n"
        << report()
        << "Use fewer bytes per tile: a smaller problem, more tiles (--tiles-per-ipu, --ipus),"
           " or a larger --tile-memory.";
    throw TileOutOfMemory(msg.str(), tile_, budget_, bytes);
  }
  used_ += bytes;
  high_water_ = std::max(high_water_, used_);
  auto it = by_label_.find(std::string_view(label));
  if (it == by_label_.end()) it = by_label_.emplace(label, 0).first;
  it->second += bytes;
}

void TileMemory::release(std::size_t bytes, const char* label) noexcept {
  used_ -= bytes;
  auto it = by_label_.find(std::string_view(label));
  if (it != by_label_.end()) {
    it->second -= bytes;
    if (it->second == 0) by_label_.erase(it);
  }
}

std::vector<std::pair<std::string, std::size_t>> TileMemory::largest(std::size_t n) const {
  std::vector<std::pair<std::string, std::size_t>> out(by_label_.begin(), by_label_.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (out.size() > n) out.resize(n);
  return out;
}

std::string TileMemory::report() const {
  std::ostringstream out;
  out << "memory of tile " << tile_ << ": budget "
      << (budget_ == 0 ? std::string("unlimited") : format_bytes(budget_)) << ", in use "
      << format_bytes(used_) << ", high-water mark " << format_bytes(high_water_) << "\n";
  const auto top = largest(5);
  if (top.empty()) out << "  (no allocations)\n";
  for (const auto& [label, bytes] : top)
    out << "  " << format_bytes(bytes) << "  " << label << "\n";
  return out.str();
}

}  // namespace tessera
