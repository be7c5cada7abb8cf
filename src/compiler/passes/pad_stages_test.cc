// PAD that no pass folds (channel padding on a shortcut, as BlazeFace and the MediaPipe detectors
// write it; padding read by two operators) in row-streamed stages, end to end: compiled for a
// scalar, a DSP and an MVE CPU, streamed and not, run on the host and compared; the loader
// refuses a PAD member's words changed; what cannot stream (batch padding, int16) stays out.

#include <gtest/gtest.h>

#include <vector>

#include "compiler/builder/model_builder.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/row_stages.h"
#include "compiler/passes/stage_members_testing.h"
#include "mote/schema/mote_generated.h"

namespace mote::passes {
namespace {

using builder::ModelBuilder;
using builder::TensorId;
using ir::OpType;
using ir::Padding;

// BlazeFace's strided block: conv 3x3 -> (depthwise 3x3 stride 2 -> conv 1x1 to twice the
// channels) + (max pool 2x2 stride 2 -> PAD of the channels) -> ADD -> conv 1x1. The shortcut's
// PAD has a reader that takes no padding, so it stays an operator.
ir::Graph channel_pad_block() {
  ModelBuilder b(23);
  const TensorId x = b.add_input({1, 48, 40, 3}, ir::DataType::kInt8, 0.02f, -3);
  const TensorId c = b.add_conv2d(x, 24, 3, 3, 1, Padding::kSame, ir::Activation::kRelu);
  const TensorId main = b.add_conv2d(b.add_depthwise(c, 3, 3, 2, Padding::kSame), 48, 1, 1);
  const TensorId shortcut = b.add_pad(b.add_max_pool(c, 2, 2, 2), {{0, 0}, {0, 0}, {0, 0}, {0, 24}});
  const TensorId sum = b.add_add(main, shortcut, ir::Activation::kRelu);
  b.mark_output(b.add_conv2d(sum, 8, 1, 1));
  return b.build();
}

// Padding along H and W read by two window operators (so not folded into either): conv 3x3 ->
// PAD (1 row above, 2 below, 2 columns left, 1 right) -> depthwise 3x3 VALID + average pool 3x3
// VALID -> ADD. Output rows above and below the input are the pad value alone.
ir::Graph spatial_pad_two_readers() {
  ModelBuilder b(29);
  const TensorId x = b.add_input({1, 30, 20, 4}, ir::DataType::kInt8, 0.03f, 5);
  const TensorId c = b.add_conv2d(x, 16, 3, 3, 1, Padding::kSame, ir::Activation::kRelu);
  const TensorId p = b.add_pad(c, {{0, 0}, {1, 2}, {2, 1}, {0, 0}});
  const TensorId d = b.add_depthwise(p, 3, 3, 1, Padding::kValid);
  const TensorId a = b.add_average_pool(p, 3, 3, 1, Padding::kValid);
  b.mark_output(b.add_conv2d(b.add_add(d, a), 4, 1, 1));
  return b.build();
}

TEST(PadStages, StreamInLessArenaAndComputeTheSame) {
  testing::expect_streams_the_same(channel_pad_block(),
                                   {{OpType::kPad, 1}, {OpType::kMaxPool2D, 1}, {OpType::kAdd, 1}});
  testing::expect_streams_the_same(spatial_pad_two_readers(),
                                   {{OpType::kPad, 1}, {OpType::kAveragePool2D, 1}});
}

// The runtime reads a PAD member's words (StageCalls.args) instead of its options: its paddings,
// shape, pad value or a ring changed there is refused.
TEST(PadStages, PadMembersWordsAreChecked) {
  EXPECT_EQ(testing::expect_member_words_checked(channel_pad_block(), {schema::OpKind::Pad}), 1);
  EXPECT_EQ(
      testing::expect_member_words_checked(spatial_pad_two_readers(), {schema::OpKind::Pad}), 1);
}

// Batch padding and int16 do not stream; padding along H, W and C does.
TEST(PadStages, WhatCannotStreamStaysOut) {
  ModelBuilder b(3);
  const TensorId x = b.add_input({1, 12, 10, 8}, ir::DataType::kInt8, 0.02f, 0);
  const TensorId c = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame);
  const TensorId spatial = b.add_pad(c, {{0, 0}, {2, 1}, {0, 3}, {1, 1}});
  b.mark_output(b.add_pad(spatial, {{1, 0}, {0, 0}, {0, 0}, {0, 0}}));
  ir::Graph g = b.build();
  const auto reach = [&](size_t op) { return testing::reach_of(g, op); };
  ASSERT_EQ(g.operators[1].type, OpType::kPad);
  const std::optional<ops::RowReach> r = reach(1);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->filter, 1);
  EXPECT_EQ(r->stride, 1);
  EXPECT_EQ(r->pad, 2);  // the rows above
  EXPECT_FALSE(reach(2).has_value());  // batch padding
  EXPECT_TRUE(row_stage(g, 0, 1).has_value());
  EXPECT_FALSE(row_stage(g, 0, 2).has_value());
  testing::make_int16(g, 1);
  EXPECT_FALSE(reach(1).has_value());
}

}  // namespace
}  // namespace mote::passes
