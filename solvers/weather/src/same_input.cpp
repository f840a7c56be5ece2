#include "tessera/weather/same_input.hpp"

#include <cstdint>
#include <cstring>

namespace tessera::weather {

namespace {
std::uint64_t fnv1a(const char* data, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t k = 0; k < n; ++k) {
    h ^= static_cast<unsigned char>(data[k]);
    h *= 0x100000001b3ULL;
  }
  return h ^ n;
}
}  // namespace

void require_same_input(MPI_Comm comm, const std::string& bytes, const std::string& what) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  if (ranks == 1) return;
  const std::uint64_t mine = fnv1a(bytes.data(), bytes.size());
  std::vector<std::uint64_t> all(static_cast<std::size_t>(ranks));
  MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm);
  std::string others;
  int count = 0;
  for (int r = 1; r < ranks; ++r)
    if (all[static_cast<std::size_t>(r)] != all[0]) {
      if (++count <= 8) others += (others.empty() ? "" : ", ") + std::to_string(r);
    }
  if (count == 0) return;
  if (count > 8) others += " and " + std::to_string(count - 8) + " more";
  ConfigError e(what + " differs between the MPI ranks: rank" + (count == 1 ? " " : "s ") + others +
                " read other data than rank 0 (each rank reads its inputs itself); " +
                "give every rank the same file");
  e.set_collective();
  throw e;
}

void require_same_input(MPI_Comm comm, const std::vector<double>& values, const std::string& what) {
  std::string bytes(values.size() * sizeof(double), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  require_same_input(comm, bytes, what);
}

}  // namespace tessera::weather
