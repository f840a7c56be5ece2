#include "tessera/md/fix_ave_chunk.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

#include "arguments.hpp"
#include "tessera/core/atomic_file.hpp"
#include "tessera/md/compute_chunk_atom.hpp"
#include "tessera/md/compute_temp.hpp"
#include "tessera/md/output_reference.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixAveChunk::FixAveChunk(const FixArguments& a)
    : Fix(a.id, a.group), sim_(a.sim), variables_(a.atom_variables) {
  const std::string what = "fix ave/chunk";
  const char* usage =
      "fix ID GROUP ave/chunk NEVERY NREPEAT NFREQ CHUNK-ID VALUE... [keyword value ...]";
  arguments::need(a.args, 5, usage);
  if (!sim_) arguments::bad(what + ": needs the simulation it averages");
  every_ = static_cast<int>(arguments::integer(what + " NEVERY", a.args[0], 1, arguments::int_max));
  repeat_ =
      static_cast<int>(arguments::integer(what + " NREPEAT", a.args[1], 1, arguments::int_max));
  frequency_ =
      static_cast<int>(arguments::integer(what + " NFREQ", a.args[2], 1, arguments::int_max));
  if (frequency_ % every_ != 0 || static_cast<long long>(repeat_ - 1) * every_ >= frequency_)
    arguments::bad(what + ": NFREQ must be a multiple of NEVERY and more than (NREPEAT-1)*NEVERY");
  chunk_id_ = a.args[3];
  const Compute* c = sim_->find_compute(chunk_id_);
  if (!c) arguments::bad(what + ": there is no compute " + chunk_id_);
  if (c->style() != "chunk/atom")
    arguments::bad(what + ": compute " + chunk_id_ + " is " + c->style() + ", not chunk/atom");
  adof_ = sim_->dimension();

  std::size_t k = 4;
  for (; k < a.args.size(); ++k) {
    const std::string& w = a.args[k];
    Value v;
    v.text = w;
    if (w.size() == 2 && (w[0] == 'v' || w[0] == 'f') && w[1] >= 'x' && w[1] <= 'z') {
      v.kind = w[0] == 'v' ? Kind::velocity : Kind::force;
      v.component = static_cast<std::size_t>(w[1] - 'x');
    } else if (w == "density/number") {
      v.kind = Kind::density_number;
    } else if (w == "density/mass") {
      v.kind = Kind::density_mass;
    } else if (w == "mass") {
      v.kind = Kind::mass;
    } else if (w == "temp") {
      v.kind = Kind::temperature;
    } else if (w.rfind("c_", 0) == 0) {
      const auto ref = parse_output_reference(w);
      const std::string where = what + " " + w;
      const Compute* source = sim_->find_compute(ref->id);
      if (!source) arguments::bad(where + ": there is no compute " + ref->id);
      const std::size_t columns = source->peratom_columns();
      if (columns == 0)
        arguments::bad(where + ": compute " + ref->id + " (" + source->style() +
                       ") has no per-atom values");
      v.kind = Kind::compute;
      v.compute = ref->id;
      if (ref->every) {
        if (columns == 1) arguments::bad(where + ": compute " + ref->id + " has one column");
        for (std::size_t col = 0; col < columns; ++col) {
          v.component = col;
          v.text = "c_" + ref->id + "[" + std::to_string(col + 1) + "]";
          values_.push_back(v);
        }
        continue;
      }
      if (ref->index == 0 && columns != 1)
        arguments::bad(where + ": compute " + ref->id + " has " + std::to_string(columns) +
                       " per-atom columns; name one with c_" + ref->id + "[N]");
      if (ref->index != 0 && columns == 1)
        arguments::bad(where + ": compute " + ref->id + " has a per-atom vector; use c_" + ref->id);
      if (ref->index > columns)
        arguments::bad(where + ": compute " + ref->id + " has " + std::to_string(columns) +
                       " per-atom columns");
      v.component = ref->index == 0 ? 0 : ref->index - 1;
    } else if (w.rfind("v_", 0) == 0) {
      if (!variables_.check) arguments::bad(what + ": no variables here for " + w);
      variables_.check(w.substr(2), what + " " + w);
      v.kind = Kind::variable;
      v.variable = w.substr(2);
    } else if (w.rfind("f_", 0) == 0) {
      arguments::bad(what + " " + w +
                     ": per-atom fix values are not supported by md_ipu; use vx vy vz fx fy fz "
                     "mass density/number density/mass temp, c_ID of a per-atom compute or "
                     "v_NAME of an atom-style variable");
    } else {
      break;
    }
    if (v.kind == Kind::density_number || v.kind == Kind::density_mass) has_density_ = true;
    values_.push_back(v);
  }
  if (values_.empty()) arguments::bad(what + ": give at least one value");
  for (; k < a.args.size(); ++k) {
    const std::string& key = a.args[k];
    auto value = [&]() -> const std::string& {
      if (k + 1 >= a.args.size()) arguments::bad(what + ": keyword " + key + " needs a value");
      return a.args[++k];
    };
    if (output_.take(key, value)) continue;
    if (key == "norm") {
      const std::string& v = value();
      if (v != "all" && v != "sample" && v != "none")
        arguments::bad(what + ": norm must be all, sample or none");
      norm_ = v == "all" ? Norm::all : Norm::sample;
      scale_by_count_ = v != "none";
    } else if (key == "ave") {
      k += average_.parse(what, a.args, k + 1);
    } else if (key == "bias") {
      bias_ = value();
      const Compute* t = sim_->find_compute(bias_);
      if (!t) arguments::bad(what + " bias: there is no compute " + bias_);
      if (!t->is_temperature())
        arguments::bad(what + " bias: compute " + bias_ + " is not a temperature");
      if (t->removes_atom_bias() && !dynamic_cast<const ComputeTempProfile*>(t))
        arguments::bad(what + " bias: compute " + bias_ + " (" + t->style() +
                       ") removes a bias of the atoms outside its region; md_ipu supports the "
                       "biases of components and of profiles (temp/partial, temp/ramp, "
                       "temp/deform, viscosity/cos)");
    } else if (key == "adof") {
      adof_ = arguments::number(what + " adof", value());
    } else if (key == "cdof") {
      cdof_ = arguments::number(what + " cdof", value());
    } else if (key == "format") {
      format_ = value();  // as LAMMPS: used as given, a leading space is the user's
    } else {
      arguments::bad(what + ": unknown keyword '" + key +
                     "'; supported: norm, ave, bias, adof, cdof, file, overwrite, format, "
                     "title1-3");
    }
  }
  if (output_.overwrite() && !average_.running()) arguments::bad(what + ": overwrite needs ave running");
  average_.reset(0);
  const int conversions = arguments::float_conversions(format_);
  if (conversions != 1)
    arguments::bad(what + " format '" + format_ + "': use exactly one %e, %f or %g");

  coordinates_ = static_cast<std::size_t>(chunk(*sim_).coordinates());
  // The file's first lines, as LAMMPS's.
  std::string columns = "# Chunk";
  for (std::size_t c = 1; c <= coordinates_; ++c) columns += " Coord" + std::to_string(c);
  columns += " Ncount";
  for (const auto& v : values_) columns += " " + v.text;
  output_.set_header(
      output_.title_line(0, "# Chunk-averaged data for fix " + id() + " and group " + group()) +
      output_.title_line(1, "# Timestep Number-of-chunks Total-count") +
      output_.title_line(2, columns));
  if (output_.given() && sim_->runtime().rank() == 0) check_output_path(output_.path());
  schedule_ = SampleSchedule(every_, repeat_, frequency_, 0, sim_->step());
}

