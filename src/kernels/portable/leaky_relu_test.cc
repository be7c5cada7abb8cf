#include "mote/kernels/leaky_relu.h"

#include <gtest/gtest.h>

#include <cmath>

#include "mote/kernels/quantization.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;
using ops_testing::RefMultiply;

// TFLite's QuantizeLeakyRelu from its definition, in int64.
int8_t SlowLeakyRelu(const LeakyReluParams& p, int8_t x) {
  const int64_t centred = x + p.input_offset;
  const int64_t scaled = centred >= 0 ? RefMultiply(centred, p.identity_multiplier, p.identity_shift)
                                      : RefMultiply(centred, p.alpha_multiplier, p.alpha_shift);
  return static_cast<int8_t>(ops_testing::Clamp(scaled + p.output_offset, -128, 127));
}

TEST(LeakyReluTest, PrepareUsesTfLitesTwoMultipliers) {
  // input/output = 0.5/0.25 = 2 -> (2^30, 2); alpha 0.25 -> 0.5 -> (2^30, 0).
  const LeakyReluParams p = prepare_leaky_relu(0.5f, 3, 0.25f, -4, 0.25f);
  EXPECT_EQ(p.input_offset, -3);
  EXPECT_EQ(p.output_offset, -4);
  EXPECT_EQ(p.identity_multiplier, 1 << 30);
  EXPECT_EQ(p.identity_shift, 2);
  EXPECT_EQ(p.alpha_multiplier, 1 << 30);
  EXPECT_EQ(p.alpha_shift, 0);
}

TEST(LeakyReluTest, PrepareRoundsTheScaleProductsInFloat) {
  // TFLite multiplies and divides the float scales in float before widening to double; a
  // product computed in double would give a different mantissa for these scales.
  Random rng(5);
  int differs = 0;
  for (int i = 0; i < 200; ++i) {
    const float in = rng.Scale(), out = rng.Scale(), alpha = rng.Float(0.01f, 0.9f);
    const LeakyReluParams p = prepare_leaky_relu(in, 0, out, 0, alpha);
    const QuantizedMultiplier a = quantize_multiplier(static_cast<double>(in * alpha / out));
    EXPECT_EQ(p.alpha_multiplier, a.multiplier);
    EXPECT_EQ(p.alpha_shift, a.shift);
    const QuantizedMultiplier wide = quantize_multiplier(double{in} * alpha / out);
    differs += wide.multiplier != a.multiplier;
  }
  EXPECT_GT(differs, 0) << "the test would not notice a double-precision prepare";
}

TEST(LeakyReluTest, HandChecked) {
  // Scales 1, zero points 0, alpha 0.5: x >= 0 unchanged, x < 0 halved by the doubling high
  // multiply, whose negative ties round towards zero (-0.5 -> 0, -1.5 -> -1).
  const LeakyReluParams p = prepare_leaky_relu(1.0f, 0, 1.0f, 0, 0.5f);
  const std::vector<int8_t> x = {0, 1, 127, -1, -2, -3, -128};
  Guarded<int8_t> out(x.size());
  leaky_relu(p, x.data(), out.data(), x.size());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{0, 1, 127, 0, -1, -1, -64}));
  EXPECT_TRUE(out.intact());
}

TEST(LeakyReluTest, HandCheckedZeroPointsAndSaturation) {
  // Input zero point 10, output scale half the input's: real (x - 10) doubles, then + (-5).
  const LeakyReluParams p = prepare_leaky_relu(1.0f, 10, 0.5f, -5, 0.25f);
  const std::vector<int8_t> x = {10, 20, 127, 6, -128};
  Guarded<int8_t> out(x.size());
  leaky_relu(p, x.data(), out.data(), x.size());
  // 0 -> -5; 10 -> 15; 117 -> 229 clamps to 127; -4 -> -2 -> -7; -138 -> -69 -> -74
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-5, 15, 127, -7, -74}));
  EXPECT_TRUE(out.intact());
}

TEST(LeakyReluTest, RandomizedMatchesSlowReference) {
  Random rng(11);
  for (int iter = 0; iter < 300; ++iter) {
    const float in = rng.Scale(), out_scale = rng.Scale(0.005f, 1.0f);
    const float alpha = iter % 10 == 0 ? 0.0f : rng.Float(0.0f, 1.0f);
    const LeakyReluParams p = prepare_leaky_relu(in, rng.Int(-128, 127), out_scale,
                                                 rng.Int(-128, 127), alpha);
    if (p.identity_shift > 23 || p.alpha_shift > 23) continue;  // outside the kernel's contract
    const std::vector<int8_t> x = rng.Int8s(97);
    Guarded<int8_t> out(x.size());
    leaky_relu(p, x.data(), out.data(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(out[i], SlowLeakyRelu(p, x[i])) << "iter " << iter << " i " << i;
    }
    ASSERT_TRUE(out.intact());
  }
}

TEST(LeakyReluTest, InPlace) {
  const LeakyReluParams p = prepare_leaky_relu(0.1f, -3, 0.07f, 2, 0.3f);
  std::vector<int8_t> x = Random(3).Int8s(64);
  std::vector<int8_t> expected(x.size());
  leaky_relu(p, x.data(), expected.data(), x.size());
  leaky_relu(p, x.data(), x.data(), x.size());
  EXPECT_EQ(x, expected);
}

}  // namespace
}  // namespace mote::kernels
