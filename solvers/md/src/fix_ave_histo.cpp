#include "tessera/md/fix_ave_histo.hpp"

#include <algorithm>
#include <cstdio>

#include "arguments.hpp"
#include "tessera/core/atomic_file.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

namespace {
constexpr double big = 1.0e20;  // LAMMPS's BIG: the min (max) of no values
const char* const properties[] = {"x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz"};

}  // namespace

FixAveHisto::FixAveHisto(const FixArguments& a)
    : Fix(a.id, a.group), variable_(a.variable), atom_variables_(a.atom_variables) {
  const std::string what = "fix " + a.id + " ave/histo";
  arguments::need(a.args, 7,
                  "fix ID GROUP ave/histo NEVERY NREPEAT NFREQ LO HI NBIN VALUE... [keyword ...]");
  every_ = static_cast<int>(arguments::integer(what + " NEVERY", a.args[0], 1, arguments::int_max));
  repeat_ =
      static_cast<int>(arguments::integer(what + " NREPEAT", a.args[1], 1, arguments::int_max));
  frequency_ =
      static_cast<int>(arguments::integer(what + " NFREQ", a.args[2], 1, arguments::int_max));
  lo_ = arguments::number(what + " LO", a.args[3]);
  hi_ = arguments::number(what + " HI", a.args[4]);
  const auto bins =
      static_cast<std::size_t>(arguments::integer(what + " NBIN", a.args[5], 1, 10000000));
  if (frequency_ % every_ != 0 || static_cast<long long>(repeat_ - 1) * every_ >= frequency_)
    arguments::bad(what + ": NFREQ must be a multiple of NEVERY and more than (NREPEAT - 1) * NEVERY");
  if (!(lo_ < hi_)) arguments::bad(what + ": LO must be less than HI");
  std::size_t k = 6;
  std::vector<std::string> words;
  for (; k < a.args.size(); ++k) {
    const std::string& w = a.args[k];
    const bool property = std::find(std::begin(properties), std::end(properties), w) != std::end(properties);
    if (!property && w.rfind("c_", 0) != 0 && w.rfind("f_", 0) != 0 && w.rfind("v_", 0) != 0) break;
    words.push_back(w);
  }
  if (words.empty()) arguments::bad(what + ": give at least one value");
  std::string kind;
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
    } else if (key == "kind") {
      const std::string& v = value();
      if (v == "local") arguments::bad(what + ": kind local: md_ipu has no local values");
      if (v != "global" && v != "peratom") arguments::bad(what + ": kind must be global or peratom");
      kind = v;
    } else if (key == "beyond") {
      const std::string& v = value();
      if (v == "ignore")
        beyond_ = Beyond::ignore;
      else if (v == "end")
        beyond_ = Beyond::end;
      else if (v == "extra")
        beyond_ = Beyond::extra;
      else
        arguments::bad(what + ": beyond must be ignore, end or extra");
    } else {
      arguments::bad(what + ": unknown keyword '" + key +
                     "'; supported: mode, kind, ave, start, beyond, file, overwrite, title1-3");
    }
  }
  Simulation* sim = a.sim;
  if (!sim) arguments::bad(what + ": needs the simulation it samples");
  // Each value global or per-atom; all must be alike (LAMMPS's kind).
  std::optional<bool> per_atom;
  for (const auto& w : words) {
    const std::string where = what + " " + w;
    Value v;
    v.text = w;
    bool atom_value = false;
    for (int p = 0; p < 9; ++p)
      if (w == properties[p]) v.property = p, atom_value = true;
    if (w.rfind("v_", 0) == 0) {
      v.variable = w.substr(2);
      bool atom_style = false;
      if (atom_variables_.check) {
        try {
          atom_variables_.check(v.variable, where);
          atom_style = true;
        } catch (const ConfigError&) {
        }
      }
      if (!atom_style && !variable_) arguments::bad(where + ": no variables here");
      atom_value = atom_style;
    } else if (v.property < 0) {
      v.ref = parse_output_reference(w);
      if (v.ref->column != 0 || v.ref->every)
        arguments::bad(where + ": give c_ID, c_ID[N], f_ID or f_ID[N]");
      if (v.ref->kind == 'c') {
        Compute* c = sim->find_compute(v.ref->id);
        if (!c) arguments::bad(where + ": there is no compute " + v.ref->id);
        const bool global = c->has_scalar() || c->vector_size() > 0 || c->array_columns() > 0;
        atom_value = !global && c->peratom_columns() > 0;
        if (atom_value) {
          const std::size_t columns = c->peratom_columns();
          if ((columns == 1) != (v.ref->index == 0) || v.ref->index > columns)
            arguments::bad(where + ": compute " + v.ref->id + " has " +
                           (columns == 1 ? std::string("a per-atom vector; use c_") + v.ref->id
                                         : std::to_string(columns) + " per-atom columns; name one"));
        }
      }
      if (!atom_value) {
        if (const Fix* fix = fix_not_current(*sim, *v.ref, every_))
          arguments::bad(where + ": fix " + fix->id() + " (" + fix->style() +
                         ") is current every " + std::to_string(fix->global_frequency()) +
                         " steps, not every NEVERY = " + std::to_string(every_));
        if (vector_mode_ && output_column_size(*sim, *v.ref, where) == 0)
          arguments::bad(where + ": mode vector needs a global vector or an array column");
        if (!vector_mode_) output_extensive(*sim, *v.ref, where);  // it exists
      }
    }
    if (per_atom && *per_atom != atom_value)
      arguments::bad(what + ": the values are not all global or all per-atom");
    per_atom = atom_value;
    values_.push_back(v);
  }
  per_atom_ = *per_atom;
  if (!kind.empty() && (kind == "peratom") != per_atom_)
    arguments::bad(what + ": kind " + kind + ", but the values are " +
                   (per_atom_ ? "per-atom" : "global"));
  if (per_atom_ && !vector_mode_)
    arguments::bad(what + ": per-atom values need mode vector (LAMMPS refuses them in mode scalar)");
  // Bins: NBIN over [LO, HI], and with beyond extra one more at each end.
  const double width = (hi_ - lo_) / static_cast<double>(bins);
  inverse_width_ = 1.0 / width;
  if (beyond_ == Beyond::extra) coord_.push_back(lo_);
  for (std::size_t b = 0; b < bins; ++b) coord_.push_back(lo_ + (static_cast<double>(b) + 0.5) * width);
  if (beyond_ == Beyond::extra) coord_.push_back(hi_);
  sum_.assign(coord_.size() + 4, 0.0);
  average_.reset(coord_.size() + 2);
  schedule_ = SampleSchedule(every_, repeat_, frequency_, start_, sim->step());
  output_.set_header(
      output_.title_line(0, "# Histogrammed data for fix " + id()) +
      output_.title_line(
          1, "# TimeStep Number-of-bins Total-counts Missing-counts Min-value Max-value") +
      output_.title_line(2, "# Bin Coord Count Count/Total"));
  if (output_.given() && sim->runtime().rank() == 0) check_output_path(output_.path());
}

