#include "mote/kernels/relu.h"

#include <gtest/gtest.h>

#include <cmath>

#include "mote/kernels/quantization.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;
using ops_testing::RefMultiply;

// TFLite's ReluX from its definition, in int64, with the clamp QuantizedReluX computes from the
// output's scale and zero point (0, and 6 for RELU6, quantized with roundf of the float quotient).
int8_t SlowRelu(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, bool relu6,
                int8_t x) {
  const QuantizedMultiplier m = quantize_multiplier(static_cast<double>(in_scale / out_scale));
  const int64_t lo =
      std::max<int64_t>(-128, out_zp + static_cast<int64_t>(std::roundf(0.0f / out_scale)));
  const int64_t hi =
      relu6 ? std::min<int64_t>(127, out_zp + static_cast<int64_t>(std::roundf(6.0f / out_scale)))
            : 127;
  const int64_t y = out_zp + RefMultiply(x - in_zp, m.multiplier, m.shift);
  return static_cast<int8_t>(ops_testing::Clamp(y, lo, hi));
}

TEST(ReluTest, PrepareClampsAtTheQuantizedZeroAndSix) {
  // Output scale 0.1, zero point -100: 0 -> -100, 6 -> -100 + 60 = -40; 0.5 / 0.1 = 5.
  const ReluParams p = prepare_relu(0.5f, 3, 0.1f, -100, /*relu6=*/true);
  EXPECT_EQ(p.input_offset, -3);
  EXPECT_EQ(p.output_offset, -100);
  EXPECT_EQ(p.act_min, -100);
  EXPECT_EQ(p.act_max, -40);
  EXPECT_EQ(p.multiplier, 1342177280);  // 5 = 0.625 * 2^3
  EXPECT_EQ(p.shift, 3);
  const ReluParams r = prepare_relu(0.5f, 3, 0.1f, -100, /*relu6=*/false);
  EXPECT_EQ(r.act_min, -100);
  EXPECT_EQ(r.act_max, 127);
  // A zero point below int8 (not representable) still clamps at -128; 6 beyond the range at 127.
  const ReluParams wide = prepare_relu(0.01f, 0, 0.01f, -128, /*relu6=*/true);
  EXPECT_EQ(wide.act_min, -128);
  EXPECT_EQ(wide.act_max, 127);
}

TEST(ReluTest, HandChecked) {
  // Same quantization (scale 0.05, zp -10): identity above the zero point, clamped below it;
  // RELU6 also clamps at -10 + 120 = 110.
  const std::vector<int8_t> x = {-128, -11, -10, -9, 0, 100, 110, 111, 127};
  Guarded<int8_t> out(x.size());
  relu(prepare_relu(0.05f, -10, 0.05f, -10, false), x.data(), out.data(), x.size());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-10, -10, -10, -9, 0, 100, 110, 111, 127}));
  relu(prepare_relu(0.05f, -10, 0.05f, -10, true), x.data(), out.data(), x.size());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-10, -10, -10, -9, 0, 100, 110, 110, 110}));
  EXPECT_TRUE(out.intact());
}

TEST(ReluTest, HandCheckedRequantization) {
  // Input scale 0.1 zp 0, output scale 0.05 zp -128 (the range [0, 12.75]): y = 2x - 128,
  // RELU6 tops at -128 + 120 = -8.
  const std::vector<int8_t> x = {-5, 0, 1, 30, 60, 61, 127};
  Guarded<int8_t> out(x.size());
  relu(prepare_relu(0.1f, 0, 0.05f, -128, false), x.data(), out.data(), x.size());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-128, -128, -126, -68, -8, -6, 126}));
  relu(prepare_relu(0.1f, 0, 0.05f, -128, true), x.data(), out.data(), x.size());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-128, -128, -126, -68, -8, -8, -8}));
  EXPECT_TRUE(out.intact());
}

TEST(ReluTest, RandomizedMatchesSlowReference) {
  Random rng(21);
  for (int iter = 0; iter < 400; ++iter) {
    const bool relu6 = iter % 2 == 1;
    const float in = rng.Scale(0.001f, 0.2f), out_scale = rng.Scale(0.005f, 0.2f);
    const int32_t in_zp = rng.Int(-128, 127), out_zp = rng.Int(-128, 127);
    const ReluParams p = prepare_relu(in, in_zp, out_scale, out_zp, relu6);
    if (!relu_fits(p)) continue;
    const std::vector<int8_t> x = rng.Int8s(101);
    Guarded<int8_t> out(x.size());
    relu(p, x.data(), out.data(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(out[i], SlowRelu(in, in_zp, out_scale, out_zp, relu6, x[i]))
          << "iter " << iter << " i " << i;
    }
    ASSERT_TRUE(out.intact());
  }
}

TEST(ReluTest, InPlace) {
  const ReluParams p = prepare_relu(0.1f, -3, 0.07f, 2, true);
  std::vector<int8_t> x = Random(3).Int8s(64);
  std::vector<int8_t> expected(x.size());
  relu(p, x.data(), expected.data(), x.size());
  relu(p, x.data(), x.data(), x.size());
  EXPECT_EQ(x, expected);
}

}  // namespace
}  // namespace mote::kernels
