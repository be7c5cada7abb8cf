#include "mote/kernels/logistic.h"

#include <gtest/gtest.h>

#include <cmath>

#include "mote/kernels/lookup_table.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

// reference_integer_ops::Logistic re-derived on int64: the input in Q4.27, gemmlowp's logistic
// (1 / (1 + exp(-|x|)), mirrored for negative x), rounded to 1/256 steps, zero point -128.
int8_t SlowLogistic(const LogisticParams& p, int8_t q) {
  const int64_t x = q - p.input_zero_point;
  if (x <= -p.input_range_radius) return -128;
  if (x >= p.input_range_radius) return 127;
  const int64_t x_q4 = ops_testing::RefMultiply(x, p.input_multiplier, p.input_left_shift);
  int64_t y;
  if (x_q4 == 0) {
    y = int64_t{1} << 30;
  } else {
    const int64_t positive =
        ops_testing::RefOneOverOnePlusX(ops_testing::RefExpNegative(-std::llabs(x_q4), 4));
    y = x_q4 > 0 ? positive : INT32_MAX - positive;
  }
  return static_cast<int8_t>(ops_testing::Clamp(ops_testing::RoundHalfAwayDivPot(y, 23) - 128, -128, 127));
}

TEST(LogisticTest, PrepareMatchesTflm) {
  // 0.0625 * 2^27 = 2^23 -> frexp 0.5 * 2^24: multiplier 2^30, shift 24;
  // radius = floor(15 * 2^27 / 2^24) = 120.
  const LogisticParams p = prepare_logistic(0.0625f, 3);
  EXPECT_EQ(p.input_zero_point, 3);
  EXPECT_EQ(p.input_multiplier, 1 << 30);
  EXPECT_EQ(p.input_left_shift, 24);
  EXPECT_EQ(p.input_range_radius, 120);
}

TEST(LogisticTest, HandChecked) {
  // scale 1/16, zp 0, radius 120: q = 0 -> 0.5 -> 128/256 -> 0; q = 127 >= 120 -> 127;
  // q = -128 <= -120 -> -128; q = 16 (x = 1.0): sigmoid 0.731059 * 256 = 187.15 -> 187 - 128 = 59.
  const LogisticParams p = prepare_logistic(0.0625f, 0);
  const std::vector<int8_t> in = {0, 127, -128, 16, -16};
  Guarded<int8_t> out(5);
  logistic(p, in.data(), out.data(), in.size());
  // sigmoid(-1) = 0.268941 * 256 = 68.85 -> 69 - 128 = -59.
  EXPECT_EQ(out.values(), (std::vector<int8_t>{0, 127, -128, 59, -59}));
  EXPECT_TRUE(out.intact());
}

TEST(LogisticTest, AllInputsMatchRederivationAndRealSigmoid) {
  Random rng(17);
  std::vector<int8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<int8_t>(i - 128);
  for (int iter = 0; iter < 60; ++iter) {
    const float scale = rng.Scale(0.002f, 0.5f);
    const int32_t zp = rng.Int(-128, 127);
    const LogisticParams p = prepare_logistic(scale, zp);
    Guarded<int8_t> out(256);
    logistic(p, all.data(), out.data(), all.size());
    ASSERT_TRUE(out.intact());
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(out[i], SlowLogistic(p, all[i])) << "scale " << scale << " q " << int{all[i]};
      const double real = 1.0 / (1.0 + std::exp(-double{scale} * (all[i] - zp)));
      EXPECT_NEAR(out[i], std::min(std::round(real * 256) - 128, 127.0), 1.0);
    }
  }
}

TEST(LogisticTest, TflitesFloatTableAndLookup) {
  Random rng(18);
  for (int iter = 0; iter < 20; ++iter) {
    const float scale = rng.Scale(0.002f, 0.5f);
    const int32_t zp = rng.Int(-128, 127);
    int8_t table[256];
    prepare_logistic_table(scale, zp, 1.0f / 256, -128, table);
    const LogisticParams p = prepare_logistic(scale, zp);
    std::vector<int8_t> all(256);
    for (int i = 0; i < 256; ++i) all[i] = static_cast<int8_t>(i - 128);
    Guarded<int8_t> looked_up(256), fixed(256);
    lookup_table(table, all.data(), looked_up.data(), all.size());
    logistic(p, all.data(), fixed.data(), all.size());
    ASSERT_TRUE(looked_up.intact());
    for (int i = 0; i < 256; ++i) {
      // TFLite's table entry: dequantize, sigmoid in float, round, requantize.
      const float x = scale * static_cast<float>(all[i] - zp);
      const float y = std::round((1.0f / (1.0f + std::exp(-x))) * 256.0f) - 128.0f;
      EXPECT_EQ(looked_up[i], static_cast<int8_t>(std::clamp(y, -128.0f, 127.0f)));
      // The two TFLite implementations agree within one step.
      EXPECT_LE(std::abs(looked_up[i] - fixed[i]), 1);
    }
  }
}

}  // namespace
}  // namespace mote::kernels