ComputeChunkAtom& FixAveChunk::chunk(Simulation& sim) const {
  auto* c = dynamic_cast<ComputeChunkAtom*>(sim.find_compute(chunk_id_));
  if (!c) throw ConfigError("fix " + id() + " ave/chunk: its compute " + chunk_id_ + " is gone");
  return *c;
}

void FixAveChunk::allocate(int chunks) {
  nchunk_ = chunks;
  if (chunks <= allocated_) return;
  allocated_ = chunks;
  const auto n = static_cast<std::size_t>(chunks), width = n * values_.size();
  count_many_.assign(n, 0.0);
  count_sum_.assign(n, 0.0);
  values_many_.assign(width, 0.0);
  values_sum_.assign(width, 0.0);
  // Totals start again when the chunks grow, as LAMMPS's: counts first, then the values.
  average_.resize(n + width);
}

void FixAveChunk::setup(Simulation& sim) {
  schedule_.catch_up(sim.step());
  end_of_step(sim);
}

// LAMMPS's FixAveChunk::end_of_step.
void FixAveChunk::end_of_step(Simulation& sim) {
  const std::int64_t step = sim.step();
  if (!schedule_.due(step)) return;
  ComputeChunkAtom& chunks = chunk(sim);
  const std::size_t nv = values_.size();
  if (schedule_.first()) {
    allocate(chunks.setup_chunks(sim));
    if (repeat_ > 1 && average_.one()) {
      lock_ = std::make_shared<int>(0);
      chunks.lock(lock_);
    } else if (!average_.one() && !lock_) {
      lock_ = std::make_shared<int>(0);
      chunks.lock(lock_);
    }
    std::fill(count_many_.begin(), count_many_.end(), 0.0);
    std::fill(count_sum_.begin(), count_sum_.end(), 0.0);
    std::fill(values_many_.begin(), values_many_.end(), 0.0);
  } else if (has_density_) {
    chunks.setup_chunks(sim);
  }
  const auto nchunk = static_cast<std::size_t>(nchunk_);

  // One sample: per chunk, the count and each value summed over the group's atoms in it.
  std::vector<Compute*> sources(nv, nullptr);
  for (std::size_t j = 0; j < nv; ++j)
    if (values_[j].kind == Kind::compute) {
      sources[j] = sim.find_compute(values_[j].compute);
      if (!sources[j])
        throw ConfigError("fix " + id() + " ave/chunk: its compute " + values_[j].compute +
                          " is gone");
      sources[j]->prepare_peratom(sim);
    }
  std::vector<AtomValues> variables(nv);
  for (std::size_t j = 0; j < nv; ++j)
    if (values_[j].kind == Kind::variable) variables[j] = variables_.bind(values_[j].variable);
  chunks.prepare_peratom(sim);
  // LAMMPS's remove_bias_all around the temperature values, the bias compute's scalar taken
  // first (a profile's flow is measured there).
  VelocityBias bias;
  if (!bias_.empty()) {
    Compute* t = sim.find_compute(bias_);
    if (!t) throw ConfigError("fix " + id() + " ave/chunk bias: its compute " + bias_ + " is gone");
    if (dynamic_cast<const ComputeTempProfile*>(t)) t->scalar(sim);
    bias = velocity_bias(sim, *t);
  }
  const std::size_t stride = 1 + nv;
  const std::vector<double> one = sim.reduce_atoms(
      "md.fix_ave_chunk", ReduceOp::sum, nchunk * stride,
      [&](const AtomsView& a, std::span<double> out) {
        const std::size_t atoms = a.id.size();
        std::vector<double> chunk_of(atoms, 0.0);
        chunks.peratom(a, chunk_of);
        std::vector<std::vector<double>> computed(nv);
        for (std::size_t j = 0; j < nv; ++j)
          if (sources[j]) {
            computed[j].assign(atoms * sources[j]->peratom_columns(), 0.0);
            sources[j]->peratom(a, computed[j]);
          } else if (variables[j]) {
            computed[j].assign(atoms, 0.0);
            variables[j](a, computed[j]);
          }
        for (std::size_t i = 0; i < atoms; ++i) {
          const int c = static_cast<int>(chunk_of[i]);
          if (c <= 0 || (a.mask[i] & group_mask()) == 0) continue;
          double* row = &out[static_cast<std::size_t>(c - 1) * stride];
          row[0] += 1.0;
          const double m = a.mass[static_cast<std::size_t>(a.type[i])];
          for (std::size_t j = 0; j < nv; ++j) {
            const Value& v = values_[j];
            double x = 0;
            switch (v.kind) {
              case Kind::velocity:
                x = a.v[3 * i + v.component];
                break;
              case Kind::force:
                x = 3 * i + v.component < a.f.size() ? a.f[3 * i + v.component] : 0.0;
                break;
              case Kind::density_number:
                x = 1.0;
                break;
              case Kind::density_mass:
              case Kind::mass:
                x = m;
                break;
              case Kind::temperature: {
                const double* vi = &a.v[3 * i];
                const auto b = bias.of(&a.x[3 * i], vi);
                for (std::size_t d = 0; d < 3; ++d) x += (vi[d] - b[d]) * (vi[d] - b[d]);
                x *= m;
                break;
              }
              case Kind::compute: {
                const std::size_t columns = sources[j]->peratom_columns();
                x = computed[j][i * columns + v.component];
                break;
              }
              case Kind::variable:
                x = computed[j][i];
                break;
            }
            row[1 + j] += x;
          }
        }
      });

  // The sample into the average, as LAMMPS's normalisations.
  const Units& u = sim.units();
  const double volume = chunks.chunk_volume();
  if (norm_ == Norm::all) {
    for (std::size_t m = 0; m < nchunk; ++m) {
      count_many_[m] += one[m * stride];
      for (std::size_t j = 0; j < nv; ++j) values_many_[m * nv + j] += one[m * stride + 1 + j];
    }
  } else {
    for (std::size_t m = 0; m < nchunk; ++m) {
      const double count = one[m * stride];
      if (count > 0.0)
        for (std::size_t j = 0; j < nv; ++j) {
          const double x = one[m * stride + 1 + j];
          double& many = values_many_[m * nv + j];
          switch (values_[j].kind) {
            case Kind::temperature:
              many += u.mvv2e * x / ((cdof_ + adof_ * count) * u.boltz);
              break;
            case Kind::density_number:
              many += x / volume;
              break;
            case Kind::density_mass:
              many += u.mv2d * (x / volume);
              break;
            default:
              many += scale_by_count_ ? x / count : x;
          }
        }
      count_sum_[m] += count;
    }
  }
  if (!schedule_.sampled(step)) return;
  if (repeat_ > 1 && average_.one()) lock_.reset();

  // The samples into one average.
  const double repeat = repeat_;
  if (norm_ == Norm::all) {
    for (std::size_t m = 0; m < nchunk; ++m) {
      count_sum_[m] = count_many_[m];
      for (std::size_t j = 0; j < nv; ++j) {
        double& sum = values_sum_[m * nv + j];
        sum = values_many_[m * nv + j];
        if (count_sum_[m] <= 0.0) continue;
        switch (values_[j].kind) {
          case Kind::temperature:  // cdof counts once per sample
            sum *= u.mvv2e / ((repeat * cdof_ + adof_ * count_sum_[m]) * u.boltz);
            break;
          case Kind::density_number:
            sum /= volume;
            sum /= repeat;
            break;
          case Kind::density_mass:
            sum /= volume;
            sum *= u.mv2d / repeat;
            break;
          default:
            sum = scale_by_count_ ? sum / count_sum_[m] : sum / repeat;
        }
      }
      count_sum_[m] /= repeat;
    }
  } else {
    for (std::size_t m = 0; m < nchunk; ++m) {
      for (std::size_t j = 0; j < nv; ++j)
        values_sum_[m * nv + j] = values_many_[m * nv + j] / repeat;
      count_sum_[m] /= repeat;
    }
  }

  // The average into the output: alone, running, or over a window of the last ones.
  const std::size_t n = static_cast<std::size_t>(allocated_);
  std::vector<double> average(n * (1 + nv), 0.0);
  std::copy_n(count_sum_.begin(), nchunk, average.begin());
  std::copy_n(values_sum_.begin(), nchunk * nv, average.begin() + static_cast<std::ptrdiff_t>(n));
  average_.add(average);
  if (output_.given() && sim.runtime().rank() == 0) write(chunks, step);
}

