#pragma once
// gemmlowp-style fixed-point routines (FixedPoint<int32_t, N> on raw int32 values) that TFLite's
// softmax and logistic kernels are built from. The caller tracks the number of integer bits N: a raw
// value r with N integer bits stands for r / 2^(31-N). Private to the portable kernels and their tests.
// Embeddable C++17: header-only, no heap, no exceptions.

#include <stdint.h>

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace fixed_point {

// Product of two fixed-point values; the result has the sum of their integer bits.
inline int32_t mul(int32_t a, int32_t b) { return saturating_rounding_doubling_high_mul(a, b); }

// x * 2^exponent: saturating for exponent > 0 (at most 30), rounding half away from zero for
// exponent < 0. This is how gemmlowp's Rescale moves a value between integer-bit counts.
inline int32_t saturating_rounding_multiply_by_pot(int32_t x, int exponent) {
  if (exponent == 0) return x;
  if (exponent < 0) return rounding_divide_by_pot(x, -exponent);
  const int32_t threshold = static_cast<int32_t>((int32_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}

// Moves a value with src_bits integer bits to dst_bits integer bits.
inline int32_t rescale(int32_t x, int src_bits, int dst_bits) {
  return saturating_rounding_multiply_by_pot(x, src_bits - dst_bits);
}

// (a + b) / 2 rounded half away from zero, without overflow.
inline int32_t rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = static_cast<int64_t>(a) + static_cast<int64_t>(b);
  const int64_t sign = sum >= 0 ? 1 : -1;
  return static_cast<int32_t>((sum + sign) / 2);
}

// exp(a) for a in [-1/4, 0), a and result with 0 integer bits: a Taylor expansion around -1/8.
inline int32_t exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a) {
  constexpr int32_t kExpMinusOneEighth = 1895147668;  // exp(-1/8) in Q0.31
  constexpr int32_t kOneThird = 715827883;             // 1/3 in Q0.31
  const int32_t x = a + (int32_t{1} << 28);            // a + 1/8
  const int32_t x2 = mul(x, x);
  const int32_t x3 = mul(x2, x);
  const int32_t x4 = mul(x2, x2);
  const int32_t x4_over_4 = rounding_divide_by_pot(x4, 2);
  const int32_t x4_over_24_plus_x3_over_6_plus_x2_over_2 =
      rounding_divide_by_pot(mul(x4_over_4 + x3, kOneThird) + x2, 1);
  return kExpMinusOneEighth + mul(kExpMinusOneEighth, x + x4_over_24_plus_x3_over_6_plus_x2_over_2);
}

// exp(a) for a <= 0 with `integer_bits` integer bits (1..6); the result has 0 integer bits
// (exp(0) saturates to INT32_MAX). Splits a into a multiple of 1/4 and a remainder in [-1/4, 0).
inline int32_t exp_on_negative_values(int32_t a, int integer_bits) {
  const int fractional_bits = 31 - integer_bits;
  const int32_t one_quarter = int32_t{1} << (fractional_bits - 2);
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = (a & mask) - one_quarter;
  int32_t result = exp_on_interval_between_negative_one_quarter_and_0_excl(
      rescale(a_mod_quarter_minus_one_quarter, integer_bits, 0));
  const int32_t remainder = a_mod_quarter_minus_one_quarter - a;
  // exp(-2^k) in Q0.31 for k = -2 .. 4, applied for each set bit of the remainder.
  constexpr int32_t kExpOfMinusPowerOfTwo[7] = {1672461947, 1302514674, 790015084, 290630308,
                                                39332535,   720401,     242};
  for (int k = -2; k <= 4; ++k) {
    if (integer_bits > k) {
      const int shift = fractional_bits + k;
      if (remainder & (int32_t{1} << shift)) result = mul(result, kExpOfMinusPowerOfTwo[k + 2]);
    }
  }
  if (integer_bits > 5) {
    const int32_t clamp = -(int32_t{1} << (36 - integer_bits));  // -32.0
    if (a < clamp) result = 0;
  }
  if (a == 0) result = INT32_MAX;
  return result;
}

// 1 / (1 + a) for a in [0, 1], both with 0 integer bits: three Newton-Raphson steps on the half
// denominator, computed with 2 integer bits.
inline int32_t one_over_one_plus_x_for_x_in_0_1(int32_t a) {
  constexpr int32_t k48Over17 = 1515870810;       // 48/17 with 2 integer bits
  constexpr int32_t kNeg32Over17 = -1010580540;   // -32/17 with 2 integer bits
  constexpr int32_t kOneWith2IntegerBits = int32_t{1} << 29;
  const int32_t half_denominator = rounding_half_sum(a, INT32_MAX);
  int32_t x = k48Over17 + mul(half_denominator, kNeg32Over17);
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = mul(half_denominator, x);
    const int32_t one_minus_half_denominator_times_x =
        kOneWith2IntegerBits - half_denominator_times_x;
    x = x + rescale(mul(x, one_minus_half_denominator_times_x), 4, 2);
  }
  // x / 2, read with 1 integer bit, then moved to 0 integer bits.
  return rescale(x, 1, 0);
}