void FixAveHisto::bin(double value, std::vector<double>& h) const {
  const std::size_t n = coord_.size();
  double& total = h[n];
  double& missing = h[n + 1];
  h[n + 2] = std::min(h[n + 2], value);
  h[n + 3] = std::max(h[n + 3], value);
  if (value < lo_ || value > hi_) {
    if (beyond_ == Beyond::ignore) {
      missing += 1;
      return;
    }
    h[value < lo_ ? 0 : n - 1] += 1;
  } else {
    const std::size_t inner = beyond_ == Beyond::extra ? n - 2 : n;
    auto b = static_cast<std::size_t>((value - lo_) * inverse_width_);
    b = std::min(b, inner - 1);
    h[beyond_ == Beyond::extra ? b + 1 : b] += 1;
  }
  total += 1;
}

std::vector<double> FixAveHisto::sample(Simulation& sim) {
  const std::size_t n = coord_.size();
  std::vector<double> h(n + 4, 0.0);
  h[n + 2] = big, h[n + 3] = -big;
  if (!per_atom_) {
    for (const auto& v : values_) {
      const std::string where = "fix " + id() + " ave/histo " + v.text;
      if (!v.ref) {
        bin(variable_(v.variable), h);
      } else if (vector_mode_) {
        for (double x : output_column(sim, *v.ref, where)) bin(x, h);
      } else {
        bin(output_value(sim, *v.ref, false, where), h);
      }
    }
    return h;
  }
  // Per-atom values: each tile bins its own atoms; the tiles' histograms are combined on every
  // rank in tile order.
  std::vector<Compute*> computes(values_.size(), nullptr);
  std::vector<AtomValues> variables(values_.size());
  for (std::size_t k = 0; k < values_.size(); ++k) {
    const Value& v = values_[k];
    if (!v.variable.empty()) {
      variables[k] = atom_variables_.bind(v.variable);
    } else if (v.ref) {
      computes[k] = sim.find_compute(v.ref->id);
      if (!computes[k])
        throw ConfigError("fix " + id() + " ave/histo: its compute " + v.ref->id +
                          " no longer exists");
      computes[k]->prepare_peratom(sim);
    }
  }
  const std::size_t width = n + 4;
  const auto tiles = sim.gather_atoms(
      "md.fix_ave_histo", width, [&](const AtomsView& a, std::span<double> out) {
        std::vector<double> h_tile(width, 0.0);
        h_tile[n + 2] = big, h_tile[n + 3] = -big;
        const std::size_t atoms = a.id.size();
        std::vector<double> buffer;
        for (std::size_t k = 0; k < values_.size(); ++k) {
          const Value& v = values_[k];
          std::size_t columns = 1, column = 0;
          if (computes[k]) {
            columns = computes[k]->peratom_columns();
            column = v.ref->index > 0 ? v.ref->index - 1 : 0;
            buffer.assign(atoms * columns, 0.0);
            computes[k]->peratom(a, buffer);
          } else if (variables[k]) {
            buffer.assign(atoms, 0.0);
            variables[k](a, buffer);
          }
          for (std::size_t i = 0; i < atoms; ++i) {
            if ((a.mask[i] & group_mask()) == 0) continue;
            double x;
            if (computes[k] || variables[k])
              x = buffer[i * columns + column];
            else if (v.property < 3)
              x = a.x[3 * i + static_cast<std::size_t>(v.property)];
            else if (v.property < 6)
              x = a.v[3 * i + static_cast<std::size_t>(v.property - 3)];
            else
              x = i < a.f.size() / 3 ? a.f[3 * i + static_cast<std::size_t>(v.property - 6)] : 0.0;
            bin(x, h_tile);
          }
        }
        std::copy(h_tile.begin(), h_tile.end(), out.begin());
      });
  for (std::size_t t = 0; t * width < tiles.size(); ++t) {
    const double* o = &tiles[t * width];
    for (std::size_t b = 0; b < n + 2; ++b) h[b] += o[b];
    h[n + 2] = std::min(h[n + 2], o[n + 2]);
    h[n + 3] = std::max(h[n + 3], o[n + 3]);
  }
  return h;
}

