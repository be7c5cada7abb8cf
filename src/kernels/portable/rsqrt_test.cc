#include "mote/kernels/rsqrt.h"

#include <gtest/gtest.h>

#include <cmath>

#include "mote/kernels/quantization.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;
using ops_testing::RefMultiply;

// TFLite's RsqrtEvalQuantized (v = 0 -> 127; Mote's choice for v < 0 is 127 too).
int8_t SlowRsqrt(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, int8_t q) {
  const int64_t v = q - in_zp;
  if (v <= 0) return 127;
  const QuantizedMultiplier m =
      quantize_multiplier(1.0 / static_cast<double>(std::sqrt(in_scale) * out_scale));
  int64_t inv = 0;
  int inv_shift = 0;
  ops_testing::RefInvSqrt(v, &inv, &inv_shift);
  const int64_t data = RefMultiply(1, static_cast<int32_t>(inv), inv_shift + 20);
  const int64_t y = RefMultiply(data, m.multiplier, m.shift - 20) + out_zp;
  return static_cast<int8_t>(ops_testing::Clamp(y, -128, 127));
}

TEST(RsqrtTest, PrepareIsTflites) {
  // 1 / (sqrt(0.25) * 0.125) = 16 = 0.5 * 2^5.
  const RsqrtParams p = prepare_rsqrt(0.25f, -7, 0.125f, 3);
  EXPECT_EQ(p.input_zero_point, -7);
  EXPECT_EQ(p.output_zero_point, 3);
  EXPECT_EQ(p.multiplier, 1 << 30);
  EXPECT_EQ(p.shift, 5);
}

TEST(RsqrtTest, HandChecked) {
  // Input scale 1/64 zp -128 (v / 64), output scale 1/16 zp -128: rsqrt(v / 64) = 8 / sqrt(v),
  // in steps of 1/16: 128 / sqrt(v). v = 1 -> 128 -> 0; v = 4 -> 64 -> -64; v = 16 -> 32 -> -96;
  // v = 64 -> 16 -> -112; v = 255 -> 8.0157 -> 8 -> -120; v = 2 -> 90.51 -> 91 -> -37;
  // v = 0 -> 127.
  const RsqrtParams p = prepare_rsqrt(1.0f / 64, -128, 1.0f / 16, -128);
  const std::vector<int8_t> x = {-127, -124, -112, -64, 127, -126, -128};
  Guarded<int8_t> out(x.size());
  rsqrt(p, x.data(), out.data(), x.size());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{0, -64, -96, -112, -120, -37, 127}));
  EXPECT_TRUE(out.intact());
}

TEST(RsqrtTest, BelowTheZeroPointSaturates) {
  // TFLite refuses to run there; Mote's kernel, which cannot fail, writes the largest value.
  const RsqrtParams p = prepare_rsqrt(0.1f, 10, 0.05f, -20);
  const std::vector<int8_t> x = {9, -128, 10};
  Guarded<int8_t> out(x.size());
  rsqrt(p, x.data(), out.data(), x.size());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{127, 127, 127}));
}

TEST(RsqrtTest, AllInputsMatchSlowReferenceAndRealRsqrt) {
  Random rng(51);
  std::vector<int8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<int8_t>(i - 128);
  int compared = 0;
  for (int iter = 0; iter < 200; ++iter) {
    const float in = rng.Scale(0.001f, 0.5f), out = rng.Scale(0.005f, 0.5f);
    const int32_t in_zp = rng.Int(-128, 127), out_zp = rng.Int(-128, 127);
    const RsqrtParams p = prepare_rsqrt(in, in_zp, out, out_zp);
    if (!rsqrt_fits(p)) continue;
    ++compared;
    Guarded<int8_t> got(256);
    rsqrt(p, all.data(), got.data(), all.size());
    ASSERT_TRUE(got.intact());
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(got[i], SlowRsqrt(in, in_zp, out, out_zp, all[i])) << "iter " << iter << " q " << i;
      const int v = all[i] - in_zp;
      if (v > 0) {
        const double real = 1.0 / std::sqrt(double{in} * v) / out + out_zp;
        EXPECT_NEAR(got[i], std::clamp(std::round(real), -128.0, 127.0), 1.0);
      }
    }
  }
  EXPECT_GT(compared, 150);
}

TEST(RsqrtTest, FitsRefusesShiftsTheKernelCannotTake) {
  // 1 / (sqrt(1e-4) * 1e-4) = 1e6: shift 20, applied as 0: fine; 1e9: shift 30, 2^20 << 10 still
  // fits; 1e12: shift 40, 2^20 << 20 overflows.
  EXPECT_TRUE(rsqrt_fits(prepare_rsqrt(1e-4f, 0, 1e-4f, 0)));
  EXPECT_TRUE(rsqrt_fits(prepare_rsqrt(1e-6f, 0, 1e-6f, 0)));
  EXPECT_FALSE(rsqrt_fits(prepare_rsqrt(1e-8f, 0, 1e-8f, 0)));
  // A huge output scale: the shift - 20 falls below -31.
  EXPECT_FALSE(rsqrt_fits(prepare_rsqrt(100.0f, 0, 1e4f, 0)));
}

TEST(RsqrtTest, InPlace) {
  const RsqrtParams p = prepare_rsqrt(0.02f, -100, 0.1f, -128);
  std::vector<int8_t> x = Random(8).Int8s(64);
  std::vector<int8_t> expected(x.size());
  rsqrt(p, x.data(), expected.data(), x.size());
  rsqrt(p, x.data(), x.data(), x.size());
  EXPECT_EQ(x, expected);
}

}  // namespace
}  // namespace mote::kernels
