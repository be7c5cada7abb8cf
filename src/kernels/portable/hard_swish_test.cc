#include "mote/kernels/hard_swish.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

int64_t Sat16(int64_t x) { return ops_testing::Clamp(x, INT16_MIN, INT16_MAX); }
// 16-bit doubling high multiply, rounding (nudged) or truncating toward zero.
int64_t Mul16(int64_t a, int64_t b, bool round) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  const int64_t ab = a * b;
  const int64_t nudge = round ? (ab >= 0 ? (1 << 14) : 1 - (1 << 14)) : 0;
  const int64_t v = ab + nudge;
  return v >= 0 ? v / 32768 : -((-v) / 32768);
}

// TFLite's reference HardSwish re-derived with int64 intermediates.
int8_t SlowHardSwish(const HardSwishParams& p, int8_t q) {
  const int64_t hires = (q - int64_t{p.input_zero_point}) * 128;
  const int64_t pre = Mul16(hires, p.output_multiplier_fixedpoint_int16, true);
  int64_t relu = hires;
  const int e = p.reluish_multiplier_exponent;
  if (e > 0) relu = Sat16(relu * (int64_t{1} << (e - 1)));
  relu = Mul16(relu, p.reluish_multiplier_fixedpoint_int16, true);
  if (e > 0) relu = Sat16(relu * 2);
  if (e < 0) relu = ops_testing::RoundHalfAwayDivPot(relu, -e);
  relu = (relu + 32768) / 2;  // [-1, 1] -> [0, 1], non-negative so division floors
  const int64_t product = Mul16(relu, pre, false);
  int64_t out = ops_testing::RoundHalfAwayDivPot(product, -p.output_multiplier_exponent);
  out = static_cast<int16_t>(out + p.output_zero_point);  // TFLite sums in int16
  return static_cast<int8_t>(ops_testing::Clamp(out, -128, 127));
}

TEST(HardSwishTest, PrepareMatchesTfLite) {
  // input scale 0.1: output multiplier (0.1/128)/0.1 = 2^-7 -> Q15 16384, exponent -6;
  // relu-ish (0.1/128)/(3/32768) = 8.5333 -> Q31 1145324612 -> Q15 17476, exponent 4.
  const HardSwishParams p = prepare_hard_swish(0.1f, 5, 0.1f, -7);
  EXPECT_EQ(p.input_zero_point, 5);
  EXPECT_EQ(p.output_zero_point, -7);
  EXPECT_EQ(p.output_multiplier_fixedpoint_int16, 16384);
  EXPECT_EQ(p.output_multiplier_exponent, -6);
  EXPECT_EQ(p.reluish_multiplier_fixedpoint_int16, 17476);
  EXPECT_EQ(p.reluish_multiplier_exponent, 4);
}

TEST(HardSwishTest, HandChecked) {
  // Scales 0.1, zero points 0. x = -5 -> 0; x = 0 -> 0; x = 5 -> ~5 -> 50;
  // x = 1: 1 * 4 / 6 = 0.667 -> 7 (by hand through the fixed point: 426 / 64 = 6.66 -> 7).
  const HardSwishParams p = prepare_hard_swish(0.1f, 0, 0.1f, 0);
  const std::vector<int8_t> in = {-50, 0, 50, 10};
  Guarded<int8_t> out(4);
  hard_swish(p, in.data(), out.data(), in.size());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{0, 0, 50, 7}));
  EXPECT_TRUE(out.intact());
}

TEST(HardSwishTest, AllInputsMatchRederivationAndRealFunction) {
  Random rng(23);
  std::vector<int8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<int8_t>(i - 128);
  int checked = 0;
  for (int iter = 0; iter < 200; ++iter) {
    const float in_scale = rng.Scale(0.005f, 0.2f);
    const float out_scale = rng.Scale(0.005f, 0.2f);
    const int32_t in_zp = rng.Int(-128, 127), out_zp = rng.Int(-128, 127);
    const HardSwishParams p = prepare_hard_swish(in_scale, in_zp, out_scale, out_zp);
    if (p.output_multiplier_exponent > 0) continue;  // TFLite rejects these
    ++checked;
    Guarded<int8_t> out(256);
    hard_swish(p, all.data(), out.data(), all.size());
    ASSERT_TRUE(out.intact());
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(out[i], SlowHardSwish(p, all[i])) << "iter " << iter << " q " << int{all[i]};
      const double x = double{in_scale} * (all[i] - in_zp);
      const double real = x * std::clamp(x + 3, 0.0, 6.0) / 6;
      EXPECT_NEAR(out[i], std::clamp(std::round(real / out_scale) + out_zp, -128.0, 127.0), 2.0)
          << "iter " << iter << " q " << int{all[i]};
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace mote::kernels
