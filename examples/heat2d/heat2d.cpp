// heat2d: the steady 2-D heat equation by Jacobi sweeps on the tile runtime.
//
// Solves Laplace's equation on the unit square, u = 1 on the top edge and 0 on
// the other three, on an nx x ny grid of interior points split into one block
// per tile. Each sweep is one superstep: every tile updates its block from its
// halo, then an exchange plan refreshes the halos from the neighbouring blocks.
// Every `--check-every` sweeps, a tile reduction gives the residual
// ||u_new - u||_2, the L2 norm of the last update.
//
//   mpirun -np 2 build/examples/heat2d [--nx 1024 --ny 1024 --sweeps 500] [--target gc200]

#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>

#include "tessera/core/environment.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/options.hpp"
#include "tessera/core/runtime.hpp"

namespace {

using namespace tessera;

struct Settings {
  int nx = 1024, ny = 1024;
  int sweeps = 500;
  int check_every = 100;
  std::string precision = "float";
};

// The tile grid: px x py blocks, the factorisation of the tile count with the
// shortest total block perimeter (the least halo traffic).
struct Decomposition {
  int px = 1, py = 1;
  int nx, ny;
  Decomposition(int tiles, int nx_, int ny_) : nx(nx_), ny(ny_) {
    double best = INFINITY;
    for (int a = 1; a <= tiles; ++a) {
      if (tiles % a != 0 || a > nx || tiles / a > ny) continue;
      const double perimeter = static_cast<double>(nx) / a + static_cast<double>(ny) / (tiles / a);
      if (perimeter < best) best = perimeter, px = a, py = tiles / a;
    }
    if (best == INFINITY)
      throw ConfigError("a " + std::to_string(nx) + " x " + std::to_string(ny) +
                        " grid cannot be split over " + std::to_string(tiles) +
                        " tiles; use a larger grid or fewer tiles");
  }
  // First interior index of block b out of n blocks over m points.
  static int start(int m, int n, int b) {
    return static_cast<int>(static_cast<long long>(m) * b / n);
  }
  int bx(int tile) const { return tile % px; }
  int by(int tile) const { return tile / px; }
  int width(int tile) const { return start(nx, px, bx(tile) + 1) - start(nx, px, bx(tile)); }
  int height(int tile) const { return start(ny, py, by(tile) + 1) - start(ny, py, by(tile)); }
  // Row-major block with a one-point halo: (width + 2) x (height + 2).
  std::size_t stride(int tile) const { return static_cast<std::size_t>(width(tile)) + 2; }
  std::size_t cells(int tile) const {
    return stride(tile) * (static_cast<std::size_t>(height(tile)) + 2);
  }
};

// The counted work of the sweep kernel per point (cycle_estimate.hpp turns it into cycles):
// four neighbour loads, three adds and a scale in T, a store; and the residual, which the
// sweep accumulates in double: the centre's load, two conversions to double, a subtract,
// a multiply and an add. The IPU has no FP64 unit: those double operations are emulated,
// and in the float sweep they are most of the cost.
template <class T>
KernelWork sweep_work() {
  KernelWork w;
  w.value_bytes = sizeof(T);
  w.bytes_loaded = 5 * sizeof(T);
  w.bytes_stored = sizeof(T);
  if constexpr (std::is_same_v<T, float>) {
    w.flops_fp32 = 4;
    w.flops_fp64 = 3 + 2;  // the residual, and the two float -> double conversions
  } else {
    w.flops_fp64 = 4 + 3;
  }
  return w;
}

template <class T>
int solve(Runtime& runtime, const Settings& s) {
  const Decomposition d(runtime.target().total_tiles(), s.nx, s.ny);
  auto cells = [&](const Tile& t) { return d.cells(t.id()); };
  Variable<T> u = runtime.create_variable<T>("heat2d.u", cells);
  Variable<T> next = runtime.create_variable<T>("heat2d.u_next", cells);
  Variable<double> residual = runtime.create_variable<double>("heat2d.residual", 1);

  // Boundary values live in the halo cells on the edge of the domain, in both buffers.
  runtime.superstep("heat2d.init", [&](Tile& t) {
    if (d.by(t.id()) != d.py - 1) return;
    const std::size_t stride = d.stride(t.id());
    const std::size_t top = static_cast<std::size_t>(d.height(t.id())) + 1;
    for (auto v : {u, next})
      for (std::size_t i = 0; i < stride; ++i) t.get(v)[top * stride + i] = T(1);
  });

  ExchangePlanBuilder halo("heat2d.halo");
  for (int tile = 0; tile < runtime.target().total_tiles(); ++tile) {
    const std::size_t w = static_cast<std::size_t>(d.width(tile)),
                      h = static_cast<std::size_t>(d.height(tile));
    const std::size_t stride = d.stride(tile);
    const int x = d.bx(tile), y = d.by(tile);
    if (x > 0) {  // my first column -> left neighbour's right halo column
      const int n = tile - 1;
      halo.copy_strided(u, tile, stride + 1, stride, u, n, d.stride(n) + d.width(n) + 1,
                        d.stride(n), h);
    }
    if (x < d.px - 1) {  // my last column -> right neighbour's left halo column
      const int n = tile + 1;
      halo.copy_strided(u, tile, stride + w, stride, u, n, d.stride(n), d.stride(n), h);
    }
    if (y > 0) {  // my first row -> lower neighbour's top halo row
      const int n = tile - d.px;
      halo.copy(u, tile, stride + 1, u, n,
                (static_cast<std::size_t>(d.height(n)) + 1) * d.stride(n) + 1, w);
    }
    if (y < d.py - 1) {  // my last row -> upper neighbour's bottom halo row
      const int n = tile + d.px;
      halo.copy(u, tile, h * stride + 1, u, n, 1, w);
    }
  }
  const ExchangePlan plan = runtime.compile(halo);
  runtime.exchange("heat2d.halo", {&plan});

  const KernelWork work = sweep_work<T>();
  auto sweep = [&](Tile& t) {
    const std::span<const T> in = t.get(u);
    const std::span<T> out = t.get(next);
    const std::size_t stride = d.stride(t.id());
    const std::size_t w = static_cast<std::size_t>(d.width(t.id())),
                      h = static_cast<std::size_t>(d.height(t.id()));
    double change = 0;
    for (std::size_t j = 1; j <= h; ++j) {
      const T* row = in.data() + j * stride;
      T* o = out.data() + j * stride;
      for (std::size_t i = 1; i <= w; ++i) {
        o[i] = T(0.25) * (row[i - 1] + row[i + 1] + row[i - stride] + row[i + stride]);
        const double delta = static_cast<double>(o[i]) - static_cast<double>(row[i]);
        change += delta * delta;
      }
    }
    t.get(residual)[0] = change;
    t.swap(u, next);
    t.charge(work, w * h);
  };

  for (int k = 1; k <= s.sweeps; ++k) {
    runtime.superstep("heat2d.sweep", sweep, {&plan});
    if (k % s.check_every == 0 || k == s.sweeps) {
      const double r = std::sqrt(runtime.all_reduce<double>(
          "heat2d.residual", ReduceOp::sum, [&](Tile& t) { return t.get(residual)[0]; }));
      if (runtime.rank() == 0) std::printf("sweep %6d   residual %.17g\n", k, r);
    }
  }

  // Mean temperature and a checksum of the field (FNV-1a per block, then over blocks in tile
  // order).
  const double total = runtime.all_reduce<double>("heat2d.mean", ReduceOp::sum, [&](Tile& t) {
    double sum = 0;
    const std::size_t stride = d.stride(t.id());
    for (int j = 1; j <= d.height(t.id()); ++j)
      for (int i = 1; i <= d.width(t.id()); ++i)
        sum += static_cast<double>(
            t.get(u)[static_cast<std::size_t>(j) * stride + static_cast<std::size_t>(i)]);
    return sum;
  });
  auto fnv = [](std::uint64_t h, const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
  };
  const std::vector<std::uint64_t> hashes =
      runtime.gather<std::uint64_t>("heat2d.checksum", [&](Tile& t) {
        const auto v = t.get(u);
        return fnv(1469598103934665603ULL, v.data(), v.size_bytes());
      });
  const std::uint64_t checksum =
      fnv(1469598103934665603ULL, hashes.data(), hashes.size() * sizeof(std::uint64_t));
  const std::string summary = runtime.finish();
  if (runtime.rank() == 0) {
    std::printf("mean temperature %.17g\nfield checksum %016" PRIx64 "\n",
                total / (static_cast<double>(s.nx) * s.ny), checksum);
    std::printf("simulated time on %s: %.6e s (%d x %d tile blocks)\n",
                runtime.target().name.c_str(), runtime.profile().simulated_seconds(), d.px, d.py);
    std::fputs(summary.c_str(), stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tessera::run_main(argc, argv, [](int argc, char** argv) {
    CLI::App app{"heat2d: Jacobi sweeps for the 2-D heat equation on the Tessera tile runtime"};
    Settings s;
    RuntimeOptions options;
    app.add_option("--nx", s.nx, "Interior grid points in x")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--ny", s.ny, "Interior grid points in y")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--sweeps", s.sweeps, "Jacobi sweeps")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--check-every", s.check_every, "Sweeps between residual reports")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--precision", s.precision, "Floating-point type of the field")
        ->capture_default_str()
        ->check(CLI::IsMember({"float", "double"}));
    add_runtime_options(app, options, "gc200");
    if (auto exit_code = parse_command_line(app, argc, argv)) return *exit_code;
    Runtime runtime(options);
    const int ranks = runtime.ranks();
    if (runtime.rank() == 0)
      std::printf(
          "heat2d: %d x %d grid, %d sweeps, %s, target %s (%d tiles), %d rank%s x %d thread%s\n",
          s.nx, s.ny, s.sweeps, s.precision.c_str(), runtime.target().name.c_str(),
          runtime.target().total_tiles(), ranks, ranks == 1 ? "" : "s", runtime.threads(),
          runtime.threads() == 1 ? "" : "s");
    const int status =
        s.precision == "float" ? solve<float>(runtime, s) : solve<double>(runtime, s);
    if (!options.profile_path.empty()) runtime.write_profile(options.profile_path);
    return status;
  });
}
