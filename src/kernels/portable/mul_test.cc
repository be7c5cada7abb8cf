#include "mote/kernels/mul.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

int8_t SlowMul(const MulParams& p, int8_t a, int8_t b) {
  const int64_t product = static_cast<int64_t>(a + p.input1_offset) * (b + p.input2_offset);
  const int64_t out =
      ops_testing::RefMultiply(product, p.output_multiplier, p.output_shift) + p.output_offset;
  return static_cast<int8_t>(ops_testing::Clamp(out, p.act_min, p.act_max));
}

TEST(MulTest, PrepareMatchesTfLite) {
  // 0.5 * 0.25 / 0.125 = 1 -> (2^30, 1).
  const MulParams p = prepare_mul(0.5f, 1, 0.25f, -2, 0.125f, 3, -100, 100);
  EXPECT_EQ(p.input1_offset, -1);
  EXPECT_EQ(p.input2_offset, 2);
  EXPECT_EQ(p.output_offset, 3);
  EXPECT_EQ(p.output_multiplier, 1 << 30);
  EXPECT_EQ(p.output_shift, 1);
  EXPECT_EQ(p.act_min, -100);
  EXPECT_EQ(p.act_max, 100);
}

TEST(MulTest, HandChecked) {
  // Scales 0.5 * 0.5 / 0.25 = 1, zero points 0: q_out = q_a * q_b, clamped to [-128, 127].
  const MulParams p = prepare_mul(0.5f, 0, 0.5f, 0, 0.25f, 0, -128, 127);
  const std::vector<int8_t> a = {3, -4, 20, -20, 0};
  const std::vector<int8_t> b = {5, 6, 20, 20, 99};
  Guarded<int8_t> out(5);
  mul(p, elementwise_shape(5), a.data(), b.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{15, -24, 127, -128, 0}));
  EXPECT_TRUE(out.intact());
  // Scalar second operand: [2,2] * [] doubles everything.
  const int32_t da[2] = {2, 2};
  BroadcastShape s{};
  ASSERT_TRUE(prepare_broadcast_shape(da, 2, nullptr, 0, &s));
  const std::vector<int8_t> m = {1, -2, 3, -4};
  const int8_t two = 2;
  Guarded<int8_t> out2(4);
  mul(p, s, m.data(), &two, out2.data());
  EXPECT_EQ(out2.values(), (std::vector<int8_t>{2, -4, 6, -8}));
  EXPECT_TRUE(out2.intact());
}

TEST(MulTest, RandomizedBroadcastMatchesSlowReference) {
  Random rng(43);
  for (int iter = 0; iter < 400; ++iter) {
    std::vector<int32_t> d1, d2;
    ops_testing::RandomBroadcastShapes(rng, 6, &d1, &d2);
    const float s1 = rng.Scale(), s2 = rng.Scale(), so = rng.Scale(1e-4f, 0.1f);
    const int32_t z1 = rng.Int(-128, 127), z2 = rng.Int(-128, 127), zo = rng.Int(-128, 127);
    const MulParams p = prepare_mul(s1, z1, s2, z2, so, zo, rng.Int(-128, -20), rng.Int(20, 127));
    const std::vector<int8_t> a = rng.Int8s(ops_testing::Product(d1));
    const std::vector<int8_t> b = rng.Int8s(ops_testing::Product(d2));
    const int rank = static_cast<int>(std::max(d1.size(), d2.size()));
    const auto expected = ops_testing::SlowBroadcast<int8_t, int8_t>(
        rank, d1, d2, a, b, [&](int8_t x, int8_t y) { return SlowMul(p, x, y); });
    BroadcastShape shape{};
    ASSERT_TRUE(prepare_broadcast_shape(d1.data(), static_cast<int32_t>(d1.size()), d2.data(),
                                        static_cast<int32_t>(d2.size()), &shape));
    Guarded<int8_t> out(expected.size());
    mul(p, shape, a.data(), b.data(), out.data());
    ASSERT_EQ(out.values(), expected) << "iter " << iter;
    ASSERT_TRUE(out.intact());
  }
}

TEST(MulTest, ResultIsCloseToRealProduct) {
  Random rng(8);
  for (int iter = 0; iter < 50; ++iter) {
    const float s1 = rng.Scale(), s2 = rng.Scale(), so = rng.Scale(1e-4f, 0.1f);
    const int32_t z1 = rng.Int(-128, 127), z2 = rng.Int(-128, 127), zo = rng.Int(-128, 127);
    const MulParams p = prepare_mul(s1, z1, s2, z2, so, zo, -128, 127);
    const std::vector<int8_t> a = rng.Int8s(256), b = rng.Int8s(256);
    Guarded<int8_t> out(256);
    mul(p, elementwise_shape(256), a.data(), b.data(), out.data());
    for (size_t i = 0; i < 256; ++i) {
      const double real = double{s1} * (a[i] - z1) * double{s2} * (b[i] - z2);
      const double ideal = std::clamp(std::round(real / so) + zo, -128.0, 127.0);
      EXPECT_LE(std::fabs(out[i] - ideal), 1.0) << "iter " << iter << " i " << i;
    }
  }
}

}  // namespace
}  // namespace mote::kernels
