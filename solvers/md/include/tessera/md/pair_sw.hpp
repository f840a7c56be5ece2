// pair_style sw: the Stillinger-Weber potential (Phys. Rev. B 31, 5262 (1985)) as LAMMPS's
// MANYBODY/pair_sw.cpp computes it (the Debian build, 29 Sep 2021), reading the same files:
//
//   E = sum_{i<j} phi2(r_ij) + sum_i sum_{j<k} phi3(r_ij, r_ik, theta_jik)
//   phi2 = A eps (B (sigma/r)^p - (sigma/r)^q) exp(sigma / (r - a sigma))
//   phi3 = lambda eps (cos theta_jik - cos theta0)^2 exp(gamma_ij sigma_ij / (r_ij - a_ij
//   sigma_ij))
//          exp(gamma_ik sigma_ik / (r_ik - a_ik sigma_ik))
// with each element triplet's entry of 14 words: E1 E2 E3 epsilon sigma a lambda gamma
// cos(theta0) A B p q tol (the two-body terms of I-J and the legs of the three-body terms from
// entry I J J; tol > 0 moves the cutoff in, as LAMMPS does, to where the exponential falls below
// tol). In units real epsilon is converted from a metal file. The rest is PairThreeBody's.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tessera/md/kernel_work.hpp"
#include "tessera/md/pair_threebody.hpp"

namespace tessera::md {

struct StillingerWeber {
  static constexpr const char* name = "sw";
  static constexpr const char* file_kind = "Stillinger-Weber potential file";
  static constexpr std::size_t words = 14;
  static constexpr bool global_short = false;
  static constexpr KernelWork list_work = threebody_list_work, pair_work = sw_pair_work,
                              triplet_work = sw_triplet_work;
  struct Param {
    double cutsq = 0, cut3sq = 0;
    double epsilon = 0, sigma = 0, littlea = 0, lambda = 0, gamma = 0, costheta = 0;
    double biga = 0, bigb = 0, powerp = 0, powerq = 0, tol = 0, cut = 0;
    double sigma_gamma = 0, lambda_epsilon = 0, lambda_epsilon2 = 0;
    double c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0, c6 = 0;
  };

  static std::string convert_and_check(std::vector<double>& v, double conversion) {
    v[0] *= conversion;
    for (std::size_t k = 0; k < v.size(); ++k)
      if (k != 5 && v[k] < 0.0) return "LAMMPS requires every parameter but cos(theta0) >= 0";
    return "";
  }

  static Param make(const std::vector<double>& v, const Units&) {
    Param p;
    p.epsilon = v[0], p.sigma = v[1], p.littlea = v[2], p.lambda = v[3], p.gamma = v[4];
    p.costheta = v[5], p.biga = v[6], p.bigb = v[7], p.powerp = v[8], p.powerq = v[9];
    p.tol = v[10];
    p.cut = p.sigma * p.littlea;
    double rtmp = p.cut;
    if (p.tol > 0.0) {
      p.tol = std::min(p.tol, 0.01);
      if (p.gamma < 1.0)
        rtmp = rtmp + p.gamma * p.sigma / std::log(p.tol);
      else
        rtmp = rtmp + p.sigma / std::log(p.tol);
    }
    p.cutsq = p.cut3sq = rtmp * rtmp;
    p.sigma_gamma = p.sigma * p.gamma;
    p.lambda_epsilon = p.lambda * p.epsilon;
    p.lambda_epsilon2 = 2.0 * p.lambda * p.epsilon;
    p.c1 = p.biga * p.epsilon * p.powerp * p.bigb * std::pow(p.sigma, p.powerp);
    p.c2 = p.biga * p.epsilon * p.powerq * std::pow(p.sigma, p.powerq);
    p.c3 = p.biga * p.epsilon * p.bigb * std::pow(p.sigma, p.powerp + 1.0);
    p.c4 = p.biga * p.epsilon * std::pow(p.sigma, p.powerq + 1.0);
    p.c5 = p.biga * p.epsilon * p.bigb * std::pow(p.sigma, p.powerp);
    p.c6 = p.biga * p.epsilon * std::pow(p.sigma, p.powerq);
    return p;
  }

  static double twobody(const Param& p, double rsq, double& eng) {
    const double r = std::sqrt(rsq);
    const double rinvsq = 1.0 / rsq;
    const double rp = std::pow(r, -p.powerp), rq = std::pow(r, -p.powerq);
    const double rainv = 1.0 / (r - p.cut);
    const double rainvsq = rainv * rainv * r;
    const double expsrainv = std::exp(p.sigma * rainv);
    eng = (p.c5 * rp - p.c6 * rq) * expsrainv;
    return (p.c1 * rp - p.c2 * rq + (p.c3 * rp - p.c4 * rq) * rainvsq) * expsrainv * rinvsq;
  }

  static void threebody(const Param& pij, const Param& pik, const Param& pijk, double rsq1,
                        double rsq2, const double* delr1, const double* delr2, double* fj,
                        double* fk, double& eng) {
    const threebody::Leg l1(rsq1, pij.cut, pij.sigma_gamma), l2(rsq2, pik.cut, pik.sigma_gamma);
    const double rinv12 = 1.0 / (l1.r * l2.r);
    const double cs = (delr1[0] * delr2[0] + delr1[1] * delr2[1] + delr1[2] * delr2[2]) * rinv12;
    const double delcs = cs - pijk.costheta;
    const double facexp = l1.expgsrainv * l2.expgsrainv;
    const double facrad = pijk.lambda_epsilon * facexp * (delcs * delcs);
    const double facang = pijk.lambda_epsilon2 * facexp * delcs;
    threebody::angular_forces(delr1, delr2, l1, l2, cs, rinv12, facrad, facang, fj, fk);
    eng = facrad;
  }
};
using PairSW = PairThreeBody<StillingerWeber>;

}  // namespace tessera::md
