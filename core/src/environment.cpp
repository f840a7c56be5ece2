#include "tessera/core/environment.hpp"

#include <dlfcn.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <thread>

#include "tessera/core/error.hpp"
#include "tessera/core/simd.hpp"

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

// How long a rank that stops on an error marked collective waits for the other ranks to stop
// with it. Errors are marked collective where the ranks agreed on them, or where every rank
// met them on the same input (which rank 0 reads and sends to all, see shared_input.hpp); the
// others arrive here within moments. If one does not, the mark was wrong (a rank-local error
// taken for a collective one) and the others are waiting in some collective operation that
// this rank will never join: rather than let them wait forever, this rank reports the error
// as its own and aborts the job (LAMMPS's Error::one). An agreement step before every error
// (a collective that every rank must reach whatever it meets) would need every code path to
// reach it; this bounded wait costs nothing on the good path and catches what slips through.
constexpr double collective_error_wait_seconds = 10.0;

// True when every rank of `comm` reaches this call within `seconds`.
bool all_ranks_arrive(MPI_Comm comm, double seconds) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

[[noreturn]] void abort_job(int rank, const std::string& message) {
  std::fprintf(stderr, "ERROR on rank %d: %s\n", rank, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return
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
    // A bad TESSERA_SIMD stops the program here, on every rank, not later in a tile's kernel.
    try {
      simd_level();
    } catch (Error& e) {
      e.set_collective();
      throw;
    }
    return check_standard_output(body(argc, argv));
  } catch (const Error& e) {
    message = e.what();
    collective = e.collective();
  } catch (const std::exception& e) {
    message = e.what();
  }
  if (collective) {
    if (env.size() > 1 && !all_ranks_arrive(MPI_COMM_WORLD, collective_error_wait_seconds))
      abort_job(env.rank(), message + " (the other ranks did not stop with this error)");
    if (env.rank() == 0) std::fprintf(stderr, "ERROR: %s\n", message.c_str());
    return 1;
  }
  if (env.size() > 1) abort_job(env.rank(), message);
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