void FixAveHisto::setup(Simulation& sim) {
  schedule_.catch_up(sim.step());
  end_of_step(sim);
}

// LAMMPS's FixAveHisto::end_of_step.
void FixAveHisto::end_of_step(Simulation& sim) {
  const std::int64_t step = sim.step();
  if (!schedule_.due(step)) return;
  const std::size_t n = coord_.size();
  if (schedule_.first()) {
    std::fill(sum_.begin(), sum_.end(), 0.0);
    sum_[n + 2] = big, sum_[n + 3] = -big;
  }
  const auto h = sample(sim);
  for (std::size_t b = 0; b < n + 2; ++b) sum_[b] += h[b];
  sum_[n + 2] = std::min(sum_[n + 2], h[n + 2]);
  sum_[n + 3] = std::max(sum_[n + 3], h[n + 3]);
  if (!schedule_.sampled(step)) return;
  // Combined with the earlier histograms as `ave` says: the bins and counts by TimeAverage,
  // the extremes over the same histograms.
  average_.add(std::span<const double>(sum_.data(), n + 2));
  const std::array<double, 2> extremes{sum_[n + 2], sum_[n + 3]};
  if (average_.one()) {
    stats_[2] = extremes[0], stats_[3] = extremes[1];
  } else if (average_.running()) {
    stats_[2] = std::min(stats_[2], extremes[0]), stats_[3] = std::max(stats_[3], extremes[1]);
  } else {
    const auto window = static_cast<std::size_t>(average_.window());
    if (window_extremes_.size() < window)
      window_extremes_.push_back(extremes);
    else
      window_extremes_[window_at_] = extremes;
    window_at_ = (window_at_ + 1) % window;
    stats_[2] = big, stats_[3] = -big;
    for (const auto& e : window_extremes_)
      stats_[2] = std::min(stats_[2], e[0]), stats_[3] = std::max(stats_[3], e[1]);
  }
  stats_[0] = average_.total()[n];
  stats_[1] = average_.total()[n + 1];
  if (output_.given() && sim.runtime().rank() == 0) write(step);
}

std::vector<double> FixAveHisto::vector(Simulation&) {
  return {stats_[0], stats_[1], stats_[2], stats_[3]};
}

double FixAveHisto::array(Simulation&, std::size_t row, std::size_t column) {
  if (row >= coord_.size()) return 0.0;
  const auto total = average_.total();
  const double count = total.empty() ? 0.0 : total[row];
  if (column == 0) return coord_[row];
  if (column == 1) return count;
  return stats_[0] != 0.0 ? count / stats_[0] : 0.0;
}

void FixAveHisto::write(std::int64_t step) {
  const std::size_t n = coord_.size();
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lld %zu %g %g %g %g\n", static_cast<long long>(step), n,
                stats_[0], stats_[1], stats_[2], stats_[3]);
  std::string block = buf;
  const auto total = average_.total();
  for (std::size_t b = 0; b < n; ++b) {
    if (stats_[0] != 0.0)
      std::snprintf(buf, sizeof buf, "%zu %g %g %g\n", b + 1, coord_[b], total[b],
                    total[b] / stats_[0]);
    else
      std::snprintf(buf, sizeof buf, "%zu %g %g %g\n", b + 1, coord_[b], 0.0, 0.0);
    block += buf;
  }
  output_.publish(block);
}

}  // namespace tessera::md
