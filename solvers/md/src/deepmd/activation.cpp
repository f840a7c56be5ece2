// float64 tanh on GCC vector extensions, which lower to whatever vector unit the build targets
// (two SSE2 registers per vector on baseline x86-64). Eigen's float64 exp needs 64-bit integer
// conversions that SSE2 lacks and runs at about 7 ns per element there; this one takes about 2.
//
// Method (S. L. Moshier, Cephes Math Library, tanh.c and exp.c):
// - |x| < 0.625: tanh x = x + x z P(z) / Q(z), z = x^2.
// - otherwise: tanh |x| = (e - 1) / (e + 1), e = exp(2|x|) = 2^n (q + p) / (q - p), where
//   u = 2|x| = n ln2 + r (|r| <= ln2 / 2, ln2 split in two parts) and Cephes's Pade form
//   exp(r) = (q + p) / (q - p), p = r P(r^2), q = Q(r^2). Substituting gives
//   tanh |x| = (2^n (q + p) - (q - p)) / (2^n (q + p) + (q - p)): one division in either branch,
//   selected before it. |x| is clamped to 20, beyond which tanh rounds to 1 in float64.
#include "tessera/md/deepmd/activation.hpp"

#include <cstdint>
#include <cstring>
#include <limits>

namespace tessera::md::deepmd {
namespace {

constexpr int kWidth = 2;
typedef double Vec __attribute__((vector_size(kWidth * sizeof(double))));
typedef std::int64_t Ints __attribute__((vector_size(kWidth * sizeof(double))));

// Small branch (tanh.c).
constexpr double kP0 = -9.64399179425052238628e-1, kP1 = -9.92877231001918586564e1,
                 kP2 = -1.61468768441708447952e3;
constexpr double kQ0 = 1.12811678491632931402e2, kQ1 = 2.23548839060100448583e3,
                 kQ2 = 4.84406305325125486048e3;
// exp (exp.c): Pade coefficients and ln2 = kLn2Hi + kLn2Lo.
constexpr double kEp0 = 1.26177193074810590878e-4, kEp1 = 3.02994407707441961300e-2,
                 kEp2 = 9.99999999999999999910e-1;
constexpr double kEq0 = 3.00198505138664455042e-6, kEq1 = 2.52448340349684104192e-3,
                 kEq2 = 2.27265548208155028766e-1, kEq3 = 2.00000000000000000009e0;
constexpr double kLog2e = 1.4426950408889634073599, kLn2Hi = 6.93145751953125e-1,
                 kLn2Lo = 1.42860682030941723212e-6;
// Adding 1.5 * 2^52 rounds a double of magnitude < 2^51 to an integer held in the low mantissa
// bits (round to nearest, the default mode).
constexpr double kShifter = 6755399441055744.0;

Vec broadcast(double v) { return Vec{} + v; }

inline __attribute__((always_inline)) void tanh_block(double* p) {
  Vec x;
  std::memcpy(&x, p, sizeof x);
  const Vec ax = x < 0 ? -x : x;
  const Vec a = ax < 20.0 ? ax : broadcast(20.0);
  // Small branch: x z P(z) and Q(z) of x + x z P/Q (x added after the division, so that
  // tiny x come out as x).
  const Vec z = a * a;
  const Vec q_small = ((z + kQ0) * z + kQ1) * z + kQ2;
  const Vec p_small = ((kP0 * z + kP1) * z + kP2) * z;
  // Large branch.
  const Vec u = a + a;
  const Vec shifted = u * kLog2e + kShifter;
  const Vec n = shifted - kShifter;
  const Vec r = (u - n * kLn2Hi) - n * kLn2Lo;
  const Vec r2 = r * r;
  const Vec pe = r * ((kEp0 * r2 + kEp1) * r2 + kEp2);
  const Vec qe = ((kEq0 * r2 + kEq1) * r2 + kEq2) * r2 + kEq3;
  Ints bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  Ints shifter_bits;
  const Vec shifter = broadcast(kShifter);
  std::memcpy(&shifter_bits, &shifter, sizeof shifter_bits);
  const Ints scale_bits = ((bits - shifter_bits) + 1023) << 52;  // 2^n
  Vec scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  const Vec up = scale * (qe + pe), down = qe - pe;
  const auto small = a < 0.625;
  const Vec quotient = (small ? a * p_small : up - down) / (small ? q_small : up + down);
  const Vec t = small ? a + quotient : quotient;
  // t >= 0: give it x's sign bit, so that tanh(-0) = -0 as in libm.
  Ints t_bits, x_bits;
  std::memcpy(&t_bits, &t, sizeof t_bits);
  std::memcpy(&x_bits, &x, sizeof x_bits);
  t_bits |= x_bits & std::numeric_limits<std::int64_t>::min();
  Vec signed_t;
  std::memcpy(&signed_t, &t_bits, sizeof signed_t);
  // NaN compares false everywhere above; keep it.
  const Vec out = x == x ? signed_t : x;
  std::memcpy(p, &out, sizeof out);
}

// float32: the rational minimax approximation Eigen uses (Eigen/src/Core/MathFunctionsImpl.h,
// generic_fast_tanh_float, without FMA): tanh x = x P(x^2) / Q(x^2) on x clamped to
// +-7.90531110763549805, and x itself below |x| = 0.0004.
constexpr int kFloatWidth = 4;
typedef float Floats __attribute__((vector_size(kFloatWidth * sizeof(float))));

inline __attribute__((always_inline)) void tanh_block(float* p) {
  constexpr float kClamp = 7.90531110763549805f;
  constexpr float a1 = 4.89352455891786e-03f, a3 = 6.37261928875436e-04f,
                  a5 = 1.48572235717979e-05f, a7 = 5.12229709037114e-08f,
                  a9 = -8.60467152213735e-11f, a11 = 2.00018790482477e-13f,
                  a13 = -2.76076847742355e-16f;
  constexpr float b0 = 4.89352518554385e-03f, b2 = 2.26843463243900e-03f,
                  b4 = 1.18534705686654e-04f, b6 = 1.19825839466702e-06f;
  Floats x;
  std::memcpy(&x, p, sizeof x);
  const Floats hi = Floats{} + kClamp, lo = Floats{} - kClamp;
  const Floats c = x < lo ? lo : (x > hi ? hi : x);
  const Floats x2 = c * c;
  const Floats num =
      c * ((((((a13 * x2 + a11) * x2 + a9) * x2 + a7) * x2 + a5) * x2 + a3) * x2 + a1);
  const Floats den = ((b6 * x2 + b4) * x2 + b2) * x2 + b0;
  const Floats ax = x < 0 ? -x : x;
  const Floats t = ax < 0.0004f ? x : num / den;
  std::memcpy(p, &t, sizeof t);
}

// Whole vectors of kWidthOf<T> elements, then the tail through a padded vector, so that every
// element gets the same arithmetic.
template <class T, std::size_t kWidthOf>
void by_vectors(std::span<T> x) {
  std::size_t k = 0;
  for (; k + kWidthOf <= x.size(); k += kWidthOf) tanh_block(x.data() + k);
  if (k < x.size()) {
    T tail[kWidthOf] = {};
    std::memcpy(tail, x.data() + k, (x.size() - k) * sizeof(T));
    tanh_block(tail);
    std::memcpy(x.data() + k, tail, (x.size() - k) * sizeof(T));
  }
}

}  // namespace

void tanh_inplace(std::span<double> x) { by_vectors<double, kWidth>(x); }
void tanh_inplace(std::span<float> x) { by_vectors<float, kFloatWidth>(x); }

}  // namespace tessera::md::deepmd
