// RESIZE_NEAREST_NEIGHBOR (an integer upsampling along H, as FPN and YOLO necks write it) in
// row-streamed stages, end to end: a top-down merge (a map pooled, upsampled back and joined to
// itself) and an upsampling by 3 with half-pixel centres before a convolution, compiled for a
// scalar, a DSP and an MVE CPU, streamed and not, run on the host and compared; the loader
// refuses a RESIZE_NEAREST_NEIGHBOR member's words changed; what cannot stream (align_corners,
// a height not a multiple of the input's, int16) stays out.

#include <gtest/gtest.h>

#include "compiler/builder/model_builder.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/row_stages.h"
#include "compiler/passes/stage_members_testing.h"
#include "mote/schema/mote_generated.h"

namespace mote::passes {
namespace {

using builder::ModelBuilder;
using builder::TensorId;
using ir::Activation;
using ir::OpType;
using ir::Padding;

// conv 3x3 stride 2 -> conv 3x3 -> (max pool 2x2 -> RESIZE_NEAREST_NEIGHBOR x2) -> CONCATENATION
// with the conv's map -> conv 3x3: a top-down path merged with its lateral map, the resized rows
// and the map they came from both held as rings.
ir::Graph top_down_merge() {
  ModelBuilder b(41);
  const TensorId x = b.add_input({1, 48, 40, 8}, ir::DataType::kInt8, 0.02f, 3);
  const TensorId c = b.add_conv2d(x, 16, 3, 3, 2, Padding::kSame, Activation::kRelu);
  const TensorId fine = b.add_conv2d(c, 16, 3, 3, 1, Padding::kSame, Activation::kRelu);
  const TensorId up = b.add_resize_nearest(b.add_max_pool(fine, 2, 2, 2), 24, 20);
  b.mark_output(b.add_conv2d(b.add_concatenation({up, fine}, 3), 16, 3, 3));
  return b.build();
}

// conv 3x3 stride 2 -> RESIZE_NEAREST_NEIGHBOR x3 (half-pixel centres, the width x2) -> conv 3x3:
// the upsampled map streams from the stage's first member.
ir::Graph upsample_then_conv() {
  ModelBuilder b(43);
  const TensorId x = b.add_input({1, 32, 24, 8}, ir::DataType::kInt8, 0.02f, -4);
  const TensorId c = b.add_conv2d(x, 16, 3, 3, 2, Padding::kSame, Activation::kRelu);
  const TensorId up = b.add_resize_nearest(c, 48, 24, false, /*half_pixel_centers=*/true);
  b.mark_output(b.add_conv2d(up, 8, 3, 3));
  return b.build();
}

TEST(ResizeStages, TopDownMergeStreamsInLessArenaAndComputesTheSame) {
  testing::expect_streams_the_same(top_down_merge(), {{OpType::kResizeNearestNeighbor, 1},
                                                      {OpType::kMaxPool2D, 1},
                                                      {OpType::kConcatenation, 1}});
}

TEST(ResizeStages, UpsamplingByThreeStreamsInLessArenaAndComputesTheSame) {
  testing::expect_streams_the_same(upsample_then_conv(),
                                   {{OpType::kResizeNearestNeighbor, 1}, {OpType::kConv2D, 1}});
}

// The runtime reads a RESIZE_NEAREST_NEIGHBOR member's widths, channels, rule, factor and rings
// from its words: each changed is refused.
TEST(ResizeStages, ResizeMembersWordsAreChecked) {
  EXPECT_EQ(testing::expect_member_words_checked(top_down_merge(),
                                                 {schema::OpKind::ResizeNearestNeighbor}),
            1);
  EXPECT_EQ(testing::expect_member_words_checked(upsample_then_conv(),
                                                 {schema::OpKind::ResizeNearestNeighbor}),
            1);
}

// align_corners (rows mapped by (H - 1) / (kH - 1)), a height not a multiple of the input's, a
// downsampling or int16: no rows to stream. A height kept (only W resized) streams row for row.
TEST(ResizeStages, WhatCannotStreamStaysOut) {
  ModelBuilder b(3);
  const TensorId x = b.add_input({1, 12, 10, 8}, ir::DataType::kInt8, 0.02f, 0);
  const TensorId c = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame);              // op 0
  const TensorId corners = b.add_resize_nearest(c, 24, 20, true);             // op 1
  const TensorId uneven = b.add_resize_nearest(corners, 36, 20);              // op 2
  const TensorId down = b.add_resize_nearest(uneven, 18, 20);                 // op 3
  const TensorId wide = b.add_resize_nearest(down, 18, 30);                   // op 4
  b.mark_output(b.add_resize_nearest(b.add_conv2d(wide, 8, 1, 1), 36, 30));   // ops 5, 6
  ir::Graph g = b.build();
  const auto reach = [&](size_t op) { return testing::reach_of(g, op); };
  EXPECT_FALSE(reach(1).has_value());  // align_corners
  EXPECT_FALSE(reach(2).has_value());  // 24 -> 36
  EXPECT_FALSE(reach(3).has_value());  // 36 -> 18
  ASSERT_TRUE(reach(4).has_value());   // 18 -> 18: row y for row y
  EXPECT_EQ(reach(4)->upsample, 0);
  ASSERT_TRUE(reach(6).has_value());   // 18 -> 36
  EXPECT_EQ(reach(6)->upsample, 2);
  EXPECT_FALSE(row_stage(g, 0, 1).has_value());
  EXPECT_TRUE(row_stage(g, 4, 6).has_value());
  // 16x8: the same operator with int16 activations.
  testing::make_int16(g, 6);
  EXPECT_FALSE(reach(6).has_value());
}

}  // namespace
}  // namespace mote::passes
