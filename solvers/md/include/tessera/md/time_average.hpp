// The averaging over Nfreq averages that LAMMPS's fix ave/time and fix ave/chunk share (their
// `ave` keyword): each average alone (one), combined with every earlier one (running), or with
// the last M (window M). Values are added and, for a window, the oldest taken off again, in
// LAMMPS's order, so the digits are LAMMPS's. Not thread-safe (host side, one per fix).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::md {

class TimeAverage {
 public:
  // `ave one|running|window M` from words[at] (the word after "ave"); returns the words it took.
  // Throws ConfigError, `what` first.
  std::size_t parse(const std::string& what, const std::vector<std::string>& words, std::size_t at);
  bool one() const { return kind_ == Kind::one; }
  bool running() const { return kind_ == Kind::running; }
  // Starts again over `width` values (a window's slots too).
  void reset(std::size_t width);
  // Grows to `width` values, the sums and slots zeroed but the count of averages kept, as
  // LAMMPS's fix ave/chunk does when its chunks grow.
  void resize(std::size_t width);
  // One more average (`width` values).
  void add(std::span<const double> average);
  // The combined sums, to divide by norm() (0 before the first average).
  std::span<const double> total() const { return total_; }
  double norm() const { return norm_; }

 private:
  enum class Kind { one, running, window } kind_ = Kind::one;
  int window_ = 0;
  std::vector<double> total_;
  std::vector<std::vector<double>> slots_;
  std::size_t at_ = 0;
  bool full_ = false;
  double norm_ = 0;
};

}  // namespace tessera::md