// LAMMPS's FixAveChunk::compute_array.
double FixAveChunk::array(Simulation& sim, std::size_t row, std::size_t column) {
  if (row >= static_cast<std::size_t>(nchunk_) || average_.norm() == 0) return 0.0;
  if (column < coordinates_)
    return chunk(sim).coordinate(static_cast<int>(row), static_cast<int>(column));
  if (column == coordinates_) return count_total(row);
  return value_total(row, column - coordinates_ - 1);
}

// One average in LAMMPS's layout.
void FixAveChunk::write(const ComputeChunkAtom& chunks, std::int64_t step) {
  const std::size_t nchunk = static_cast<std::size_t>(nchunk_), nv = values_.size();
  double total = 0.0;
  for (std::size_t m = 0; m < nchunk; ++m) total += average_.total()[m];  // as LAMMPS: not / norm
  char buf[128];
  std::snprintf(buf, sizeof buf, "%lld %d %g\n", static_cast<long long>(step), nchunk_, total);
  std::string block = buf;
  const int coords = chunks.coordinates();
  for (std::size_t m = 0; m < nchunk; ++m) {
    std::snprintf(buf, sizeof buf, "  %zu", m + 1);
    block += buf;
    for (int c = 0; c < coords; ++c) {
      std::snprintf(buf, sizeof buf, " %g", chunks.coordinate(static_cast<int>(m), c));
      block += buf;
    }
    std::snprintf(buf, sizeof buf, " %g", count_total(m));
    block += buf;
    for (std::size_t j = 0; j < nv; ++j) {
      std::snprintf(buf, sizeof buf, format_.c_str(), value_total(m, j));
      block += buf;
    }
    block += "\n";
  }
  output_.publish(block);
}

}  // namespace tessera::md
