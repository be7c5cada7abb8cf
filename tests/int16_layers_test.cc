// 16x8 (int16 activations, int8 weights) layers end to end: builder graphs of the operators
// 16x8 keyword-spotting, audio and vision models are made of (DEPTHWISE_CONV_2D, AVERAGE_POOL_2D,
// MAX_POOL_2D, MUL, RELU, RELU6, CONCATENATION, RESHAPE, FULLY_CONNECTED with an int64 and with an
// int32 bias, SOFTMAX; LOGISTIC, TANH, MEAN, SUM, QUANTIZE from int32, TRANSPOSE_CONV, PAD,
// STRIDED_SLICE, TRANSPOSE, SLICE, SPLIT, SPLIT_V, UNPACK, PACK, RESIZE_NEAREST_NEIGHBOR, MAXIMUM,
// MINIMUM, PRELU, BATCH_MATMUL, SQUARED_DIFFERENCE; QUANTIZE from float, DEQUANTIZE)
// turned int16, compiled for three CPUs, run on the host, and compared with slow references
// written here from TFLite's reference int16 kernels (reference_integer_ops: int64 sums and the
// 64-bit MultiplyByQuantizedMultiplier where the bias is int64, int32 otherwise), independent of
// Mote's kernels. Needs nothing from outside.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "compiler/builder/model_builder.h"
#include "compiler/builder/models.h"
#include "compiler/ir/error.h"
#include "compiler/ops/validate.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/host_run.h"
#include "mote/kernels/softmax.h"
#include "tests/activation_reference.h"

