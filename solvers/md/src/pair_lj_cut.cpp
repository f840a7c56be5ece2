#include "tessera/md/pair_lj_cut.hpp"

#include <algorithm>
#include <cmath>

#include "tessera/core/error.hpp"

namespace tessera::md {

void PairLJCut::settings(double global_cutoff) {
  if (!(global_cutoff > 0)) throw ConfigError("pair_style lj/cut: the cutoff must be positive");
  global_cutoff_ = global_cutoff;
}

void PairLJCut::coeff(int ilo, int ihi, int jlo, int jhi, double epsilon, double sigma,
                      double cutoff) {
  if (!defined()) throw ConfigError("pair_coeff before pair_style: set pair_style lj/cut first");
  if (epsilon < 0 || !(sigma > 0))
    throw ConfigError("pair_coeff: epsilon must be >= 0 and sigma > 0");
  const int need = std::max(ihi, jhi);
  if (static_cast<int>(set_.size()) < need + 1) {
    set_.resize(static_cast<std::size_t>(need) + 1);
    for (auto& row : set_) row.resize(static_cast<std::size_t>(need) + 1);
  }
  for (int i = ilo; i <= ihi; ++i)
    for (int j = std::max(jlo, i); j <= jhi; ++j) {
      Setting s{epsilon, sigma, cutoff < 0 ? -1.0 : cutoff, true};
      set_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = s;
      set_[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] = s;
    }
}

void PairLJCut::set_mix(const std::string& rule) {
  if (rule != "geometric" && rule != "arithmetic")
    throw ConfigError("pair_modify mix " + rule + ": use geometric or arithmetic");
  mix_ = rule;
}

void PairLJCut::restore(int types, double global_cutoff, bool shift, const std::string& mix,
                        const std::vector<std::vector<Setting>>& set) {
  global_cutoff_ = global_cutoff;
  shift_ = shift;
  mix_ = mix;
  set_ = set;
  init(types);
}

void PairLJCut::init(int types) {
  if (!defined()) throw ConfigError("run: no pair style is defined; add pair_style lj/cut RC");
  types_ = types;
  if (static_cast<int>(set_.size()) < types + 1) {
    set_.resize(static_cast<std::size_t>(types) + 1);
    for (auto& row : set_) row.resize(static_cast<std::size_t>(types) + 1);
  }
  table_.assign(static_cast<std::size_t>((types + 1) * (types + 1)), Coeff{});
  max_cutoff_ = 0;
  for (int i = 1; i <= types; ++i)
    for (int j = i; j <= types; ++j) {
      Setting s = set_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      if (!s.set) {
        const Setting& a = set_[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)];
        const Setting& b = set_[static_cast<std::size_t>(j)][static_cast<std::size_t>(j)];
        if (!a.set || !b.set)
          throw ConfigError("pair_coeff: no coefficients for atom types " + std::to_string(i) +
                            " " + std::to_string(j) +
                            " and none to mix them from; add pair_coeff " + std::to_string(i) +
                            " " + std::to_string(j) + " EPS SIGMA");
        s.epsilon = std::sqrt(a.epsilon * b.epsilon);
        s.sigma = mix_ == "geometric" ? std::sqrt(a.sigma * b.sigma) : 0.5 * (a.sigma + b.sigma);
        const double ca = a.cutoff < 0 ? global_cutoff_ : a.cutoff,
                     cb = b.cutoff < 0 ? global_cutoff_ : b.cutoff;
        s.cutoff = mix_ == "geometric" ? std::sqrt(ca * cb) : 0.5 * (ca + cb);
      }
      const double rc = s.cutoff < 0 ? global_cutoff_ : s.cutoff;
      Coeff c;
      c.cutsq = rc * rc;
      c.lj1 = 48.0 * s.epsilon * std::pow(s.sigma, 12.0);
      c.lj2 = 24.0 * s.epsilon * std::pow(s.sigma, 6.0);
      c.lj3 = 4.0 * s.epsilon * std::pow(s.sigma, 12.0);
      c.lj4 = 4.0 * s.epsilon * std::pow(s.sigma, 6.0);
      if (shift_ && rc > 0) {
        const double ratio = s.sigma / rc;
        c.offset = 4.0 * s.epsilon * (std::pow(ratio, 12.0) - std::pow(ratio, 6.0));
      }
      table_[static_cast<std::size_t>(i * (types + 1) + j)] = c;
      table_[static_cast<std::size_t>(j * (types + 1) + i)] = c;
      max_cutoff_ = std::max(max_cutoff_, rc);
    }
}

}  // namespace tessera::md
