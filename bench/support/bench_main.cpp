// The main of Tessera's Google Benchmark programs: MPI for the program's
// lifetime (the runtime needs it), then the benchmarks chosen on the command line.
#include <benchmark/benchmark.h>

#include "tessera/core/environment.hpp"

int main(int argc, char** argv) {
  tessera::Environment env(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
