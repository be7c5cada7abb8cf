#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/builder/writer.h"
#include "compiler/ir/error.h"
#include "compiler/ir/stats.h"
#include "compiler/ops/op_def.h"
#include "compiler/ir/validate.h"
#include "compiler/ops/validate.h"
#include "compiler/tflite/reader.h"

namespace mote::builder {
namespace {

using ir::Activation;
using ir::DataType;
using ir::OpType;
using ir::Padding;

std::vector<OpType> op_types(const ir::Graph& g) {
  std::vector<OpType> types;
  for (const auto& op : g.operators) types.push_back(op.type);
  return types;
}

const std::vector<int32_t>& output_shape(const ir::Graph& g, size_t op) {
  return g.tensors[g.operators[op].outputs[0]].shape;
}

TEST(NamedModels, RoundTripThroughTfliteGivesTheSameGraph) {
  for (const NamedModel& m : all_named_models()) {
    SCOPED_TRACE(m.name);
    const std::vector<uint8_t> bytes = write_model(m.graph);
    EXPECT_EQ(tflite::read_model(bytes), m.graph);
  }
}

TEST(NamedModels, RoundTripWithConstantsStoredAfterTheFlatbuffer) {
  for (const NamedModel& m : all_named_models()) {
    SCOPED_TRACE(m.name);
    const std::vector<uint8_t> inline_bytes = write_model(m.graph);
    const std::vector<uint8_t> external = write_model(m.graph, {.external_buffers = true});
    EXPECT_EQ(tflite::read_model(external), m.graph);
    // The flatbuffer part no longer holds the weights.
    EXPECT_NE(external, inline_bytes);
  }
}

TEST(NamedModels, AreDeterministicAndSeedDependent) {
  EXPECT_EQ(write_model(kws_dscnn_like()), write_model(kws_dscnn_like()));
  EXPECT_EQ(conv2d_x3(7), conv2d_x3(7));
  EXPECT_NE(conv2d_x3(1), conv2d_x3(2));
  // Same structure for every seed.
  EXPECT_EQ(op_types(conv2d_x3(1)), op_types(conv2d_x3(2)));
}

TEST(NamedModels, Conv2dX3HasTheRequestedShape) {
  const ir::Graph g = conv2d_x3();
  EXPECT_EQ(op_types(g), (std::vector<OpType>{OpType::kQuantize, OpType::kConv2D, OpType::kConv2D,
                                              OpType::kConv2D, OpType::kDequantize}));
  ASSERT_EQ(g.inputs.size(), 1u);
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.tensors[g.inputs[0]].type, DataType::kFloat32);
  EXPECT_EQ(g.tensors[g.inputs[0]].shape, (std::vector<int32_t>{1, 8, 8, 3}));
  EXPECT_EQ(g.tensors[g.outputs[0]].type, DataType::kFloat32);
  const int32_t channels[] = {8, 16, 8};
  for (size_t i = 1; i <= 3; ++i) {
    const ir::Operator& op = g.operators[i];
    const auto& o = std::get<ir::Conv2DOptions>(op.options);
    EXPECT_EQ(o.padding, Padding::kSame);
    EXPECT_EQ(o.stride_h, 1);
    EXPECT_EQ(op.inputs.size(), 3u);
    EXPECT_EQ(op.inputs[2], ir::kNoTensor) << "no bias";
    EXPECT_EQ(g.tensors[op.inputs[1]].shape,
              (std::vector<int32_t>{channels[i - 1], 3, 3, i == 1 ? 3 : channels[i - 2]}));
    EXPECT_EQ(output_shape(g, i), (std::vector<int32_t>{1, 8, 8, channels[i - 1]}));
  }
  // Weights: 3*3*(3*8 + 8*16 + 16*8) bytes, no biases.
  EXPECT_EQ(ir::constant_bytes(g), 9 * (24 + 128 + 128));
}

TEST(NamedModels, ConvChainActivationsAllHaveTheSameSize) {
  const ir::Graph g = conv_chain(6);
  ASSERT_EQ(g.operators.size(), 6u);
  for (const auto& op : g.operators) {
    EXPECT_EQ(op.type, OpType::kConv2D);
    EXPECT_EQ(g.tensors[op.inputs[0]].num_bytes(), 4096);
    EXPECT_EQ(g.tensors[op.outputs[0]].num_bytes(), 4096);
  }
  EXPECT_THROW(conv_chain(0), std::invalid_argument);
}

TEST(NamedModels, TinyAllOpsUsesEverySupportedOperator) {
  std::set<OpType> used;
  for (const auto& op : tiny_all_ops().operators) used.insert(op.type);
  EXPECT_EQ(used.size(), 18u);
}

TEST(NamedModels, MlperfLikeModelsHaveTheReferenceLayerCounts) {
  auto count = [](const ir::Graph& g, OpType t) {
    return std::count_if(g.operators.begin(), g.operators.end(),
                         [t](const ir::Operator& op) { return op.type == t; });
  };
  const ir::Graph kws = kws_dscnn_like();
  EXPECT_EQ(count(kws, OpType::kConv2D), 5);
  EXPECT_EQ(count(kws, OpType::kDepthwiseConv2D), 4);
  EXPECT_EQ(ops::total_macs(kws), 2656768);  // the reference model's MACs
  EXPECT_EQ(ops::total_macs(vww_mobilenet_like()), 7489664);
  EXPECT_EQ(ops::total_macs(resnet8_like()), 12501632);
  EXPECT_EQ(ops::total_macs(ad_autoencoder_like()), 264192);
}

// Weight scales per output channel, all different; bias scales = input scale * weight scale.
TEST(ModelBuilder, WeightsArePerChannelAndBiasScalesMatch) {
  ModelBuilder b(3);
  TensorId x = b.add_input({1, 4, 4, 2}, DataType::kInt8, 0.05f, -3);
  x = b.add_conv2d(x, 6, 3, 3);
  b.mark_output(x);
  const ir::Graph g = b.build();
  const ir::Operator& conv = g.operators[0];
  const ir::Tensor& w = g.tensors[conv.inputs[1]];
  const ir::Tensor& bias = g.tensors[conv.inputs[2]];
  ASSERT_EQ(w.quantization.scale.size(), 6u);
  EXPECT_EQ(std::set<float>(w.quantization.scale.begin(), w.quantization.scale.end()).size(), 6u);
  for (size_t c = 0; c < 6; ++c) {
    EXPECT_EQ(w.quantization.zero_point[c], 0);
    EXPECT_FLOAT_EQ(bias.quantization.scale[c], 0.05f * w.quantization.scale[c]);
  }
  // Weights span the int8 range symmetrically and are not constant.
  int lo = 127, hi = -128;
  for (uint8_t v : w.data) {
    lo = std::min<int>(lo, static_cast<int8_t>(v));
    hi = std::max<int>(hi, static_cast<int8_t>(v));
  }
  EXPECT_LE(lo, -100);
  EXPECT_GE(hi, 100);
  EXPECT_GE(lo, -127);
}

TEST(ModelBuilder, RejectsBadArguments) {
  ModelBuilder b;
  const TensorId x = b.add_input({1, 4, 4, 2}, DataType::kInt8, 0.1f, 0);
  EXPECT_THROW(b.add_conv2d(x, 4, 5, 5, 1, Padding::kValid), std::invalid_argument);
  EXPECT_THROW(b.add_reshape(x, {3, -1}), std::invalid_argument);
  EXPECT_THROW(b.add_conv2d(99, 4, 1, 1), std::invalid_argument);
  EXPECT_THROW(b.add_transpose(x, {0, 1, 1, 2}), std::invalid_argument);
  const TensorId y = b.add_conv2d(x, 2, 1, 1);
  EXPECT_THROW(b.add_concatenation({x, y}, 3), std::invalid_argument);  // different quantization
  EXPECT_THROW(b.add_maximum(x, y), std::invalid_argument);              // likewise
}

// MAXIMUM and MINIMUM keep their operands' quantization and broadcast a constant.
TEST(ModelBuilder, MaximumAndMinimumBroadcastAndKeepTheQuantization) {
  ModelBuilder b;
  const TensorId x = b.add_input({1, 4, 4, 2}, DataType::kInt8, 0.1f, -3);
  const TensorId six = b.add_int8_constant({1}, {63}, 0.1f, -3);
  const TensorId y = b.add_minimum(b.add_maximum(x, x), six);
  EXPECT_EQ(b.tensor(y).shape, (std::vector<int32_t>{1, 4, 4, 2}));
  EXPECT_EQ(b.tensor(y).quantization.scale, std::vector<float>{0.1f});
  EXPECT_EQ(b.tensor(y).quantization.zero_point, std::vector<int64_t>{-3});
  b.mark_output(y);
  const ir::Graph g = b.build();
  ASSERT_EQ(g.operators.size(), 2u);
  EXPECT_EQ(g.operators[0].type, ir::OpType::kMaximum);
  EXPECT_EQ(g.operators[1].type, ir::OpType::kMinimum);
  EXPECT_EQ(g.operators[1].inputs[1], six);
}

// Branches of their own quantization joined as TFLite's converter joins them: every input and
// the output take one quantization that covers all of them; an input something already reads
// (or a graph input) cannot be rescaled.
TEST(ModelBuilder, BranchConcatenationRescalesItsInputsAlike) {
  ModelBuilder b;
  const TensorId x = b.add_input({1, 6, 6, 4}, DataType::kInt8, 0.05f, 0);
  const TensorId narrow = b.add_conv2d(x, 4, 1, 1, 1, Padding::kSame, Activation::kRelu);
  const TensorId wide = b.add_conv2d(x, 8, 3, 3, 1, Padding::kSame);
  const ir::Quantization before[2] = {b.tensor(narrow).quantization, b.tensor(wide).quantization};
  ASSERT_NE(before[0], before[1]);
  const TensorId joined = b.add_branch_concatenation({narrow, wide}, 3);
  EXPECT_EQ(b.tensor(joined).shape, (std::vector<int32_t>{1, 6, 6, 12}));
  for (const TensorId t : {narrow, wide}) {
    EXPECT_EQ(b.tensor(t).quantization, b.tensor(joined).quantization);
  }
  for (const ir::Quantization& q : before) {
    EXPECT_GE(b.tensor(joined).quantization.scale[0], q.scale[0]);
  }
  EXPECT_THROW(b.add_branch_concatenation({narrow, wide}, 3), std::invalid_argument);  // read
  EXPECT_THROW(b.add_branch_concatenation({x, b.add_conv2d(x, 4, 1, 1)}, 3),
               std::invalid_argument);
  b.mark_output(joined);
  EXPECT_NO_THROW(b.build());
}

TEST(ModelBuilder, BuildValidates) {
  ModelBuilder b;
  b.add_input({1, 4}, DataType::kInt8, 0.1f, 0);
  EXPECT_THROW(b.build(), InputError);  // no operators, no outputs
}

// Realistic quantization: run a model in float on its dequantized constants, quantizing every
// operator's result to its output tensor as int8 inference would. Each weighted-sum output must
// stay inside its range (little saturation) and use many of its 256 levels.
class FloatRunner {
 public:
  explicit FloatRunner(const ir::Graph& g) : g_(g), values_(g.tensors.size()) {}

