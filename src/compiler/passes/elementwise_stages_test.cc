// Elementwise operators with a constant operand, MAXIMUM, MINIMUM and int8 requantizations in
// row-streamed stages, end to end: a PReLU written out as some converters write it (OpenMV's face
// landmarks: MUL by a per-channel alpha and QUANTIZE of the product, QUANTIZE of the input,
// MAXIMUM of the two) in a residual block, a ReLU6-like clamp by constants, and a requantization
// between rings of different rows; each compiled for a scalar, a DSP and an MVE CPU, streamed and
// not, run on the host and compared; the loader refuses any changed word of these members; what
// cannot stream (a constant varying along H, int16, a broadcast activation) stays out.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
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

// `count` int8 values cycling through 5 .. 59 (slopes 0.05 .. 0.59 at scale 0.01).
std::vector<int8_t> slopes(size_t count) {
  std::vector<int8_t> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<int8_t>(5 + 9 * (i % 7));
  return values;
}

// PReLU of `x` by a constant alpha of `alpha_shape`, written out: MUL(x, alpha), QUANTIZE(x) and
// QUANTIZE of the product to one quantization, MAXIMUM of the two (the face landmarks model's
// order: MUL, QUANTIZE of x, QUANTIZE of the product, MAXIMUM).
TensorId prelu_written_out(ModelBuilder& b, TensorId x, const std::vector<int32_t>& alpha_shape) {
  size_t count = 1;
  for (const int32_t d : alpha_shape) count *= static_cast<size_t>(d);
  const TensorId alpha = b.add_int8_constant(alpha_shape, slopes(count), 0.01f, 0);
  const TensorId product = b.add_mul(x, alpha);
  const float scale = b.tensor(x).quantization.scale[0] * 0.95f;
  const int32_t zero_point = static_cast<int32_t>(b.tensor(x).quantization.zero_point[0]) - 8;
  const TensorId identity = b.add_quantize(x, scale, zero_point);
  return b.add_maximum(b.add_quantize(product, scale, zero_point), identity);
}

// The face landmarks model's first residual block, its PReLUs written out. Without streaming its
// peak holds three maps of the block's size.
ir::Graph prelu_block() { return testing::prelu_residual_block(23, 16, prelu_written_out); }

// A constant of `shape` quantized as `like`, every value the real `value` (clipped to int8), or
// cycling through steps of `step` above it.
TensorId constant_like(ModelBuilder& b, TensorId like, const std::vector<int32_t>& shape,
                       float value, float step = 0.0f) {
  size_t count = 1;
  for (const int32_t d : shape) count *= static_cast<size_t>(d);
  const float scale = b.tensor(like).quantization.scale[0];
  const int32_t zero_point = static_cast<int32_t>(b.tensor(like).quantization.zero_point[0]);
  std::vector<int8_t> values(count);
  for (size_t i = 0; i < count; ++i) {
    const float q = std::round((value + step * static_cast<float>(i % 5)) / scale) + zero_point;
    values[i] = static_cast<int8_t>(std::clamp(q, -128.0f, 127.0f));
  }
  return b.add_int8_constant(shape, values, scale, zero_point);
}

// conv 3x3 -> ADD a per-channel bias -> MAXIMUM(x, 0) (a scalar) -> MINIMUM(a ceiling varying
// along W and C, x) -> depthwise 3x3 -> conv 1x1: a ReLU6-like clamp by constants (the ceiling
// first, to read the constant as input 0 too).
ir::Graph clamp_block() {
  ModelBuilder b(29);
  const TensorId x = b.add_input({1, 40, 32, 3}, ir::DataType::kInt8, 0.02f, -3);
  const TensorId c = b.add_conv2d(x, 16, 3, 3, 1, Padding::kSame);
  std::vector<int8_t> bias(16);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<int8_t>(static_cast<int>(i) * 7 - 50);
  const TensorId biased = b.add_add(c, b.add_int8_constant({1, 1, 1, 16}, bias, 0.01f, 0));
  const TensorId relu = b.add_maximum(biased, constant_like(b, biased, {1}, 0.0f));
  const TensorId clamped = b.add_minimum(constant_like(b, relu, {1, 32, 16}, 0.2f, 0.15f), relu);
  b.mark_output(b.add_conv2d(b.add_depthwise(clamped, 3, 3, 1, Padding::kSame), 8, 1, 1, 1,
                             Padding::kSame));
  return b.build();
}

// conv 3x3 -> QUANTIZE -> conv 3x3 stride 2 -> LOGISTIC -> conv 3x3 stride 2: each one-to-one
// member reads a ring of one row and writes a ring of three (a strided window's rows), so its
// input and output hold different bytes of equal shapes.
ir::Graph one_to_one_chain() {
  ModelBuilder b(31);
  const TensorId x = b.add_input({1, 48, 40, 3}, ir::DataType::kInt8, 0.02f, -3);
  const TensorId q = b.add_quantize(b.add_conv2d(x, 16, 3, 3, 1, Padding::kSame), 0.03f, 5);
  const TensorId l = b.add_logistic(b.add_conv2d(q, 16, 3, 3, 2, Padding::kSame));
  b.mark_output(b.add_conv2d(l, 8, 3, 3, 2, Padding::kSame));
  return b.build();
}

