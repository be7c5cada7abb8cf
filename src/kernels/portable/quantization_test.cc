// Hand-checked values for TFLite's fixed-point helpers, quantize_multiplier and the fused activation
// ranges.

#include "mote/kernels/quantization.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mote::kernels {
namespace {

constexpr int32_t kQ30 = int32_t{1} << 30;  // 0.5 as a Q31 multiplier

TEST(SaturatingRoundingDoublingHighMul, HandChecked) {
  EXPECT_EQ(saturating_rounding_doubling_high_mul(INT32_MIN, INT32_MIN), INT32_MAX);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(INT32_MIN, INT32_MAX), -INT32_MAX);
  // 2^30 * 2^30 * 2 / 2^32 = 2^29.
  EXPECT_EQ(saturating_rounding_doubling_high_mul(kQ30, kQ30), 1 << 29);
  // 3 * 0.5 = 1.5 rounds up to 2; -1.5 rounds up to -1 (gemmlowp's nudge, then truncation).
  EXPECT_EQ(saturating_rounding_doubling_high_mul(3, kQ30), 2);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(-3, kQ30), -1);
  // -2.5 -> -2, 2.5 -> 3, -2.25 -> -2, -2.75 -> -3.
  EXPECT_EQ(saturating_rounding_doubling_high_mul(-5, kQ30), -2);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(5, kQ30), 3);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(-9, kQ30 / 2), -2);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(-11, kQ30 / 2), -3);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(0, INT32_MAX), 0);
}

TEST(RoundingDivideByPot, HandChecked) {
  EXPECT_EQ(rounding_divide_by_pot(7, 0), 7);
  EXPECT_EQ(rounding_divide_by_pot(5, 1), 3);    // 2.5 away from zero
  EXPECT_EQ(rounding_divide_by_pot(-5, 1), -3);  // -2.5 away from zero
  EXPECT_EQ(rounding_divide_by_pot(4, 2), 1);
  EXPECT_EQ(rounding_divide_by_pot(-6, 2), -2);  // -1.5
  EXPECT_EQ(rounding_divide_by_pot(-5, 2), -1);  // -1.25
  EXPECT_EQ(rounding_divide_by_pot(-7, 2), -2);  // -1.75
  EXPECT_EQ(rounding_divide_by_pot(INT32_MAX, 31), 1);
  EXPECT_EQ(rounding_divide_by_pot(INT32_MIN, 31), -1);
}

TEST(MultiplyByQuantizedMultiplier, HandChecked) {
  EXPECT_EQ(multiply_by_quantized_multiplier(100, kQ30, 0), 50);    // * 0.5
  EXPECT_EQ(multiply_by_quantized_multiplier(100, kQ30, -1), 25);   // * 0.25
  EXPECT_EQ(multiply_by_quantized_multiplier(100, kQ30, 1), 100);   // * 1.0
  EXPECT_EQ(multiply_by_quantized_multiplier(100, kQ30, 3), 400);   // * 4.0
  EXPECT_EQ(multiply_by_quantized_multiplier(-100, kQ30, -3), -6);  // -6.25
  EXPECT_EQ(multiply_by_quantized_multiplier(-100, kQ30, -4), -3);  // -3.125
  EXPECT_EQ(multiply_by_quantized_multiplier(12, kQ30, -3), 1);     // 0.75: 6 then 6/8 -> 1
  // Double rounding: 1 * 0.5 -> 1 (SRDHM rounds 0.5 up), then no shift.
  EXPECT_EQ(multiply_by_quantized_multiplier(1, kQ30, 0), 1);
  // 0.75 = 3 * 2^29 at shift 0: 1000 * 0.75.
  EXPECT_EQ(multiply_by_quantized_multiplier(1000, 3 * (1 << 29), 0), 750);
}

TEST(QuantizeMultiplier, PowersOfTwo) {
  EXPECT_EQ(quantize_multiplier(0.5).multiplier, kQ30);
  EXPECT_EQ(quantize_multiplier(0.5).shift, 0);
  EXPECT_EQ(quantize_multiplier(1.0).multiplier, kQ30);
  EXPECT_EQ(quantize_multiplier(1.0).shift, 1);
  EXPECT_EQ(quantize_multiplier(0.25).multiplier, kQ30);
  EXPECT_EQ(quantize_multiplier(0.25).shift, -1);
  EXPECT_EQ(quantize_multiplier(0.75).multiplier, 3 * (1 << 29));
  EXPECT_EQ(quantize_multiplier(0.75).shift, 0);
  EXPECT_EQ(quantize_multiplier(3.5).multiplier, 1879048192);  // 0.875 * 2^31
  EXPECT_EQ(quantize_multiplier(3.5).shift, 2);
}

// A ratio of extreme scales can be infinite: the shift says so, and every range check refuses it
// (converting infinity to an integer would be undefined).
TEST(QuantizeMultiplier, NonFiniteGetsAnOutOfRangeShift) {
  EXPECT_EQ(quantize_multiplier(HUGE_VAL).shift, kNonFiniteShift);
  EXPECT_GT(quantize_multiplier(HUGE_VAL).multiplier, 0);
  EXPECT_EQ(quantize_multiplier(-HUGE_VAL).shift, kNonFiniteShift);
  EXPECT_LT(quantize_multiplier(-HUGE_VAL).multiplier, 0);
  EXPECT_EQ(quantize_multiplier(NAN).shift, kNonFiniteShift);
}