namespace mote {
namespace {

using testing::Multiplier;

constexpr const char* kCpus[] = {"cortex-m0plus", "cortex-m4", "cortex-m55"};

using builder::as_int16;
using builder::widen_bias;

// TFLite's MultiplyByQuantizedMultiplier(int64_t, ...): the multiplier reduced to 16 bits, one
// rounding shift.
int64_t multiply64(int64_t x, Multiplier m) {
  const int64_t reduced = m.mantissa < 0x7FFF0000 ? (int64_t{m.mantissa} + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = 15 - m.shift;
  return (x * reduced + (int64_t{1} << (total_shift - 1))) >> total_shift;
}

int64_t clamp16(int64_t v, int64_t lo = -32768, int64_t hi = 32767) {
  return std::clamp(v, lo, hi);
}

// TFLite's CalculateActivationRangeQuantized for int16 (zero point 0).
std::pair<int64_t, int64_t> activation_range(ir::Activation a, float scale) {
  switch (a) {
    case ir::Activation::kRelu:
      return {0, 32767};
    case ir::Activation::kRelu6:
      return {0, std::min<int64_t>(32767, std::lround(6.0f / scale))};
    case ir::Activation::kReluN1To1:
      return {std::max<int64_t>(-32768, std::lround(-1.0f / scale)),
              std::min<int64_t>(32767, std::lround(1.0f / scale))};
    default:
      return {-32768, 32767};
  }
}

using Values = std::vector<std::vector<int64_t>>;  // per tensor

std::vector<int64_t> constant_values(const ir::Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t.type == ir::DataType::kInt8) {
      v[i] = static_cast<int8_t>(t.data[i]);
    } else if (t.type == ir::DataType::kInt32) {
      int32_t x;
      std::memcpy(&x, t.data.data() + 4 * i, 4);
      v[i] = x;
    } else {
      int64_t x;
      std::memcpy(&x, t.data.data() + 8 * i, 8);
      v[i] = x;
    }
  }
  return v;
}

int32_t same_pad(int32_t in, int32_t out, int32_t k, int32_t stride, int32_t dilation,
                 ir::Padding padding) {
  if (padding != ir::Padding::kSame) return 0;
  return std::max(0, (out - 1) * stride + (k - 1) * dilation + 1 - in) / 2;
}

struct Window {
  int32_t kh, kw, sh, sw, dh, dw, ph, pw;
};

// Calls tap(iy, ix) for each input position of output (oy, ox)'s window inside the input.
template <typename Tap>
void each_tap(const Window& w, const std::vector<int32_t>& in, int32_t oy, int32_t ox, Tap tap) {
  for (int32_t ky = 0; ky < w.kh; ++ky) {
    for (int32_t kx = 0; kx < w.kw; ++kx) {
      const int32_t iy = oy * w.sh - w.ph + ky * w.dh, ix = ox * w.sw - w.pw + kx * w.dw;
      if (iy >= 0 && iy < in[1] && ix >= 0 && ix < in[2]) tap(ky, kx, iy, ix);
    }
  }
}

std::vector<int64_t> depthwise(const ir::Graph& g, const ir::Operator& op, const Values& v) {
  const auto& o = std::get<ir::DepthwiseConv2DOptions>(op.options);
  const ir::Tensor &x = g.tensors[op.inputs[0]], &f = g.tensors[op.inputs[1]],
                   &y = g.tensors[op.outputs[0]];
  const std::vector<int64_t> w = constant_values(f);
  const std::vector<int64_t> bias =
      op.inputs.size() > 2 && op.inputs[2] != ir::kNoTensor ? constant_values(g.tensors[op.inputs[2]])
                                                            : std::vector<int64_t>{};
  const int32_t kh = f.shape[1], kw = f.shape[2], ci = x.shape[3], co = y.shape[3];
  const Window win{kh, kw, o.stride_h, o.stride_w, o.dilation_h, o.dilation_w,
                   same_pad(x.shape[1], y.shape[1], kh, o.stride_h, o.dilation_h, o.padding),
                   same_pad(x.shape[2], y.shape[2], kw, o.stride_w, o.dilation_w, o.padding)};
  const auto [lo, hi] = activation_range(o.activation, y.quantization.scale[0]);
  std::vector<int64_t> out;
  for (int32_t oy = 0; oy < y.shape[1]; ++oy) {
    for (int32_t ox = 0; ox < y.shape[2]; ++ox) {
      for (int32_t oc = 0; oc < co; ++oc) {
        int64_t acc = 0;
        each_tap(win, x.shape, oy, ox, [&](int32_t ky, int32_t kx, int32_t iy, int32_t ix) {
          acc += v[op.inputs[0]][(iy * x.shape[2] + ix) * ci + oc / (co / ci)] *
                 w[(ky * kw + kx) * co + oc];
        });
        if (!bias.empty()) acc += bias[oc];
        const float ws = f.quantization.scale.size() > 1 ? f.quantization.scale[oc]
                                                         : f.quantization.scale[0];
        const Multiplier m = testing::quantize(static_cast<double>(x.quantization.scale[0]) * ws /
                                               static_cast<double>(y.quantization.scale[0]));
        out.push_back(std::clamp(multiply64(acc, m), lo, hi));
      }
    }
  }
  return out;
}

std::vector<int64_t> fully_connected(const ir::Graph& g, const ir::Operator& op, const Values& v) {
  const auto& o = std::get<ir::FullyConnectedOptions>(op.options);
  const ir::Tensor &x = g.tensors[op.inputs[0]], &f = g.tensors[op.inputs[1]],
                   &y = g.tensors[op.outputs[0]];
  const std::vector<int64_t> w = constant_values(f);
  const bool has_bias = op.inputs.size() > 2 && op.inputs[2] != ir::kNoTensor;
  const bool int32_sums = has_bias && g.tensors[op.inputs[2]].type == ir::DataType::kInt32;
  const std::vector<int64_t> bias =
      has_bias ? constant_values(g.tensors[op.inputs[2]]) : std::vector<int64_t>{};
  const int32_t units = f.shape[0], depth = f.shape[1];
  const auto [lo, hi] = activation_range(o.activation, y.quantization.scale[0]);
  // Per tensor, GetQuantizedConvolutionMultipler: the product of the scales in float; per
  // channel, PopulateConvolutionQuantizationParams: in double.
  const auto multiplier = [&](int32_t unit) {
    const double out_scale = y.quantization.scale[0];
    if (f.quantization.scale.size() == 1) {
      const float product = x.quantization.scale[0] * f.quantization.scale[0];
      return testing::quantize(static_cast<double>(product) / out_scale);
    }
    return testing::quantize(static_cast<double>(x.quantization.scale[0]) *
                             static_cast<double>(f.quantization.scale[unit]) / out_scale);
  };
  std::vector<int64_t> out;
  const int64_t rows = x.num_elements() / depth;
  for (int64_t r = 0; r < rows; ++r) {
    for (int32_t u = 0; u < units; ++u) {
      int64_t acc = 0;
      for (int32_t d = 0; d < depth; ++d) acc += v[op.inputs[0]][r * depth + d] * w[u * depth + d];
      if (has_bias) acc += bias[u];
      // An int32 bias keeps TFLite's int32 accumulator and its 32-bit requantization.
      const Multiplier m = multiplier(u);
      out.push_back(std::clamp(int32_sums ? testing::multiply(acc, m) : multiply64(acc, m), lo, hi));
    }
  }
  return out;
}

std::vector<int64_t> pool(const ir::Graph& g, const ir::Operator& op, const Values& v) {
  const auto& o = std::get<ir::Pool2DOptions>(op.options);
  const ir::Tensor &x = g.tensors[op.inputs[0]], &y = g.tensors[op.outputs[0]];
  const Window win{o.filter_h, o.filter_w, o.stride_h, o.stride_w, 1, 1,
                   same_pad(x.shape[1], y.shape[1], o.filter_h, o.stride_h, 1, o.padding),
                   same_pad(x.shape[2], y.shape[2], o.filter_w, o.stride_w, 1, o.padding)};
  const auto [lo, hi] = activation_range(o.activation, y.quantization.scale[0]);
  const int32_t c = x.shape[3];
  std::vector<int64_t> out;
  for (int32_t oy = 0; oy < y.shape[1]; ++oy) {
    for (int32_t ox = 0; ox < y.shape[2]; ++ox) {
      for (int32_t ch = 0; ch < c; ++ch) {
        int64_t sum = 0, count = 0, max = -32768;
        each_tap(win, x.shape, oy, ox, [&](int32_t, int32_t, int32_t iy, int32_t ix) {
          const int64_t e = v[op.inputs[0]][(iy * x.shape[2] + ix) * c + ch];
          sum += e;
          max = std::max(max, e);
          ++count;
        });
        // AveragePool rounds half away from zero (C++ division truncates).
        const int64_t average = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
        out.push_back(std::clamp(op.type == ir::OpType::kMaxPool2D ? max : average, lo, hi));
      }
    }
  }
  return out;
}

// MUL (same shapes here): MulElementwise, the 32-bit requantization.
std::vector<int64_t> mul(const ir::Graph& g, const ir::Operator& op, const Values& v) {
  const auto& o = std::get<ir::ElementwiseOptions>(op.options);
  const ir::Tensor &a = g.tensors[op.inputs[0]], &b = g.tensors[op.inputs[1]],
                   &y = g.tensors[op.outputs[0]];
  const Multiplier m = testing::quantize(
      static_cast<double>(a.quantization.scale[0]) * static_cast<double>(b.quantization.scale[0]) /
      static_cast<double>(y.quantization.scale[0]));
  const auto [lo, hi] = activation_range(o.activation, y.quantization.scale[0]);
  std::vector<int64_t> out;
  for (size_t i = 0; i < v[op.inputs[0]].size(); ++i) {
    out.push_back(
        std::clamp(testing::multiply(v[op.inputs[0]][i] * v[op.inputs[1]][i], m), lo, hi));
  }
  return out;
}

// ReluQuantized<int16_t>: requantized by input scale / output scale (divided in float), clamped
// to 0 and (RELU6) the output's quantized 6.
std::vector<int64_t> relu(const ir::Graph& g, const ir::Operator& op, const Values& v) {
  const ir::Tensor &x = g.tensors[op.inputs[0]], &y = g.tensors[op.outputs[0]];
  const Multiplier m =
      testing::quantize(static_cast<double>(x.quantization.scale[0] / y.quantization.scale[0]));
  const int64_t hi = op.type == ir::OpType::kRelu6
                         ? std::min<int64_t>(32767, std::lround(6.0f / y.quantization.scale[0]))
                         : 32767;
  std::vector<int64_t> out;
  for (int64_t e : v[op.inputs[0]]) out.push_back(std::clamp<int64_t>(testing::multiply(e, m), 0, hi));
  return out;
}

// TFLite's generic_int16_table_lookup: entry 256 + (v >> 7), interpolated by v's low 7 bits.
int64_t table_lookup(const std::vector<int16_t>& lut, int64_t v) {
  const int64_t base = lut[256 + (v >> 7)], next = lut[256 + (v >> 7) + 1];
  return base + (((next - base) * (v & 0x7F) + 64) >> 7);
}

// SoftmaxInt16 (the tables from populate_softmax16_tables, which the vector set softmax_s16
// checks against TFLite's own).
std::vector<int64_t> softmax(const ir::Graph& g, const ir::Operator& op, const Values& v) {
  const ir::Tensor& x = g.tensors[op.inputs[0]];
  const float beta = std::get<ir::SoftmaxOptions>(op.options).beta;
  const Multiplier m = testing::quantize(static_cast<double>(x.quantization.scale[0]) *
                                         static_cast<double>(beta) / (10.0 / 65535.0));
  std::vector<int16_t> exp_lut(513), reciprocal_lut(513);
  kernels::populate_softmax16_tables(exp_lut.data(), reciprocal_lut.data());
  const size_t row = static_cast<size_t>(x.shape.back());
  const std::vector<int64_t>& in = v[op.inputs[0]];
  std::vector<int64_t> out;
  for (size_t r = 0; r < in.size(); r += row) {
    const int64_t max = *std::max_element(in.begin() + r, in.begin() + r + row);
    std::vector<int64_t> e;
    int64_t sum = 0;
    for (size_t c = 0; c < row; ++c) {
      const int64_t scaled = testing::multiply(in[r + c] - max, m);
      e.push_back(table_lookup(exp_lut, clamp16(scaled + 32767)));
      sum += e.back();
    }
    int headroom_plus_one = 0;
    while (headroom_plus_one < 32 && (sum & (int64_t{1} << (31 - headroom_plus_one))) == 0) {
      ++headroom_plus_one;
    }
    const int64_t shifted = ((sum << (headroom_plus_one - 1)) + (1 << 13)) >> 14;
    const int64_t reciprocal = table_lookup(reciprocal_lut, clamp16(shifted - (1 << 15) - (1 << 16)));
    const int right = 31 - headroom_plus_one;
    for (int64_t ec : e) out.push_back(clamp16((ec * reciprocal + (int64_t{1} << (right - 1))) >> right, 0));
  }
  return out;
}

// CONCATENATION along the last axis.
std::vector<int64_t> concatenation(const ir::Graph& g, const ir::Operator& op, const Values& v) {
  const ir::Tensor& y = g.tensors[op.outputs[0]];
  const int64_t outer = y.num_elements() / y.shape.back();
  std::vector<int64_t> out;
  for (int64_t r = 0; r < outer; ++r) {
    for (int32_t t : op.inputs) {
      const int64_t inner = g.tensors[t].shape.back();
      out.insert(out.end(), v[t].begin() + r * inner, v[t].begin() + (r + 1) * inner);
    }
  }
  return out;
}

// Every operator of `g` in order on `input`: the graph output's values.
std::vector<int64_t> reference(const ir::Graph& g, const std::vector<int16_t>& input) {
  Values v(g.tensors.size());
  v[g.inputs.at(0)].assign(input.begin(), input.end());
  for (const ir::Operator& op : g.operators) {
    std::vector<int64_t>& out = v[op.outputs[0]];
    switch (op.type) {
      case ir::OpType::kDepthwiseConv2D: out = depthwise(g, op, v); break;
      case ir::OpType::kFullyConnected: out = fully_connected(g, op, v); break;
      case ir::OpType::kAveragePool2D:
      case ir::OpType::kMaxPool2D: out = pool(g, op, v); break;
      case ir::OpType::kMul: out = mul(g, op, v); break;
      case ir::OpType::kRelu:
      case ir::OpType::kRelu6: out = relu(g, op, v); break;
      case ir::OpType::kConcatenation: out = concatenation(g, op, v); break;
      case ir::OpType::kReshape: out = v[op.inputs[0]]; break;
      case ir::OpType::kSoftmax: out = softmax(g, op, v); break;
      default: ADD_FAILURE() << "no reference for " << to_string(op.type); return {};
    }
    for (int64_t e : out) EXPECT_EQ(e, clamp16(e)) << "reference left int16";
  }
  return v[g.outputs.at(0)];
}

std::vector<int16_t> as_int16_values(const std::vector<uint8_t>& bytes) {
  std::vector<int16_t> v(bytes.size() / 2);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

std::vector<uint8_t> bytes_of(const std::vector<int16_t>& v) {
  std::vector<uint8_t> bytes(v.size() * 2);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

// The graph's int16 outputs for its int16 `inputs` are `expected`, in order, on every CPU.
void expect_outputs_on_every_cpu(const ir::Graph& graph,
                                 const std::vector<std::vector<int16_t>>& inputs,
                                 const std::vector<std::vector<int16_t>>& expected) {
  std::vector<std::vector<uint8_t>> bytes;
  for (const std::vector<int16_t>& input : inputs) bytes.push_back(bytes_of(input));
  for (const char* cpu : kCpus) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const pipeline::HostRun run =
        pipeline::run_on_host(pipeline::compile(graph, options).program, bytes);
    ASSERT_EQ(run.outputs.size(), expected.size()) << cpu;
    for (size_t j = 0; j < expected.size(); ++j) {
      EXPECT_EQ(run.outputs[j], bytes_of(expected[j])) << "output " << j << " on " << cpu;
    }
  }
}
void expect_output_on_every_cpu(const ir::Graph& graph, const std::vector<int16_t>& input,
                                const std::vector<int16_t>& expected) {
  expect_outputs_on_every_cpu(graph, {input}, {expected});
}

TEST(Int16Layers, EveryLayerEqualsTflitesReferenceOnEveryCpu) {
  const ir::Graph graph = builder::int16_layers();
  const size_t count = graph.operators.size();
  ASSERT_EQ(graph.operators[count - 4].type, ir::OpType::kFullyConnected);
  ASSERT_EQ(graph.tensors[graph.operators[count - 4].inputs[2]].type, ir::DataType::kInt64);
  ASSERT_EQ(graph.operators[count - 2].type, ir::OpType::kFullyConnected);
  ASSERT_EQ(graph.tensors[graph.operators[count - 2].inputs[2]].type, ir::DataType::kInt32);
  // Inputs across the int16 range, so the sums need more than int8 would.
  std::vector<int16_t> input(6 * 6 * 4);
  uint32_t state = 7;
  for (int16_t& e : input) {
    state = state * 1664525u + 1013904223u;
    e = static_cast<int16_t>(static_cast<int32_t>(state >> 16) - 32768);
  }
  const std::vector<int64_t> expected = reference(graph, input);
  ASSERT_EQ(expected.size(), 5u);
  EXPECT_TRUE(std::any_of(expected.begin(), expected.end(), [](int64_t e) { return e != 0; }));
  EXPECT_TRUE(ops::validate(graph).empty());
  // Every operator's output: the graph cut after it, its output the graph's.
  for (size_t n = 1; n <= graph.operators.size(); ++n) {
    ir::Graph prefix = graph;
    prefix.operators.resize(n);
    prefix.outputs = {prefix.operators.back().outputs[0]};
    const std::vector<int64_t> want = reference(prefix, input);
    for (const char* cpu : kCpus) {
      pipeline::CompileOptions options;
      options.plan.cpu = cpu;
      const pipeline::Compiled compiled = pipeline::compile(prefix, options);
      const pipeline::HostRun run = pipeline::run_on_host(compiled.program, {bytes_of(input)});
      const std::vector<int16_t> got = as_int16_values(run.outputs.at(0));
      EXPECT_EQ(std::vector<int64_t>(got.begin(), got.end()), want)
          << to_string(prefix.operators.back().type) << " (operator " << n - 1 << ") on " << cpu;
    }
  }
}

// TFLite's 16x8 depthwise kernel takes an int64 bias only: an int32 one is refused by name.
TEST(Int16Layers, DepthwiseWithAnInt32BiasIsRefused) {
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 4, 4, 2}, ir::DataType::kInt8, 0.02f, 0);
  b.mark_output(b.add_depthwise(x, 3, 3));
  const ir::Graph graph = as_int16(b.build());
  try {
    ops::validate(graph);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("int64 bias"), std::string::npos) << e.what();
  }
}

