#include "tessera/md/fix_ave_time.hpp"

#include <cstdio>

#include "arguments.hpp"
#include "tessera/core/atomic_file.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixAveTime::FixAveTime(const FixArguments& a) : Fix(a.id, a.group), variable_(a.variable) {
  const std::string what = "fix ave/time";
  const char* usage = "fix ID GROUP ave/time NEVERY NREPEAT NFREQ VALUE... [keyword value ...]";
  arguments::need(a.args, 4, usage);
  every_ = static_cast<int>(arguments::integer(what + " NEVERY", a.args[0], 1, arguments::int_max));
  repeat_ =
      static_cast<int>(arguments::integer(what + " NREPEAT", a.args[1], 1, arguments::int_max));
  frequency_ =
      static_cast<int>(arguments::integer(what + " NFREQ", a.args[2], 1, arguments::int_max));
  if (frequency_ % every_ != 0 || static_cast<long long>(every_) * repeat_ > frequency_)
    arguments::bad(what + ": NFREQ must be a multiple of NEVERY and at least NEVERY * NREPEAT");
  std::size_t k = 3;
  std::vector<std::string> words;
  for (; k < a.args.size(); ++k) {
    const std::string& w = a.args[k];
    if (w.rfind("c_", 0) != 0 && w.rfind("f_", 0) != 0 && w.rfind("v_", 0) != 0) break;
    words.push_back(w);
  }
  if (words.empty()) arguments::bad(what + ": give at least one value (c_ID, f_ID or v_NAME)");
  for (; k < a.args.size(); ++k) {
    const std::string& key = a.args[k];
    auto value = [&]() -> const std::string& {
      if (k + 1 >= a.args.size()) arguments::bad(what + ": keyword " + key + " needs a value");
      return a.args[++k];
    };
    if (output_.take(key, value)) continue;
    if (key == "mode") {
      const std::string& v = value();
      if (v != "scalar" && v != "vector") arguments::bad(what + ": mode must be scalar or vector");
      vector_mode_ = v == "vector";
    } else if (key == "ave") {
      k += average_.parse(what, a.args, k + 1);
    } else if (key == "start") {
      start_ = arguments::integer(what + " start", value(), 0, arguments::bigint_max);
    } else if (key == "format") {
      format_ = value();  // as LAMMPS: used as given, a leading space is the user's
    } else if (key == "off") {
      arguments::bad(what + ": keyword off is not supported");
    } else {
      arguments::bad(what + ": unknown keyword '" + key +
                     "'; supported: mode, ave, start, file, overwrite, format, title1-3");
    }
  }
  // One floating-point conversion, as thermo_modify format float allows.
  const int conversions = arguments::float_conversions(format_);
  if (conversions < 0) arguments::bad(what + " format '" + format_ + "': use one %e, %f or %g");
  if (conversions != 1)
    arguments::bad(what + " format '" + format_ + "': use exactly one %e, %f or %g");
  Simulation* sim = a.sim;
  if (!sim) arguments::bad(what + ": needs the simulation it averages");
  for (const auto& w : words) {
    Value v;
    v.text = w;
    if (w.rfind("v_", 0) == 0) {
      if (vector_mode_) arguments::bad(what + ": mode vector takes c_ID and f_ID, not " + w);
      if (!variable_) arguments::bad(what + ": no variables here for " + w);
      v.variable = w.substr(2);
      values_.push_back(v);
      continue;
    }
    // [*]: every element (every column of an array in mode vector).
    const auto ref = parse_output_reference(w);
    for (const auto& element_ref : expand_output_reference(*sim, *ref, what + " " + w, vector_mode_)) {
      Value element;
      element.ref = element_ref;
      element.text = ref->every ? element_ref.text() : w;
      values_.push_back(element);
    }
  }
  std::size_t rows = 0;
  for (const auto& v : values_) {
    const std::string where = what + " " + v.text;
    if (!v.ref) {
      extensive_.push_back(false);
      continue;
    }
    if (const Fix* fix = fix_not_current(*sim, *v.ref, every_))
      arguments::bad(where + ": fix " + fix->id() + " (" + fix->style() + ") is current every " +
                     std::to_string(fix->global_frequency()) +
                     " steps, not every NEVERY = " + std::to_string(every_) +
                     " (LAMMPS refuses this too: not computed at compatible time)");
    if (vector_mode_) {
      // A whole vector, or column J of a compute's array (c_ID[J]).
      const bool column = v.ref->index != 0;
      if (column && (v.ref->kind != 'c' || output_array_columns(*sim, *v.ref, where) == 0))
        arguments::bad(where + ": mode vector averages whole vectors or array columns");
      const std::size_t n = output_column_size(*sim, *v.ref, where);
      if (n == 0)
        arguments::bad(where + ": it has no global " + (column ? "array column" : "vector"));
      if (rows != 0 && n != rows)
        arguments::bad(where + ": its vector has " + std::to_string(n) + " rows, the others " +
                       std::to_string(rows));
      rows = n;
      OutputReference first = *v.ref;
      first.index = 1;
      extensive_.push_back(!column && output_extensive(*sim, first, where));
    } else {
      extensive_.push_back(output_extensive(*sim, *v.ref, where));
    }
  }
  const std::size_t width = vector_mode_ ? rows * values_.size() : values_.size();
  sum_.assign(width, 0.0);
  average_.reset(width);
  schedule_ = SampleSchedule(every_, repeat_, frequency_, start_, sim->step());
  // The file's first lines, as LAMMPS's.
  std::string names;
  for (const auto& v : values_) names += " " + v.text;
  std::string header = output_.title_line(0, "# Time-averaged data for fix " + id());
  header += output_.title_line(1, vector_mode_ ? "# TimeStep Number-of-rows" : "# TimeStep" + names);
  if (vector_mode_) header += output_.title_line(2, "# Row" + names);
  output_.set_header(std::move(header));
  if (output_.given() && sim->runtime().rank() == 0) check_output_path(output_.path());
}

