#include "tessera/core/host_memory.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

namespace tessera {

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  std::uint64_t bytes = pages > 0 && page > 0
                            ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                            : 0;
  // A container's limit: "max" or a number of bytes.
  std::ifstream limit("/sys/fs/cgroup/memory.max");
  std::string text;
  if (limit >> text && text != "max") {
    try {
      const std::uint64_t cap = std::stoull(text);
      if (cap > 0 && (bytes == 0 || cap < bytes)) bytes = cap;
    } catch (const std::exception&) {
    }
  }
  return bytes;
}

}  // namespace tessera