TEST(ElementwiseStages, OneToOneMembersReadAndWriteRingsOfDifferentRows) {
  testing::expect_streams_the_same(one_to_one_chain(),
                                   {{OpType::kQuantize, 1}, {OpType::kLogistic, 1}});
}

TEST(ElementwiseStages, PreluWrittenOutStreamsInLessArenaAndComputesTheSame) {
  // Both PReLUs' MUL, QUANTIZEs and MAXIMUM and the ADD in the stage.
  testing::expect_streams_the_same(prelu_block(), {{OpType::kMul, 2},
                                                   {OpType::kQuantize, 4},
                                                   {OpType::kMaximum, 2},
                                                   {OpType::kAdd, 1}});
}

TEST(ElementwiseStages, ClampByConstantsStreamsInLessArenaAndComputesTheSame) {
  testing::expect_streams_the_same(clamp_block(), {{OpType::kAdd, 1},
                                                   {OpType::kMaximum, 1},
                                                   {OpType::kMinimum, 1}});
}

// The runtime reads these members' words (StageCalls.args) instead of their options: a
// requantization's parameters, an operand, a constant's offset or extents, a width or a ring
// changed there is refused.
TEST(ElementwiseStages, MembersWordsAreChecked) {
  EXPECT_EQ(testing::expect_member_words_checked(
                prelu_block(),
                {schema::OpKind::Mul, schema::OpKind::Quantize, schema::OpKind::Maximum}),
            8);
  EXPECT_EQ(testing::expect_member_words_checked(
                clamp_block(),
                {schema::OpKind::Add, schema::OpKind::Maximum, schema::OpKind::Minimum}),
            3);
}

// A constant varying along H, int16 or float, a broadcast activation: no rows to stream. A
// constant per channel, along W and C, or a scalar does.
TEST(ElementwiseStages, WhatCannotStreamStaysOut) {
  ModelBuilder b(3);
  const TensorId x = b.add_input({1, 12, 10, 8}, ir::DataType::kInt8, 0.02f, 0);
  const TensorId c = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame);
  const TensorId per_channel = b.add_mul(c, constant_like(b, c, {8}, 0.1f, 0.05f));
  const TensorId q = b.add_quantize(per_channel, 0.03f, 2);
  const TensorId along_w = b.add_maximum(q, constant_like(b, q, {10, 8}, -0.2f, 0.1f));
  const TensorId scalar = b.add_minimum(along_w, constant_like(b, along_w, {1}, 1.0f));
  const TensorId along_h = b.add_mul(scalar, constant_like(b, scalar, {12, 1, 1}, 0.3f));
  // A map's MAXIMUM with its own global max pool, [1, 1, 1, 8]: an activation broadcast.
  b.mark_output(b.add_maximum(along_h, b.add_max_pool(along_h, 12, 10, 1)));
  const ir::Graph g = b.build();
  const OpType types[] = {OpType::kConv2D,  OpType::kMul, OpType::kQuantize,
                          OpType::kMaximum, OpType::kMinimum, OpType::kMul,
                          OpType::kMaxPool2D, OpType::kMaximum};
  ASSERT_EQ(g.operators.size(), std::size(types));
  for (size_t op = 0; op < std::size(types); ++op) ASSERT_EQ(g.operators[op].type, types[op]) << op;
  // Whether input `input` of operator `op` streams, with tensor `t` of type `type` where given.
  const auto reach = [&](size_t op, size_t input, int32_t t = -1,
                         ir::DataType type = ir::DataType::kInt8) {
    ir::Graph h = g;
    if (t >= 0) h.tensors[static_cast<size_t>(t)].type = type;
    const ir::Operator& o = h.operators[op];
    return ops::op_def(o.type).row_reach(h, o, input).has_value();
  };
  EXPECT_TRUE(reach(1, 0));   // by [8]
  EXPECT_FALSE(reach(1, 1));  // the constant has no rows of its own
  EXPECT_TRUE(reach(2, 0));
  EXPECT_TRUE(reach(3, 0));   // by [10, 8]
  EXPECT_TRUE(reach(4, 0));   // by [1]
  EXPECT_FALSE(reach(5, 0));  // by [12, 1, 1]: along H
  EXPECT_FALSE(reach(7, 0));  // by a broadcast activation
  EXPECT_FALSE(reach(7, 1));
  EXPECT_TRUE(row_stage(g, 0, 4).has_value());
  EXPECT_FALSE(row_stage(g, 0, 5).has_value());
  // QUANTIZE from float, into or out of int16; MAXIMUM of int16.
  const ir::Operator& quantize = g.operators[2];
  EXPECT_FALSE(reach(2, 0, quantize.inputs[0], ir::DataType::kFloat32));
  EXPECT_FALSE(reach(2, 0, quantize.inputs[0], ir::DataType::kInt16));
  EXPECT_FALSE(reach(2, 0, quantize.outputs[0], ir::DataType::kInt16));
  EXPECT_FALSE(reach(3, 0, g.operators[3].outputs[0], ir::DataType::kInt16));
}

}  // namespace
}  // namespace mote::passes
