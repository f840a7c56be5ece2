#include "tessera/weather/time_integrator.hpp"

#include <cmath>

#include "tessera/core/error.hpp"

namespace tessera::weather {
namespace {

class Rk3 final : public TimeIntegrator {
 public:
  explicit Rk3(Model& m)
      : m_(m), stage_(m.make_state("weather.rk3.stage")), k_(m.make_state("weather.rk3.k")) {}
  void step(State& q, double dt) override {
    m_.tendency(q, k_);
    combine(m_.runtime(), stage_, 1, q, dt / 3, k_);
    m_.tendency(stage_, k_);
    combine(m_.runtime(), stage_, 1, q, dt / 2, k_);
    m_.tendency(stage_, k_);
    combine(m_.runtime(), q, 1, q, dt, k_);
  }
  std::string name() const override { return "rk3"; }
  int stages() const override { return 3; }
  double stability_limit() const override { return std::sqrt(3.0); }

 private:
  Model& m_;
  State stage_, k_;
};

class Rk4 final : public TimeIntegrator {
 public:
  explicit Rk4(Model& m)
      : m_(m),
        stage_(m.make_state("weather.rk4.stage")),
        k_(m.make_state("weather.rk4.k")),
        sum_(m.make_state("weather.rk4.sum")) {}
  void step(State& q, double dt) override {
    Runtime& r = m_.runtime();
    m_.tendency(q, k_);
    combine(r, sum_, 1, q, dt / 6, k_);
    combine(r, stage_, 1, q, dt / 2, k_);
    m_.tendency(stage_, k_);
    combine(r, sum_, 1, sum_, dt / 3, k_);
    combine(r, stage_, 1, q, dt / 2, k_);
    m_.tendency(stage_, k_);
    combine(r, sum_, 1, sum_, dt / 3, k_);
    combine(r, stage_, 1, q, dt, k_);
    m_.tendency(stage_, k_);
    combine(r, q, 1, sum_, dt / 6, k_);
  }
  std::string name() const override { return "rk4"; }
  int stages() const override { return 4; }
  double stability_limit() const override { return 2 * std::sqrt(2.0); }

 private:
  Model& m_;
  State stage_, k_, sum_;
};

class Leapfrog final : public TimeIntegrator {
 public:
  Leapfrog(Model& m, double nu)
      : m_(m),
        nu_(nu),
        previous_(m.make_state("weather.leapfrog.previous")),
        k_(m.make_state("weather.leapfrog.k")) {}
  void step(State& q, double dt) override {
    Runtime& r = m_.runtime();
    m_.tendency(q, k_);
    if (first_) {  // forward Euler start; previous <- q, q <- q + dt F(q)
      combine(r, previous_, 1, q, 0, q);
      combine(r, q, 1, q, dt, k_);
      first_ = false;
      return;
    }
    // next = previous + 2 dt k; filtered current = q + nu (next - 2 q + previous);
    // then previous <- filtered current, q <- next. One superstep, exchanging q.
    r.superstep("weather.leapfrog",
                [&](Tile& t) {
                  std::size_t n = 0;
                  for (std::size_t f = 0; f < q.fields.size(); ++f) {
                    const auto cur = t.get(q.fields[f].variable);
                    const auto prev = t.get(previous_.fields[f].variable);
                    const auto k = t.get(k_.fields[f].variable);
                    for (std::size_t e = 0; e < cur.size(); ++e) {
                      const double next = prev[e] + 2 * dt * k[e];
                      prev[e] = cur[e] + nu_ * (next - 2 * cur[e] + prev[e]);
                      cur[e] = next;
                    }
                    n += cur.size();
                  }
                  t.charge(leapfrog_work(), n);
                },
                {q.halo.get()});
  }
  std::string name() const override { return "leapfrog"; }
  int stages() const override { return 1; }
  double stability_limit() const override { return 1.0; }
  const State* previous_level() const override { return first_ ? nullptr : &previous_; }
  State* restore_previous_level() override {
    first_ = false;
    return &previous_;
  }

 private:
  Model& m_;
  double nu_;
  State previous_, k_;
  bool first_ = true;
};

}  // namespace

void combine(Runtime& runtime, const State& out, double a, const State& x, double b, const State& y,
             double c, const State* z) {
  runtime.superstep("weather.combine",
                    [&](Tile& t) {
                      std::size_t n = 0;
                      for (std::size_t f = 0; f < out.fields.size(); ++f) {
                        // out may be x itself (q <- q + dt k): element-wise, so no restrict on it.
                        const std::span<double> o = t.get(out.fields[f].variable);
                        double* od = o.data();
                        const double* xs = t.get(x.fields[f].variable).data();
                        const double* __restrict ys = t.get(y.fields[f].variable).data();
                        if (z) {
                          const double* __restrict zs = t.get(z->fields[f].variable).data();
                          for (std::size_t e = 0; e < o.size(); ++e)
                            od[e] = a * xs[e] + b * ys[e] + c * zs[e];
                        } else {
                          for (std::size_t e = 0; e < o.size(); ++e) od[e] = a * xs[e] + b * ys[e];
                        }
                        n += o.size();
                      }
                      t.charge(combine_work(z ? 3 : 2), n);
                    },
                    {out.halo.get()});
}

std::unique_ptr<TimeIntegrator> make_integrator(const std::string& name, Model& model,
                                                double asselin) {
  if (name == "rk3") return std::make_unique<Rk3>(model);
  if (name == "rk4") return std::make_unique<Rk4>(model);
  if (name == "leapfrog") {
    if (!(asselin >= 0 && asselin < 0.5))
      throw ConfigError("the Robert-Asselin coefficient must be in [0, 0.5), got " +
                        std::to_string(asselin));
    return std::make_unique<Leapfrog>(model, asselin);
  }
  throw ConfigError("unknown time integrator '" + name +
                    "'; the integrators are rk3, rk4, leapfrog");
}

}  // namespace tessera::weather
