#include "tessera/md/compute_reduce.hpp"

#include <cmath>
#include <map>

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {
namespace {
constexpr double big = 1.0e20;  // LAMMPS's BIG: the min (max) of no atoms
const char* const properties[] = {"x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz"};
}  // namespace

ComputeReduce::ComputeReduce(const ComputeArguments& a)
    : Compute(a.id, a.group), variables_(a.atom_variables) {
  const std::string what = "compute " + a.id + " reduce";
  static const std::map<std::string, Mode> modes{
      {"sum", Mode::sum},     {"sumsq", Mode::sumsq},  {"sumabs", Mode::sumabs},
      {"min", Mode::min},     {"max", Mode::max},      {"ave", Mode::ave},
      {"avesq", Mode::avesq}, {"aveabs", Mode::aveabs}};
  if (a.args.size() < 2) throw ConfigError(what + ": usage: compute ID GROUP reduce MODE INPUT...");
  const auto mode = modes.find(a.args[0]);
  if (mode == modes.end())
    throw ConfigError(what + ": unknown mode '" + a.args[0] +
                      "'; use sum, sumsq, sumabs, min, max, ave, avesq or aveabs");
  mode_ = mode->second;
  for (std::size_t k = 1; k < a.args.size(); ++k) {
    const std::string& word = a.args[k];
    if (word == "replace") throw ConfigError(what + ": the replace keyword is not supported");
    Input in;
    for (int p = 0; p < 9; ++p)
      if (word == properties[p]) in.property = p;
    if (in.property >= 0) {
      inputs_.push_back(in);
      continue;
    }
    if (word.rfind("v_", 0) == 0) {
      if (!a.atom_variables.check) throw ConfigError(what + ": no variables here for " + word);
      a.atom_variables.check(word.substr(2), what + " " + word);
      in.variable = word.substr(2);
      inputs_.push_back(in);
      continue;
    }
    if (word.rfind("c_", 0) != 0)
      throw ConfigError(what + ": input '" + word +
                        "' is not supported; use x y z vx vy vz fx fy fz, c_ID, c_ID[N] or "
                        "c_ID[*] of a per-atom compute, or v_NAME of an atom-style variable");
    std::string name = word.substr(2);
    std::string index;
    if (const auto open = name.find('['); open != std::string::npos) {
      if (name.back() != ']') throw ConfigError(what + ": input '" + word + "' lacks its ']'");
      index = name.substr(open + 1, name.size() - open - 2);
      name = name.substr(0, open);
    }
    const Compute* c = a.sim ? a.sim->find_compute(name) : nullptr;
    if (!c) throw ConfigError(what + ": there is no compute " + name);
    const std::size_t columns = c->peratom_columns();
    if (columns == 0)
      throw ConfigError(what + ": compute " + name + " (" + c->style() +
                        ") has no per-atom values");
    in.compute = name;
    if (index.empty()) {
      if (columns != 1)
        throw ConfigError(what + ": compute " + name + " has " + std::to_string(columns) +
                          " per-atom columns; name one with c_" + name + "[N] or all with [*]");
      inputs_.push_back(in);
    } else if (index == "*") {
      for (std::size_t col = 0; col < columns; ++col) in.column = col, inputs_.push_back(in);
    } else {
      if (columns == 1)
        throw ConfigError(what + ": compute " + name +
                          " has a per-atom vector, not columns; "
                          "use c_" +
                          name);
      in.column = static_cast<std::size_t>(arguments::integer(what + " " + word, index, 1,
                                                              static_cast<long long>(columns))) -
                  1;
      inputs_.push_back(in);
    }
  }
}

std::vector<double> ComputeReduce::reduce(Simulation& sim) {
  const std::size_t n = inputs_.size();
  const bool minimum = mode_ == Mode::min, maximum = mode_ == Mode::max;
  const ReduceOp op = minimum ? ReduceOp::min : maximum ? ReduceOp::max : ReduceOp::sum;
  std::vector<Compute*> sources(n, nullptr);
  std::vector<AtomValues> variables(n);
  for (std::size_t k = 0; k < n; ++k)
    if (!inputs_[k].variable.empty()) {
      variables[k] = variables_.bind(inputs_[k].variable);
    } else if (inputs_[k].property < 0) {
      sources[k] = sim.find_compute(inputs_[k].compute);
      if (!sources[k])
        throw ConfigError("compute " + id() + " reduce: its input compute " + inputs_[k].compute +
                          " no longer exists");
      sources[k]->prepare_peratom(sim);
    }
  auto values = sim.reduce_atoms(
      "md.compute_reduce", op, n + 1, [&](const AtomsView& a, std::span<double> out) {
        const std::size_t atoms = a.id.size();
        std::vector<double> buffer;
        for (std::size_t k = 0; k < n; ++k) {
          const Input& in = inputs_[k];
          std::size_t columns = 1;
          if (sources[k]) {
            columns = sources[k]->peratom_columns();
            buffer.assign(atoms * columns, 0.0);
            sources[k]->peratom(a, buffer);
          } else if (variables[k]) {
            buffer.assign(atoms, 0.0);
            variables[k](a, buffer);
          }
          double acc = minimum ? big : maximum ? -big : 0.0;
          for (std::size_t i = 0; i < atoms; ++i) {
            if (!in_group(a, i)) continue;
            double value;
            if (sources[k] || variables[k])
              value = buffer[i * columns + in.column];
            else if (in.property < 3)
              value = a.x[3 * i + static_cast<std::size_t>(in.property)];
            else if (in.property < 6)
              value = a.v[3 * i + static_cast<std::size_t>(in.property - 3)];
            else
              value =
                  i < a.f.size() / 3 ? a.f[3 * i + static_cast<std::size_t>(in.property - 6)] : 0.0;
            switch (mode_) {
              case Mode::sum:
              case Mode::ave:
                acc += value;
                break;
              case Mode::sumsq:
              case Mode::avesq:
                acc += value * value;
                break;
              case Mode::sumabs:
              case Mode::aveabs:
                acc += std::fabs(value);
                break;
              case Mode::min:
                acc = std::fmin(acc, value);
                break;
              case Mode::max:
                acc = std::fmax(acc, value);
                break;
            }
          }
          out[k] = acc;
        }
        // The group's atom count (for the ave modes; a sum in every mode but min and max).
        double count = 0;
        for (std::size_t i = 0; i < atoms; ++i) count += in_group(a, i) ? 1 : 0;
        out[n] = minimum || maximum ? 0.0 : count;
      });
  const double count = values[n];
  values.resize(n);
  if (mode_ == Mode::ave || mode_ == Mode::avesq || mode_ == Mode::aveabs)
    for (auto& value : values)
      if (count > 0) value /= count;
  return values;
}

}  // namespace tessera::md