  struct Levels {
    double saturated = 0;  // fraction of outputs outside the representable range
    size_t distinct = 0;   // distinct quantized values
  };

  // Runs with the graph input filled from `seed`; returns the levels of every CONV_2D,
  // DEPTHWISE_CONV_2D and FULLY_CONNECTED output, by operator index.
  std::vector<std::pair<size_t, Levels>> run(uint32_t seed) {
    const ir::Tensor& in = g_.tensors[g_.inputs[0]];
    Random r(seed);
    std::vector<float>& x = values_[g_.inputs[0]];
    x.resize(static_cast<size_t>(in.num_elements()));
    for (float& v : x) {
      if (in.type == DataType::kFloat32) {
        v = 2.0f * r.uniform() - 1.0f;
      } else {
        v = real(in, r.between(-128, 127), 0);
      }
    }
    std::vector<std::pair<size_t, Levels>> levels;
    for (size_t i = 0; i < g_.operators.size(); ++i) {
      const ir::Operator& op = g_.operators[i];
      std::vector<float> y = compute(op);
      const ir::Tensor& out = g_.tensors[op.outputs[0]];
      if (out.type == DataType::kInt8) {
        Levels l = requantize(out, &y);
        if (op.type == OpType::kConv2D || op.type == OpType::kDepthwiseConv2D ||
            op.type == OpType::kFullyConnected) {
          levels.emplace_back(i, l);
        }
      }
      values_[op.outputs[0]] = std::move(y);
    }
    return levels;
  }

