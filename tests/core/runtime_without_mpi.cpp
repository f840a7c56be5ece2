// Builds a tessera::Runtime in a plain main(), where nothing has initialised MPI, as a
// research code that forgot tessera::run_main would: the constructor must throw a
// tessera::Error saying what to do, not let MPI abort the process.
//   runtime_without_mpi [target|options]   the Runtime(Target) or Runtime(RuntimeOptions) form
#include <cstdio>
#include <string>

#include "tessera/core/error.hpp"
#include "tessera/core/runtime.hpp"

int main(int argc, char** argv) {
  const std::string form = argc > 1 ? argv[1] : "target";
  try {
    if (form == "options") {
      tessera::RuntimeOptions options;
      options.target = "host";
      tessera::Runtime runtime(options);
    } else {
      tessera::Runtime runtime(tessera::Target::preset("host"), 1);
    }
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "ERROR: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "the runtime was built without MPI\n");
  return 2;
}
