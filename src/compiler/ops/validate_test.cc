#include "compiler/ops/validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/ir/error.h"
#include "compiler/ir/validate.h"
#include "compiler/ir/stats.h"
#include "compiler/ops/op_def.h"

namespace mote::ir {
namespace {

using builder::ModelBuilder;
using ops::operator_macs;
using ops::total_macs;
using ops::validate;
using builder::TensorId;
using ::testing::HasSubstr;

// int8 1x4x4x2 -> CONV_2D 3x3 SAME -> 1x4x4x4 (with bias).
Graph small_conv() {
  ModelBuilder b;
  TensorId x = b.add_input({1, 4, 4, 2}, DataType::kInt8, 0.05f, -3);
  b.mark_output(b.add_conv2d(x, 4, 3, 3));
  return b.build();
}

// Applies `mutate` to `g` and expects validate to reject it with a message containing `text`.
void expect_rejected(Graph g, const std::function<void(Graph&)>& mutate, const std::string& text) {
  mutate(g);
  try {
    validate(g);
    ADD_FAILURE() << "accepted; expected an error containing: " << text;
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(text));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
  }
}

Tensor& weights(Graph& g, size_t op = 0) { return g.tensors[g.operators[op].inputs[1]]; }
Tensor& bias(Graph& g, size_t op = 0) { return g.tensors[g.operators[op].inputs[2]]; }
Tensor& output(Graph& g, size_t op = 0) { return g.tensors[g.operators[op].outputs[0]]; }

TEST(Validate, AcceptsEveryNamedModel) {
  for (const auto& m : builder::all_named_models()) {
    SCOPED_TRACE(m.name);
    EXPECT_NO_THROW(validate(m.graph));
  }
}

TEST(Validate, WindowArithmeticMatchesTflite) {
  // Keyword spotting's first layer: 49x10 input, 10x4 kernel, stride 2, SAME -> 25x5, pad (4, 1).
  EXPECT_EQ(window_output_size(49, 10, 2, 1, Padding::kSame), 25);
  EXPECT_EQ(window_output_size(10, 4, 2, 1, Padding::kSame), 5);
  EXPECT_EQ(window_padding_before(49, 10, 2, 1, Padding::kSame), 4);
  EXPECT_EQ(window_padding_before(10, 4, 2, 1, Padding::kSame), 1);
  EXPECT_EQ(window_output_size(8, 3, 1, 1, Padding::kValid), 6);
  EXPECT_EQ(window_output_size(8, 3, 1, 2, Padding::kValid), 4);  // dilated kernel spans 5
  EXPECT_EQ(window_output_size(2, 3, 1, 1, Padding::kValid), 0);
  EXPECT_EQ(window_padding_before(8, 3, 1, 1, Padding::kValid), 0);
  EXPECT_EQ(window_padding_before(32, 3, 2, 1, Padding::kSame), 0);  // total 1: all after
}

TEST(Validate, TensorRules) {
  const Graph g = small_conv();
  expect_rejected(g, [](Graph& g) { output(g).quantization = {}; },
                  "int8 tensor without quantization");
  expect_rejected(g, [](Graph& g) { output(g).quantization.scale[0] = std::nanf(""); },
                  "is not a positive finite number");
  expect_rejected(g, [](Graph& g) { output(g).quantization.scale[0] = -1.0f; },
                  "is not a positive finite number");
  expect_rejected(g, [](Graph& g) { output(g).quantization.zero_point[0] = 200; },
                  "zero_point[0] 200 out of range for int8");
  expect_rejected(g, [](Graph& g) { output(g).quantization.zero_point.push_back(0); },
                  "1 scales but 2 zero points");
  expect_rejected(g, [](Graph& g) { weights(g).quantization.quantized_dimension = 3; },
                  "4 scales for dimension 3");
  expect_rejected(g, [](Graph& g) { weights(g).quantization.quantized_dimension = 7; },
                  "quantized_dimension 7 out of range");
  expect_rejected(g, [](Graph& g) { weights(g).data.pop_back(); }, "constant holds 71 bytes");
  expect_rejected(g, [](Graph& g) { output(g).data = {1}; }, "holds data but is not marked constant");
  // An int16 output makes the convolution a 16x8 one, whose input must be int16 too.
  expect_rejected(g, [](Graph& g) { output(g).type = DataType::kInt16; },
                  "has type int8, expected int16");
  expect_rejected(g, [](Graph& g) { output(g).type = DataType::kInt64; },
                  "type int64 not supported");
  // A tensor without a name (models often strip them) is named by its index alone.
  const std::string unnamed = "tensor " + std::to_string(g.operators[0].outputs[0]) + ": type bool";
  expect_rejected(g, [](Graph& g) {
    output(g).type = DataType::kBool;
    output(g).name.clear();
  }, unnamed);
  expect_rejected(g, [](Graph& g) { output(g).shape[1] = 0; }, "has a dimension below 1");
  expect_rejected(g, [](Graph& g) { output(g).shape = {1, 1, 1, 1, 1, 1, 1}; }, "rank 7 exceeds 6");
  expect_rejected(g, [](Graph& g) { output(g).shape = {65536, 65536, 1, 1}; },
                  "is larger than 2 GiB");
}

TEST(Validate, GraphAndDataFlowRules) {
  const Graph g = small_conv();
  expect_rejected(g, [](Graph& g) { g.operators.clear(); }, "graph has no operators");
  expect_rejected(g, [](Graph& g) { g.outputs.clear(); }, "graph has no outputs");
  expect_rejected(g, [](Graph& g) { g.inputs[0] = 99; }, "graph input 0 refers to tensor 99");
  expect_rejected(g, [](Graph& g) { g.inputs.push_back(g.operators[0].inputs[1]); },
                  "is a constant");
  expect_rejected(g, [](Graph& g) { g.outputs[0] = g.operators[0].inputs[1]; },
                  "is not produced");
  expect_rejected(g, [](Graph& g) { g.operators[0].inputs[0] = 99; },
                  "operator 0 (CONV_2D): input 0 refers to tensor 99, out of range (4 tensors)");
  expect_rejected(g, [](Graph& g) { g.operators[0].outputs[0] = -2; },
                  "operator 0 (CONV_2D): output 0 refers to tensor -2");
  expect_rejected(g, [](Graph& g) { g.operators[0].outputs[0] = g.inputs[0]; },
                  "is a constant, a graph input or already produced");
  expect_rejected(g, [](Graph& g) { g.operators.push_back(g.operators[0]); },
                  "operator 1 (CONV_2D): output 0");

  // Operators out of execution order.
  Graph chain = builder::conv_chain(2);
  std::swap(chain.operators[0], chain.operators[1]);
  expect_rejected(chain, [](Graph&) {}, "is read before any operator produces it");
}

TEST(Validate, ConvolutionRules) {
  const Graph g = small_conv();
  expect_rejected(g, [](Graph& g) { output(g).shape = {1, 4, 4, 5}; },
                  "operator 0 (CONV_2D): output (tensor 3) has shape [1,4,4,5], expected [1,4,4,4]");
  expect_rejected(g, [](Graph& g) { std::get<Conv2DOptions>(g.operators[0].options).stride_h = 0; },
                  "stride 0x1 must be >= 1");
  expect_rejected(g, [](Graph& g) {
    std::get<Conv2DOptions>(g.operators[0].options).padding = Padding::kValid;
  }, "expected [1,2,2,4]");
  expect_rejected(g, [](Graph& g) { g.operators[0].options = Pool2DOptions{}; },
                  "options do not match the operator type");
  expect_rejected(g, [](Graph& g) { g.operators[0].inputs.resize(1); },
                  "has 1 inputs, expected 2 to 3");
  expect_rejected(g, [](Graph& g) { g.operators[0].inputs[1] = kNoTensor; },
                  "input 1 is required but absent");
  expect_rejected(g, [](Graph& g) { g.tensors[g.inputs[0]].type = DataType::kFloat32;
                                    g.tensors[g.inputs[0]].quantization = {}; },
                  "operator 0 (CONV_2D) computes in float32: Mote runs int8 (full integer) "
                  "models only. Quantize the model with the TFLite converter");
  expect_rejected(g, [](Graph& g) { weights(g).is_constant = false; weights(g).data.clear(); },
                  "input 1 (tensor 1 (conv2d_0/weights)) is read before any operator produces it");
  expect_rejected(g, [](Graph& g) { weights(g).is_constant = false; weights(g).data.clear();
                                    g.inputs.push_back(1); },
                  "input 1 (tensor 1) must be a constant");
  expect_rejected(g, [](Graph& g) { g.operators[0].inputs[0] = g.operators[0].inputs[1]; },
                  "input 0 (tensor 1) is a constant; expected an activation");
  expect_rejected(g, [](Graph& g) { weights(g).quantization.zero_point[2] = 1; },
                  "zero_point[2] is 1; int8 weights must be symmetric (0)");
  expect_rejected(g, [](Graph& g) { output(g).quantization.scale = {0.1f, 0.1f, 0.1f, 0.1f};
                                    output(g).quantization.zero_point = {0, 0, 0, 0};
                                    output(g).quantization.quantized_dimension = 3; },
                  "needs one quantization scale, has 4");
  // A bias scale off input scale * weight scale is taken with a note: TFLite ignores it.
  Graph off = g;
  bias(off).quantization.scale[1] *= 1.01f;
  EXPECT_THAT(validate(off),
              ::testing::ElementsAre(::testing::AllOf(
                  HasSubstr("operator 0 (CONV_2D): input 2 (tensor 2)"), HasSubstr("scale[1]"),
                  HasSubstr("ignored, as TFLite ignores the bias scale"))));
  expect_rejected(g, [](Graph& g) { bias(g).shape = {4, 1}; }, "(bias) has shape [4,1], expected [4]");
  expect_rejected(g, [](Graph& g) { bias(g).type = DataType::kInt8; bias(g).data.resize(4); },
                  "input 2 (tensor 2) has type int8, expected int32");
  expect_rejected(g, [](Graph& g) { bias(g).quantization.zero_point[0] = 3; },
                  "(bias) zero_point[0] must be 0");
  // A bias scale that is off by float rounding only is fine.
  Graph rounding = g;
  bias(rounding).quantization.scale[0] = std::nextafter(bias(rounding).quantization.scale[0], 1.0f);
  EXPECT_TRUE(validate(rounding).empty());
  // Without a bias the operator is valid too.
  Graph no_bias = g;
  no_bias.operators[0].inputs[2] = kNoTensor;
  EXPECT_NO_THROW(validate(no_bias));
}

TEST(Validate, DepthwiseAndFullyConnectedRules) {
  ModelBuilder b;
  TensorId x = b.add_input({1, 6, 6, 4}, DataType::kInt8, 0.1f, 0);
  x = b.add_depthwise(x, 3, 3, 1, Padding::kSame, Activation::kRelu, /*depth_multiplier=*/2);
  x = b.add_reshape(x, {1, -1});
  b.mark_output(b.add_fully_connected(x, 5, Activation::kNone, true, /*per_channel=*/true));
  const Graph g = b.build();
  EXPECT_EQ(g.tensors[g.operators[0].outputs[0]].shape, (std::vector<int32_t>{1, 6, 6, 8}));
  expect_rejected(g, [](Graph& g) {
    std::get<DepthwiseConv2DOptions>(g.operators[0].options).depth_multiplier = 1;
  }, "operator 0 (DEPTHWISE_CONV_2D): input channels 4 * depth multiplier 1 != filter channels 8");
  expect_rejected(g, [](Graph& g) { weights(g).quantization.quantized_dimension = 0;
                                    weights(g).shape = {8, 3, 3, 1}; },
                  "expected [1,h,w,channels]");
  expect_rejected(g, [](Graph& g) { weights(g, 2).shape = {5, 100}; weights(g, 2).data.resize(500); },
                  "operator 2 (FULLY_CONNECTED): input 0 (tensor 5) shape [1,288] does not split "
                  "into rows of 100");
  expect_rejected(g, [](Graph& g) { weights(g, 2).quantization.scale.resize(3);
                                    weights(g, 2).quantization.zero_point.resize(3); },
                  "3 scales for dimension 0");
  expect_rejected(g, [](Graph& g) { output(g, 2).shape = {5}; }, "expected [1,5]");
  // keep_num_dims: the output keeps the input's leading dimensions.
  expect_rejected(g, [](Graph& g) {
    std::get<FullyConnectedOptions>(g.operators[2].options).keep_num_dims = true;
    g.operators[2].inputs[0] = g.operators[0].outputs[0];
  }, "last dimension 8 != weight depth 288 (keep_num_dims)");
  Graph keep = g;  // [1,288] with keep_num_dims still gives [1,5]
  std::get<FullyConnectedOptions>(keep.operators[2].options).keep_num_dims = true;
  EXPECT_NO_THROW(validate(keep));

  expect_rejected(g, [](Graph& g) { output(g, 1).shape = {1, 287}; },
                  "operator 1 (RESHAPE): output (tensor");
  expect_rejected(g, [](Graph& g) {
    std::get<ReshapeOptions>(g.operators[1].options).new_shape = {2, -1};
    g.tensors[g.operators[1].inputs[1]].data = {2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  }, "(shape) [2,-1] does not match output");
}

TEST(Validate, DataMovementRules) {
  const Graph g = builder::tiny_all_ops();
  auto find = [&](OpType t) {
    for (size_t i = 0; i < g.operators.size(); ++i) {
      if (g.operators[i].type == t) return i;
    }
    return size_t{0};
  };
  const size_t pad = find(OpType::kPad), pool = find(OpType::kMaxPool2D);
  const size_t concat = find(OpType::kConcatenation), transpose = find(OpType::kTranspose);
  const size_t mean = find(OpType::kMean), resize = find(OpType::kResizeNearestNeighbor);
  const size_t softmax = find(OpType::kSoftmax), logistic = find(OpType::kLogistic);
  const size_t add = find(OpType::kAdd), quantize = find(OpType::kQuantize);
  const size_t dequantize = find(OpType::kDequantize);
  auto param = [](Graph& g, size_t op) -> Tensor& { return g.tensors[g.operators[op].inputs[1]]; };
  auto set_int32 = [](Tensor& t, size_t i, int32_t v) { std::memcpy(t.data.data() + 4 * i, &v, 4); };

  expect_rejected(g, [&](Graph& g) { set_int32(param(g, pad), 2, -1); },
                  "(paddings) has a negative entry");
  expect_rejected(g, [&](Graph& g) { set_int32(param(g, pad), 2, 2); },
                  "operator " + std::to_string(pad) + " (PAD): output");
  expect_rejected(g, [&](Graph& g) { output(g, pad).quantization.zero_point[0] += 1; },
                  "quantization (scale");
  expect_rejected(g, [&](Graph& g) { output(g, pool).quantization.scale[0] *= 2; },
                  "operator " + std::to_string(pool) + " (MAX_POOL_2D): output");
  expect_rejected(g, [&](Graph& g) {
    std::get<Pool2DOptions>(g.operators[pool].options).filter_w = 0;
  }, "filter 2x0 must be >= 1");
  // A window too large to sum (found by fuzz_tflite_reader: SAME padding let it through to the
  // geometry, whose int32 arithmetic overflowed).
  expect_rejected(g, [&](Graph& g) {
    auto& o = std::get<Pool2DOptions>(g.operators[pool].options);
    o.filter_w = 2147483647;
    o.padding = ir::Padding::kSame;
  }, "filter 2x2147483647 has more than 16777213 elements, the most a pooling window sums");
  expect_rejected(g, [&](Graph& g) { output(g, concat).quantization.scale[0] *= 3; },
                  "operator " + std::to_string(concat) + " (CONCATENATION): output (tensor");
  expect_rejected(g, [&](Graph& g) { std::get<ConcatenationOptions>(g.operators[concat].options).axis = 4; },
                  "axis 4 out of range for rank 4");
  expect_rejected(g, [&](Graph& g) { std::get<ConcatenationOptions>(g.operators[concat].options).axis = 2; },
                  "expected [1,5,10,8]");
  expect_rejected(g, [&](Graph& g) { set_int32(param(g, transpose), 1, 1); },
                  "is not a permutation");
  expect_rejected(g, [&](Graph& g) { set_int32(param(g, mean), 0, 4); },
                  "axis 4 out of range for rank 4");
  expect_rejected(g, [&](Graph& g) { std::get<MeanOptions>(g.operators[mean].options).keep_dims = false; },
                  "expected [1,16]");
  expect_rejected(g, [&](Graph& g) { set_int32(param(g, resize), 1, 9); },
                  "expected [1,10,9,16]");
  expect_rejected(g, [&](Graph& g) { output(g, softmax).quantization.zero_point[0] = 0; },
                  "must have scale 1/256 and zero point -128");
  expect_rejected(g, [&](Graph& g) { output(g, logistic).quantization.scale[0] = 0.01f; },
                  "operator " + std::to_string(logistic) + " (LOGISTIC): output");
  expect_rejected(g, [&](Graph& g) { std::get<SoftmaxOptions>(g.operators[softmax].options).beta = 0; },
                  "beta 0 must be positive");
  expect_rejected(g, [&](Graph& g) { output(g, add).shape = {1, 5, 5, 15}; },
                  "expected [1,5,5,16]");
  // An int32 ADD (TFLM's integer form) of one input is refused, not read past its inputs (found
  // by fuzz_tflite_reader: the integer path had no arity check).
  expect_rejected(g, [&](Graph& g) {
    output(g, add).type = DataType::kInt32;
    output(g, add).quantization = {};
    g.operators[add].inputs.pop_back();
  }, "operator " + std::to_string(add) + " (ADD): has 1 inputs, expected 2");
  // An int32 input is requantized, so it needs a quantization (a float one has none).
  expect_rejected(g, [&](Graph& g) { g.tensors[g.inputs[0]].type = DataType::kInt32; },
                  "operator " + std::to_string(quantize) +
                      " (QUANTIZE): input 0 (tensor 0) needs one quantization scale");
  expect_rejected(g, [&](Graph& g) { output(g, dequantize).type = DataType::kInt8;
                                     output(g, dequantize).quantization = {{0.1f}, {0}, 0}; },
                  "(DEQUANTIZE): output (tensor");
  expect_rejected(g, [&](Graph& g) { g.operators[quantize].options = SoftmaxOptions{}; },
                  "takes no options");
}

TEST(Validate, ElementwiseBroadcasting) {
  ModelBuilder b;
  const TensorId x = b.add_input({1, 4, 4, 2}, DataType::kInt8, 0.1f, 0);
  const TensorId y = b.add_input({1, 1, 1, 2}, DataType::kInt8, 0.1f, 0);
  b.mark_output(b.add_mul(x, y));
  Graph g = b.build();
  EXPECT_EQ(output(g).shape, (std::vector<int32_t>{1, 4, 4, 2}));
  expect_rejected(g, [](Graph& g) { g.tensors[1].shape = {1, 4, 3, 2}; }, "do not broadcast");
  expect_rejected(g, [](Graph& g) { g.tensors[1].shape = {3, 1, 1, 2}; }, "expected [3,4,4,2]");
}

TEST(Stats, CountsMacsAndBytes) {
  const Graph g = builder::conv2d_x3();
  EXPECT_EQ(operator_macs(g, g.operators[1]), 8 * 8 * 8 * 3 * 3 * 3);
  EXPECT_EQ(operator_macs(g, g.operators[0]), 0);
  EXPECT_EQ(total_macs(g), 64 * 9 * (3 * 8 + 8 * 16 + 16 * 8));
  EXPECT_EQ(operator_constant_bytes(g, g.operators[2]), 16 * 9 * 8);
  // float in 768 + int8 192 + 512 + 1024 + 512 + float out 2048.
  EXPECT_EQ(activation_bytes(g), 768 + 192 + 512 + 1024 + 512 + 2048);
}

// validate_each judges every operator on its own; validate stops at the first of the same problems.
TEST(ValidateEach, JudgesEveryOperatorOnItsOwn) {
  ModelBuilder b;
  const TensorId x = b.add_input({1, 10}, DataType::kInt8, 0.01f, 0);
  const TensorId s = b.add_softmax(x, 1e-7f);  // beta x input scale below 2^-27: refused
  const TensorId l = b.add_logistic(s);        // fine
  b.mark_output(b.add_operator(OpType::kHardSwish, {l}, std::monostate{}, {1, 10}, 1e-6f, 0));
  const Graph g = b.graph();  // build() would validate

  const ops::ValidationReport report = ops::validate_each(g);
  ASSERT_EQ(report.operators.size(), 3u);
  EXPECT_THAT(report.operators[0], ::testing::StartsWith("operator 0 (SOFTMAX): "));
  EXPECT_EQ(report.operators[1], "");
  EXPECT_THAT(report.operators[2], ::testing::StartsWith("operator 2 (HARD_SWISH): "));
  EXPECT_TRUE(report.graph.empty());
  try {
    validate(g);
    FAIL() << "validate accepted the graph";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), report.operators[0]);
  }

  // A tensor's problem goes to the operators that touch it; operators left out of the graph
  // (produced_elsewhere) make their outputs readable.
  Graph cut = g;
  cut.operators.erase(cut.operators.begin());
  const std::vector<std::string> tensor_problems(cut.tensors.size());
  const ops::ValidationReport alone = ops::validate_each(cut, tensor_problems, {s});
  EXPECT_EQ(alone.operators[0], "");
  EXPECT_THAT(ops::validate_each(cut).operators[0], HasSubstr("is read before any operator"));
  std::vector<std::string> bad(cut.tensors.size());
  bad[static_cast<size_t>(l)] = "tensor 2 (l): type int16 not supported";
  const ops::ValidationReport flagged = ops::validate_each(cut, bad, {s});
  EXPECT_EQ(flagged.operators[0], bad[static_cast<size_t>(l)]);
  EXPECT_EQ(flagged.operators[1], bad[static_cast<size_t>(l)]);
}

}  // namespace
}  // namespace mote::ir
