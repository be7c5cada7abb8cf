#include "mote/kernels/add.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;
using ops_testing::RefMultiply;

// TFLite's ADD from its definition, in int64.
int8_t SlowAdd(const AddParams& p, int8_t a, int8_t b) {
  const int64_t s1 = RefMultiply((a + p.input1_offset) * (int64_t{1} << p.left_shift),
                                 p.input1_multiplier, p.input1_shift);
  const int64_t s2 = RefMultiply((b + p.input2_offset) * (int64_t{1} << p.left_shift),
                                 p.input2_multiplier, p.input2_shift);
  const int64_t out = RefMultiply(s1 + s2, p.output_multiplier, p.output_shift) + p.output_offset;
  return static_cast<int8_t>(ops_testing::Clamp(out, p.act_min, p.act_max));
}

TEST(AddTest, PrepareMatchesTfLite) {
  // Equal input scales: each input multiplier is exactly 1/2 = 2^30 * 2^(0-31);
  // output = 2 * 0.5 / (2^20 * 0.5) = 2^-19 -> (2^30, -18).
  const AddParams p = prepare_add(0.5f, 3, 0.5f, -7, 0.5f, 1, -128, 127);
  EXPECT_EQ(p.left_shift, 20);
  EXPECT_EQ(p.input1_offset, -3);
  EXPECT_EQ(p.input2_offset, 7);
  EXPECT_EQ(p.output_offset, 1);
  EXPECT_EQ(p.input1_multiplier, 1 << 30);
  EXPECT_EQ(p.input1_shift, 0);
  EXPECT_EQ(p.input2_multiplier, 1 << 30);
  EXPECT_EQ(p.output_multiplier, 1 << 30);
  EXPECT_EQ(p.output_shift, -18);
}

TEST(AddTest, HandCheckedSameScale) {
  // All scales 0.5, zero points 0: real a + b is exact, so q_out = q_a + q_b (then clamped).
  const AddParams p = prepare_add(0.5f, 0, 0.5f, 0, 0.5f, 0, -128, 127);
  const std::vector<int8_t> a = {1, -5, 100, -100, 0};
  const std::vector<int8_t> b = {2, 3, 100, -100, -1};
  Guarded<int8_t> out(5);
  add(p, elementwise_shape(5), a.data(), b.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{3, -2, 127, -128, -1}));
  EXPECT_TRUE(out.intact());
}

TEST(AddTest, HandCheckedBroadcastPerChannelBias) {
  // [1,2,2,2] + [2]: the second operand is added to every pixel.
  const AddParams p = prepare_add(1.0f, 0, 1.0f, 0, 1.0f, 0, -128, 127);
  const std::vector<int8_t> a = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<int8_t> b = {10, -10};
  const int32_t da[4] = {1, 2, 2, 2};
  const int32_t db[1] = {2};
  BroadcastShape s{};
  ASSERT_TRUE(prepare_broadcast_shape(da, 4, db, 1, &s));
  Guarded<int8_t> out(8);
  add(p, s, a.data(), b.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{10, -9, 12, -7, 14, -5, 16, -3}));
  EXPECT_TRUE(out.intact());
}

using Kernel = void (*)(const AddParams&, const BroadcastShape&, const int8_t*, const int8_t*,
                       int8_t*);
using Slow = int8_t (*)(const AddParams&, int8_t, int8_t);

// Random shapes (broadcasting up to rank 6), scales, zero points and clamps against `slow`.
void ExpectMatchesSlowReference(Kernel kernel, Slow slow, uint32_t seed) {
  Random rng(seed);
  for (int iter = 0; iter < 400; ++iter) {
    std::vector<int32_t> d1, d2;
    ops_testing::RandomBroadcastShapes(rng, 6, &d1, &d2);
    const float s1 = rng.Scale(), s2 = rng.Scale(), so = rng.Scale(0.005f, 1.0f);
    const int32_t z1 = rng.Int(-128, 127), z2 = rng.Int(-128, 127), zo = rng.Int(-128, 127);
    const int32_t act_min = rng.Int(-128, -20), act_max = rng.Int(20, 127);
    const AddParams p = prepare_add(s1, z1, s2, z2, so, zo, act_min, act_max);
    const std::vector<int8_t> a = rng.Int8s(ops_testing::Product(d1));
    const std::vector<int8_t> b = rng.Int8s(ops_testing::Product(d2));
    const int rank = static_cast<int>(std::max(d1.size(), d2.size()));
    const auto expected = ops_testing::SlowBroadcast<int8_t, int8_t>(
        rank, d1, d2, a, b, [&](int8_t x, int8_t y) { return slow(p, x, y); });
    BroadcastShape shape{};
    ASSERT_TRUE(prepare_broadcast_shape(d1.data(), static_cast<int32_t>(d1.size()), d2.data(),
                                        static_cast<int32_t>(d2.size()), &shape));
    Guarded<int8_t> out(expected.size());
    kernel(p, shape, a.data(), b.data(), out.data());
    ASSERT_EQ(out.values(), expected) << "iter " << iter;
    ASSERT_TRUE(out.intact());
  }
}

