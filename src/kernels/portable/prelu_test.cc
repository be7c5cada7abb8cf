#include "mote/kernels/prelu.h"

#include <gtest/gtest.h>

#include "mote/kernels/quantization.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;
using ops_testing::RefMultiply;

struct Quant {
  float scale;
  int32_t zero_point;
};

// TFLite's PReluPrepare and PReluElementWise from their definitions, in int64: the ratios in
// float, x >= 0 requantized alone, x < 0 times the centred alpha.
int8_t SlowPrelu(Quant in, Quant alpha, Quant out, int8_t x, int8_t a) {
  const QuantizedMultiplier m1 = quantize_multiplier(static_cast<double>(in.scale / out.scale));
  const QuantizedMultiplier m2 =
      quantize_multiplier(static_cast<double>(in.scale * alpha.scale / out.scale));
  const int64_t v = x - in.zero_point;
  const int64_t y = v >= 0 ? RefMultiply(v, m1.multiplier, m1.shift)
                           : RefMultiply(v * (a - alpha.zero_point), m2.multiplier, m2.shift);
  return static_cast<int8_t>(ops_testing::Clamp(y + out.zero_point, -128, 127));
}

BroadcastShape shape_of(const std::vector<int32_t>& input, const std::vector<int32_t>& alpha) {
  BroadcastShape s{};
  EXPECT_TRUE(prepare_broadcast_shape(input.data(), static_cast<int32_t>(input.size()),
                                      alpha.data(), static_cast<int32_t>(alpha.size()), &s));
  return s;
}

TEST(PreluTest, HandCheckedPerChannelAlpha) {
  // Scales 1 (alpha 1/64, zp 0): x >= 0 unchanged; x < 0 times alpha = a/64.
  // Channels alpha 16 (0.25), 32 (0.5), 64 (1.0 is 64/64, beyond int8's 63/64: 63), -32 (-0.5).
  const PreluParams p = prepare_prelu(1.0f, 0, 1.0f / 64, 0, 1.0f, 0);
  const std::vector<int8_t> x = {-8, -8, -8, -8, 5, 5, 5, 5, -128, -1, -3, -128};
  const std::vector<int8_t> alpha = {16, 32, 63, -32};
  Guarded<int8_t> out(x.size());
  prelu(p, shape_of({1, 3, 4}, {4}), x.data(), alpha.data(), out.data());
  // -8 * 0.25 = -2; -8 * 0.5 = -4; -8 * 63/64 = -7.875 -> -8; -8 * -0.5 = 4; 5s unchanged;
  // -128 * 0.25 = -32; -1 * 0.5 = -0.5 -> -1 (the final shift rounds halves away from zero);
  // -3 * 63/64 = -2.95 -> -3;
  // -128 * -0.5 = 64.
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-2, -4, -8, 4, 5, 5, 5, 5, -32, -1, -3, 64}));
  EXPECT_TRUE(out.intact());
}

TEST(PreluTest, HandCheckedZeroPoints) {
  // Input scale 0.5 zp 10, alpha scale 0.01 zp -20 (alpha 30 -> 0.5), output scale 0.25 zp -5:
  // x = 20 -> 5.0 -> 20 - 5 = 15; x = 0 -> -5.0 * 0.5 = -2.5 -> -10 - 5 = -15; x = 10 -> -5.
  const PreluParams p = prepare_prelu(0.5f, 10, 0.01f, -20, 0.25f, -5);
  const std::vector<int8_t> x = {20, 0, 10, 127};
  const std::vector<int8_t> alpha = {30};
  Guarded<int8_t> out(x.size());
  prelu(p, shape_of({4}, {1}), x.data(), alpha.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{15, -15, -5, 127}));
}

TEST(PreluTest, RandomizedBroadcastMatchesSlowReference) {
  Random rng(31);
  for (int iter = 0; iter < 300; ++iter) {
    const Quant in{rng.Scale(0.005f, 0.2f), rng.Int(-128, 127)};
    const Quant al{rng.Scale(0.001f, 0.05f), rng.Int(-128, 127)};
    const Quant out{rng.Scale(0.005f, 0.2f), rng.Int(-128, 127)};
    const PreluParams p =
        prepare_prelu(in.scale, in.zero_point, al.scale, al.zero_point, out.scale, out.zero_point);
    if (!prelu_fits(p)) continue;
    // The input has the output's shape; alpha any shape broadcasting to it (per channel, per
    // row, a scalar, the full shape).
    std::vector<int32_t> dims(rng.Int(1, 4));
    for (auto& d : dims) d = rng.Int(1, 5);
    std::vector<int32_t> alpha_dims;
    const int mode = rng.Int(0, 3);
    if (mode == 0) alpha_dims = {dims.back()};
    if (mode == 1) alpha_dims = {1};
    if (mode == 2) alpha_dims = dims;
    if (mode == 3) {
      alpha_dims = dims;
      for (auto& d : alpha_dims) d = rng.Int(0, 1) ? d : 1;
      alpha_dims.erase(alpha_dims.begin(), alpha_dims.begin() + rng.Int(0, dims.size() - 1));
    }
    const std::vector<int8_t> x = rng.Int8s(ops_testing::Product(dims));
    const std::vector<int8_t> alpha = rng.Int8s(ops_testing::Product(alpha_dims));
    const auto expected = ops_testing::SlowBroadcast<int8_t, int8_t>(
        static_cast<int>(dims.size()), dims, alpha_dims, x, alpha,
        [&](int8_t a, int8_t b) { return SlowPrelu(in, al, out, a, b); });
    Guarded<int8_t> got(x.size());
    prelu(p, shape_of(dims, alpha_dims), x.data(), alpha.data(), got.data());
    ASSERT_EQ(got.values(), expected) << "iter " << iter;
    ASSERT_TRUE(got.intact());
  }
}

TEST(PreluTest, InPlaceOverTheInput) {
  const PreluParams p = prepare_prelu(0.1f, -3, 0.02f, 4, 0.07f, 2);
  std::vector<int8_t> x = Random(3).Int8s(2 * 3 * 8);
  const std::vector<int8_t> alpha = Random(4).Int8s(8);
  std::vector<int8_t> expected(x.size());
  const BroadcastShape s = shape_of({2, 3, 8}, {8});
  prelu(p, s, x.data(), alpha.data(), expected.data());
  prelu(p, s, x.data(), alpha.data(), x.data());
  EXPECT_EQ(x, expected);
}

TEST(PreluTest, FitsRefusesAnOverflowingAlphaPath) {
  // input * alpha / output = 0.5 * 0.5 / 1e-6: the product of 255 * 255 shifted left overflows.
  EXPECT_FALSE(prelu_fits(prepare_prelu(0.5f, 0, 0.5f, 0, 1e-6f, 0)));
  EXPECT_TRUE(prelu_fits(prepare_prelu(0.05f, 0, 0.01f, 0, 0.05f, 0)));
}

}  // namespace
}  // namespace mote::kernels
