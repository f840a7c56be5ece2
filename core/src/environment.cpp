#include "tessera/core/environment.hpp"

#include <cstdio>
#include <exception>
#include <thread>

#include "tessera/core/error.hpp"

namespace tessera {

Environment::Environment(int& argc, char**& argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    owns_mpi_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Environment::~Environment() {
  if (owns_mpi_) MPI_Finalize();
}

int run_main(int argc, char** argv, const std::function<int(int, char**)>& body) {
  Environment env(argc, argv);
  std::string message;
  bool collective = false;
  try {
    return body(argc, argv);
  } catch (const Error& e) {
    message = e.what();
    collective = e.collective();
  } catch (const std::exception& e) {
    message = e.what();
  }
  if (collective) {
    if (env.rank() == 0) std::fprintf(stderr, "ERROR: %s\n", message.c_str());
    return 1;
  }
  if (env.size() > 1) {
    std::fprintf(stderr, "ERROR on rank %d: %s\n", env.rank(), message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::fprintf(stderr, "ERROR: %s\n", message.c_str());
  return 1;
}

void require_mpi(const std::string& who) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized)
    throw Error(who +
                " needs MPI, which is not initialised: build it inside "
                "tessera::run_main(argc, argv, body), which initialises MPI for the body, or "
                "keep a tessera::Environment(argc, argv) alive around it, or call MPI_Init_thread "
                "before it");
  if (finalized)
    throw Error(who +
                " needs MPI, which is already finalised: build and destroy it inside "
                "tessera::run_main's body (or before MPI_Finalize)");
}

int default_threads(MPI_Comm comm) {
  require_mpi("tessera::default_threads");
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local_ranks = 1;
  MPI_Comm_size(node, &local_ranks);
  MPI_Comm_free(&node);
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, (hardware > 0 ? hardware : 1) / local_ranks);
}

}  // namespace tessera