// TFLite's GetReciprocal: 1 / x for x > 0 with `x_integer_digits` integer bits, returned as a
// Q0.31 mantissa and the number of bits by which x exceeded one.
inline int32_t get_reciprocal(int32_t x, int x_integer_digits, int* num_bits_over_unit) {
  const int headroom_plus_one = __builtin_clz(static_cast<uint32_t>(x));
  *num_bits_over_unit = x_integer_digits - headroom_plus_one;
  const int32_t shifted_sum_minus_one = static_cast<int32_t>(
      (static_cast<uint32_t>(x) << headroom_plus_one) - (uint32_t{1} << 31));
  return one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one);
}

// a + b and a - b clamped to int32.
inline int32_t saturating_add(int32_t a, int32_t b) {
  const int64_t sum = int64_t{a} + b;
  return sum > INT32_MAX ? INT32_MAX : (sum < INT32_MIN ? INT32_MIN : static_cast<int32_t>(sum));
}
inline int32_t saturating_sub(int32_t a, int32_t b) {
  const int64_t difference = int64_t{a} - b;
  return difference > INT32_MAX ? INT32_MAX
                                : (difference < INT32_MIN ? INT32_MIN : static_cast<int32_t>(difference));
}

// log(x) for x >= 1 with `input_bits` integer bits; the result has `output_bits` integer bits
// (TFLite's log_x_for_x_greater_than_or_equal_to_1): x = m * 2^e, the mantissa m near 2^(-1/4)
// (the smaller of two normalisations, x's own and the one that normalises x * sqrt(1/2), each
// with its exponent), log(x) = e log(2) + log(m), log(m) from a rational approximation in
// q = 2 (m - 2^(-1/4)); the sum carries one integer bit more than the result.
inline int32_t log_x_for_x_at_least_1(int32_t x, int input_bits, int output_bits) {
  constexpr int32_t kLog2 = 1488522236;         // log(2), Q0.31
  constexpr int32_t kSqrtSqrtHalf = 1805811301; // 2^(-1/4)
  constexpr int32_t kSqrtHalf = 1518500250;     // 2^(-1/2)
  constexpr int32_t kOneQuarter = 536870912;
  constexpr int32_t kAlphaN = 117049297;   // 11/240 * 2^(1/4)
  constexpr int32_t kAlphaD = 127690142;   // 1/20 * 2^(1/4)
  constexpr int32_t kAlphaI = 1057819769;  // 2 / 2^(1/4) - 2^(1/4)
  constexpr int32_t kAlphaF = 638450708;   // 1/4 * 2^(1/4)
  const int accum_bits = output_bits + 1;
  const int32_t quarter = rescale(kOneQuarter, 0, accum_bits);

  // x's bits read as Q0.31, normalised to [1/2, 1), times sqrt(1/2) * 2: m in [sqrt(1/2), 1).
  const int a_leading = __builtin_clz(static_cast<uint32_t>(x));
  const int32_t a_normalised = saturating_rounding_multiply_by_pot(x, a_leading - 1);
  const int32_t m_a = saturating_rounding_multiply_by_pot(mul(a_normalised, kSqrtHalf), 1);
  const int32_t e_a = saturating_add(
      saturating_rounding_multiply_by_pot(input_bits - a_leading, 31 - accum_bits), quarter);
  // x shifted until x * sqrt(1/2) is normalised: m in [sqrt(1/2), sqrt(2)), saturating at 1.
  const int b_leading = __builtin_clz(static_cast<uint32_t>(mul(x, kSqrtHalf))) - 1;
  const int32_t m_b = saturating_rounding_multiply_by_pot(x, b_leading);
  const int32_t e_b = saturating_sub(
      saturating_rounding_multiply_by_pot(input_bits - b_leading, 31 - accum_bits), quarter);

  const int32_t m = m_a < m_b ? m_a : m_b;
  const int32_t e = e_a > e_b ? e_a : e_b;
  const int32_t p = rounding_half_sum(m, kSqrtSqrtHalf);
  const int32_t q = 2 * (m - kSqrtSqrtHalf);
  const int32_t q_squared = mul(q, q);
  const int32_t numerator = mul(q, m) + mul(mul(q, q_squared), kAlphaN);
  const int32_t denominator_minus_one =
      mul(p, kAlphaI + q + mul(kAlphaD, q_squared)) + mul(kAlphaF, q);
  const int32_t log_m = mul(rescale(numerator, 0, accum_bits),
                            one_over_one_plus_x_for_x_in_0_1(denominator_minus_one));
  return rescale(mul(e, kLog2) + log_m, accum_bits, output_bits);
}

