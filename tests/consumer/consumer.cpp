// Sums the tile ids of a small simulated IPU through the installed Tessera.
#include <cstdio>
#include <tessera/core/environment.hpp>
#include <tessera/core/runtime.hpp>

int main(int argc, char** argv) {
  return tessera::run_main(argc, argv, [](int, char**) {
    tessera::Target target = tessera::Target::preset("gc200");
    target.tiles_per_ipu = 16;
    tessera::Runtime runtime(target, 1);
    const long sum = runtime.all_reduce<long>("sum", tessera::ReduceOp::sum,
                                              [](tessera::Tile& t) { return long{t.id()}; });
    std::printf("sum of tile ids %ld\n", sum);
    return sum == 120 ? 0 : 1;
  });
}