// QUANTIZE int32 -> int16 (TFLM's seanet models begin so): TFLite's Requantize, the 32-bit
// multiply of the centred value, clamped to int16, at both ends of int32's range.
TEST(Int16Layers, QuantizeFromInt32RequantizesDown) {
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 6}, ir::DataType::kInt8, 1.0f, 0);
  b.mark_output(b.add_quantize(x, 0.0009f, 0));
  ir::Graph g = as_int16(b.build());  // the output int16
  ir::Tensor& in = g.tensors[g.inputs[0]];
  in.type = ir::DataType::kInt32;
  in.quantization.scale = {1.5e-7f};
  in.quantization.zero_point = {3};
  const std::vector<int32_t> values = {INT32_MIN, -2000000000, -5, 3, 123456789, INT32_MAX};
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  const Multiplier m = testing::quantize(static_cast<double>(1.5e-7f / 0.0009f));
  std::vector<int64_t> expected;
  for (int32_t v : values) expected.push_back(clamp16(testing::multiply(int64_t{v} - 3, m)));
  EXPECT_TRUE(std::any_of(expected.begin(), expected.end(), [](int64_t e) { return e > 1000; }));
  for (const char* cpu : kCpus) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const pipeline::HostRun run = pipeline::run_on_host(pipeline::compile(g, options).program, {bytes});
    const std::vector<int16_t> got = as_int16_values(run.outputs.at(0));
    EXPECT_EQ(std::vector<int64_t>(got.begin(), got.end()), expected) << cpu;
  }
  // A ratio of 1/2 or more is refused at compile time, naming the scales.
  in.quantization.scale = {0.001f};
  try {
    ops::validate(g);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("requantized down only"), std::string::npos) << e.what();
  }
}

