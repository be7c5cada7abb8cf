#pragma once
// int8 fixed-point arithmetic with TensorFlow Lite's reference semantics (bit exact), shared by the
// compiler (which precomputes multipliers and shifts) and the kernels (which apply them).
// Embeddable C++17: header-only, no heap, no exceptions.

#include <stdint.h>

namespace mote {
namespace kernels {

// (a * b * 2) >> 32 rounded to nearest, (a*b + 2^30) >> 31; saturates only for INT32_MIN * INT32_MIN.
inline int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// x / 2^exponent rounded to nearest, ties away from zero; exponent in [0, 31].
inline int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + ((x < 0) ? 1 : 0);
  return (x >> exponent) + ((remainder > threshold) ? 1 : 0);
}

// TFLite's MultiplyByQuantizedMultiplier: x * multiplier * 2^(shift - 31), double rounding.
// A positive shift is a left shift.
inline int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left_shift);
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, multiplier),
                                right_shift);
}

// TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator (16x8 kernels with an int64
// bias): the multiplier rounded to 16 bits, one rounding shift by 15 - shift, arithmetic. TFLite
// asserts |x| < 2^47 and shift in [-31, 7]; here the shift is clamped to [-31, 14] and the result
// saturates to int32, so no input is undefined.
inline int32_t multiply_by_quantized_multiplier_64(int64_t x, int32_t multiplier, int shift) {
  const int64_t reduced = multiplier < 0x7FFF0000 ? (int64_t{multiplier} + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = 15 - (shift < -31 ? -31 : (shift > 14 ? 14 : shift));
  const int64_t limit = int64_t{1} << 47;
  const int64_t bounded = x < -limit ? -limit : (x > limit ? limit : x);
  const int64_t result = (bounded * reduced + (int64_t{1} << (total_shift - 1))) >> total_shift;
  if (result > INT32_MAX) return INT32_MAX;
  if (result < INT32_MIN) return INT32_MIN;
  return static_cast<int32_t>(result);
}

// multiply_by_quantized_multiplier_64 where |x| < 2^31, the multiplier >= 0 and the shift is in
// [-17, -1] (as int16 layers' shifts are): one rounding high multiply, (x * m + 2^31) >> 32 with
// m = the 16-bit multiplier << (17 + shift) (< 2^31): the same product over the same power of two
// (2^(15 - shift) is 2^32 / 2^(17 + shift)), rounded once and the same way, no 64-bit shift. A
// kernel checks high_mul_takes_64 for every channel once, then applies rounding_high_mul
// (SMLAL on a Cortex-M, VRMULH for four lanes).
inline bool high_mul_takes_64(int32_t multiplier, int32_t shift) {
  return multiplier >= 0 && shift >= -17 && shift <= -1;
}
inline int32_t high_mul_multiplier_64(int32_t multiplier, int32_t shift) {
  const int32_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
  return reduced << (17 + shift);
}
inline int32_t rounding_high_mul(int32_t x, int32_t m) {
  return static_cast<int32_t>((int64_t{x} * m + (int64_t{1} << 31)) >> 32);
}

// Largest |accumulator| a kernel may reach before requantization, leaving room to add an
// output offset without overflowing int32.
inline constexpr int64_t kAccLimit = 2147483647 - 256;

// MultiplyByQuantizedMultiplier(x, multiplier, shift) for |x| <= bound stays within `limit`, with
// a shift the kernels take ([-31, 30]). The runtime's load check and the compiler's operator
// definitions ask the same question of the same parameters.
inline bool requant_fits(int64_t bound, int32_t multiplier, int32_t shift,
                         int64_t limit = kAccLimit) {
  if (multiplier < 0 || shift < -31 || shift > 30 || bound > limit) return false;
  return shift <= 0 || (bound << shift) <= limit;
}

// A real multiplier as a Q31 mantissa in [2^30, 2^31) and a power-of-two exponent, the way
// TFLite's QuantizeMultiplier does it (frexp, round, renormalise on overflow, flush tiny values).
struct QuantizedMultiplier {
  int32_t multiplier;
  int32_t shift;
};
// A multiplier that is infinite or NaN (a ratio of extreme scales, computed in float) comes back
// with shift kNonFiniteShift, beyond any double's exponent, which every caller's range check
// refuses; the multiplier's sign is kept. The shift stays small enough to add constants to.
constexpr int32_t kNonFiniteShift = 1100;
QuantizedMultiplier quantize_multiplier(double real_multiplier);

// The quantized clamp range of a fused activation for an output with this scale and zero point.
struct ActivationRange {
  int32_t min;
  int32_t max;
};
enum class FusedActivation : uint8_t { kNone, kRelu, kReluN1To1, kRelu6 };
ActivationRange activation_range_int8(FusedActivation activation, float output_scale,
                                      int32_t output_zero_point);
// The same for an int16 output (16x8 operators).
ActivationRange activation_range_int16(FusedActivation activation, float output_scale,
                                       int32_t output_zero_point);

}  // namespace kernels
}  // namespace mote
