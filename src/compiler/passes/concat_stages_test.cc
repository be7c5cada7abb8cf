// CONCATENATION in row-streamed stages, end to end: a SqueezeNet fire module (a squeeze
// convolution read by both expand convolutions, their outputs joined along channels), an FPN-like
// merge of two branches, an Inception block and YOLO's SPPF (four inputs each), and maps joined
// along W, compiled for a scalar, a DSP and an MVE CPU,
// streamed and not, run on the host and compared; the loader refuses a CONCATENATION member's
// words changed; what cannot stream (joined along H, int16) stays out.

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
using ir::Activation;
using ir::OpType;
using ir::Padding;

// conv 3x3 stride 2 -> squeeze 1x1 -> (expand 1x1, expand 3x3) -> CONCATENATION along C -> conv
// 1x1: SqueezeNet 1.1's first convolution, a fire module and the convolution after it. Without
// streaming its peak holds both expands and their concatenation at once.
ir::Graph fire_module() {
  ModelBuilder b(23);
  const TensorId x = b.add_input({1, 48, 40, 8}, ir::DataType::kInt8, 0.03f, -10);
  const TensorId c = b.add_conv2d(x, 24, 3, 3, 2, Padding::kSame, Activation::kRelu);
  const TensorId squeeze = b.add_conv2d(c, 8, 1, 1, 1, Padding::kSame, Activation::kRelu);
  const TensorId e1 = b.add_conv2d(squeeze, 24, 1, 1, 1, Padding::kSame, Activation::kRelu);
  const TensorId e3 = b.add_conv2d(squeeze, 24, 3, 3, 1, Padding::kSame, Activation::kRelu);
  b.mark_output(b.add_conv2d(b.add_branch_concatenation({e1, e3}, 3), 16, 1, 1));
  return b.build();
}

// conv 3x3 stride 2 -> (lateral 1x1, depthwise 3x3 -> pointwise) -> CONCATENATION along the last
// axis (written -1) -> conv 3x3: two branches of different reach merged, as an FPN level or a
// CSP block merges them.
ir::Graph branch_merge() {
  ModelBuilder b(5);
  const TensorId x = b.add_input({1, 40, 36, 8}, ir::DataType::kInt8, 0.02f, 3);
  const TensorId c = b.add_conv2d(x, 16, 3, 3, 2, Padding::kSame, Activation::kRelu);
  const TensorId lateral = b.add_conv2d(c, 16, 1, 1);
  const TensorId deep = b.add_conv2d(b.add_depthwise(c, 3, 3, 1, Padding::kSame, Activation::kRelu),
                                     16, 1, 1);
  b.mark_output(b.add_conv2d(b.add_branch_concatenation({lateral, deep}, -1), 16, 3, 3));
  return b.build();
}

// Two convolutions of one map joined along W (axis 2), then a 3x3 convolution across the seam.
ir::Graph width_join() {
  ModelBuilder b(9);
  const TensorId x = b.add_input({1, 24, 20, 8}, ir::DataType::kInt8, 0.02f, 0);
  const TensorId c = b.add_conv2d(x, 16, 3, 3, 1, Padding::kSame, Activation::kRelu);
  const TensorId left = b.add_conv2d(c, 16, 3, 3, 1, Padding::kSame, Activation::kRelu);
  const TensorId right = b.add_conv2d(c, 16, 1, 1, 1, Padding::kSame, Activation::kRelu);
  b.mark_output(b.add_conv2d(b.add_branch_concatenation({left, right}, 2), 8, 3, 3, 2));
  return b.build();
}

// conv 3x3 stride 2 -> four branches (1x1; 1x1 -> 3x3; 1x1 -> 3x3 -> 3x3; max pool 3x3 -> 1x1)
// -> CONCATENATION of the four -> conv 1x1: an Inception block.
ir::Graph inception_block() {
  ModelBuilder b(31);
  const TensorId x = b.add_input({1, 40, 32, 8}, ir::DataType::kInt8, 0.02f, -5);
  const TensorId c = b.add_conv2d(x, 16, 3, 3, 2, Padding::kSame, Activation::kRelu);
  const auto conv = [&](TensorId in, int32_t channels, int32_t k) {
    return b.add_conv2d(in, channels, k, k, 1, Padding::kSame, Activation::kRelu);
  };
  const TensorId b1 = conv(c, 8, 1);
  const TensorId b2 = conv(conv(c, 8, 1), 12, 3);
  const TensorId b3 = conv(conv(conv(c, 4, 1), 8, 3), 8, 3);
  const TensorId b4 = conv(b.add_max_pool(c, 3, 3, 1, Padding::kSame), 4, 1);
  b.mark_output(b.add_conv2d(b.add_branch_concatenation({b1, b2, b3, b4}, 3), 16, 1, 1));
  return b.build();
}

// conv 1x1 -> max pool 5x5 three times in a chain -> CONCATENATION of the conv and the three
// pools -> conv 1x1: YOLOv5's and YOLOv8's SPPF, the pools keeping the conv's quantization.
ir::Graph sppf_block() {
  ModelBuilder b(37);
  const TensorId x = b.add_input({1, 24, 20, 16}, ir::DataType::kInt8, 0.02f, 0);
  const TensorId c = b.add_conv2d(x, 8, 1, 1, 1, Padding::kSame, Activation::kRelu);
  const TensorId p1 = b.add_max_pool(c, 5, 5, 1, Padding::kSame);
  const TensorId p2 = b.add_max_pool(p1, 5, 5, 1, Padding::kSame);
  const TensorId p3 = b.add_max_pool(p2, 5, 5, 1, Padding::kSame);
  b.mark_output(b.add_conv2d(b.add_concatenation({c, p1, p2, p3}, 3), 16, 1, 1));
  return b.build();
}

