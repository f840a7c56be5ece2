// comm_probe: whole-program checks of the collectives, for CTest.
//
//   --case checksum       runs collectives on random floats and prints a checksum of every
//                         IPU's result and the simulated time: the lines must be the same
//                         for any number of threads and MPI ranks.
//   --case early-exit     rank 1 leaves before an all_reduce; the others must time out
//                         with a message naming the communicator and the operation.
//   --case retry-after-timeout  the same, and rank 0 catches the timeout and calls again:
//                         it must be refused (the timed-out call's messages are still posted).
//   --case size-mismatch  rank r passes 100 + r elements; every rank must stop with the
//                         same error, printed once.
//   --communicator pairs  the last two on the groups {i, i + 6} of a 12-IPU target,
//                         which are spread over the ranks (agreement point to point, with
//                         the data) instead of the world.
//
//   mpirun -np 3 build-comm/tests/comm/comm_probe --target pod16 --ipus 12 --tiles-per-ipu 3
#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "tessera/comm/communicator.hpp"
#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/options.hpp"
#include "tessera/core/rng.hpp"

namespace {

using namespace tessera;
using namespace tessera::comm;

std::vector<std::vector<float>> random_buffers(const Communicator& c, std::size_t n) {
  std::vector<std::vector<float>> out;
  for (int ipu : c.local_ipus()) {
    auto engine = rng_stream(7, static_cast<std::uint64_t>(ipu));
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(static_cast<double>(engine() >> 11) * 0x1.0p-53 - 0.5);
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<std::span<float>> views(std::vector<std::vector<float>>& buffers) {
  return {buffers.begin(), buffers.end()};
}

// FNV-1a over every IPU's buffer, in IPU order, whichever rank holds it.
std::uint64_t checksum(const Communicator& c, const std::vector<std::vector<float>>& buffers) {
  std::vector<std::uint64_t> per_ipu(static_cast<std::size_t>(c.runtime().target().ipus), 0);
  for (std::size_t l = 0; l < buffers.size(); ++l) {
    std::uint64_t h = 1469598103934665603ULL;
    for (float x : buffers[l]) {
      std::uint32_t b;
      std::memcpy(&b, &x, sizeof b);
      h = (h ^ b) * 1099511628211ULL;
    }
    per_ipu[static_cast<std::size_t>(c.local_ipus()[l])] = h;
  }
  MPI_Allreduce(MPI_IN_PLACE, per_ipu.data(), static_cast<int>(per_ipu.size()), MPI_UINT64_T,
                MPI_SUM, c.runtime().comm());
  std::uint64_t h = 1469598103934665603ULL;
  for (std::uint64_t v : per_ipu) h = (h ^ v) * 1099511628211ULL;
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  return tessera::run_main(argc, argv, [](int argc, char** argv) {
    CLI::App app{"comm_probe: whole-program checks of tessera::comm"};
    RuntimeOptions options;
    add_runtime_options(app, options, "pod16");
    std::string which = "checksum";
    double timeout = 60;
    app.add_option("--case", which, "What to run")
        ->check(CLI::IsMember({"checksum", "early-exit", "retry-after-timeout", "size-mismatch"}));
    app.add_option("--timeout", timeout, "Seconds to wait for the other ranks")
        ->check(CLI::PositiveNumber);
    std::string on = "world";
    app.add_option("--communicator", on, "Where early-exit and size-mismatch call all_reduce")
        ->check(CLI::IsMember({"world", "pairs"}));
    if (auto code = parse_command_line(app, argc, argv)) return *code;
    Runtime runtime(options);
    Communicator world = Communicator::world(runtime);
    world.set_timeout(timeout);
    world.set_min_tile_bytes(64);  // spread even short buffers over every tile

    Communicator halves = world.split(Grouping::orthogonal, world.size() / 2, "halves");
    // {i, i + size/2}: on 2, 3 and 4 ranks of 12 IPUs spread (small all-reduces travel with
    // the agreement, in one round or, from about 4 KB a rank, in a few).
    Communicator pairs = world.split(Grouping::orthogonal, 2, "pairs");
    Communicator& called = on == "pairs" ? pairs : world;
    if (which == "early-exit" || which == "retry-after-timeout") {
      if (runtime.rank() == 1) return 0;
      auto data = random_buffers(called, 100);
      if (which == "retry-after-timeout") {
        try {
          called.all_reduce<float>(views(data), Op::sum);
        } catch (const CommError&) {
          // A caller that catches the timeout and tries again must be refused.
        }
      }
      called.all_reduce<float>(views(data), Op::sum);
      return 0;
    }
    if (which == "size-mismatch") {
      auto data = random_buffers(called, 100 + static_cast<std::size_t>(runtime.rank()));
      called.all_reduce<float>(views(data), Op::sum);
      return 0;
    }
    // Every 3rd IPU: on 4 ranks of 12 IPUs each group's members are on different ranks, and
    // small tree all-reduces travel with the agreement (Communicator::spread).
    Communicator fours = world.split(Grouping::orthogonal, 4, "fours");
    const std::size_t n = 1001;
    for (const Communicator* c : {&world, &halves, &fours, &pairs})
      for (Algorithm a :
           {Algorithm::ring, Algorithm::tree, Algorithm::hierarchical, Algorithm::automatic}) {
        auto data = random_buffers(*c, n);
        const CallReport r = Communicator(*c).all_reduce<float>(views(data), Op::sum, a);
        if (runtime.rank() == 0)
          std::printf("checksum all_reduce %s %s (%s) %016" PRIx64 "\n", c->name().c_str(),
                      to_string(a), to_string(r.algorithm), checksum(*c, data));
        else
          checksum(*c, data);
        auto scattered = random_buffers(*c, n - n % static_cast<std::size_t>(c->size()));
        Communicator(*c).reduce_scatter<float>(views(scattered), Op::sum, a);
        const std::uint64_t h = checksum(*c, scattered);
        if (runtime.rank() == 0)
          std::printf("checksum reduce_scatter %s %s %016" PRIx64 "\n", c->name().c_str(),
                      to_string(a), h);
      }
    const std::string summary = runtime.finish();
    if (runtime.rank() == 0) {
      std::printf("simulated seconds %.9e\n", runtime.profile().simulated_seconds());
      std::printf("%s", summary.c_str());
    }
    return 0;
  });
}
