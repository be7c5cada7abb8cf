// PRELU (MediaPipe's palm and face detectors' activation) in row-streamed stages, end to end: a
// builder residual block of a strided convolution with a per-channel PRELU, a depthwise and a
// pointwise convolution added back to the PRELU's output and another PRELU, compiled for a
// scalar, a DSP and an MVE CPU, streamed and not, run on the host and compared; the loader refuses
// a PRELU member's words changed; what cannot stream (an alpha varying along H, an activation
// alpha, int16) stays out.

#include <gtest/gtest.h>

#include <variant>
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

// PRELU of `x` by the constant `alpha_shape` (int8 values cycling through 0.05 .. 0.6 and one
// negative slope), the output quantized as the input.
TensorId prelu(ModelBuilder& b, TensorId x, const std::vector<int32_t>& alpha_shape) {
  size_t count = 1;
  for (const int32_t d : alpha_shape) count *= static_cast<size_t>(d);
  std::vector<int8_t> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<int8_t>(i % 7 == 3 ? -9 : 5 + 9 * (i % 7));
  const TensorId alpha = b.add_int8_constant(alpha_shape, values, 0.01f, 0);
  const ir::Tensor& t = b.tensor(x);
  return b.add_operator(OpType::kPrelu, {x, alpha}, std::monostate{}, t.shape,
                        t.quantization.scale[0], t.quantization.zero_point[0]);
}

// BlazePalm's first residual block and the pool of the next one's shortcut, with PRELUs.
ir::Graph prelu_block() { return testing::prelu_residual_block(17, 32, prelu); }

TEST(PreluStages, StreamInLessArenaAndComputeTheSame) {
  // Both PRELUs and the ADD among the stage's members.
  testing::expect_streams_the_same(prelu_block(), {{OpType::kPrelu, 2}, {OpType::kAdd, 1}});
}

// The runtime reads a PRELU member's words (StageCalls.args) instead of its options: its
// parameters, shape, alpha's extents or offset or a ring changed there is refused.
TEST(PreluStages, PreluMembersWordsAreChecked) {
  EXPECT_EQ(testing::expect_member_words_checked(prelu_block(), {schema::OpKind::Prelu}), 2);
}

// An alpha of the map's full shape (varying along H), an activation alpha or int16: no rows to
// stream. An alpha varying along W and C only does.
TEST(PreluStages, WhatCannotStreamStaysOut) {
  ModelBuilder b(3);
  const TensorId x = b.add_input({1, 12, 10, 8}, ir::DataType::kInt8, 0.02f, 0);
  const TensorId c = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame);
  const TensorId per_channel = prelu(b, c, {1, 1, 1, 8});
  const TensorId per_column = prelu(b, per_channel, {1, 10, 8});
  const TensorId full = prelu(b, per_column, {1, 12, 10, 8});
  const TensorId alpha = b.add_conv2d(full, 8, 1, 1, 1, Padding::kSame);
  const ir::Tensor& t = b.tensor(full);
  b.mark_output(b.add_operator(OpType::kPrelu, {full, alpha}, std::monostate{}, t.shape,
                               t.quantization.scale[0], t.quantization.zero_point[0]));
  ir::Graph g = b.build();
  const auto reach = [&](size_t op, size_t input) {
    return testing::reach_of(g, op, input).has_value();
  };
  for (const size_t op : {1, 2, 3, 5}) ASSERT_EQ(g.operators[op].type, OpType::kPrelu) << op;
  EXPECT_TRUE(reach(1, 0));
  EXPECT_TRUE(reach(2, 0));
  EXPECT_FALSE(reach(3, 0));  // alpha [1, 12, 10, 8]
  EXPECT_FALSE(reach(5, 0));  // alpha an activation
  EXPECT_FALSE(reach(5, 1));
  // The conv and the first two PRELUs stream; the full-shape alpha's does not join them, nor the
  // activation alpha's.
  EXPECT_TRUE(row_stage(g, 0, 2).has_value());
  EXPECT_FALSE(row_stage(g, 0, 3).has_value());
  EXPECT_FALSE(row_stage(g, 4, 5).has_value());
  // 16x8: the same operator with int16 activations.
  testing::make_int16(g, 1);
  EXPECT_FALSE(reach(1, 0));
}

}  // namespace
}  // namespace mote::passes
