#include "tessera/core/host_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>

#include "tessera/core/error.hpp"
#include "tessera/core/format.hpp"

namespace tessera {
namespace {

struct Limit {
  std::uint64_t bytes = std::numeric_limits<std::uint64_t>::max();
  std::string name = "no limit";
};

Limit least_limit() {
  Limit best;
  auto consider = [&](std::uint64_t bytes, const char* name) {
    if (bytes < best.bytes) best = {bytes, name};
  };
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0)
    consider(static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page),
             "the machine's physical memory");
  rlimit l{};
  if (getrlimit(RLIMIT_AS, &l) == 0 && l.rlim_cur != RLIM_INFINITY)
    consider(l.rlim_cur, "the address-space limit, ulimit -v");
  if (getrlimit(RLIMIT_DATA, &l) == 0 && l.rlim_cur != RLIM_INFINITY)
    consider(l.rlim_cur, "the data limit, ulimit -d");
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::string text;
  if (cgroup >> text && text != "max") {
    try {
      consider(std::stoull(text), "the cgroup's memory.max");
    } catch (const std::exception&) {
      // Not a number: no cgroup limit to consider.
    }
  }
  return best;
}

}  // namespace

std::uint64_t host_memory_bytes() { return least_limit().bytes; }

void require_host_memory(double bytes, const std::string& what, const std::string& advice) {
  const Limit limit = least_limit();
  if (!(bytes > static_cast<double>(limit.bytes))) return;
  throw ConfigError(what + " needs at least " + format_bytes(bytes) +
                    " of host memory, more than the " +
                    format_bytes(static_cast<double>(limit.bytes)) + " this process can have (" +
                    limit.name + "); " + advice);
}

}  // namespace tessera