 private:
  static float real(const ir::Tensor& t, int64_t q, size_t channel) {
    const size_t c = t.quantization.scale.size() > 1 ? channel : 0;
    return t.quantization.scale[c] * static_cast<float>(q - t.quantization.zero_point[c]);
  }
  float weight(const ir::Tensor& w, size_t index, size_t channel) const {
    return real(w, static_cast<int8_t>(w.data[index]), channel);
  }
  float bias(const ir::Operator& op, size_t c) const {
    if (op.inputs.size() < 3 || op.inputs[2] == ir::kNoTensor) return 0.0f;
    const ir::Tensor& b = g_.tensors[op.inputs[2]];
    int32_t v;
    std::memcpy(&v, b.data.data() + 4 * c, 4);
    return real(b, v, c);
  }
  static float activate(Activation a, float v) {
    switch (a) {
      case Activation::kNone: return v;
      case Activation::kRelu: return std::max(v, 0.0f);
      case Activation::kRelu6: return std::clamp(v, 0.0f, 6.0f);
      case Activation::kReluN1To1: return std::clamp(v, -1.0f, 1.0f);
    }
    return v;
  }
  static Levels requantize(const ir::Tensor& t, std::vector<float>* values) {
    std::set<long> seen;
    size_t saturated = 0;
    for (float& v : *values) {
      long q = std::lround(v / t.quantization.scale[0]) + t.quantization.zero_point[0];
      if (q < -128 || q > 127) ++saturated;
      q = std::clamp<long>(q, -128, 127);
      seen.insert(q);
      v = real(t, q, 0);
    }
    return {static_cast<double>(saturated) / static_cast<double>(values->size()), seen.size()};
  }