// TRANSPOSE_CONV whose output shape is a graph input (TFLM's seanet models): the model's output
// shape is planned, the input's values are not read, and the result is the constant form's.
TEST(Int16Layers, TransposeConvTakesItsOutputShapeAsAGraphInput) {
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 3, 4, 2}, ir::DataType::kInt8, 0.02f, 0);
  b.mark_output(b.add_transpose_conv(x, 3, 3, 3, 2));
  ir::Graph constant_form = as_int16(b.build());
  widen_bias(constant_form.tensors[constant_form.operators[0].inputs[3]]);
  ir::Graph input_form = constant_form;
  const int32_t shape_tensor = input_form.operators[0].inputs[0];
  ir::Tensor& shape = input_form.tensors[shape_tensor];
  ASSERT_TRUE(shape.is_constant);
  const std::vector<uint8_t> shape_bytes = shape.data;
  shape.is_constant = false;
  shape.data.clear();
  input_form.inputs.insert(input_form.inputs.begin(), shape_tensor);
  const std::vector<std::string> notes = ops::validate(input_form);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("is a graph input"), std::string::npos) << notes[0];
  std::vector<int16_t> input(1 * 3 * 4 * 2);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int16_t>(977 * i - 9000);
  for (const char* cpu : kCpus) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const auto want = pipeline::run_on_host(pipeline::compile(constant_form, options).program,
                                            {bytes_of(input)});
    const auto got = pipeline::run_on_host(pipeline::compile(input_form, options).program,
                                           {shape_bytes, bytes_of(input)});
    EXPECT_EQ(got.outputs.at(0), want.outputs.at(0)) << cpu;
  }
}

