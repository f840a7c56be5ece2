#include "tessera/md/compute.hpp"

namespace tessera::md {

std::size_t Compute::modify(const std::vector<std::string>& words, std::size_t at) {
  throw ConfigError("compute_modify " + id() + ": compute " + style() + " has no keyword '" +
                    words[at] + "' (or it lacks its value)");
}

}  // namespace tessera::md