std::size_t FixAveTime::vector_size() const {
  if (!vector_mode_) return values_.size() > 1 ? values_.size() : 0;
  return values_.size() == 1 ? sum_.size() : 0;
}

bool FixAveTime::extensive_vector(std::size_t k) const {
  if (!vector_mode_) return k < extensive_.size() && extensive_[k];
  return !extensive_.empty() && extensive_[0];
}

double FixAveTime::scalar(Simulation&) {
  return average_.norm() > 0 ? average_.total()[0] / average_.norm() : 0.0;
}

std::vector<double> FixAveTime::vector(Simulation&) {
  std::vector<double> out(average_.total().size(), 0.0);
  if (average_.norm() > 0)
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = average_.total()[i] / average_.norm();
  return out;
}

std::vector<double> FixAveTime::sample(Simulation& sim) {
  std::vector<double> values(sum_.size(), 0.0);
  const std::size_t n = values_.size();
  for (std::size_t j = 0; j < n; ++j) {
    const Value& v = values_[j];
    const std::string where = "fix " + id() + " ave/time " + v.text;
    if (!v.ref) {
      values[j] = variable_(v.variable);
    } else if (!vector_mode_) {
      values[j] = output_value(sim, *v.ref, false, where);
    } else {
      const std::size_t rows = sum_.size() / n;
      const std::vector<double> column = output_column(sim, *v.ref, where);
      for (std::size_t r = 0; r < rows && r < column.size(); ++r) values[r * n + j] = column[r];
    }
  }
  return values;
}

void FixAveTime::setup(Simulation& sim) {
  schedule_.catch_up(sim.step());
  end_of_step(sim);
}

// LAMMPS's FixAveTime::invoke_scalar and invoke_vector.
void FixAveTime::end_of_step(Simulation& sim) {
  const std::int64_t step = sim.step();
  if (!schedule_.due(step)) return;
  if (schedule_.first()) std::fill(sum_.begin(), sum_.end(), 0.0);
  const auto values = sample(sim);
  for (std::size_t i = 0; i < sum_.size(); ++i) sum_[i] += values[i];
  if (!schedule_.sampled(step)) return;
  for (auto& v : sum_) v /= repeat_;
  average_.add(sum_);
  if (output_.given() && sim.runtime().rank() == 0) {
    std::vector<double> average(average_.total().size());
    for (std::size_t i = 0; i < average.size(); ++i)
      average[i] = average_.total()[i] / average_.norm();
    write(sim, step, average);
  }
}

void FixAveTime::write(Simulation&, std::int64_t step, const std::vector<double>& average) {
  std::string block = std::to_string(step);
  char buf[64];
  const std::size_t n = values_.size();
  if (!vector_mode_) {
    for (double v : average) std::snprintf(buf, sizeof buf, format_.c_str(), v), block += buf;
    block += "\n";
  } else {
    const std::size_t rows = average.size() / n;
    block += ' ';
    block += std::to_string(rows);
    block += '\n';
    for (std::size_t r = 0; r < rows; ++r) {
      block += std::to_string(r + 1);
      for (std::size_t j = 0; j < n; ++j)
        std::snprintf(buf, sizeof buf, format_.c_str(), average[r * n + j]), block += buf;
      block += "\n";
    }
  }
  output_.publish(block);
}

}  // namespace tessera::md
