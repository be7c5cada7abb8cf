#include "mote/kernels/squared_difference.h"

#include <gtest/gtest.h>

#include <algorithm>

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

// TFLite's int8 SQUARED_DIFFERENCE from its definition (PrepareQuantized in double, left shift 7,
// SquaredDifference), in int64.
int8_t SlowSquaredDifference(Quant qa, Quant qb, Quant qy, int8_t a, int8_t b) {
  const double twice_max = 2.0 * static_cast<double>(std::max(qa.scale, qb.scale));
  const QuantizedMultiplier ma = quantize_multiplier(static_cast<double>(qa.scale) / twice_max);
  const QuantizedMultiplier mb = quantize_multiplier(static_cast<double>(qb.scale) / twice_max);
  const QuantizedMultiplier my = quantize_multiplier(
      twice_max * twice_max / static_cast<double>(16384.0f * qy.scale));
  const int64_t sa = RefMultiply((a - qa.zero_point) * 128, ma.multiplier, ma.shift);
  const int64_t sb = RefMultiply((b - qb.zero_point) * 128, mb.multiplier, mb.shift);
  const int64_t y = RefMultiply((sa - sb) * (sa - sb), my.multiplier, my.shift) + qy.zero_point;
  return static_cast<int8_t>(ops_testing::Clamp(y, -128, 127));
}

BroadcastShape shape_of(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  BroadcastShape s{};
  EXPECT_TRUE(prepare_broadcast_shape(a.data(), static_cast<int32_t>(a.size()), b.data(),
                                      static_cast<int32_t>(b.size()), &s));
  return s;
}

TEST(SquaredDifferenceTest, PrepareIsTflites) {
  // Equal input scales 0.5: each input to 1/2 of itself (2^30, 0); output
  // (2 * 0.5)^2 / (2^14 * 0.25) = 2^-12: (2^30, -11).
  const SquaredDifferenceParams p = prepare_squared_difference(0.5f, 3, 0.5f, -4, 0.25f, -128);
  EXPECT_EQ(p.input1_offset, -3);
  EXPECT_EQ(p.input2_offset, 4);
  EXPECT_EQ(p.output_offset, -128);
  EXPECT_EQ(p.left_shift, 7);
  EXPECT_EQ(p.input1_multiplier, 1 << 30);
  EXPECT_EQ(p.input1_shift, 0);
  EXPECT_EQ(p.input2_multiplier, 1 << 30);
  EXPECT_EQ(p.input2_shift, 0);
  EXPECT_EQ(p.output_multiplier, 1 << 30);
  EXPECT_EQ(p.output_shift, -11);
}

TEST(SquaredDifferenceTest, HandChecked) {
  // Scales 0.5 in, 0.25 out, zero points 0 in, -128 out: real (a - b)^2 / 4 / 0.25 = (a - b)^2
  // steps above -128. a - b = 3 -> 9 -> -119; 10 -> 100 -> -28; 12 -> 144 -> 16 (clamps at 127
  // beyond 255).
  const SquaredDifferenceParams p = prepare_squared_difference(0.5f, 0, 0.5f, 0, 0.25f, -128);
  const std::vector<int8_t> a = {3, 0, 10, -6, 100, 0};
  const std::vector<int8_t> b = {0, 3, 0, 6, -100, 0};
  Guarded<int8_t> out(a.size());
  squared_difference(p, shape_of({6}, {6}), a.data(), b.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-119, -119, -28, 16, 127, -128}));
  EXPECT_TRUE(out.intact());
}

TEST(SquaredDifferenceTest, HandCheckedBroadcastAndScales) {
  // a scale 0.1 zp 5, b (one per channel) scale 0.2 zp 0, output scale 0.01 zp -100.
  // a real (q - 5) / 10, b real q / 5. a = 15 (1.0), b = 5 (1.0) -> 0 -> -100;
  // a = 25 (2.0), b = 0 -> 4.0 -> 400 steps -> 127; a = 10 (0.5), b = 0 -> 0.25 -> -75;
  // a = 5 (0), b = -1 (-0.2) -> 0.04 -> -96.
  const SquaredDifferenceParams p = prepare_squared_difference(0.1f, 5, 0.2f, 0, 0.01f, -100);
  const std::vector<int8_t> a = {15, 25, 10, 5, 15, 25, 10, 5};
  const std::vector<int8_t> b = {5, 0, 0, -1};
  Guarded<int8_t> out(a.size());
  squared_difference(p, shape_of({2, 4}, {4}), a.data(), b.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-100, 127, -75, -96, -100, 127, -75, -96}));
}

TEST(SquaredDifferenceTest, RandomizedBroadcastMatchesSlowReference) {
  Random rng(41);
  for (int iter = 0; iter < 300; ++iter) {
    const Quant qa{rng.Scale(0.005f, 0.2f), rng.Int(-128, 127)};
    const Quant qb{iter % 5 == 0 ? qa.scale : rng.Scale(0.005f, 0.2f), rng.Int(-128, 127)};
    const float range = std::max(qa.scale, qb.scale) * 255;
    const Quant qy{range * range / 255 * rng.Float(0.01f, 1.0f), rng.Int(-128, 127)};
    const SquaredDifferenceParams p = prepare_squared_difference(
        qa.scale, qa.zero_point, qb.scale, qb.zero_point, qy.scale, qy.zero_point);
    ASSERT_TRUE(squared_difference_fits(p));
    std::vector<int32_t> da, db;
    ops_testing::RandomBroadcastShapes(rng, 5, &da, &db);
    const std::vector<int8_t> a = rng.Int8s(ops_testing::Product(da));
    const std::vector<int8_t> b = rng.Int8s(ops_testing::Product(db));
    const int rank = static_cast<int>(std::max(da.size(), db.size()));
    const auto expected = ops_testing::SlowBroadcast<int8_t, int8_t>(
        rank, da, db, a, b,
        [&](int8_t x, int8_t y) { return SlowSquaredDifference(qa, qb, qy, x, y); });
    const BroadcastShape s = shape_of(da, db);
    Guarded<int8_t> got(broadcast_output_size(s));
    squared_difference(p, s, a.data(), b.data(), got.data());
    ASSERT_EQ(got.values(), expected) << "iter " << iter;
    ASSERT_TRUE(got.intact());
  }
}

TEST(SquaredDifferenceTest, InPlace) {
  const SquaredDifferenceParams p = prepare_squared_difference(0.05f, 3, 0.08f, -2, 0.2f, -128);
  std::vector<int8_t> a = Random(5).Int8s(3 * 8);
  const std::vector<int8_t> b = Random(6).Int8s(8);
  std::vector<int8_t> expected(a.size());
  const BroadcastShape s = shape_of({3, 8}, {8});
  squared_difference(p, s, a.data(), b.data(), expected.data());
  squared_difference(p, s, a.data(), b.data(), a.data());
  EXPECT_EQ(a, expected);
}

TEST(SquaredDifferenceTest, FitsRefusesATinyOutputScale) {
  EXPECT_TRUE(squared_difference_fits(prepare_squared_difference(0.5f, 0, 0.5f, 0, 1e-4f, 0)));
  EXPECT_FALSE(squared_difference_fits(prepare_squared_difference(0.5f, 0, 0.5f, 0, 1e-5f, 0)));
}

}  // namespace
}  // namespace mote::kernels