// The sigmoid grid TFLite's int16 LOGISTIC and TANH interpolate: sigmoid(i / 24) in 0.16, lowered
// by half the midpoint error of the linear interpolation, the last entry 65535.
std::vector<int64_t> sigmoid_grid() {
  const auto s = [](double i) { return 65536.0 / (1.0 + std::exp(-i / 24.0)); };
  std::vector<int64_t> grid;
  for (int i = 0; i < 255; ++i) {
    grid.push_back(static_cast<int64_t>(
        std::min(65535.0, std::floor(s(i) - ((s(i) + s(i + 1)) / 2 - s(i + 0.5)) / 2 + 0.5))));
  }
  grid.push_back(65535);
  return grid;
}

// reference_integer_ops::Logistic and Tanh on int16, with TFLM's Prepare: an input scale of 2^-12
// (TANH also 2^-11) multiplies by 3 << shift, any other by scale * 12288 doubled into
// (16383.5, 32767] with as many right shifts.
int64_t activation16(int16_t x, float scale, bool tanh, const std::vector<int64_t>& grid) {
  int64_t multiplier = 0, shift = 0;
  const double log2 = std::log2(static_cast<double>(scale));
  const int64_t pot = 12 + std::lround(log2);
  if (std::fabs(log2 - std::round(log2)) < 1e-3 && (pot == 0 || (tanh && pot == 1))) {
    multiplier = 3 << pot;
  } else {
    double m = static_cast<double>(scale) * 4096.0 * 3.0;
    while (m <= 32767.0 / 2.0 && shift <= 30) {
      ++shift;
      m *= 2.0;
    }
    multiplier = static_cast<int64_t>(m);
  }
  const int64_t v = (x * multiplier + (shift > 0 ? int64_t{1} << (shift - 1) : 0)) >> shift;
  const int64_t a = std::llabs(v);
  const int bits = tanh ? 8 : 9;  // tanh reads the grid at twice the input
  int64_t r = tanh ? int64_t{0xFFFF} << 8 : int64_t{0x7FFF} << 10;
  if ((a >> bits) < 255) {
    const int64_t lo = grid[a >> bits], hi = grid[(a >> bits) + 1];
    r = (lo << bits) + (a & ((1 << bits) - 1)) * (hi - lo);
  }
  if (tanh) {
    r = v >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
    return r >> 8;
  }
  r = v >= 0 ? r + (1 << 9) : (int64_t{1} << 25) - r + (1 << 9) - 1;
  return static_cast<int16_t>(r >> 10);
}

// LOGISTIC and TANH on int16 over the whole int16 range, for power-of-two and other input scales.
TEST(Int16Layers, LogisticAndTanhFollowTflitesInt16Kernels) {
  const std::vector<int64_t> grid = sigmoid_grid();
  std::vector<int16_t> input;
  for (int32_t v = -32768; v <= 32767; v += 97) input.push_back(static_cast<int16_t>(v));
  input.push_back(32767);
  for (const ir::OpType type : {ir::OpType::kLogistic, ir::OpType::kTanh}) {
    const bool tanh = type == ir::OpType::kTanh;
    for (const float scale : {1.0f / 4096, 1.0f / 2048, 0.001f, 3.0e-5f, 0.7f}) {
      builder::ModelBuilder b;
      const auto x = b.add_input({1, static_cast<int32_t>(input.size())}, ir::DataType::kInt8,
                                 scale, 0);
      b.mark_output(b.add_operator(type, {x}, std::monostate{}, {1, static_cast<int32_t>(input.size())},
                                   1.0f / 32768, 0));
      const ir::Graph g = as_int16(b.graph());
      EXPECT_TRUE(ops::validate(g).empty());
      std::vector<int64_t> expected;
      for (int16_t e : input) expected.push_back(activation16(e, scale, tanh, grid));
      for (const char* cpu : kCpus) {
        pipeline::CompileOptions options;
        options.plan.cpu = cpu;
        const auto run = pipeline::run_on_host(pipeline::compile(g, options).program,
                                               {bytes_of(input)});
        const std::vector<int16_t> got = as_int16_values(run.outputs.at(0));
        EXPECT_EQ(std::vector<int64_t>(got.begin(), got.end()), expected)
            << to_string(type) << " scale " << scale << " on " << cpu;
      }
    }
  }
}

