// SiLU (x * sigmoid(x), YOLO-family detectors' activation) in row-streamed stages, end to end: a
// builder chain of convolutions each followed by LOGISTIC and a MUL of the convolution's output
// with it, compiled for a scalar, a DSP and an MVE CPU, streamed and not, run on the host and
// compared; the loader refuses the elementwise members' words changed; what cannot stream (int16,
// a broadcast operand or a constant one varying along H) stays out.

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
using ir::OpType;
using ir::Padding;

TensorId silu(ModelBuilder& b, TensorId x) { return b.add_mul(x, b.add_logistic(x)); }

// conv 3x3 stride 2 -> SiLU -> conv 3x3 -> SiLU -> conv 1x1: without streaming its peak is a
// convolution's output, its LOGISTIC and their product, all alive at the MUL.
ir::Graph silu_chain() {
  ModelBuilder b(11);
  const TensorId x = b.add_input({1, 48, 40, 3}, ir::DataType::kInt8, 0.02f, -3);
  TensorId y = silu(b, b.add_conv2d(x, 16, 3, 3, 2, Padding::kSame));
  y = silu(b, b.add_conv2d(y, 16, 3, 3, 1, Padding::kSame));
  b.mark_output(b.add_conv2d(y, 8, 1, 1, 1, Padding::kSame));
  return b.build();
}

TEST(SiluStages, StreamWholeInLessArenaAndComputeTheSame) {
  const ir::Graph g = silu_chain();
  // Both SiLUs' LOGISTIC and MUL among the stage's members: every operator of the chain.
  testing::expect_streams_the_same(
      g, {{OpType::kConv2D, 3}, {OpType::kLogistic, 2}, {OpType::kMul, 2}});
}

// LOGISTIC read by a strided 3x3 window: it reads a ring of one row and writes a ring of three,
// equal shapes in different bytes (the loader compares a one-to-one operator's shapes).
TEST(SiluStages, LogisticBeforeAWindowStreams) {
  ModelBuilder b(13);
  const TensorId x = b.add_input({1, 48, 40, 3}, ir::DataType::kInt8, 0.02f, -3);
  const TensorId gate = b.add_logistic(b.add_conv2d(x, 16, 3, 3, 1, Padding::kSame));
  b.mark_output(b.add_conv2d(gate, 8, 3, 3, 2, Padding::kSame));
  testing::expect_streams_the_same(b.build(), {{OpType::kLogistic, 1}, {OpType::kConv2D, 2}});
}

// The runtime reads a LOGISTIC's or a MUL's parameters, width or ring from its words: each
// changed is refused.
TEST(SiluStages, ElementwiseMembersWordsAreChecked) {
  EXPECT_EQ(testing::expect_member_words_checked(
                silu_chain(), {schema::OpKind::Logistic, schema::OpKind::Mul}),
            4);
}

// Int16, a broadcast operand (squeeze-and-excite's MUL by pooled channel weights) or a constant
// one varying along H: no rows to stream.
TEST(SiluStages, WhatCannotStreamStaysOut) {
  ModelBuilder b(3);
  const TensorId x = b.add_input({1, 12, 10, 8}, ir::DataType::kInt8, 0.02f, 0);
  const TensorId c = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame);
  const TensorId s = b.add_mul(c, b.add_logistic(c));
  const TensorId weights = b.add_logistic(b.add_mean(s, {1, 2}, true));
  const TensorId excited = b.add_mul(s, weights);
  std::vector<int8_t> values(12 * 10 * 8, 3);
  b.mark_output(b.add_mul(excited, b.add_int8_constant({1, 12, 10, 8}, values, 0.05f, 0)));
  ir::Graph g = b.build();
  const auto reach = [&](size_t op, size_t input) {
    return testing::reach_of(g, op, input).has_value();
  };
  ASSERT_EQ(g.operators[1].type, OpType::kLogistic);
  ASSERT_EQ(g.operators[2].type, OpType::kMul);
  EXPECT_TRUE(reach(1, 0));
  EXPECT_TRUE(reach(2, 0) && reach(2, 1));
  ASSERT_EQ(g.operators[5].type, OpType::kMul);  // by [1, 1, 1, 8]
  EXPECT_FALSE(reach(5, 0));
  ASSERT_EQ(g.operators[6].type, OpType::kMul);  // by a constant
  EXPECT_FALSE(reach(6, 0));
  // The conv and its SiLU stream; the excitation does not join them.
  const std::optional<RowStage> stage = row_stage(g, 0, 2);
  ASSERT_TRUE(stage.has_value());
  EXPECT_FALSE(row_stage(g, 0, 5).has_value());
  // 16x8: the same operators with int16 activations.
  testing::make_int16(g, 1);
  EXPECT_FALSE(reach(1, 0));
}

}  // namespace
}  // namespace mote::passes
