#include "tessera/core/shared_input.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace tessera {
namespace {

// MPI counts are ints: large inputs travel in pieces.
constexpr std::size_t piece_bytes = std::size_t{1} << 30;

void broadcast_string(MPI_Comm comm, int root, std::string& s) {
  unsigned long long size = s.size();
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, root, comm);
  s.resize(static_cast<std::size_t>(size));
  for (std::size_t at = 0; at < s.size(); at += piece_bytes) {
    const std::size_t n = std::min(piece_bytes, s.size() - at);
    MPI_Bcast(s.data() + at, static_cast<int>(n), MPI_CHAR, root, comm);
  }
}

// FNV-1a 64 over the arguments, each followed by a NUL so that ("ab", "c") != ("a", "bc").
std::uint64_t arguments_hash(int argc, char** argv) {
  std::uint64_t h = 1469598103934665603ULL;
  for (int i = 1; i < argc; ++i)
    for (const char* c = argv[i];; ++c) {
      h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ULL;
      if (*c == '\0') break;
    }
  return h;
}

}  // namespace

namespace {

// What read(), run on the root only, found, sent to every rank (collective).
template <class Read>
SharedFile share_from_root(MPI_Comm comm, int root, const Read& read) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  SharedFile f;
  if (rank == root) f = read();
  int ok = f.ok ? 1 : 0;
  MPI_Bcast(&ok, 1, MPI_INT, root, comm);
  f.ok = ok != 0;
  broadcast_string(comm, root, f.bytes);
  return f;
}

// The stream's bytes to its end, or why reading it failed.
SharedFile read_stream(std::istream& in) {
  SharedFile f;
  std::stringstream s;
  s << in.rdbuf();
  if (in.bad()) {
    f.bytes = std::strerror(errno);
  } else {
    f.bytes = s.str();
    f.ok = true;
  }
  return f;
}

}  // namespace

SharedFile read_on_root(MPI_Comm comm, const std::string& path, int root) {
  return share_from_root(comm, root, [&] {
    std::ifstream in(path, std::ios::binary);
    if (!in) return SharedFile{false, std::strerror(errno)};
    return read_stream(in);
  });
}

SharedFile read_stdin_on_root(MPI_Comm comm, int root) {
  return share_from_root(comm, root, [] {
    if (isatty(STDIN_FILENO)) return SharedFile{false, "standard input is a terminal"};
    return read_stream(std::cin);
  });
}

void require_same_arguments(MPI_Comm comm, int argc, char** argv, const std::string& program) {
  const std::uint64_t mine = arguments_hash(argc, argv);
  std::uint64_t lo = mine, hi = mine;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
  if (lo == hi) return;
  // Name the first rank whose arguments differ from rank 0's.
  std::uint64_t first = mine;
  MPI_Bcast(&first, 1, MPI_UINT64_T, 0, comm);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int differs = mine != first ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &differs, 1, MPI_INT, MPI_MIN, comm);
  ConfigError e("the MPI ranks were started with different command-line arguments (rank " +
                std::to_string(differs) + "'s differ from rank 0's): " + program +
                " runs one input on all its ranks and reads it on rank 0, so every rank must be "
                "given the same arguments; start it as mpirun -np N " +
                program + " ARGS...");
  e.set_collective();
  throw e;
}

std::string produce_on_root(MPI_Comm comm, const std::function<std::string()>& produce,
                            int root) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // 0: the bytes; 1, 2, 3: a ConfigError, FormatError or Error with this message.
  int kind = 0;
  std::string bytes;
  if (rank == root) {
    try {
      bytes = produce();
    } catch (const ConfigError& e) {
      kind = 1, bytes = e.what();
    } catch (const FormatError& e) {
      kind = 2, bytes = e.what();
    } catch (const std::exception& e) {
      kind = 3, bytes = e.what();
    }
  }
  MPI_Bcast(&kind, 1, MPI_INT, root, comm);
  broadcast_string(comm, root, bytes);
  if (kind == 1) throw ConfigError(bytes);
  if (kind == 2) throw FormatError(bytes);
  if (kind == 3) throw Error(bytes);
  return bytes;
}

}  // namespace tessera