// MEAN and SUM on int16 (TFLite's QuantizedMeanOrSum<int16_t>): the int32 sum of each group,
// requantized by input scale / output scale, for MEAN with 1/count folded into the multiplier
// (a left shift s = min(floor(log2(count)), 32, 31 + shift), then (multiplier << s) / count).
TEST(Int16Layers, MeanAndSumFollowTflitesRule) {
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 4, 5, 6}, ir::DataType::kInt8, 0.01f, 0);
  b.mark_output(b.add_mean(x, {1, 2}, /*keep_dims=*/true, 0.004f, 0));
  b.mark_output(b.add_sum(x, {3}, /*keep_dims=*/false, 0.05f, 0));
  const ir::Graph g = as_int16(b.build());
  EXPECT_TRUE(ops::validate(g).empty());
  std::vector<int16_t> input(4 * 5 * 6);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int16_t>((i * 7919) % 60001 - 30000);
  const auto requant = [](float in, float out, int64_t fold) {
    Multiplier m = testing::quantize(static_cast<double>(in / out));
    if (fold > 1) {
      const int s = std::min({static_cast<int>(std::floor(std::log2(static_cast<double>(fold)))),
                              32, 31 + m.shift});
      m.mantissa = static_cast<int32_t>((static_cast<int64_t>(m.mantissa) << s) / fold);
      m.shift -= s;
    }
    return m;
  };
  const Multiplier mean_m = requant(0.01f, 0.004f, 20), sum_m = requant(0.01f, 0.05f, 1);
  std::vector<int64_t> mean_want, sum_want;
  for (int c = 0; c < 6; ++c) {
    int64_t sum = 0;
    for (int p = 0; p < 20; ++p) sum += input[p * 6 + c];
    mean_want.push_back(clamp16(testing::multiply(sum, mean_m)));
  }
  for (int p = 0; p < 20; ++p) {
    int64_t sum = 0;
    for (int c = 0; c < 6; ++c) sum += input[p * 6 + c];
    sum_want.push_back(clamp16(testing::multiply(sum, sum_m)));
  }
  for (const char* cpu : kCpus) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const auto run = pipeline::run_on_host(pipeline::compile(g, options).program, {bytes_of(input)});
    const std::vector<int16_t> mean = as_int16_values(run.outputs.at(0));
    const std::vector<int16_t> sum = as_int16_values(run.outputs.at(1));
    EXPECT_EQ(std::vector<int64_t>(mean.begin(), mean.end()), mean_want) << cpu;
    EXPECT_EQ(std::vector<int64_t>(sum.begin(), sum.end()), sum_want) << cpu;
  }
}

// Needs nothing from outside: int16 PAD then STRIDED_SLICE move 2-byte elements exactly, on
// every CPU (a kernel that moved bytes, or padded with anything but 0, would differ).
TEST(Int16DataMovement, PadThenStridedSliceMoveTwoByteElements) {
  builder::ModelBuilder b;
  const builder::TensorId x = b.add_input({1, 2, 3, 2}, ir::DataType::kInt8, 0.01f, 0);
  const builder::TensorId padded = b.add_pad(x, {{0, 0}, {1, 1}, {0, 1}, {0, 0}});  // [1,4,4,2]
  b.mark_output(b.add_strided_slice(padded, {0, 0, 1, 0}, {1, 4, 4, 2}, {1, 2, 1, 1}));
  const ir::Graph graph = as_int16(b.build());
  std::vector<int16_t> input(12);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int16_t>(-30000 + 4999 * i);
  // Padded [1,4,4,2]: rows 0 and 3 zero, column 3 zero; sliced rows 0 and 2, columns 1..3.
  std::vector<int16_t> expected;
  for (int y : {0, 2}) {
    for (int x = 1; x < 4; ++x) {
      for (int c = 0; c < 2; ++c) {
        const bool inside = y >= 1 && y <= 2 && x < 3;
        expected.push_back(inside ? input[((y - 1) * 3 + x) * 2 + c] : 0);
      }
    }
  }
  expect_output_on_every_cpu(graph, input, expected);
}

// int16 TRANSPOSE (two-byte elements moved whole) then SLICE, against the index arithmetic.
TEST(Int16DataMovement, TransposeThenSliceMoveTwoByteElements) {
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 2, 3, 4}, ir::DataType::kInt8, 0.01f, 0);
  const auto t = b.add_transpose(x, {0, 3, 1, 2});                   // [1,4,2,3]
  b.mark_output(b.add_slice(t, {0, 1, 0, 1}, {1, 2, 2, 2}));          // [1,2,2,2]
  const ir::Graph graph = as_int16(b.build());
  EXPECT_TRUE(ops::validate(graph).empty());
  std::vector<int16_t> input(24);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int16_t>(-31000 + 2603 * i);
  std::vector<int16_t> expected;
  for (int c = 1; c < 3; ++c) {
    for (int h = 0; h < 2; ++h) {
      for (int w = 1; w < 3; ++w) expected.push_back(input[(h * 3 + w) * 4 + c]);
    }
  }
  expect_output_on_every_cpu(graph, input, expected);
}

// A data-movement graph turned int16 moves two-byte elements whole: each int16 output's low
// bytes are what the int8 graph makes of the input's low bytes, its high bytes what it makes of
// the high bytes.
void expect_moves_elements_whole(const ir::Graph& int8_graph, const std::vector<int16_t>& input) {
  const ir::Graph graph = as_int16(int8_graph);
  EXPECT_TRUE(ops::validate(graph).empty());
  std::vector<uint8_t> low, high;
  for (int16_t e : input) {
    low.push_back(static_cast<uint8_t>(e & 0xFF));
    high.push_back(static_cast<uint8_t>((e >> 8) & 0xFF));
  }
  for (const char* cpu : kCpus) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const auto run8 = [&](const std::vector<uint8_t>& bytes) {
      return pipeline::run_on_host(pipeline::compile(int8_graph, options).program, {bytes});
    };
    const pipeline::HostRun lows = run8(low), highs = run8(high);
    const pipeline::HostRun run =
        pipeline::run_on_host(pipeline::compile(graph, options).program, {bytes_of(input)});
    ASSERT_EQ(run.outputs.size(), int8_graph.outputs.size());
    for (size_t j = 0; j < run.outputs.size(); ++j) {
      std::vector<uint8_t> expected;
      for (size_t i = 0; i < lows.outputs[j].size(); ++i) {
        expected.push_back(lows.outputs[j][i]);
        expected.push_back(highs.outputs[j][i]);
      }
      EXPECT_EQ(run.outputs[j], expected) << "output " << j << " on " << cpu;
    }
  }
}

