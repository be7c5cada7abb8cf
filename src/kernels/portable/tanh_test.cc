#include "mote/kernels/tanh.h"

#include <gtest/gtest.h>

#include <cmath>

#include "mote/kernels/logistic.h"
#include "mote/kernels/lookup_table.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

// reference_integer_ops::Tanh re-derived on int64: the input in Q4.27, gemmlowp's tanh
// ((1 - exp(-2|x|)) / (1 + exp(-2|x|)), mirrored for negative x), rounded to 1/128 steps.
int8_t SlowTanh(const TanhParams& p, int8_t q) {
  const int64_t x = q - p.input_zero_point;
  if (x <= -p.input_range_radius) return -128;
  if (x >= p.input_range_radius) return 127;
  const int64_t x_q4 = ops_testing::RefMultiply(x, p.input_multiplier, p.input_left_shift);
  int64_t y = 0;
  if (x_q4 != 0) {
    // exp(-2|x|): the same raw value read with one more integer bit.
    const int64_t e = ops_testing::RefExpNegative(-std::llabs(x_q4), 5);
    const int64_t t = ops_testing::RefOneMinusXOverOnePlusX(e);
    y = x_q4 > 0 ? t : -t;
  }
  const int64_t rounded = ops_testing::RoundHalfAwayDivPot(y, 24);
  return static_cast<int8_t>(ops_testing::Clamp(rounded, -128, 127));
}

TEST(TanhTest, PrepareIsLogisticsRule) {
  // TFLM computes TANH's input parameters as LOGISTIC's: 0.0625 -> multiplier 2^30, shift 24,
  // radius 120.
  const TanhParams p = prepare_tanh(0.0625f, -3);
  EXPECT_EQ(p.input_zero_point, -3);
  EXPECT_EQ(p.input_multiplier, 1 << 30);
  EXPECT_EQ(p.input_left_shift, 24);
  EXPECT_EQ(p.input_range_radius, 120);
  Random rng(4);
  for (int i = 0; i < 50; ++i) {
    const float scale = rng.Scale(1e-4f, 2.0f);
    const TanhParams t = prepare_tanh(scale, 5);
    const LogisticParams l = prepare_logistic(scale, 5);
    EXPECT_EQ(t.input_multiplier, l.input_multiplier);
    EXPECT_EQ(t.input_left_shift, l.input_left_shift);
    EXPECT_EQ(t.input_range_radius, l.input_range_radius);
  }
}

TEST(TanhTest, HandChecked) {
  // scale 1/16, zp 0: q = 0 -> 0; q >= 120 -> 127, q <= -120 -> -128;
  // q = 16 (x = 1): tanh 0.761594 * 128 = 97.48 -> 97; q = 8 (0.5): 0.462117 * 128 = 59.15 -> 59.
  const TanhParams p = prepare_tanh(0.0625f, 0);
  const std::vector<int8_t> in = {0, 127, -128, 16, -16, 8, -8, 119};
  Guarded<int8_t> out(in.size());
  tanh(p, in.data(), out.data(), in.size());
  // tanh(119/16 = 7.44) * 128 = 127.99999 -> 128 clamps to 127.
  EXPECT_EQ(out.values(), (std::vector<int8_t>{0, 127, -128, 97, -97, 59, -59, 127}));
  EXPECT_TRUE(out.intact());
}

TEST(TanhTest, AllInputsMatchRederivationAndRealTanh) {
  Random rng(27);
  std::vector<int8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<int8_t>(i - 128);
  for (int iter = 0; iter < 80; ++iter) {
    const float scale = rng.Scale(0.001f, 0.5f);
    const int32_t zp = rng.Int(-128, 127);
    const TanhParams p = prepare_tanh(scale, zp);
    Guarded<int8_t> out(256);
    tanh(p, all.data(), out.data(), all.size());
    ASSERT_TRUE(out.intact());
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(out[i], SlowTanh(p, all[i])) << "scale " << scale << " q " << int{all[i]};
      const double real = std::tanh(double{scale} * (all[i] - zp));
      EXPECT_NEAR(out[i], std::clamp(std::round(real * 128), -128.0, 127.0), 1.0);
    }
  }
}

TEST(TanhTest, TflitesFloatTableAndLookup) {
  Random rng(28);
  std::vector<int8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<int8_t>(i - 128);
  for (int iter = 0; iter < 20; ++iter) {
    const float scale = rng.Scale(0.002f, 0.5f);
    const int32_t zp = rng.Int(-128, 127);
    int8_t table[256];
    prepare_tanh_table(scale, zp, 1.0f / 128, 0, table);
    Guarded<int8_t> looked_up(256), fixed(256);
    lookup_table(table, all.data(), looked_up.data(), all.size());
    tanh(prepare_tanh(scale, zp), all.data(), fixed.data(), all.size());
    ASSERT_TRUE(looked_up.intact());
    for (int i = 0; i < 256; ++i) {
      // TFLite's PopulateLookupTable: dequantize, tanh in float, round, requantize.
      const float x = scale * static_cast<float>(all[i] - zp);
      const float y = std::round(std::tanh(x) * 128.0f);
      EXPECT_EQ(looked_up[i], static_cast<int8_t>(std::clamp(y, -128.0f, 127.0f)));
      // The two TFLite implementations agree within one step.
      EXPECT_LE(std::abs(looked_up[i] - fixed[i]), 1);
    }
  }
}

TEST(TanhTest, InPlace) {
  const TanhParams p = prepare_tanh(0.03f, 7);
  std::vector<int8_t> x = Random(9).Int8s(64);
  std::vector<int8_t> expected(x.size());
  tanh(p, x.data(), expected.data(), x.size());
  tanh(p, x.data(), x.data(), x.size());
  EXPECT_EQ(x, expected);
}

}  // namespace
}  // namespace mote::kernels