// Same shapes: within one step of the real sum (sign 1) or difference (sign -1), rounded.
void ExpectCloseToReal(Kernel kernel, int sign, uint32_t seed) {
  Random rng(seed);
  for (int iter = 0; iter < 50; ++iter) {
    const float s1 = rng.Scale(), s2 = rng.Scale(), so = rng.Scale(0.01f, 1.0f);
    const int32_t z1 = rng.Int(-128, 127), z2 = rng.Int(-128, 127), zo = rng.Int(-128, 127);
    const AddParams p = prepare_add(s1, z1, s2, z2, so, zo, -128, 127);
    const std::vector<int8_t> a = rng.Int8s(256), b = rng.Int8s(256);
    Guarded<int8_t> out(256);
    kernel(p, elementwise_shape(256), a.data(), b.data(), out.data());
    for (size_t i = 0; i < 256; ++i) {
      const double real = s1 * (a[i] - z1) + sign * s2 * (b[i] - z2);
      const double ideal = std::clamp(std::round(real / so) + zo, -128.0, 127.0);
      EXPECT_LE(std::fabs(out[i] - ideal), 1.0) << "iter " << iter << " i " << i;
    }
  }
}

TEST(AddTest, RandomizedBroadcastMatchesSlowReference) {
  ExpectMatchesSlowReference(add, SlowAdd, 42);
}

TEST(AddTest, SameShapeResultIsCloseToRealSum) { ExpectCloseToReal(add, 1, 7); }

TEST(AddTest, InPlaceIntoTheFullShapedOperand) {
  // [2,3] += [3] with the output written over the first operand.
  const AddParams p = prepare_add(0.1f, 2, 0.2f, -4, 0.15f, 1, -128, 127);
  const std::vector<int8_t> a = {10, -20, 30, -40, 50, 127}, b = {-128, 0, 99};
  const int32_t da[2] = {2, 3}, db[1] = {3};
  BroadcastShape s{};
  ASSERT_TRUE(prepare_broadcast_shape(da, 2, db, 1, &s));
  std::vector<int8_t> expected(6);
  add(p, s, a.data(), b.data(), expected.data());
  std::vector<int8_t> in_place = a;
  add(p, s, in_place.data(), b.data(), in_place.data());
  EXPECT_EQ(in_place, expected);
}

// TFLite's SUB from its definition (SubElementwise), in int64: the same scaling as ADD, the
// scaled second input subtracted.
int8_t SlowSub(const AddParams& p, int8_t a, int8_t b) {
  const int64_t s1 = RefMultiply((a + p.input1_offset) * (int64_t{1} << p.left_shift),
                                 p.input1_multiplier, p.input1_shift);
  const int64_t s2 = RefMultiply((b + p.input2_offset) * (int64_t{1} << p.left_shift),
                                 p.input2_multiplier, p.input2_shift);
  const int64_t out = RefMultiply(s1 - s2, p.output_multiplier, p.output_shift) + p.output_offset;
  return static_cast<int8_t>(ops_testing::Clamp(out, p.act_min, p.act_max));
}

TEST(SubTest, HandCheckedSameScale) {
  // All scales 0.5, zero points 0: real a - b is exact, so q_out = q_a - q_b (then clamped).
  const AddParams p = prepare_add(0.5f, 0, 0.5f, 0, 0.5f, 0, -128, 127);
  const std::vector<int8_t> a = {1, -5, 100, -100, 0};
  const std::vector<int8_t> b = {2, 3, -100, 100, -1};
  Guarded<int8_t> out(5);
  sub(p, elementwise_shape(5), a.data(), b.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-1, -8, 127, -128, 1}));
  EXPECT_TRUE(out.intact());
}

TEST(SubTest, HandCheckedBroadcastZeroPointsAndRelu) {
  // [1,2,2] - [2] with zero points: real values a - 1 and b + 2, output zero point 3, and a ReLU
  // range [3, 127] (real 0 and up).
  const AddParams p = prepare_add(1.0f, 1, 1.0f, -2, 1.0f, 3, 3, 127);
  const std::vector<int8_t> a = {11, 1, 5, -20};  // real 10, 0, 4, -21
  const std::vector<int8_t> b = {-2, 2};          // real 0, 4
  const int32_t da[3] = {1, 2, 2};
  const int32_t db[1] = {2};
  BroadcastShape s{};
  ASSERT_TRUE(prepare_broadcast_shape(da, 3, db, 1, &s));
  Guarded<int8_t> out(4);
  sub(p, s, a.data(), b.data(), out.data());
  // real differences 10, -4, 4, -25 -> ReLU 10, 0, 4, 0 -> + 3
  EXPECT_EQ(out.values(), (std::vector<int8_t>{13, 3, 7, 3}));
  EXPECT_TRUE(out.intact());
}

TEST(SubTest, RandomizedBroadcastMatchesSlowReference) {
  ExpectMatchesSlowReference(sub, SlowSub, 43);
}

TEST(SubTest, SameShapeResultIsCloseToRealDifference) { ExpectCloseToReal(sub, -1, 8); }

}  // namespace
}  // namespace mote::kernels