TEST(ConcatStages, FireModuleStreamsInLessArenaAndComputesTheSame) {
  // The squeeze, both expands (each reading the squeeze's ring), the CONCATENATION and the
  // convolution after it: one stage, after the convolution that reads the graph input.
  testing::expect_streams_the_same(fire_module(),
                                   {{OpType::kConv2D, 4}, {OpType::kConcatenation, 1}});
}

TEST(ConcatStages, BranchMergeStreamsInLessArenaAndComputesTheSame) {
  testing::expect_streams_the_same(
      branch_merge(),
      {{OpType::kConv2D, 3}, {OpType::kDepthwiseConv2D, 1}, {OpType::kConcatenation, 1}});
}

TEST(ConcatStages, WidthJoinStreamsInLessArenaAndComputesTheSame) {
  testing::expect_streams_the_same(width_join(),
                                   {{OpType::kConv2D, 4}, {OpType::kConcatenation, 1}});
}

// Four inputs, a member's most (program::kMaxStageReads).
TEST(ConcatStages, InceptionBlockStreamsInLessArenaAndComputesTheSame) {
  testing::expect_streams_the_same(inception_block(), {{OpType::kConv2D, 8},
                                                       {OpType::kMaxPool2D, 1},
                                                       {OpType::kConcatenation, 1}});
}

TEST(ConcatStages, SppfStreamsInLessArenaAndComputesTheSame) {
  testing::expect_streams_the_same(
      sppf_block(), {{OpType::kMaxPool2D, 3}, {OpType::kConcatenation, 1}});
}

// An input whose scale differs from the output's within the checker's tolerance is requantized
// by the kernel (TFLite's int8 -> int8 rule); its rows give the whole map's bytes too.
TEST(ConcatStages, RequantizedInputStreamsTheSame) {
  ir::Graph g = fire_module();
  const ir::Operator& concat = g.operators[4];
  ASSERT_EQ(concat.type, OpType::kConcatenation);
  g.tensors[static_cast<size_t>(concat.inputs[1])].quantization.scale[0] *= 1.000004f;
  const pipeline::Compiled compiled = testing::compile_for(g, "cortex-m4", true);
  const auto* program = schema::GetProgram(compiled.program.data());
  const auto* options = program->operators()->Get(4)->options_as_ConcatenationOptions();
  ASSERT_NE(options, nullptr);
  ASSERT_NE(options->requant(), nullptr);
  EXPECT_FALSE(options->requant()->Get(0)->requantize());
  EXPECT_TRUE(options->requant()->Get(1)->requantize());
  testing::expect_streams_the_same(g, {{OpType::kConcatenation, 1}});
}

// The runtime reads a CONCATENATION member's inputs, copy sizes, requantizations and rings from
// its words: each changed, the unused input slots' included, is refused.
TEST(ConcatStages, ConcatenationMembersWordsAreChecked) {
  EXPECT_EQ(testing::expect_member_words_checked(fire_module(), {schema::OpKind::Concatenation}),
            1);
  EXPECT_EQ(testing::expect_member_words_checked(width_join(), {schema::OpKind::Concatenation}),
            1);
  EXPECT_EQ(
      testing::expect_member_words_checked(inception_block(), {schema::OpKind::Concatenation}),
      1);
}

// Joined along H (inputs of different heights), int16 or of five inputs: no stage. Along W it
// streams, a negative axis and one input read twice included. (A constant input the check
// refuses.)
TEST(ConcatStages, WhatCannotStreamStaysOut) {
  ModelBuilder b(3);
  const TensorId x = b.add_input({1, 12, 10, 8}, ir::DataType::kInt8, 0.02f, 0);
  const TensorId c = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame);                      // op 0
  const TensorId half = b.add_max_pool(c, 2, 1, 2, 1, Padding::kValid);               // op 1
  const TensorId w = b.add_conv2d(half, 8, 1, 1);                                      // op 2
  const TensorId tall = b.add_branch_concatenation({b.add_conv2d(c, 8, 1, 1), w}, 1);  // 3, 4
  const TensorId wide = b.add_concatenation({tall, tall}, -2);                         // op 5
  const TensorId d = b.add_conv2d(wide, 8, 1, 1);                                      // op 6
  b.mark_output(b.add_concatenation({d, d, d, d, d}, 3));                              // op 7
  ir::Graph g = b.build();
  const auto reach = [&](size_t op, size_t input) {
    return testing::reach_of(g, op, input).has_value();
  };
  for (const size_t op : {4, 5, 7}) ASSERT_EQ(g.operators[op].type, OpType::kConcatenation) << op;
  EXPECT_FALSE(reach(4, 0));  // along H: an output row is a row of one input or the other
  EXPECT_FALSE(reach(4, 1));
  EXPECT_TRUE(reach(5, 0));   // along W
  EXPECT_TRUE(reach(5, 1));
  EXPECT_FALSE(row_stage(g, 3, 4).has_value());
  EXPECT_TRUE(row_stage(g, 5, 6).has_value());
  // Five inputs: rows to stream, but more than a member reads (program::kMaxStageReads).
  EXPECT_TRUE(reach(7, 0));
  EXPECT_FALSE(row_stage(g, 6, 7).has_value());
  // 16x8: the same operator with int16 activations.
  testing::make_int16(g, 5);
  EXPECT_FALSE(reach(5, 0));
}

}  // namespace
}  // namespace mote::passes
