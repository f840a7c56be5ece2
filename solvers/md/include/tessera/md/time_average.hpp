// The averaging over Nfreq averages that LAMMPS's fix ave/time and fix ave/chunk share (their
// `ave` keyword): each average alone (one), combined with every earlier one (running), or with
// the last M (window M). Values are added and, for a window, the oldest taken off again, in
// LAMMPS's order, so the digits are LAMMPS's. Not thread-safe (host side, one per fix).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/error.hpp"

namespace tessera::md {

// When LAMMPS's averaging fixes sample: NREPEAT samples NEVERY steps apart, the last on a
// multiple of NFREQ (the first such at or after `start`), as their nextvalid schedules them.
class SampleSchedule {
 public:
  SampleSchedule() = default;
  SampleSchedule(int every, int repeat, int frequency, std::int64_t start, std::int64_t now)
      : every_(every),
        repeat_(repeat),
        frequency_(frequency),
        start_(start),
        next_(next_valid(now)) {}
  int every() const { return every_; }
  int repeat() const { return repeat_; }
  int frequency() const { return frequency_; }
  // At a run's setup: a schedule the step has passed (a minimization moved it) starts over.
  void catch_up(std::int64_t step);
  bool due(std::int64_t step) const { return step == next_; }
  // Whether the sample due now starts an average.
  bool first() const { return sampled_ == 0; }
  // After the sample at `step`: whether it completed an average (then the next one is planned).
  bool sampled(std::int64_t step);

 private:
  std::int64_t next_valid(std::int64_t step) const;
  int every_ = 1, repeat_ = 1, frequency_ = 1;
  std::int64_t start_ = 0, next_ = 0;
  int sampled_ = 0;
};

// An averaging fix's file, from the keywords the four of them (ave/time, ave/chunk, ave/histo,
// ave/correlate) take alike: file FILE, overwrite, title1 T, title2 T, title3 T. Each output's
// lines (a block) go after the earlier ones (replace them with overwrite), and the file is
// rewritten whole as header + blocks (atomic_file.hpp), so that a reader never sees half a block.
// Host side; rank 0 publishes.
class AveragesFile {
 public:
  // Takes `key` when it is one of the keywords, reading its value through `value`.
  bool take(const std::string& key, const std::function<const std::string&()>& value);
  // Whether a file was asked for, and its path.
  bool given() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  bool overwrite() const { return overwrite_; }
  // Title line n (0..2) as the keyword gave it, or `fallback`, with its newline.
  std::string title_line(std::size_t n, const std::string& fallback) const {
    return (titles_[n] ? *titles_[n] : fallback) + "\n";
  }
  void set_header(std::string header) { header_ = std::move(header); }
  void publish(const std::string& block);

 private:
  std::string path_, header_, body_;
  bool overwrite_ = false;
  std::array<std::optional<std::string>, 3> titles_;
};

class TimeAverage {
 public:
  // `ave one|running|window M` from words[at] (the word after "ave"); returns the words it took.
  // Throws ConfigError, `what` first.
  std::size_t parse(const std::string& what, const std::vector<std::string>& words, std::size_t at);
  bool one() const { return kind_ == Kind::one; }
  bool running() const { return kind_ == Kind::running; }
  // ave window M's M (0 for one and running).
  int window() const { return kind_ == Kind::window ? window_ : 0; }
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
