#include "mote/kernels/broadcast.h"

#include <gtest/gtest.h>

namespace mote::kernels {
namespace {

TEST(BroadcastTest, PrepareRightAlignsAndBroadcastsOnes) {
  const int32_t a[4] = {2, 1, 4, 3};
  const int32_t b[3] = {6, 4, 1};
  BroadcastShape s{};
  ASSERT_TRUE(prepare_broadcast_shape(a, 4, b, 3, &s));
  EXPECT_EQ(s.rank, 4);
  EXPECT_EQ(std::vector<int32_t>(s.input1, s.input1 + 4), (std::vector<int32_t>{2, 1, 4, 3}));
  EXPECT_EQ(std::vector<int32_t>(s.input2, s.input2 + 4), (std::vector<int32_t>{1, 6, 4, 1}));
  EXPECT_EQ(std::vector<int32_t>(s.output, s.output + 4), (std::vector<int32_t>{2, 6, 4, 3}));
  EXPECT_EQ(broadcast_output_size(s), 144u);
}

TEST(BroadcastTest, PrepareRejectsIncompatibleAndTooDeepShapes) {
  const int32_t a[2] = {3, 4};
  const int32_t b[2] = {3, 5};
  BroadcastShape s{};
  EXPECT_FALSE(prepare_broadcast_shape(a, 2, b, 2, &s));
  const int32_t deep[7] = {1, 1, 1, 1, 1, 1, 1};
  EXPECT_FALSE(prepare_broadcast_shape(deep, 7, a, 2, &s));
  const int32_t c[1] = {4};
  ASSERT_TRUE(prepare_broadcast_shape(a, 2, c, 1, &s));
  EXPECT_EQ(broadcast_output_size(s), 12u);
  const int32_t six[6] = {2, 1, 3, 1, 2, 1};
  const int32_t six2[6] = {1, 2, 1, 3, 1, 2};
  ASSERT_TRUE(prepare_broadcast_shape(six, 6, six2, 6, &s));
  EXPECT_EQ(broadcast_output_size(s), 144u);
}

TEST(BroadcastTest, ElementwiseShape) {
  const BroadcastShape s = elementwise_shape(37);
  EXPECT_EQ(broadcast_output_size(s), 37u);
  EXPECT_EQ(s.input1[0], 37);
  EXPECT_EQ(s.input2[0], 37);
}

}  // namespace
}  // namespace mote::kernels
