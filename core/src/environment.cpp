#include "tessera/core/environment.hpp"

#include <dlfcn.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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

namespace {

// Standard output is a program's first output: a write to it that failed (a full disk, a
// closed terminal) fails the program, with the reason, rather than vanishing. Buffered
// output is flushed here, so that its errors are seen; the error flag keeps earlier ones.
// Returns the exit code.
int stdout_errno = 0;  // of the first failed flush_standard_output

int check_standard_output(int code) {
  flush_standard_output();
  if (!std::ferror(stdout)) return code;
  std::fprintf(stderr, "ERROR: writing standard output failed: %s\n",
               stdout_errno ? std::strerror(stdout_errno) : "a write failed earlier");
  return code == 0 ? 1 : code;
}

// HDF5 1.10, under NetCDF-4 files, crashes in its exit-time clean-up (a segmentation fault
// after the program's own ERROR line) once a write to a file has failed, on a full disk for
// one. Every Tessera writer closes its files itself, so that clean-up has nothing to do and
// is switched off, before HDF5 starts. H5dont_atexit is looked up at run time: core does not
// depend on HDF5, and a program without it finds nothing and changes nothing.
void keep_hdf5_from_cleaning_up_at_exit() {
  using Function = int (*)();
  if (auto f = reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, "H5dont_atexit"))) f();
}

}  // namespace

void flush_standard_output() {
  errno = 0;
  if (std::fflush(stdout) != 0 && stdout_errno == 0) stdout_errno = errno ? errno : EIO;
}

int run_main(int argc, char** argv, const std::function<int(int, char**)>& body) {
  keep_hdf5_from_cleaning_up_at_exit();
  Environment env(argc, argv);
  std::string message;
  bool collective = false;
  try {
    return check_standard_output(body(argc, argv));
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
