// pair_style vashishta: Vashishta's potential for covalent-ionic solids (Vashishta, Kalia,
// Rino and Ebbsjo, Phys. Rev. B 41, 12197 (1990); Branicio et al., J. Phys. Condens. Matter 21,
// 095002 (2009)) as LAMMPS's MANYBODY/pair_vashishta.cpp computes it (the Debian build, 29 Sep
// 2021), reading the same files:
//
//   phi2 = H / r^eta + Zi Zj exp(-r/lambda1) / r - D exp(-r/lambda4) / r^4 - W / r^6, shifted so
//          that it and its slope vanish at rc (LAMMPS's c0 and dvrc terms)
//   phi3 = B [(cos theta_jik - cos theta0)^2 / (1 + C (cos theta_jik - cos theta0)^2)]
//          exp(gamma / (r_ij - r0)) exp(gamma / (r_ik - r0)),  r_ij, r_ik < r0
// with each element triplet's entry of 17 words: E1 E2 E3 H eta Zi Zj lambda1 D lambda4 W rc B
// gamma r0 C cos(theta0) (the two-body terms of I-J and the legs' gamma and r0 from entry
// I J J). Zi Zj exp(-r/lambda1)/r is in the units' Coulomb constant (qqr2e); in units real H,
// D, W and B are converted from a metal file. The rest is PairThreeBody's.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tessera/md/kernel_work.hpp"
#include "tessera/md/pair_threebody.hpp"

namespace tessera::md {

struct Vashishta {
  static constexpr const char* name = "vashishta";
  static constexpr const char* file_kind = "Vashishta potential file";
  static constexpr std::size_t words = 17;
  static constexpr bool global_short = true;
  static constexpr KernelWork list_work = threebody_list_work, pair_work = vashishta_pair_work,
                              triplet_work = vashishta_triplet_work;
  struct Param {
    double cutsq = 0, cut3sq = 0;
    double bigh = 0, eta = 0, zi = 0, zj = 0, lambda1 = 0, bigd = 0, lambda4 = 0, bigw = 0;
    double cut = 0, bigb = 0, gamma = 0, r0 = 0, bigc = 0, costheta = 0;
    double lam1inv = 0, lam4inv = 0, zizj = 0, mbigd = 0, heta = 0, big2b = 0, big6w = 0;
    double dvrc = 0, c0 = 0;
  };

  static std::string convert_and_check(std::vector<double>& v, double conversion) {
    for (std::size_t k : {0, 5, 7, 9}) v[k] *= conversion;  // H, D, W, B
    for (std::size_t k = 0; k < v.size(); ++k)
      if (k != 2 && k != 3 && k != 13 && v[k] < 0.0)
        return "LAMMPS requires every parameter but Zi, Zj and cos(theta0) >= 0";
    return "";
  }

  static Param make(const std::vector<double>& v, const Units& units) {
    Param p;
    p.bigh = v[0], p.eta = v[1], p.zi = v[2], p.zj = v[3], p.lambda1 = v[4], p.bigd = v[5];
    p.lambda4 = v[6], p.bigw = v[7], p.cut = v[8], p.bigb = v[9], p.gamma = v[10], p.r0 = v[11];
    p.bigc = v[12], p.costheta = v[13];
    p.cutsq = p.cut * p.cut;
    p.cut3sq = p.r0 * p.r0;
    p.lam1inv = p.lambda1 == 0.0 ? 0.0 : 1.0 / p.lambda1;
    p.lam4inv = p.lambda4 == 0.0 ? 0.0 : 1.0 / p.lambda4;
    p.zizj = p.zi * p.zj * units.qqr2e;
    p.mbigd = p.bigd;
    p.heta = p.bigh * p.eta;
    p.big2b = 2.0 * p.bigb;
    p.big6w = 6.0 * p.bigw;
    const double rcinv = p.cut == 0.0 ? 0.0 : 1.0 / p.cut;
    const double rc2inv = rcinv * rcinv, rc4inv = rc2inv * rc2inv, rc6inv = rc2inv * rc4inv;
    const double rceta = std::pow(rcinv, p.eta);
    const double lam1rc = p.cut * p.lam1inv, lam4rc = p.cut * p.lam4inv;
    const double vrcc2 = p.zizj * rcinv * std::exp(-lam1rc);
    const double vrcc3 = p.mbigd * rc4inv * std::exp(-lam4rc);
    const double vrc = p.bigh * rceta + vrcc2 - vrcc3 - p.bigw * rc6inv;
    p.dvrc = vrcc3 * (4.0 * rcinv + p.lam4inv) + p.big6w * rc6inv * rcinv - p.heta * rceta * rcinv -
             vrcc2 * (rcinv + p.lam1inv);
    p.c0 = p.cut * p.dvrc - vrc;
    return p;
  }

  static double twobody(const Param& p, double rsq, double& eng) {
    const double r = std::sqrt(rsq);
    const double rinvsq = 1.0 / rsq;
    const double r4inv = rinvsq * rinvsq, r6inv = rinvsq * r4inv;
    const double reta = std::pow(r, -p.eta);
    const double lam1r = r * p.lam1inv, lam4r = r * p.lam4inv;
    const double vc2 = p.zizj * std::exp(-lam1r) / r;
    const double vc3 = p.mbigd * r4inv * std::exp(-lam4r);
    eng = p.bigh * reta + vc2 - vc3 - p.bigw * r6inv - r * p.dvrc + p.c0;
    return (p.dvrc * r -
            (4.0 * vc3 + lam4r * vc3 + p.big6w * r6inv - p.heta * reta - vc2 - lam1r * vc2)) *
           rinvsq;
  }

  static void threebody(const Param& pij, const Param& pik, const Param& pijk, double rsq1,
                        double rsq2, const double* delr1, const double* delr2, double* fj,
                        double* fk, double& eng) {
    const threebody::Leg l1(rsq1, pij.r0, pij.gamma), l2(rsq2, pik.r0, pik.gamma);
    const double rinv12 = 1.0 / (l1.r * l2.r);
    const double cs = (delr1[0] * delr2[0] + delr1[1] * delr2[1] + delr1[2] * delr2[2]) * rinv12;
    const double delcs = cs - pijk.costheta;
    const double delcssq = delcs * delcs;
    const double pcsinv = pijk.bigc * delcssq + 1.0;
    const double facexp = l1.expgsrainv * l2.expgsrainv;
    const double facrad = pijk.bigb * facexp * (delcssq / pcsinv);
    const double facang = pijk.big2b * facexp * delcs / (pcsinv * pcsinv);
    threebody::angular_forces(delr1, delr2, l1, l2, cs, rinv12, facrad, facang, fj, fk);
    eng = facrad;
  }
};
using PairVashishta = PairThreeBody<Vashishta>;

}  // namespace tessera::md
