#include "tessera/md/fix_vector.hpp"

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixVector::FixVector(const FixArguments& a) : Fix(a.id, a.group), variable_(a.variable) {
  const std::string what = "fix vector";
  arguments::need(a.args, 2, "fix ID GROUP vector NEVERY VALUE...");
  every_ = static_cast<int>(arguments::integer(what + " NEVERY", a.args[0], 1, arguments::int_max));
  Simulation* sim = a.sim;
  if (!sim) arguments::bad(what + ": needs the simulation it samples");
  for (std::size_t k = 1; k < a.args.size(); ++k) {
    const std::string& w = a.args[k];
    Value v;
    v.text = w;
    if (w.rfind("v_", 0) == 0) {
      if (!variable_) arguments::bad(what + ": no variables here for " + w);
      if (!values_.empty() && extensive_)
        arguments::bad(what + " " + w + ": its values must be all intensive or all extensive, " +
                       "as LAMMPS requires");
      v.variable = w.substr(2);
    } else if (const auto ref = parse_output_reference(w)) {
      if (ref->every || ref->column > 0)
        arguments::bad(what + " " + w + ": give one global value (c_ID, c_ID[N], f_ID, f_ID[N])");
      const bool extensive = output_extensive(*sim, *ref, what + " " + w);
      if (!values_.empty() && extensive != extensive_)
        arguments::bad(what + " " + w + ": its values must be all intensive or all extensive, " +
                       "as LAMMPS requires");
      extensive_ = extensive;
      if (const Fix* fix = fix_not_current(*sim, *ref, every_))
        arguments::bad(what + " " + w + ": fix " + fix->id() + " (" + fix->style() +
                       ") is current every " + std::to_string(fix->global_frequency()) +
                       " steps, not every NEVERY = " + std::to_string(every_));
      v.ref = ref;
    } else {
      arguments::bad(what + ": value '" + w + "' is not c_ID, f_ID or v_NAME");
    }
    values_.push_back(v);
  }
  // LAMMPS's first sample: the first multiple of NEVERY at or after now.
  const std::int64_t step = sim->step();
  next_ = (step / every_) * every_;
  if (next_ < step) next_ += every_;
}

void FixVector::end_of_step(Simulation& sim) {
  if (sim.step() != next_) return;
  for (const Value& v : values_)
    data_.push_back(v.ref ? output_value(sim, *v.ref, false, "fix " + id() + " vector " + v.text)
                          : variable_(v.variable));
  ++rows_;
  next_ += every_;
}

std::vector<double> FixVector::vector(Simulation&) {
  return values_.size() == 1 ? data_ : std::vector<double>{};
}

double FixVector::array(Simulation&, std::size_t row, std::size_t column) {
  return row < rows_ ? data_[row * values_.size() + column] : 0.0;
}

}  // namespace tessera::md