std::vector<int16_t> spread_values(size_t n) {
  std::vector<int16_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int16_t>(-31000 + (2603 * i) % 62000);
  return v;
}

TEST(Int16DataMovement, SplitUnpackAndPackMoveTwoByteElements) {
  builder::ModelBuilder b;
  const auto x = b.add_input({2, 3, 4}, ir::DataType::kInt8, 0.01f, 0);
  const auto halves = b.add_split(x, 2, 2);                // 2x [2,3,2]
  const auto rows = b.add_split_v(halves[0], {1, -1}, 1);  // [2,1,2], [2,2,2]
  const auto planes = b.add_unpack(halves[1], 0);          // 2x [3,2]
  b.mark_output(rows[0]);
  b.mark_output(rows[1]);
  b.mark_output(b.add_pack({planes[1], planes[0]}, 1));  // [3,2,2]
  expect_moves_elements_whole(b.build(), spread_values(24));
}

TEST(Int16DataMovement, ResizeNearestNeighborMovesTwoByteElements) {
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 3, 4, 3}, ir::DataType::kInt8, 0.01f, 0);
  b.mark_output(b.add_resize_nearest(x, 5, 7));
  expect_moves_elements_whole(b.build(), spread_values(36));
}

// MAXIMUM and MINIMUM on int16 compare the raw values (TFLite's), with broadcasting.
TEST(Int16Layers, MaximumAndMinimumCompareRawValues) {
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 2, 3, 4}, ir::DataType::kInt8, 0.01f, 0);
  const auto y = b.add_input({1, 1, 1, 4}, ir::DataType::kInt8, 0.01f, 0);
  for (const ir::OpType type : {ir::OpType::kMaximum, ir::OpType::kMinimum}) {
    b.mark_output(b.add_operator(type, {x, y}, std::monostate{}, {1, 2, 3, 4}, 0.01f, 0));
  }
  const ir::Graph graph = as_int16(b.build());
  EXPECT_TRUE(ops::validate(graph).empty());
  const std::vector<int16_t> a = spread_values(24);
  const std::vector<int16_t> c = {-32768, 300, 32767, -5};
  std::vector<int16_t> largest, smallest;
  for (size_t i = 0; i < a.size(); ++i) {
    largest.push_back(std::max(a[i], c[i % 4]));
    smallest.push_back(std::min(a[i], c[i % 4]));
  }
  expect_outputs_on_every_cpu(graph, {a, c}, {largest, smallest});
}

// A 16x8 model's float edges, as TFLite's converter writes them without inference_input_type:
// QUANTIZE float32 -> int16 (TFLite's AffineQuantize: the division and the round in float,
// clamped to int16) and DEQUANTIZE int16 -> float32 (scale * (q - zero point) in double, rounded
// to float), around an int16 RELU.
TEST(Int16Layers, FloatEdgesQuantizeAndDequantizeAsTflite) {
  const float scale = 0.00025f;
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 12});
  const auto q = b.add_quantize(x, scale, 0);
  const auto r = b.add_operator(ir::OpType::kRelu, {q}, std::monostate{}, {1, 12}, scale, 0);
  b.mark_output(b.add_dequantize(r));
  const ir::Graph graph = as_int16(b.build());
  ASSERT_EQ(graph.tensors[graph.operators[0].outputs[0]].type, ir::DataType::kInt16);
  EXPECT_TRUE(ops::validate(graph).empty());
  // Near-halfway values, the upper clamp, negatives (RELU), zeros.
  const std::vector<float> input = {0.5f * scale, 1.5f * scale, 2.5f * scale, -0.5f * scale,
                                    7.99f,        8.0f,         -9.0f,        0.1f,
                                    100.0f,       3.14159f,     -0.0f,        0.0003662109f};
  std::vector<float> expected;
  for (float v : input) {
    const int32_t quantized =
        std::clamp(static_cast<int32_t>(std::round(v / scale)), -32768, 32767);
    const int32_t relu = std::max(quantized, 0);
    expected.push_back(static_cast<float>(static_cast<double>(scale) * relu));
  }
  std::vector<uint8_t> bytes(input.size() * 4);
  std::memcpy(bytes.data(), input.data(), bytes.size());
  for (const char* cpu : kCpus) {
    pipeline::CompileOptions options;
    options.plan.cpu = cpu;
    const pipeline::HostRun run =
        pipeline::run_on_host(pipeline::compile(graph, options).program, {bytes});
    std::vector<float> got(input.size());
    ASSERT_EQ(run.outputs.at(0).size(), got.size() * 4);
    std::memcpy(got.data(), run.outputs.at(0).data(), run.outputs.at(0).size());
    EXPECT_EQ(got, expected) << cpu;
  }
}

