#include "mote/kernels/maximum_minimum.h"

#include <gtest/gtest.h>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

TEST(MaximumMinimumTest, HandCheckedChannelBroadcast) {
  // [1,1,2,3] against [3]: per-channel threshold.
  const std::vector<int8_t> a = {-5, 0, 5, 10, -10, 127};
  const std::vector<int8_t> b = {0, 1, -128};
  const int32_t da[4] = {1, 1, 2, 3};
  const int32_t db[1] = {3};
  BroadcastShape s{};
  ASSERT_TRUE(prepare_broadcast_shape(da, 4, db, 1, &s));
  Guarded<int8_t> hi(6), lo(6);
  maximum(s, a.data(), b.data(), hi.data());
  minimum(s, a.data(), b.data(), lo.data());
  EXPECT_EQ(hi.values(), (std::vector<int8_t>{0, 1, 5, 10, 1, 127}));
  EXPECT_EQ(lo.values(), (std::vector<int8_t>{-5, 0, -128, 0, -10, -128}));
  EXPECT_TRUE(hi.intact());
  EXPECT_TRUE(lo.intact());
}

TEST(MaximumMinimumTest, HandCheckedFirstOperandBroadcastInTheMiddle) {
  // [2,1,2] against [2,2,1]: output [2,2,2]; out[n][h][w] = op(a[n][0][w], b[n][h][0]).
  const std::vector<int8_t> a = {1, 5, -3, 7};
  const std::vector<int8_t> b = {2, 4, 0, -9};
  const int32_t da[3] = {2, 1, 2};
  const int32_t db[3] = {2, 2, 1};
  BroadcastShape s{};
  ASSERT_TRUE(prepare_broadcast_shape(da, 3, db, 3, &s));
  Guarded<int8_t> hi(8);
  maximum(s, a.data(), b.data(), hi.data());
  EXPECT_EQ(hi.values(), (std::vector<int8_t>{2, 5, 4, 5, 0, 7, -3, 7}));
  EXPECT_TRUE(hi.intact());
}

TEST(MaximumMinimumTest, RandomizedBroadcastMatchesSlowReference) {
  Random rng(44);
  for (int iter = 0; iter < 400; ++iter) {
    std::vector<int32_t> d1, d2;
    ops_testing::RandomBroadcastShapes(rng, 6, &d1, &d2);
    const std::vector<int8_t> a = rng.Int8s(ops_testing::Product(d1));
    const std::vector<int8_t> b = rng.Int8s(ops_testing::Product(d2));
    const int rank = static_cast<int>(std::max(d1.size(), d2.size()));
    BroadcastShape shape{};
    ASSERT_TRUE(prepare_broadcast_shape(d1.data(), static_cast<int32_t>(d1.size()), d2.data(),
                                        static_cast<int32_t>(d2.size()), &shape));
    const auto max_expected = ops_testing::SlowBroadcast<int8_t, int8_t>(
        rank, d1, d2, a, b, [](int8_t x, int8_t y) { return std::max(x, y); });
    const auto min_expected = ops_testing::SlowBroadcast<int8_t, int8_t>(
        rank, d1, d2, a, b, [](int8_t x, int8_t y) { return std::min(x, y); });
    Guarded<int8_t> hi(max_expected.size()), lo(min_expected.size());
    maximum(shape, a.data(), b.data(), hi.data());
    minimum(shape, a.data(), b.data(), lo.data());
    ASSERT_EQ(hi.values(), max_expected) << "iter " << iter;
    ASSERT_EQ(lo.values(), min_expected) << "iter " << iter;
    ASSERT_TRUE(hi.intact());
    ASSERT_TRUE(lo.intact());
  }
}

}  // namespace
}  // namespace mote::kernels
