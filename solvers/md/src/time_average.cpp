#include "tessera/md/time_average.hpp"

#include <algorithm>

#include "arguments.hpp"
#include "tessera/core/atomic_file.hpp"

namespace tessera::md {

// LAMMPS's FixAveTime::nextvalid (FixAveChunk's, with no start).
std::int64_t SampleSchedule::next_valid(std::int64_t step) const {
  std::int64_t valid = (step / frequency_) * frequency_ + frequency_;
  while (valid < start_) valid += frequency_;
  if (valid - frequency_ == step && repeat_ == 1)
    valid = step;
  else
    valid -= static_cast<std::int64_t>(repeat_ - 1) * every_;
  if (valid < step) valid += frequency_;
  return valid;
}

void SampleSchedule::catch_up(std::int64_t step) {
  if (next_ >= step) return;
  sampled_ = 0;
  next_ = next_valid(step);
}

bool SampleSchedule::sampled(std::int64_t step) {
  if (++sampled_ < repeat_) {
    next_ += every_;
    return false;
  }
  sampled_ = 0;
  next_ = step + frequency_ - static_cast<std::int64_t>(repeat_ - 1) * every_;
  return true;
}

std::size_t TimeAverage::parse(const std::string& what, const std::vector<std::string>& words,
                               std::size_t at) {
  if (at >= words.size()) arguments::bad(what + ": keyword ave needs a value");
  const std::string& v = words[at];
  if (v == "one") {
    kind_ = Kind::one;
  } else if (v == "running") {
    kind_ = Kind::running;
  } else if (v == "window") {
    if (at + 1 >= words.size()) arguments::bad(what + ": ave window needs M");
    kind_ = Kind::window;
    window_ = static_cast<int>(arguments::integer(what + " ave window", words[at + 1], 1, 1000000));
    return 2;
  } else {
    arguments::bad(what + ": ave must be one, running or window M");
  }
  return 1;
}

void TimeAverage::reset(std::size_t width) {
  total_.assign(width, 0.0);
  slots_.assign(kind_ == Kind::window ? static_cast<std::size_t>(window_) : 0,
                std::vector<double>(width, 0.0));
  at_ = 0;
  full_ = false;
  norm_ = 0;
}

void TimeAverage::resize(std::size_t width) {
  total_.assign(width, 0.0);
  for (auto& slot : slots_) slot.assign(width, 0.0);
}

// LAMMPS's ave one / running / window steps of FixAveTime and FixAveChunk.
void TimeAverage::add(std::span<const double> average) {
  const std::size_t width = std::min(average.size(), total_.size());
  if (kind_ == Kind::one) {
    std::copy_n(average.begin(), width, total_.begin());
    norm_ = 1;
  } else if (kind_ == Kind::running) {
    for (std::size_t i = 0; i < width; ++i) total_[i] += average[i];
    norm_ += 1;
  } else {
    auto& slot = slots_[at_];
    for (std::size_t i = 0; i < width; ++i) {
      total_[i] += average[i];
      if (full_) total_[i] -= slot[i];
      slot[i] = average[i];
    }
    if (++at_ == slots_.size()) at_ = 0, full_ = true;
    norm_ = full_ ? static_cast<double>(window_) : static_cast<double>(at_);
  }
}

bool AveragesFile::take(const std::string& key, const std::function<const std::string&()>& value) {
  if (key == "file") {
    path_ = value();
  } else if (key == "overwrite") {
    overwrite_ = true;
  } else if (key == "title1" || key == "title2" || key == "title3") {
    titles_[static_cast<std::size_t>(key[5] - '1')] = value();
  } else {
    return false;
  }
  return true;
}

void AveragesFile::publish(const std::string& block) {
  body_ = overwrite_ ? block : body_ + block;
  AtomicFile out(path_, AtomicFile::Start::empty);
  out.write(header_ + body_);
  out.commit();
}

}  // namespace tessera::md
