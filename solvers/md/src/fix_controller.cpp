#include "tessera/md/fix_controller.hpp"

#include "arguments.hpp"
#include "tessera/md/simulation.hpp"

namespace tessera::md {

FixController::FixController(const FixArguments& a)
    : Fix(a.id, a.group), variable_(a.variable), set_internal_(a.set_internal) {
  const std::string what = "fix " + a.id + " controller";
  const char* usage = "fix ID GROUP controller NEVERY ALPHA KP KI KD PVAR SETPOINT CVAR";
  arguments::need(a.args, 8, usage);
  if (a.args.size() != 8) arguments::bad(what + ": wrong number of arguments; usage: " + usage);
  every_ = static_cast<int>(arguments::integer(what + " NEVERY", a.args[0], 1, arguments::int_max));
  alpha_ = arguments::number(what + " ALPHA", a.args[1]);
  kp_ = arguments::number(what + " KP", a.args[2]);
  ki_ = arguments::number(what + " KI", a.args[3]);
  kd_ = arguments::number(what + " KD", a.args[4]);
  process_text_ = a.args[5];
  setpoint_ = arguments::number(what + " SETPOINT", a.args[6]);
  control_ = a.args[7];
  if (!variable_ || !set_internal_) arguments::bad(what + ": needs the input's variables");
  const std::string where = what + " " + process_text_;
  if (process_text_.rfind("v_", 0) == 0) {
    process_variable_ = process_text_.substr(2);
    variable_(process_variable_);  // it exists and is a number
  } else {
    process_ = parse_output_reference(process_text_);
    if (!process_ || process_->every || process_->column != 0)
      arguments::bad(where + ": the process value is c_ID, c_ID[N], f_ID, f_ID[N] or v_NAME");
    if (!a.sim) arguments::bad(what + ": needs the simulation");
    output_extensive(*a.sim, *process_, where);  // it exists
    if (const Fix* fix = fix_not_current(*a.sim, *process_, every_))
      arguments::bad(where + ": fix " + fix->id() + " (" + fix->style() + ") is current every " +
                     std::to_string(fix->global_frequency()) + " steps, not every NEVERY = " +
                     std::to_string(every_));
  }
  // CVAR must be internal-style: setting it to its own value checks that.
  control_value_ = variable_(control_);
  set_internal_(control_, control_value_);
}

void FixController::setup(Simulation& sim) { tau_ = every_ * sim.timestep(); }

// LAMMPS's FixController::end_of_step.
void FixController::end_of_step(Simulation& sim) {
  const double current =
      process_ ? output_value(sim, *process_, false, "fix " + id() + " controller " + process_text_)
               : variable_(process_variable_);
  error_ = current - setpoint_;
  if (first_) {
    first_ = false;
    change_ = sum_ = 0;
  } else {
    change_ = error_ - last_error_;
    sum_ += error_;
  }
  control_value_ += -kp_ * alpha_ * tau_ * error_;
  control_value_ += -ki_ * alpha_ * tau_ * tau_ * sum_;
  control_value_ += -kd_ * alpha_ * change_;
  last_error_ = error_;
  set_internal_(control_, control_value_);
}

std::vector<double> FixController::vector(Simulation&) {
  return {-kp_ * alpha_ * tau_ * error_, -ki_ * alpha_ * tau_ * tau_ * sum_, -kd_ * alpha_ * change_};
}

}  // namespace tessera::md
