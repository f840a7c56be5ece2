// Fft3d: the complex 3-d discrete Fourier transform of an nx x ny x nz mesh spread over the
// tiles of a runtime (every tile of every IPU and rank), as pencils: the mesh's lines along one
// axis are dealt to the tiles in contiguous runs, each tile transforms its own whole lines with
// FFTW, and exchange plans transpose the mesh from lines along x to lines along y to lines along
// z (and back). This is the pencil decomposition of LAMMPS's FFT3d (Plimpton's fftMPI) and of
// heFFTe: on an IPU a transpose is one exchange phase in which every tile sends each other tile
// the block of points it will hold (the cost model prices the copies as any other exchange, over
// the IPU's exchange fabric, its IPU-Links and, between ranks, the gateways), and a line's
// transform is a tile's own compute.
//
// Layout of a pencil set along axis a: line l of the mesh is the set of points whose other two
// indices (b, c), b the lower axis, give l = b + n_b c; tile t holds lines [first[t],
// first[t + 1]) (first[t] = t L / T of L lines over T tiles: balanced, possibly empty), each line
// n_a complex values (2 doubles: real, imaginary) contiguous, the lines in order; with several
// fields, field f's lines follow field f - 1's on the tile. forward() takes x-pencils to the
// transform in z-pencils; backward() takes z-pencils back to x-pencils. The transforms are
// FFTW's (forward e^{-2 pi i k.x / n}, backward e^{+2 pi i ...}, neither normalised), so a
// forward then a backward transform multiplies by nx ny nz; each line's transform is made
// without regard to alignment, so its bits do not depend on the tile that holds it.
//
// Costs: each line's transform is charged 5 n log2 n flops and its n points streamed once per
// radix-2 stage (an estimate: FFTW's counts differ by a small factor with the radices), the
// transposes by the exchange model.
//
// Thread-safety: the plans are made and freed on the host side; forward and backward are
// collective (supersteps) and transform each tile's lines on its own thread.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "tessera/core/runtime.hpp"

struct fftw_plan_s;  // FFTW's plan (fftw3.h's fftw_plan is a pointer to it)

namespace tessera::md {

class Fft3d {
 public:
  struct Pencils {
    int axis = 0;                    // the axis the lines run along: 0, 1, 2 (x, y, z)
    std::vector<std::size_t> first;  // per tile, and one past the last: its first line
    std::size_t lines(int tile) const {
      return first[static_cast<std::size_t>(tile) + 1] - first[static_cast<std::size_t>(tile)];
    }
  };

  // A mesh of n[0] x n[1] x n[2] points (each at least 1) and room for up to `fields` fields
  // transformed together. Collective (compiles the transposes).
  Fft3d(Runtime& runtime, std::array<int, 3> n, std::size_t fields, const std::string& name);
  ~Fft3d();
  Fft3d(const Fft3d&) = delete;
  Fft3d& operator=(const Fft3d&) = delete;

  const std::array<int, 3>& size() const { return n_; }
  // The x-pencils (input of forward, output of backward) and the z-pencils (output of
  // forward, input of backward), and the tile variables that hold them (doubles; each tile's
  // piece is sized for `fields` fields of its lines).
  const Pencils& x_pencils() const { return pencils_[0]; }
  const Pencils& z_pencils() const { return pencils_[2]; }
  Variable<double> x_data() const { return data_[0]; }
  Variable<double> z_data() const { return data_[2]; }
  // The first `fields` fields transformed (3 supersteps, 2 of them with a transpose).
  void forward(std::size_t fields);
  void backward(std::size_t fields);

 private:
  // The transpose of `fields` fields between pencils along a and b = a + 1, or back.
  ExchangePlan transpose(int a, bool back, std::size_t fields, const std::string& name);
  void transform(int axis, bool forward, std::size_t fields);

  Runtime& runtime_;
  std::array<int, 3> n_;
  std::size_t fields_;
  std::array<Pencils, 3> pencils_;
  std::array<Variable<double>, 3> data_{};
  // By field count less one: x->y, y->z; and y->x, z->y.
  std::vector<std::vector<ExchangePlan>> forward_plans_, backward_plans_;
  std::array<fftw_plan_s*, 3> forward_{}, backward_{};  // per axis, in place
};

}  // namespace tessera::md
