// Which specialised code of the mve convolution kernels a layer may run (mve/instances.h), on the
// host: worked shapes, and the depthwise blocks against a walk of their positions as the kernel
// tests them (row3 and wide in mve/depthwise_conv.cc). Under QEMU, every M55 runner links only what its
// program asks for, so an instance missing from these answers would fault there.
#include "kernels/mve/instances.h"

#include <gtest/gtest.h>

#include <random>

namespace mote::kernels::mve {
namespace {

uint64_t four_rows_bit(int rows, bool right, bool small, bool tail) {
  return uint64_t{1} << four_rows_instance(rows, right, small, tail);
}

uint32_t row3_bit(int pixels, int stride, bool border, bool table) {
  return uint32_t{1} << row3_instance(pixels, stride, border, table);
}

uint32_t wide_bit(int width, int pixels, bool border) {
  return uint32_t{1} << wide_instance(width, pixels, border);
}

TEST(MveInstances, NumbersAreDistinctAndInRange) {
  uint64_t seen = 0;
  for (int rows = 1; rows <= 5; ++rows) {
    for (int k = 0; k < 8; ++k) {
      const bool right = (k & 4) != 0, small = (k & 2) != 0, tail = (k & 1) != 0;
      if (rows == 5 && small) continue;  // five rows only past 16 bytes of depth
      const int i = four_rows_instance(rows, right, small, tail);
      ASSERT_GE(i, 0);
      ASSERT_LT(i, kFourRowsInstances);
      EXPECT_EQ(seen & (uint64_t{1} << i), 0u) << rows << " " << k;
      seen |= uint64_t{1} << i;
    }
  }
  EXPECT_EQ(seen, (uint64_t{1} << kFourRowsInstances) - 1);
  for (int i = 0; i < kRow3Instances; ++i) {
    const int p = i / 8 + 1, stride = (i / 4) % 2 + 1;
    EXPECT_EQ(row3_instance(p, stride, (i & 2) != 0, (i & 1) != 0), i);
  }
  for (int i = 0; i < kWideInstances; ++i) {
    const int width = i < 6 ? 5 : 7, p = (i % 6) / 2 + 1;
    EXPECT_EQ(wide_instance(width, p, (i & 1) != 0), i);
  }
}

TEST(MveInstances, ConvTakesTheFourRowsOfItsDepth) {
  // Keyword spotting's pointwise layer: 64 channels, right shifts only.
  const ConvShape pointwise{1, 25, 5, 64, 1, 1, 64, 25, 5, 64, 1, 1, 0, 0, 1, 1};
  Instances used = conv_instances_used(pointwise, true);
  uint64_t want = four_rows_bit(5, true, false, false);
  for (int rows = 1; rows <= 4; ++rows) want |= four_rows_bit(rows, true, false, false);
  EXPECT_EQ(used.four_rows, want);
  EXPECT_FALSE(used.grouped);
  // A 3x3 over 3 channels: columns of 27 bytes (a tail), a left shift somewhere.
  const ConvShape rgb{1, 8, 8, 3, 3, 3, 3, 8, 8, 8, 1, 1, 1, 1, 1, 1};
  used = conv_instances_used(rgb, false);
  want = four_rows_bit(5, false, false, true);
  for (int rows = 1; rows <= 4; ++rows) want |= four_rows_bit(rows, false, false, true);
  EXPECT_EQ(used.four_rows, want);
  // Eight channels 1x1: one vector per row, no five-row block.
  const ConvShape narrow{1, 8, 8, 8, 1, 1, 8, 8, 8, 16, 1, 1, 0, 0, 1, 1};
  used = conv_instances_used(narrow, true);
  want = 0;
  for (int rows = 1; rows <= 4; ++rows) want |= four_rows_bit(rows, true, true, true);
  EXPECT_EQ(used.four_rows, want);
  // Grouped: two groups of 4 channels, 3x3 (columns of 36 bytes).
  const ConvShape grouped{1, 8, 8, 8, 3, 3, 4, 8, 8, 8, 1, 1, 1, 1, 1, 1};
  used = conv_instances_used(grouped, true);
  EXPECT_TRUE(used.grouped);
  EXPECT_NE(used.four_rows & four_rows_bit(4, true, false, true), 0u);
  // A shape the mve kernel hands to portable runs none.
  const ConvShape tall{1, 20, 8, 8, 17, 1, 8, 4, 8, 8, 1, 1, 0, 0, 1, 1};
  used = conv_instances_used(tall, true);
  EXPECT_EQ(used.four_rows, 0u);
}

TEST(MveInstances, DepthwiseTakesItsBlocksOfThree) {
  // Keyword spotting: rows of five pixels, padding 1: a block of three and one of two, both at
  // a border.
  const DepthwiseShape kws{1, 25, 5, 64, 3, 3, 25, 5, 64, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(depthwise_instances_used(kws, false).row3,
            row3_bit(3, 1, true, false) | row3_bit(2, 1, true, false));
  // Streamed, the windows that wrap a ring take the table variants as well.
  EXPECT_EQ(depthwise_instances_used(kws, true).row3,
            row3_bit(3, 1, true, false) | row3_bit(2, 1, true, false) |
                row3_bit(3, 1, true, true) | row3_bit(2, 1, true, true));
  // Seven pixels: a border block, an inner one, a last pixel alone.
  const DepthwiseShape seven{1, 7, 7, 8, 3, 3, 7, 7, 8, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(depthwise_instances_used(seven, false).row3,
            row3_bit(3, 1, true, false) | row3_bit(3, 1, false, false) |
                row3_bit(1, 1, true, false));
  // Stride 2, "same" padding of 0 on the left: 48 -> 24, eight inner blocks but the last.
  const DepthwiseShape strided{1, 48, 48, 8, 3, 3, 24, 24, 8, 2, 2, 0, 0, 1, 1};
  EXPECT_EQ(depthwise_instances_used(strided, false).row3,
            row3_bit(3, 2, false, false) | row3_bit(3, 2, true, false));
  // 5 wide over 9 pixels, padding 2: border, inner, border (its rings' wrapped windows go one
  // pixel at a time, no table variant); 7 wide over 10, padding 3: border, inner, border blocks
  // and a last pixel at the border.
  const DepthwiseShape five{1, 9, 9, 8, 5, 5, 9, 9, 8, 1, 1, 2, 2, 1, 1};
  EXPECT_EQ(depthwise_instances_used(five, true).row3, 0u);
  EXPECT_EQ(depthwise_instances_used(five, true).wide,
            wide_bit(5, 3, true) | wide_bit(5, 3, false));
  const DepthwiseShape seven_wide{1, 10, 10, 8, 7, 7, 10, 10, 8, 1, 1, 3, 3, 1, 1};
  EXPECT_EQ(depthwise_instances_used(seven_wide, false).wide,
            wide_bit(7, 3, true) | wide_bit(7, 3, false) | wide_bit(7, 1, true));
  // Other widths, dilations and depth multipliers run neither.
  const DepthwiseShape four{1, 9, 9, 8, 4, 4, 9, 9, 8, 1, 1, 2, 2, 1, 1};
  EXPECT_EQ(depthwise_instances_used(four, true).row3 | depthwise_instances_used(four, true).wide,
            0u);
  const DepthwiseShape dilated{1, 9, 9, 8, 5, 5, 5, 5, 8, 1, 1, 0, 0, 1, 2};
  EXPECT_EQ(depthwise_instances_used(dilated, false).wide, 0u);
  const DepthwiseShape halved{1, 9, 9, 8, 5, 5, 5, 5, 8, 2, 2, 2, 2, 1, 1};
  EXPECT_EQ(depthwise_instances_used(halved, false).wide, 0u);
  const DepthwiseShape multiplier{1, 9, 9, 4, 3, 3, 9, 9, 8, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(depthwise_instances_used(multiplier, true).row3, 0u);
  // A column (width 1) runs as its row on the whole map: 3-tall becomes 3-wide.
  const DepthwiseShape column{1, 9, 1, 8, 3, 1, 9, 1, 8, 1, 1, 1, 0, 1, 1};
  EXPECT_EQ(depthwise_instances_used(column, false).row3,
            row3_bit(3, 1, true, false) | row3_bit(3, 1, false, false));
}

// The blocks as the kernel walks them: positions one by one, a border where any is outside.
Instances walk(const DepthwiseShape& s, bool table) {
  Instances used{0, 0, 0, false};
  // Wider wrapped windows run one pixel at a time; 5 and 7 wide at stride 2 in fours.
  if ((table || s.stride_w != 1) && s.filter_w != 3) return used;
  for (int32_t x = 0; x < s.output_w; x += 3) {
    const int32_t count = s.output_w - x < 3 ? s.output_w - x : 3;
    const int32_t positions = (count - 1) * s.stride_w + s.filter_w;
    bool border = false;
    for (int32_t j = 0; j < positions; ++j) {
      const int32_t ix = x * s.stride_w - s.pad_w + j;
      border = border || ix < 0 || ix >= s.input_w;
    }
    if (s.filter_w != 3) {
      used.wide |= wide_bit(s.filter_w, count, border);
    } else if (!table) {
      used.row3 |= row3_bit(count, s.stride_w, border, false);
    } else {
      used.row3 |= row3_bit(count, s.stride_w, count < 3 || border, true);
    }
  }
  return used;
}

TEST(MveInstances, DepthwiseBlocksEqualTheKernelsWalk) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 2000; ++trial) {
    DepthwiseShape s{};
    s.batches = 1;
    s.input_c = s.output_c = pick(1, 20);
    s.filter_h = pick(1, 3);
    s.filter_w = 1 + 2 * pick(1, 3);
    s.stride_h = 1;
    s.stride_w = pick(1, 2);
    s.dilation_h = s.dilation_w = 1;
    s.input_h = pick(2, 6);
    s.input_w = pick(1, 30);
    s.pad_h = 0;
    s.pad_w = pick(0, s.filter_w - 1);
    s.output_h = s.input_h - s.filter_h + 1;
    const int32_t span = s.input_w + 2 * s.pad_w - s.filter_w;
    if (span < 0) continue;
    s.output_w = span / s.stride_w + 1;
    const bool ring = pick(0, 1) == 1;
    Instances want = walk(s, false);
    if (ring) {
      const Instances wrapped = walk(s, true);
      want.row3 |= wrapped.row3;
      want.wide |= wrapped.wide;
    }
    const Instances got = depthwise_instances_used(s, ring);
    EXPECT_EQ(got.row3, want.row3) << "w " << s.input_w << " pad " << s.pad_w << " stride "
                                   << s.stride_w << " filter " << s.filter_w;
    EXPECT_EQ(got.wide, want.wide) << "w " << s.input_w << " pad " << s.pad_w << " stride "
                                   << s.stride_w << " filter " << s.filter_w;
  }
}

}  // namespace
}  // namespace mote::kernels::mve
