#include "tessera/md/fix_ave_correlate.hpp"

#include <cstdio>

#include "arguments.hpp"
#include "tessera/core/atomic_file.hpp"
#include "tessera/md/simulation.hpp"
#include "tessera/md/time_average.hpp"

namespace tessera::md {

FixAveCorrelate::FixAveCorrelate(const FixArguments& a) : Fix(a.id, a.group), variable_(a.variable) {
  const std::string what = "fix " + a.id + " ave/correlate";
  const char* usage = "fix ID GROUP ave/correlate NEVERY NREPEAT NFREQ VALUE... [keyword value ...]";
  arguments::need(a.args, 4, usage);
  every_ = static_cast<int>(arguments::integer(what + " NEVERY", a.args[0], 1, arguments::int_max));
  repeat_ =
      static_cast<int>(arguments::integer(what + " NREPEAT", a.args[1], 1, arguments::int_max));
  frequency_ =
      static_cast<int>(arguments::integer(what + " NFREQ", a.args[2], 1, arguments::int_max));
  std::size_t k = 3;
  std::vector<std::string> words;
  for (; k < a.args.size(); ++k) {
    const std::string& w = a.args[k];
    if (w.rfind("c_", 0) != 0 && w.rfind("f_", 0) != 0 && w.rfind("v_", 0) != 0) break;
    words.push_back(w);
  }
  if (words.empty()) arguments::bad(what + ": give at least one value (c_ID, f_ID or v_NAME)");
  std::string type = "auto";
  for (; k < a.args.size(); ++k) {
    const std::string& key = a.args[k];
    auto value = [&]() -> const std::string& {
      if (k + 1 >= a.args.size()) arguments::bad(what + ": keyword " + key + " needs a value");
      return a.args[++k];
    };
    if (output_.take(key, value)) continue;
    if (key == "type") {
      type = value();
      if (type != "auto" && type != "upper" && type != "lower" && type != "auto/upper" &&
          type != "auto/lower" && type != "full")
        arguments::bad(what + ": type must be auto, upper, lower, auto/upper, auto/lower or full");
    } else if (key == "ave") {
      const std::string& v = value();
      if (v != "one" && v != "running") arguments::bad(what + ": ave must be one or running");
      running_ = v == "running";
    } else if (key == "start") {
      start_ = arguments::integer(what + " start", value(), 0, arguments::bigint_max);
    } else if (key == "prefactor") {
      prefactor_ = arguments::number(what + " prefactor", value());
    } else {
      arguments::bad(what + ": unknown keyword '" + key +
                     "'; supported: type, ave, start, prefactor, file, overwrite, title1-3");
    }
  }
  if (frequency_ % every_ != 0) arguments::bad(what + ": NFREQ must be a multiple of NEVERY");
  if (!running_ && static_cast<long long>(repeat_ - 1) * every_ > frequency_)
    arguments::bad(what + ": with ave one, NFREQ must be at least (NREPEAT - 1) * NEVERY");
  if (output_.overwrite() && !running_) arguments::bad(what + ": overwrite needs ave running");
  Simulation* sim = a.sim;
  if (!sim) arguments::bad(what + ": needs the simulation it samples");
  for (const auto& w : words) {
    const std::string where = what + " " + w;
    Value v;
    v.text = w;
    if (w.rfind("v_", 0) == 0) {
      if (!variable_) arguments::bad(where + ": no variables here");
      v.variable = w.substr(2);
      values_.push_back(v);
      continue;
    }
    const auto ref = parse_output_reference(w);
    if (ref->column != 0) arguments::bad(where + ": give a scalar or a vector's element");
    for (const auto& element_ref : expand_output_reference(*sim, *ref, where, false)) {
      Value element;
      element.ref = element_ref;
      element.text = ref->every ? element_ref.text() : w;
      values_.push_back(element);
    }
  }
  for (const auto& v : values_) {
    if (!v.ref) continue;
    const std::string where = what + " " + v.text;
    // Evaluated once here so that a missing compute, fix or element stops the command.
    if (v.ref->index > 0 && v.ref->index > output_vector_size(*sim, *v.ref, where))
      arguments::bad(where + ": its vector has " +
                     std::to_string(output_vector_size(*sim, *v.ref, where)) + " elements");
    output_extensive(*sim, *v.ref, where);
    if (const Fix* fix = fix_not_current(*sim, *v.ref, every_))
      arguments::bad(where + ": fix " + fix->id() + " (" + fix->style() + ") is current every " +
                     std::to_string(fix->global_frequency()) +
                     " steps, not every NEVERY = " + std::to_string(every_) +
                     " (LAMMPS refuses this too: not computed at compatible time)");
  }
  const std::size_t n = values_.size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const bool take = type == "auto"         ? i == j
                        : type == "upper"      ? i < j
                        : type == "lower"      ? i > j
                        : type == "auto/upper" ? i <= j
                        : type == "auto/lower" ? i >= j
                                               : true;
      if (take) pairs_.emplace_back(i, j);
    }
  const auto rows = static_cast<std::size_t>(repeat_);
  ring_.assign(rows * n, 0.0);
  sums_.assign(rows * pairs_.size(), 0.0);
  saved_.assign(sums_.size(), 0.0);
  counts_.assign(rows, 0);
  saved_counts_.assign(rows, 0);
  restart_sampling(sim->step());
  std::string names;
  for (const auto& [i, j] : pairs_) names += " " + values_[i].text + "*" + values_[j].text;
  output_.set_header(output_.title_line(0, "# Time-correlated data for fix " + id()) +
                     output_.title_line(1, "# Timestep Number-of-time-windows") +
                     output_.title_line(2, "# Index TimeDelta Ncount" + names));
  if (output_.given() && sim->runtime().rank() == 0) check_output_path(output_.path());
}