  // Convolution and depthwise convolution, NHWC, batch 1.
  std::vector<float> conv(const ir::Operator& op, bool depthwise) {
    const ir::Tensor& in = g_.tensors[op.inputs[0]];
    const ir::Tensor& w = g_.tensors[op.inputs[1]];
    const ir::Tensor& out = g_.tensors[op.outputs[0]];
    const std::vector<float>& x = values_[op.inputs[0]];
    int sh, sw;
    Padding padding;
    Activation act;
    if (depthwise) {
      const auto& o = std::get<ir::DepthwiseConv2DOptions>(op.options);
      sh = o.stride_h, sw = o.stride_w, padding = o.padding, act = o.activation;
    } else {
      const auto& o = std::get<ir::Conv2DOptions>(op.options);
      sh = o.stride_h, sw = o.stride_w, padding = o.padding, act = o.activation;
    }
    const int H = in.shape[1], W = in.shape[2], C = in.shape[3];
    const int KH = w.shape[1], KW = w.shape[2];
    const int OH = out.shape[1], OW = out.shape[2], CO = out.shape[3];
    const int ph = static_cast<int>(ir::window_padding_before(H, KH, sh, 1, padding));
    const int pw = static_cast<int>(ir::window_padding_before(W, KW, sw, 1, padding));
    std::vector<float> y;
    for (int oy = 0; oy < OH; ++oy) {
      for (int ox = 0; ox < OW; ++ox) {
        for (int co = 0; co < CO; ++co) {
          float acc = bias(op, co);
          for (int ky = 0; ky < KH; ++ky) {
            for (int kx = 0; kx < KW; ++kx) {
              const int iy = oy * sh - ph + ky, ix = ox * sw - pw + kx;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              if (depthwise) {
                acc += x[(iy * W + ix) * C + co * C / CO] * weight(w, (ky * KW + kx) * CO + co, co);
                continue;
              }
              for (int ci = 0; ci < C; ++ci) {
                acc += x[(iy * W + ix) * C + ci] * weight(w, ((co * KH + ky) * KW + kx) * C + ci, co);
              }
            }
          }
          y.push_back(activate(act, acc));
        }
      }
    }
    return y;
  }