// PRELU 16x8 (TFLM's: int16 input and output, int8 alpha with its zero point): a non-negative
// input requantized by input / output scale, a negative one times the centred alpha by input *
// alpha / output scale (the ratios in float, as TFLite's PreluPrepare), clamped to int16.
TEST(Int16Layers, PreluTakesAnInt8Alpha) {
  const float in_scale = 0.001f, alpha_scale = 0.004f, out_scale = 0.0012f;
  const int32_t alpha_zero_point = 20;
  const std::vector<int8_t> alpha = {-60, 100};
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 3, 4, 2}, ir::DataType::kInt8, in_scale, 0);
  const auto a = b.add_int8_constant({2}, alpha, alpha_scale, alpha_zero_point);
  b.mark_output(
      b.add_operator(ir::OpType::kPrelu, {x, a}, std::monostate{}, {1, 3, 4, 2}, out_scale, 0));
  const ir::Graph graph = as_int16(b.build());
  ASSERT_EQ(graph.tensors[graph.operators[0].inputs[1]].type, ir::DataType::kInt8);
  EXPECT_TRUE(ops::validate(graph).empty());
  const Multiplier identity = testing::quantize(static_cast<double>(in_scale / out_scale));
  const Multiplier negative =
      testing::quantize(static_cast<double>(in_scale * alpha_scale / out_scale));
  const std::vector<int16_t> input = spread_values(24);
  std::vector<int16_t> expected;
  for (size_t i = 0; i < input.size(); ++i) {
    const int64_t v = input[i];
    const int64_t y = v >= 0 ? testing::multiply(v, identity)
                             : testing::multiply(v * (alpha[i % 2] - alpha_zero_point), negative);
    expected.push_back(static_cast<int16_t>(clamp16(y)));
  }
  expect_output_on_every_cpu(graph, input, expected);
}

// BATCH_MATMUL on int16 (TFLM's BatchMatMul<int16_t, int64_t>): int64 sums, the 64-bit
// requantization, clamped to int16; a broadcast batch, with and without adj_x / adj_y.
TEST(Int16Layers, BatchMatMulSumsInInt64) {
  for (const bool adj_x : {false, true}) {
    for (const bool adj_y : {false, true}) {
      builder::ModelBuilder b;
      using Shape = std::vector<int32_t>;
      const auto lhs =
          b.add_input(adj_x ? Shape{2, 6, 3} : Shape{2, 3, 6}, ir::DataType::kInt8, 0.002f, 0);
      const auto rhs =
          b.add_input(adj_y ? Shape{4, 6} : Shape{6, 4}, ir::DataType::kInt8, 0.003f, 0);
      b.mark_output(b.add_batch_matmul(lhs, rhs, adj_x, adj_y));  // [2, 3, 4]
      const ir::Graph graph = as_int16(b.build());
      EXPECT_TRUE(ops::validate(graph).empty());
      const std::vector<int16_t> a = spread_values(36), c = spread_values(24);
      const float out_scale = graph.tensors[graph.outputs[0]].quantization.scale[0];
      // lhs scale * rhs scale in float, as TFLite's GetQuantizedConvolutionMultipler.
      const Multiplier m =
          testing::quantize(static_cast<double>(0.002f * 0.003f) / static_cast<double>(out_scale));
      std::vector<int16_t> expected;
      for (int batch = 0; batch < 2; ++batch) {
        for (int r = 0; r < 3; ++r) {
          for (int col = 0; col < 4; ++col) {
            int64_t sum = 0;
            for (int k = 0; k < 6; ++k) {
              const int64_t x = a[batch * 18 + (adj_x ? k * 3 + r : r * 6 + k)];
              const int64_t y = c[adj_y ? col * 6 + k : k * 4 + col];
              sum += x * y;
            }
            expected.push_back(static_cast<int16_t>(clamp16(multiply64(sum, m))));
          }
        }
      }
      SCOPED_TRACE(std::string("adj_x ") + (adj_x ? "true" : "false") + " adj_y " +
                   (adj_y ? "true" : "false"));
      expect_outputs_on_every_cpu(graph, {a, c}, {expected});
    }
  }
}

// SQUARED_DIFFERENCE on int16 (TFLM's: left shift 0, both inputs rescaled to twice the larger
// scale, the difference squared in int32 and requantized), with a broadcast operand.
TEST(Int16Layers, SquaredDifferenceShiftsByNothing) {
  const float sa = 0.001f, sb = 0.0007f, sy = 0.004f;
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 2, 3, 4}, ir::DataType::kInt8, sa, 0);
  const auto y = b.add_input({1, 1, 1, 4}, ir::DataType::kInt8, sb, 0);
  b.mark_output(b.add_operator(ir::OpType::kSquaredDifference, {x, y}, std::monostate{},
                               {1, 2, 3, 4}, sy, 0));
  const ir::Graph graph = as_int16(b.build());
  EXPECT_TRUE(ops::validate(graph).empty());
  // TFLM's PrepareQuantized, in double; the output scale times 2^0.
  const double twice_max = 2.0 * static_cast<double>(std::max(sa, sb));
  const Multiplier ma = testing::quantize(static_cast<double>(sa) / twice_max);
  const Multiplier mb = testing::quantize(static_cast<double>(sb) / twice_max);
  const Multiplier my = testing::quantize(twice_max * twice_max / static_cast<double>(sy));
  const std::vector<int16_t> a = spread_values(24);
  const std::vector<int16_t> c = {-32768, 300, 32767, -5};
  std::vector<int16_t> expected;
  for (size_t i = 0; i < a.size(); ++i) {
    const int64_t diff = testing::multiply(a[i], ma) - testing::multiply(c[i % 4], mb);
    expected.push_back(static_cast<int16_t>(clamp16(testing::multiply(diff * diff, my))));
  }
  EXPECT_TRUE(std::any_of(expected.begin(), expected.end(), [](int16_t e) { return e > 0; }));
  expect_outputs_on_every_cpu(graph, {a, c}, {expected});
}

// An operator without a 16x8 form (TFLM's REDUCE_MAX takes int8 and float only) is refused by
// name, with what to do.
TEST(Int16Layers, AnOperatorWithoutA16x8FormIsRefusedByName) {
  builder::ModelBuilder b;
  const auto x = b.add_input({1, 4, 4, 2}, ir::DataType::kInt8, 0.01f, 0);
  b.mark_output(b.add_reduce_max(x, {1, 2}, /*keep_dims=*/false));
  try {
    ops::validate(as_int16(b.build()));
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("operator 0 (REDUCE_MAX): int16 activations"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("quantize the model with int8 activations"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mote
