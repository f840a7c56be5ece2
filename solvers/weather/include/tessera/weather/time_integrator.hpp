// Time integrators over a Model. Each step() advances the model's state by dt,
// issuing one tendency and one combination superstep per stage; the
// combination superstep also runs the halo exchange of the state it writes.
//
//   RK3   Wicker & Skamarock (2002, Mon. Wea. Rev. 130, 2088), eq. 3:
//         q* = q + dt/3 F(q), q** = q + dt/2 F(q*), q+ = q + dt F(q**); third
//         order for linear problems, second for nonlinear ones.
//   RK4   the classical fourth-order Runge-Kutta scheme.
//   leapfrog  q+ = q- + 2 dt F(q), with the Robert-Asselin filter
//         q <- q + nu (q+ - 2 q + q-) (Robert 1966; Asselin 1972, Mon. Wea. Rev.
//         100, 487); the first step is a forward Euler step. Second order for
//         nu = 0; the filter damps the computational mode at the price of
//         first-order accuracy (O(nu dt)).
#pragma once

#include <memory>
#include <string>

#include "tessera/core/cycle_estimate.hpp"
#include "tessera/weather/model.hpp"

namespace tessera::weather {

// The work of one element of a stage combination out = a x + b y (+ c z): loads, multiplies,
// adds and a store in double.
constexpr KernelWork combine_work(int terms) {
  KernelWork w;
  w.flops_fp64 = 2 * terms - 1;
  w.bytes_loaded = 8.0 * terms;
  w.bytes_stored = 8;
  w.value_bytes = 8;
  return w;
}
// Leapfrog with the Robert-Asselin filter, per element: next = prev + 2 dt k (2 operations),
// prev = cur + nu (next - 2 cur + prev) (5), cur = next; loads cur, prev, k, stores two.
constexpr KernelWork leapfrog_work() {
  KernelWork w;
  w.flops_fp64 = 7;
  w.bytes_loaded = 24;
  w.bytes_stored = 16;
  w.value_bytes = 8;
  return w;
}

class TimeIntegrator {
 public:
  virtual ~TimeIntegrator() = default;
  // Advances `q` (a state made by the model) by dt.
  virtual void step(State& q, double dt) = 0;
  virtual std::string name() const = 0;
  // The stage count (tendency evaluations per step).
  virtual int stages() const = 0;
  // The largest |lambda dt| on the imaginary axis for which the scheme is
  // stable on oscillations dq/dt = i lambda q: sqrt(3) for RK3, 2 sqrt(2) for
  // RK4, 1 for leapfrog (Durran 2010, Numerical Methods for Fluid Dynamics, ch. 2).
  virtual double stability_limit() const = 0;

  // Leapfrog keeps a second time level, the filtered level n - 1, that a restart
  // must save and restore to continue bit for bit. previous_level() is that
  // state once the scheme has started (nullptr for one-level schemes and before
  // leapfrog's forward-Euler first step). restore_previous_level() returns the
  // state to fill with a saved level (with its halos exchanged) and makes the
  // next step a leapfrog step; nullptr for one-level schemes.
  virtual const State* previous_level() const { return nullptr; }
  virtual State* restore_previous_level() { return nullptr; }
};

// integrator (rk3 | rk4 | leapfrog) [=rk3]; `asselin` is the filter coefficient nu.
std::unique_ptr<TimeIntegrator> make_integrator(const std::string& name, Model& model,
                                                double asselin = 0.1);

// out = a*x + b*y (+ c*z) on every element of every field, then the halo
// exchange of `out` (one superstep). Pieces must have equal sizes.
void combine(Runtime& runtime, const State& out, double a, const State& x, double b, const State& y,
             double c = 0, const State* z = nullptr);

}  // namespace tessera::weather