TEST(QuantizeMultiplier, Rounding) {
  // 1/255 = 0.50196... * 2^-7; 0.50196... * 2^31 = 1077952576.25 -> 1077952576.
  EXPECT_EQ(quantize_multiplier(1.0 / 255.0).multiplier, 1077952576);
  EXPECT_EQ(quantize_multiplier(1.0 / 255.0).shift, -7);
  // 0.0007 = 0.7168 * 2^-10; * 2^31 = 1539316278.886 -> 1539316279.
  EXPECT_EQ(quantize_multiplier(0.0007).multiplier, 1539316279);
  EXPECT_EQ(quantize_multiplier(0.0007).shift, -10);
  // 1234.5678 = 0.6028... * 2^11 -> 1294538165.45 -> 1294538165.
  EXPECT_EQ(quantize_multiplier(1234.5678).multiplier, 1294538165);
  EXPECT_EQ(quantize_multiplier(1234.5678).shift, 11);
}

TEST(QuantizeMultiplier, RoundingUpToTwoPow31Renormalises) {
  // 1 - 2^-40: frexp gives (1 - 2^-40, 0); * 2^31 rounds to 2^31 -> 2^30 with shift 1.
  const QuantizedMultiplier q = quantize_multiplier(1.0 - std::ldexp(1.0, -40));
  EXPECT_EQ(q.multiplier, kQ30);
  EXPECT_EQ(q.shift, 1);
}

TEST(QuantizeMultiplier, ZeroAndTinyFlushToZero) {
  EXPECT_EQ(quantize_multiplier(0.0).multiplier, 0);
  EXPECT_EQ(quantize_multiplier(0.0).shift, 0);
  // 2^-32 has exponent -31: kept. 2^-33 has exponent -32: flushed.
  EXPECT_EQ(quantize_multiplier(std::ldexp(1.0, -32)).multiplier, kQ30);
  EXPECT_EQ(quantize_multiplier(std::ldexp(1.0, -32)).shift, -31);
  EXPECT_EQ(quantize_multiplier(std::ldexp(1.0, -33)).multiplier, 0);
  EXPECT_EQ(quantize_multiplier(std::ldexp(1.0, -33)).shift, 0);
}

TEST(QuantizeMultiplier, NegativeKeepsSign) {
  EXPECT_EQ(quantize_multiplier(-0.5).multiplier, -kQ30);
  EXPECT_EQ(quantize_multiplier(-0.5).shift, 0);
}

TEST(QuantizeMultiplier, RoundTripsTypicalScales) {
  // The multiplier reproduces the real value to within half a unit in the last place of Q31.
  for (double real : {1e-6, 3.1e-4, 0.0123, 0.49999, 0.9999, 1.7, 31.0}) {
    const QuantizedMultiplier q = quantize_multiplier(real);
    EXPECT_GE(q.multiplier, kQ30) << real;
    const double back = std::ldexp(static_cast<double>(q.multiplier), q.shift - 31);
    EXPECT_NEAR(back, real, std::ldexp(1.0, q.shift - 32)) << real;
  }
}

TEST(ActivationRangeInt8, HandChecked) {
  using A = FusedActivation;
  ActivationRange r = activation_range_int8(A::kNone, 0.1f, 5);
  EXPECT_EQ(r.min, -128);
  EXPECT_EQ(r.max, 127);
  r = activation_range_int8(A::kRelu, 0.1f, -10);  // 0 -> zero point
  EXPECT_EQ(r.min, -10);
  EXPECT_EQ(r.max, 127);
  r = activation_range_int8(A::kRelu6, 0.05f, -128);  // 6 / 0.05 = 120
  EXPECT_EQ(r.min, -128);
  EXPECT_EQ(r.max, -8);
  r = activation_range_int8(A::kRelu6, 0.01f, 0);  // 600 clamps to 127
  EXPECT_EQ(r.min, 0);
  EXPECT_EQ(r.max, 127);
  r = activation_range_int8(A::kReluN1To1, 0.015625f, 3);  // +-64
  EXPECT_EQ(r.min, -61);
  EXPECT_EQ(r.max, 67);
  r = activation_range_int8(A::kRelu6, 4.0f, -1);  // 6 / 4 = 1.5 rounds away from zero to 2
  EXPECT_EQ(r.min, -1);
  EXPECT_EQ(r.max, 1);
  r = activation_range_int8(A::kReluN1To1, 0.4f, 0);  // +-2.5 rounds to +-3 (float division)
  EXPECT_EQ(r.min, -3);
  EXPECT_EQ(r.max, 3);
  r = activation_range_int8(A::kRelu, 0.1f, -200);  // zero point below int8: clamps to -128
  EXPECT_EQ(r.min, -128);
}

}  // namespace
}  // namespace mote::kernels
