// tanh over a buffer, vectorised: the activation of DeePMD-kit's networks, which dominates the
// embedding nets' time (21 tanh per neighbor slot against 660 matrix-product flops).
//
// Contract: x[k] <- tanh(x[k]) for every k; the result for an element depends only on its value
// (not on its position, the length or the alignment), so results are the same for any split of
// the work. float64: within 4 ulp of glibc's tanh for all finite x (tested; 3 observed); NaN
// stays NaN, tanh(-0) = -0. float32: within 8 ulp of the float64 value (tested), by a rational
// approximation.
#pragma once

#include <span>

namespace tessera::md::deepmd {

void tanh_inplace(std::span<double> x);
void tanh_inplace(std::span<float> x);

}  // namespace tessera::md::deepmd