// 1 / (1 + exp(-a)) for a with `integer_bits` integer bits; the result has 0 integer bits.
inline int32_t logistic(int32_t a, int integer_bits) {
  if (a == 0) return int32_t{1} << 30;  // 0.5
  const int32_t abs_a = a > 0 ? a : -a;
  const int32_t if_positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(-abs_a, integer_bits));
  return a > 0 ? if_positive : INT32_MAX - if_positive;
}

// (1 - a) / (1 + a) for a in [0, 1], both with 0 integer bits: the Newton-Raphson division of
// one_over_one_plus_x_for_x_in_0_1, minus one (gemmlowp's one_minus_x_over_one_plus_x_for_x_in_0_1).
inline int32_t one_minus_x_over_one_plus_x_for_x_in_0_1(int32_t a) {
  constexpr int32_t k48Over17 = 1515870810;
  constexpr int32_t kNeg32Over17 = -1010580540;
  constexpr int32_t kOneWith2IntegerBits = int32_t{1} << 29;
  const int32_t half_denominator = rounding_half_sum(a, INT32_MAX);
  int32_t x = k48Over17 + mul(half_denominator, kNeg32Over17);
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = mul(half_denominator, x);
    const int32_t one_minus_half_denominator_times_x =
        kOneWith2IntegerBits - half_denominator_times_x;
    x = x + rescale(mul(x, one_minus_half_denominator_times_x), 4, 2);
  }
  return rescale(x - kOneWith2IntegerBits, 2, 0);
}

// tanh(a) for a with `integer_bits` integer bits (at most 5); the result has 0 integer bits.
// tanh(|a|) = (1 - exp(-2|a|)) / (1 + exp(-2|a|)), the doubling read as one more integer bit.
inline int32_t tanh(int32_t a, int integer_bits) {
  if (a == 0) return 0;
  const int32_t minus_abs_a = a < 0 ? a : -a;
  const int32_t t =
      one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(minus_abs_a, integer_bits + 1));
  return a < 0 ? -t : t;
}

}  // namespace fixed_point
}  // namespace kernels
}  // namespace mote
