// Accuracy of the gemmlowp fixed-point routines against real arithmetic (their bit-exactness is
// covered by the softmax and logistic tests).
#include "fixed_point.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

TEST(FixedPointTest, ExpOnNegativeValuesIsAccurate) {
  ops_testing::Random rng(1);
  for (int bits : {4, 5}) {
    const double unit = std::ldexp(1.0, 31 - bits);
    EXPECT_EQ(fixed_point::exp_on_negative_values(0, bits), INT32_MAX);
    for (int i = 0; i < 2000; ++i) {
      const int32_t a = -rng.Int(0, INT32_MAX);
      const double expected = std::exp(a / unit);
      const double got = fixed_point::exp_on_negative_values(a, bits) / std::ldexp(1.0, 31);
      EXPECT_NEAR(got, expected, 5e-7) << "a " << a << " bits " << bits;
    }
  }
}

TEST(FixedPointTest, ReciprocalAndLogisticAreAccurate) {
  ops_testing::Random rng(2);
  const double q31 = std::ldexp(1.0, 31);
  for (int i = 0; i < 2000; ++i) {
    const int32_t a = rng.Int(0, INT32_MAX);
    EXPECT_NEAR(fixed_point::one_over_one_plus_x_for_x_in_0_1(a) / q31, 1.0 / (1.0 + a / q31), 1e-8);
    const int32_t sum = rng.Int(1 << 19, INT32_MAX);  // 12 integer bits
    int over = 0;
    const double r = fixed_point::get_reciprocal(sum, 12, &over) / q31;
    EXPECT_NEAR(std::ldexp(r, -over), 1.0 / (sum / std::ldexp(1.0, 19)), 1e-8 * std::ldexp(1.0, -over));
    const int32_t x = rng.Int(-(1 << 30), 1 << 30);  // 4 integer bits: |x| < 8
    EXPECT_NEAR(fixed_point::logistic(x, 4) / q31, 1.0 / (1.0 + std::exp(-x / std::ldexp(1.0, 27))),
                3e-7);
  }
  EXPECT_EQ(fixed_point::logistic(0, 4), 1 << 30);
}

TEST(FixedPointTest, LogOfValuesAtLeastOneIsAccurate) {
  // LOG_SOFTMAX's use: a sum of exps with 12 integer bits in [1, 4096), its log with 5.
  ops_testing::Random rng(3);
  const double in_unit = std::ldexp(1.0, 19), out_unit = std::ldexp(1.0, 26);
  EXPECT_NEAR(fixed_point::log_x_for_x_at_least_1(1 << 19, 12, 5) / out_unit, 0.0, 1e-7);
  for (int i = 0; i < 4000; ++i) {
    const int32_t x = i < 40 ? (1 << 19) + i : rng.Int(1 << 19, INT32_MAX);
    const double got = fixed_point::log_x_for_x_at_least_1(x, 12, 5) / out_unit;
    EXPECT_NEAR(got, std::log(x / in_unit), 2e-7) << "x " << x;
    EXPECT_EQ(fixed_point::log_x_for_x_at_least_1(x, 12, 5), ops_testing::RefLog(x, 12, 5)) << "x " << x;
  }
}

}  // namespace
}  // namespace mote::kernels