  std::vector<float> compute(const ir::Operator& op) {
    const std::vector<float>& x = values_[op.inputs[0]];
    const ir::Tensor& out = g_.tensors[op.outputs[0]];
    switch (op.type) {
      case OpType::kQuantize:
      case OpType::kDequantize:
      case OpType::kReshape:
        return x;
      case OpType::kConv2D: return conv(op, false);
      case OpType::kDepthwiseConv2D: return conv(op, true);
      case OpType::kFullyConnected: {
        const ir::Tensor& w = g_.tensors[op.inputs[1]];
        const int units = w.shape[0], depth = w.shape[1];
        std::vector<float> y;
        for (size_t row = 0; row < x.size() / depth; ++row) {
          for (int u = 0; u < units; ++u) {
            float acc = bias(op, u);
            for (int k = 0; k < depth; ++k) acc += x[row * depth + k] * weight(w, u * depth + k, u);
            y.push_back(activate(std::get<ir::FullyConnectedOptions>(op.options).activation, acc));
          }
        }
        return y;
      }
      case OpType::kAveragePool2D: {  // global pooling only, as in the named models
        const int C = out.shape[3];
        std::vector<float> y(C, 0.0f);
        for (size_t i = 0; i < x.size(); ++i) y[i % C] += x[i] / static_cast<float>(x.size() / C);
        return y;
      }
      case OpType::kAdd: {
        std::vector<float> y = x;
        const std::vector<float>& b = values_[op.inputs[1]];
        for (size_t i = 0; i < y.size(); ++i) {
          y[i] = activate(std::get<ir::ElementwiseOptions>(op.options).activation, y[i] + b[i]);
        }
        return y;
      }
      case OpType::kSoftmax: {
        std::vector<float> y = x;
        const float m = *std::max_element(y.begin(), y.end());
        float sum = 0.0f;
        for (float& v : y) sum += (v = std::exp(v - m));
        for (float& v : y) v /= sum;
        return y;
      }
      default:
        ADD_FAILURE() << "FloatRunner: operator not handled";
        return std::vector<float>(static_cast<size_t>(out.num_elements()), 0.0f);
    }
  }

  const ir::Graph& g_;
  std::vector<std::vector<float>> values_;
};

void expect_realistic_quantization(const ir::Graph& g) {
  for (uint32_t seed : {1u, 2u}) {
    for (const auto& [op, levels] : FloatRunner(g).run(seed)) {
      SCOPED_TRACE("operator " + std::to_string(op) + " seed " + std::to_string(seed));
      EXPECT_LT(levels.saturated, 0.02);
      // Fully connected layers with few outputs cannot show many levels.
      const int64_t outputs = g.tensors[g.operators[op].outputs[0]].num_elements();
      EXPECT_GE(levels.distinct, static_cast<size_t>(std::min<int64_t>(40, outputs / 2)))
          << "saturated " << levels.saturated;
    }
  }
}

TEST(ModelBuilder, RealisticQuantizationConv2dX3) { expect_realistic_quantization(conv2d_x3()); }
TEST(ModelBuilder, RealisticQuantizationConvChain) { expect_realistic_quantization(conv_chain(10)); }
TEST(ModelBuilder, RealisticQuantizationKws) { expect_realistic_quantization(kws_dscnn_like()); }
TEST(ModelBuilder, RealisticQuantizationResnet8) { expect_realistic_quantization(resnet8_like()); }
TEST(ModelBuilder, RealisticQuantizationAutoencoder) {
  expect_realistic_quantization(ad_autoencoder_like());
}

}  // namespace
}  // namespace mote::builder