void FixAveCorrelate::restart_sampling(std::int64_t step) {
  std::int64_t next = std::max(step, start_);
  if (next % every_ != 0) next = (next / every_ + 1) * every_;
  next_ = next;
  samples_ = 0;
  last_ = static_cast<std::size_t>(repeat_) - 1;  // the first sample goes to slot 0
}

double FixAveCorrelate::array(Simulation&, std::size_t row, std::size_t column) {
  if (row >= static_cast<std::size_t>(repeat_)) return 0.0;
  if (column == 0) return static_cast<double>(row) * every_;
  if (column == 1) return static_cast<double>(saved_counts_[row]);
  return saved_counts_[row] ? saved_[row * pairs_.size() + column - 2] : 0.0;
}

void FixAveCorrelate::setup(Simulation& sim) {
  // A minimization moved the step past the next sample: start over, as LAMMPS's init does.
  if (next_ < sim.step()) restart_sampling(sim.step());
  end_of_step(sim);
}

// LAMMPS's FixAveCorrelate::end_of_step.
void FixAveCorrelate::end_of_step(Simulation& sim) {
  const std::int64_t step = sim.step();
  if (step != next_) return;
  const std::size_t n = values_.size();
  last_ = (last_ + 1) % static_cast<std::size_t>(repeat_);
  for (std::size_t i = 0; i < n; ++i) {
    const Value& v = values_[i];
    ring_[last_ * n + i] = v.ref ? output_value(sim, *v.ref, false,
                                                "fix " + id() + " ave/correlate " + v.text)
                                 : variable_(v.variable);
  }
  if (samples_ < static_cast<std::size_t>(repeat_)) ++samples_;
  next_ += every_;
  accumulate();
  if (step % frequency_ != 0) return;
  const std::size_t width = pairs_.size();
  for (std::size_t r = 0; r < static_cast<std::size_t>(repeat_); ++r) {
    saved_counts_[r] = counts_[r];
    for (std::size_t p = 0; p < width; ++p)
      saved_[r * width + p] =
          counts_[r] ? prefactor_ * sums_[r * width + p] / static_cast<double>(counts_[r]) : 0.0;
  }
  if (output_.given() && sim.runtime().rank() == 0) write(step);
  if (!running_) {
    std::fill(sums_.begin(), sums_.end(), 0.0);
    std::fill(counts_.begin(), counts_.end(), 0);
    samples_ = 1;
    accumulate();
  }
}

// The products of the newest sample with each of the ring's samples, lag k the k-th older.
void FixAveCorrelate::accumulate() {
  const std::size_t n = values_.size(), width = pairs_.size();
  const auto rows = static_cast<std::size_t>(repeat_);
  const double* newest = &ring_[last_ * n];
  for (std::size_t k = 0; k < samples_; ++k) {
    ++counts_[k];
    const double* older = &ring_[((last_ + rows - k) % rows) * n];
    for (std::size_t p = 0; p < width; ++p)
      sums_[k * width + p] += older[pairs_[p].first] * newest[pairs_[p].second];
  }
}

void FixAveCorrelate::write(std::int64_t step) {
  std::string block = std::to_string(step) + " " + std::to_string(repeat_) + "\n";
  char buf[64];
  const std::size_t width = pairs_.size();
  for (std::size_t r = 0; r < static_cast<std::size_t>(repeat_); ++r) {
    block += std::to_string(r + 1) + " " + std::to_string(static_cast<std::int64_t>(r) * every_) +
             " " + std::to_string(saved_counts_[r]);
    for (std::size_t p = 0; p < width; ++p) {
      if (saved_counts_[r])
        std::snprintf(buf, sizeof buf, " %g", saved_[r * width + p]), block += buf;
      else
        block += " 0.0";
    }
    block += "\n";
  }
  output_.publish(block);
}

}  // namespace tessera::md
