#include "compiler/builder/model_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "compiler/ir/validate.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/strided_slice.h"
#include "compiler/ops/validate.h"
#include "mote/kernels/batch_matmul.h"

namespace mote::builder {
namespace {

using ir::Activation;
using ir::DataType;
using ir::OpType;
using ir::Padding;
using ir::Tensor;

// Output ranges span this many standard deviations of the estimated pre-activation values:
// about 0.3% of Gaussian values saturate.
constexpr float kSigmas = 3.0f;

[[noreturn]] void bad_argument(const std::string& message) {
  throw std::invalid_argument("ModelBuilder: " + message);
}

std::vector<uint8_t> int32_bytes(const std::vector<int32_t>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(int32_t));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Clamp of a value range by a fused activation.
void apply_activation(Activation a, float* lo, float* hi) {
  auto clamp = [&](float min, float max) {
    *lo = std::clamp(*lo, min, max);
    *hi = std::clamp(*hi, min, max);
  };
  switch (a) {
    case Activation::kNone: break;
    case Activation::kRelu: clamp(0.0f, std::numeric_limits<float>::max()); break;
    case Activation::kRelu6: clamp(0.0f, 6.0f); break;
    case Activation::kReluN1To1: clamp(-1.0f, 1.0f); break;
  }
}

float hard_swish(float x) { return x * std::clamp(x + 3.0f, 0.0f, 6.0f) / 6.0f; }

// Root mean square of values spread evenly over [lo, hi].
float uniform_rms(float lo, float hi) {
  return std::sqrt((lo * lo + lo * hi + hi * hi) / 3.0f);
}

}  // namespace

std::pair<float, int32_t> quantization_for_range(float lo, float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  if (hi - lo < 1e-6f) hi = lo + 1e-6f;
  const float scale = (hi - lo) / 255.0f;
  const long zp = std::lround(-128.0 - static_cast<double>(lo) / scale);
  return {scale, static_cast<int32_t>(std::clamp<long>(zp, -128, 127))};
}

ModelBuilder::ModelBuilder(uint32_t seed) : random_(seed) {}

const Tensor& ModelBuilder::checked(TensorId id, const char* what) const {
  if (id < 0 || static_cast<size_t>(id) >= graph_.tensors.size()) {
    bad_argument(std::string(what) + ": no tensor " + std::to_string(id));
  }
  return graph_.tensors[id];
}

std::string ModelBuilder::op_name(const char* kind) {
  for (auto& [name, count] : name_counts_) {
    if (name == kind) return name + "_" + std::to_string(count++);
  }
  name_counts_.emplace_back(kind, 1);
  return std::string(kind) + "_0";
}

TensorId ModelBuilder::add_tensor(Tensor tensor, Range range) {
  graph_.tensors.push_back(std::move(tensor));
  ranges_.push_back(range);
  return static_cast<TensorId>(graph_.tensors.size() - 1);
}

TensorId ModelBuilder::add_activation(const std::string& name, std::vector<int32_t> shape,
                                      Range range) {
  Tensor t;
  t.name = name;
  t.type = DataType::kInt8;
  t.shape = std::move(shape);
  const auto [scale, zp] = quantization_for_range(range.lo, range.hi);
  t.quantization.scale = {scale};
  t.quantization.zero_point = {zp};
  // Record what the quantization can represent: later estimates start from it.
  return add_tensor(std::move(t), {scale * static_cast<float>(-128 - zp),
                                   scale * static_cast<float>(127 - zp), range.rms});
}

TensorId ModelBuilder::add_activation_like(const std::string& name, std::vector<int32_t> shape,
                                           TensorId like) {
  Tensor t;
  t.name = name;
  t.type = graph_.tensors[like].type;
  t.shape = std::move(shape);
  t.quantization = graph_.tensors[like].quantization;
  const Range range = ranges_[like];
  return add_tensor(std::move(t), range);
}

TensorId ModelBuilder::add_int32_constant(const std::string& name, std::vector<int32_t> shape,
                                          const std::vector<int32_t>& values) {
  Tensor t;
  t.name = name;
  t.type = DataType::kInt32;
  t.shape = std::move(shape);
  t.data = int32_bytes(values);
  t.is_constant = true;
  return add_tensor(std::move(t), {});
}

TensorId ModelBuilder::add_int8_constant(const std::vector<int32_t>& shape,
                                         const std::vector<int8_t>& values, float scale,
                                         int32_t zero_point) {
  if (!(scale > 0.0f)) bad_argument("add_int8_constant: the constant needs a positive scale");
  Tensor t;
  t.name = op_name("constant");
  t.type = DataType::kInt8;
  t.shape = shape;
  t.quantization.scale = {scale};
  t.quantization.zero_point = {zero_point};
  t.data.assign(reinterpret_cast<const uint8_t*>(values.data()),
                reinterpret_cast<const uint8_t*>(values.data()) + values.size());
  t.is_constant = true;
  Range r;
  double sum_sq = 0.0;
  r.lo = r.hi = 0.0f;
  for (int8_t v : values) {
    const float real = scale * static_cast<float>(v - zero_point);
    r.lo = std::min(r.lo, real);
    r.hi = std::max(r.hi, real);
    sum_sq += double{real} * real;
  }
  r.rms = values.empty() ? 0.0f : static_cast<float>(std::sqrt(sum_sq / values.size()));
  return add_tensor(std::move(t), r);
}

TensorId ModelBuilder::add_weights(const std::string& name, std::vector<int32_t> shape,
                                   size_t channel_dim, int32_t channels, int64_t fan_in) {
  Tensor t;
  t.name = name;
  t.type = DataType::kInt8;
  t.shape = std::move(shape);
  t.is_constant = true;
  // Amplitudes around sqrt(3 / fan_in) keep the output's magnitude near the input's; the
  // spread between channels is what per-channel quantization is for.
  const float base = std::sqrt(3.0f / static_cast<float>(fan_in));
  for (int32_t c = 0; c < channels; ++c) {
    t.quantization.scale.push_back((0.5f + random_.uniform()) * base / 127.0f);
    t.quantization.zero_point.push_back(0);
  }
  t.quantization.quantized_dimension = channels > 1 ? static_cast<int32_t>(channel_dim) : 0;
  t.data.resize(static_cast<size_t>(t.num_elements()));
  for (uint8_t& b : t.data) b = static_cast<uint8_t>(static_cast<int8_t>(random_.between(-127, 127)));
  return add_tensor(std::move(t), {});
}

TensorId ModelBuilder::add_bias(const std::string& name, TensorId input, TensorId weights,
                                int32_t channels, float magnitude) {
  const float input_scale = graph_.tensors[input].quantization.scale[0];
  const std::vector<float> weight_scales = graph_.tensors[weights].quantization.scale;
  Tensor t;
  t.name = name;
  t.type = DataType::kInt32;
  t.shape = {channels};
  t.is_constant = true;
  for (float ws : weight_scales) {
    t.quantization.scale.push_back(input_scale * ws);
    t.quantization.zero_point.push_back(0);
  }
  std::vector<int32_t> values(channels);
  for (int32_t c = 0; c < channels; ++c) {
    const float scale = t.quantization.scale[weight_scales.size() > 1 ? c : 0];
    const double real = (2.0 * random_.uniform() - 1.0) * magnitude;
    values[c] = static_cast<int32_t>(std::clamp<double>(
        std::round(real / scale), std::numeric_limits<int32_t>::min() / 2,
        std::numeric_limits<int32_t>::max() / 2));
  }
  t.data = int32_bytes(values);
  return add_tensor(std::move(t), {});
}

TensorId ModelBuilder::add_op(OpType type, std::vector<int32_t> inputs, TensorId output,
                              ir::Options options) {
  ir::Operator op;
  op.type = type;
  op.inputs = std::move(inputs);
  op.outputs = {output};
  op.options = std::move(options);
  graph_.operators.push_back(std::move(op));
  return output;
}

TensorId ModelBuilder::add_input(const std::vector<int32_t>& shape, DataType type, float scale,
                                 int32_t zero_point) {
  Tensor t;
  t.name = graph_.inputs.empty() ? "input" : "input_" + std::to_string(graph_.inputs.size());
  t.type = type;
  t.shape = shape;
  Range range;
  if (type == DataType::kInt8 || type == DataType::kUInt8) {
    if (!(scale > 0.0f)) bad_argument("int8 and uint8 inputs need a positive scale");
    const int32_t lowest = type == DataType::kInt8 ? -128 : 0;
    t.quantization.scale = {scale};
    t.quantization.zero_point = {zero_point};
    range.lo = scale * static_cast<float>(lowest - zero_point);
    range.hi = scale * static_cast<float>(lowest + 255 - zero_point);
    range.rms = uniform_rms(range.lo, range.hi);
  } else if (type != DataType::kFloat32 && type != DataType::kInt32) {
    bad_argument("inputs are float32, int8, uint8 (then quantized to int8) or int32 (GATHER's indices)");
  }
  const TensorId id = add_tensor(std::move(t), range);
  graph_.inputs.push_back(id);
  return id;
}

TensorId ModelBuilder::add_quantize(TensorId input, float scale, int32_t zero_point,
                                    DataType type) {
  const Tensor& in = checked(input, "add_quantize");
  if (!(scale > 0.0f)) bad_argument("add_quantize needs a positive scale");
  if (type != DataType::kInt8 && type != DataType::kUInt8 && type != DataType::kInt32) {
    bad_argument("add_quantize writes int8, uint8 or int32");
  }
  Tensor t;
  t.name = op_name("quantize");
  t.type = type;
  t.shape = in.shape;
  t.quantization.scale = {scale};
  t.quantization.zero_point = {zero_point};
  // (An int32 result's range: its values, as int8's.)
  const int32_t lowest = type == DataType::kUInt8 ? 0 : -128;
  Range range{scale * static_cast<float>(lowest - zero_point),
              scale * static_cast<float>(lowest + 255 - zero_point), 0.0f};
  // A float input is assumed to fill the range it is quantized to; a requantized int8 tensor
  // keeps its values.
  range.rms = in.type == DataType::kFloat32 ? uniform_rms(range.lo, range.hi) : ranges_[input].rms;
  const TensorId out = add_tensor(std::move(t), range);
  return add_op(OpType::kQuantize, {input}, out, std::monostate{});
}

TensorId ModelBuilder::add_dequantize(TensorId input) {
  const Tensor& in = checked(input, "add_dequantize");
  Tensor t;
  t.name = op_name("dequantize");
  t.type = DataType::kFloat32;
  t.shape = in.shape;
  const TensorId out = add_tensor(std::move(t), ranges_[input]);
  return add_op(OpType::kDequantize, {input}, out, std::monostate{});
}

namespace {

// The estimate behind every weighted sum: weights drawn independently with mean 0 give
// E[y^2] = fan_in * E[x^2] * E[w^2], with E[w^2] from the weights actually drawn. One output
// scale must cover every channel, so the range follows the largest channel; the values passed
// on to the next layer follow the average channel.
struct Sigma {
  float largest = 0.0f;
  float average = 0.0f;
};

Sigma weighted_sum_sigma(const Tensor& weights, float input_rms, int64_t fan_in,
                         size_t channel_dim) {
  const auto& q = weights.quantization;
  const size_t channels = q.scale.size();
  std::vector<double> sum_sq(channels, 0.0);
  std::vector<int64_t> count(channels, 0);
  int64_t inner = 1;  // elements between two steps along channel_dim
  for (size_t d = channel_dim + 1; d < weights.shape.size(); ++d) inner *= weights.shape[d];
  const int64_t dim = weights.shape[channel_dim];
  for (size_t i = 0; i < weights.data.size(); ++i) {
    const size_t c =
        channels > 1 ? static_cast<size_t>((static_cast<int64_t>(i) / inner) % dim) : 0;
    const double w = static_cast<int8_t>(weights.data[i]) * double{q.scale[c]};
    sum_sq[c] += w * w;
    ++count[c];
  }
  double largest = 0.0, total = 0.0;
  for (size_t c = 0; c < channels; ++c) {
    const double mean_square = count[c] > 0 ? sum_sq[c] / count[c] : 0.0;
    largest = std::max(largest, mean_square);
    total += mean_square;
  }
  const double x2 = static_cast<double>(fan_in) * double{input_rms} * input_rms;
  return {static_cast<float>(std::sqrt(x2 * largest)),
          static_cast<float>(std::sqrt(x2 * total / static_cast<double>(channels)))};
}

// Fraction of a window's taps that fall inside the input along one axis, averaged over the
// output positions: zero padding shrinks the sums near the border.
double axis_coverage(int64_t input, int64_t filter, int64_t stride, int64_t dilation,
                     Padding padding) {
  const int64_t out = ir::window_output_size(input, filter, stride, dilation, padding);
  const int64_t before = ir::window_padding_before(input, filter, stride, dilation, padding);
  int64_t inside = 0;
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t t = 0; t < filter; ++t) {
      const int64_t pos = o * stride - before + t * dilation;
      inside += pos >= 0 && pos < input;
    }
  }
  return static_cast<double>(inside) / static_cast<double>(out * filter);
}

}  // namespace

TensorId ModelBuilder::finish_weighted_sum(const std::string& name, TensorId input,
                                           TensorId weights, size_t channel_dim, int32_t channels,
                                           int64_t fan_in, double coverage, bool bias,
                                           Activation activation,
                                           std::vector<int32_t> output_shape, OpType type,
                                           ir::Options options) {
  Sigma sigma =
      weighted_sum_sigma(graph_.tensors[weights], ranges_[input].rms, fan_in, channel_dim);
  sigma.average *= static_cast<float>(std::sqrt(coverage));
  const TensorId b = bias ? add_bias(name + "/bias", input, weights, channels, 0.1f * sigma.average)
                          : ir::kNoTensor;
  Range r{-kSigmas * sigma.largest, kSigmas * sigma.largest, sigma.average};
  apply_activation(activation, &r.lo, &r.hi);
  // A ReLU keeps the positive half of zero-mean values: E[relu(y)^2] = E[y^2] / 2.
  if (activation != Activation::kNone) r.rms = sigma.average * std::sqrt(0.5f);
  const TensorId out = add_activation(name, std::move(output_shape), r);
  return add_op(type, {input, weights, b}, out, std::move(options));
}

TensorId ModelBuilder::add_conv2d(TensorId input, int32_t out_channels, int32_t kernel_h,
                                  int32_t kernel_w, int32_t stride, Padding padding,
                                  Activation activation, bool bias, int32_t dilation) {
  const Tensor& in = checked(input, "add_conv2d");
  if (in.shape.size() != 4 || in.type != DataType::kInt8) bad_argument("add_conv2d: int8 NHWC input");
  if (out_channels < 1 || kernel_h < 1 || kernel_w < 1 || stride < 1 || dilation < 1) {
    bad_argument("add_conv2d: sizes must be positive");
  }
  const std::vector<int32_t> in_shape = in.shape;
  const int64_t oh = ir::window_output_size(in_shape[1], kernel_h, stride, dilation, padding);
  const int64_t ow = ir::window_output_size(in_shape[2], kernel_w, stride, dilation, padding);
  if (oh < 1 || ow < 1) bad_argument("add_conv2d: kernel larger than the input");
  const std::string name = op_name("conv2d");
  const int64_t fan_in = int64_t{kernel_h} * kernel_w * in_shape[3];
  const TensorId w = add_weights(name + "/weights", {out_channels, kernel_h, kernel_w, in_shape[3]},
                                 0, out_channels, fan_in);
  ir::Conv2DOptions o;
  o.padding = padding;
  o.stride_h = o.stride_w = stride;
  o.dilation_h = o.dilation_w = dilation;
  o.activation = activation;
  const double coverage = axis_coverage(in_shape[1], kernel_h, stride, dilation, padding) *
                          axis_coverage(in_shape[2], kernel_w, stride, dilation, padding);
  return finish_weighted_sum(
      name, input, w, 0, out_channels, fan_in, coverage, bias, activation,
      {in_shape[0], static_cast<int32_t>(oh), static_cast<int32_t>(ow), out_channels},
      OpType::kConv2D, o);
}

TensorId ModelBuilder::add_depthwise(TensorId input, int32_t kernel_h, int32_t kernel_w,
                                     int32_t stride, Padding padding, Activation activation,
                                     int32_t depth_multiplier, bool bias, int32_t dilation) {
  const Tensor& in = checked(input, "add_depthwise");
  if (in.shape.size() != 4 || in.type != DataType::kInt8) {
    bad_argument("add_depthwise: int8 NHWC input");
  }
  if (kernel_h < 1 || kernel_w < 1 || stride < 1 || dilation < 1 || depth_multiplier < 1) {
    bad_argument("add_depthwise: sizes must be positive");
  }
  const std::vector<int32_t> in_shape = in.shape;
  const int64_t oh = ir::window_output_size(in_shape[1], kernel_h, stride, dilation, padding);
  const int64_t ow = ir::window_output_size(in_shape[2], kernel_w, stride, dilation, padding);
  if (oh < 1 || ow < 1) bad_argument("add_depthwise: kernel larger than the input");
  const std::string name = op_name("depthwise_conv2d");
  const int32_t channels = in_shape[3] * depth_multiplier;
  const int64_t fan_in = int64_t{kernel_h} * kernel_w;
  const TensorId w =
      add_weights(name + "/weights", {1, kernel_h, kernel_w, channels}, 3, channels, fan_in);
  ir::DepthwiseConv2DOptions o;
  o.padding = padding;
  o.stride_h = o.stride_w = stride;
  o.dilation_h = o.dilation_w = dilation;
  o.depth_multiplier = depth_multiplier;
  o.activation = activation;
  const double coverage = axis_coverage(in_shape[1], kernel_h, stride, dilation, padding) *
                          axis_coverage(in_shape[2], kernel_w, stride, dilation, padding);
  return finish_weighted_sum(
      name, input, w, 3, channels, fan_in, coverage, bias, activation,
      {in_shape[0], static_cast<int32_t>(oh), static_cast<int32_t>(ow), channels},
      OpType::kDepthwiseConv2D, o);
}

TensorId ModelBuilder::add_fully_connected(TensorId input, int32_t units, Activation activation,
                                           bool bias, bool per_channel) {
  const Tensor& in = checked(input, "add_fully_connected");
  if (in.shape.empty() || in.type != DataType::kInt8) {
    bad_argument("add_fully_connected: int8 input with at least one dimension");
  }
  if (units < 1) bad_argument("add_fully_connected: units must be positive");
  const int32_t depth = in.shape.back();
  const int64_t rows = in.num_elements() / depth;
  const std::string name = op_name("fully_connected");
  const int32_t scales = per_channel ? units : 1;
  const TensorId w = add_weights(name + "/weights", {units, depth}, 0, scales, depth);
  ir::FullyConnectedOptions o;
  o.activation = activation;
  return finish_weighted_sum(name, input, w, 0, units, depth, 1.0, bias, activation,
                             {static_cast<int32_t>(rows), units}, OpType::kFullyConnected, o);
}

TensorId ModelBuilder::add_svdf(TensorId input, int32_t units, int32_t rank, int32_t memory,
                                bool bias, bool int8_state, Activation activation) {
  const Tensor& in = checked(input, "add_svdf");
  if (in.shape.size() != 2 || in.type != DataType::kInt8) {
    bad_argument("add_svdf: int8 input [batches, input_size]");
  }
  if (units < 1 || rank < 1 || memory < 1) bad_argument("add_svdf: sizes must be positive");
  const int32_t batches = in.shape[0], input_size = in.shape[1], filters = units * rank;
  const float in_rms = std::max(ranges_[input].rms, 1e-3f);
  const std::string name = op_name("svdf");
  const TensorId wf = add_weights(name + "/weights_feature", {filters, input_size}, 0, 1, input_size);
  // Each feature is a weighted sum that keeps about the input's magnitude: the state covers a
  // few of its sigmas.
  const float state_range = 2.0f * kSigmas * in_rms;
  const DataType state_type = int8_state ? DataType::kInt8 : DataType::kInt16;
  const int32_t state_qmax = int8_state ? 127 : 32767;
  Tensor wt;
  wt.name = name + "/weights_time";
  wt.type = state_type;
  wt.shape = {filters, memory};
  wt.is_constant = true;
  const float wt_amplitude = std::sqrt(3.0f / static_cast<float>(memory));
  wt.quantization.scale = {(0.5f + random_.uniform()) * wt_amplitude / static_cast<float>(state_qmax)};
  wt.quantization.zero_point = {0};
  for (int64_t k = 0; k < int64_t{filters} * memory; ++k) {
    const int32_t v = random_.between(-state_qmax, state_qmax);
    if (int8_state) {
      wt.data.push_back(static_cast<uint8_t>(static_cast<int8_t>(v)));
    } else {
      const uint16_t u = static_cast<uint16_t>(static_cast<int16_t>(v));
      wt.data.push_back(static_cast<uint8_t>(u & 0xFF));
      wt.data.push_back(static_cast<uint8_t>(u >> 8));
    }
  }
  const TensorId wt_id = add_tensor(std::move(wt), {});
  Tensor state;
  state.name = name + "/state";
  state.type = state_type;
  state.shape = {batches, filters * memory};
  state.is_variable = true;
  if (int8_state) {
    // Asymmetric, as TFLM allows for its int8 form: a zero point off the middle.
    const float lo = -state_range * 0.8f, hi = state_range * 1.2f;
    const auto [scale, zp] = quantization_for_range(lo, hi);
    state.quantization.scale = {scale};
    state.quantization.zero_point = {zp};
  } else {
    state.quantization.scale = {state_range / 32767.0f};
    state.quantization.zero_point = {0};
  }
  const float state_scale = state.quantization.scale[0];
  const TensorId state_id = add_tensor(std::move(state), {-state_range, state_range, in_rms});
  const float wt_scale = graph_.tensors[wt_id].quantization.scale[0];
  TensorId b = ir::kNoTensor;
  if (bias) {
    std::vector<int32_t> values(static_cast<size_t>(units));
    const float bias_scale = state_scale * wt_scale;
    for (int32_t& v : values) {
      const double real = (2.0 * random_.uniform() - 1.0) * 0.1 * in_rms;
      v = static_cast<int32_t>(std::round(real / bias_scale));
    }
    b = add_int32_constant(name + "/bias", {units}, values);
    graph_.tensors[b].quantization.scale = {bias_scale};
    graph_.tensors[b].quantization.zero_point = {0};
  }
  // The output sums rank filters of memory weighted states each.
  const float out_rms = in_rms * std::sqrt(static_cast<float>(rank));
  Range r{-kSigmas * out_rms, kSigmas * out_rms, out_rms};
  const TensorId out = add_activation(name, {batches, units}, r);
  ir::SvdfOptions o;
  o.rank = rank;
  o.activation = activation;
  return add_op(OpType::kSvdf, {input, wf, wt_id, b, state_id}, out, o);
}

TensorId ModelBuilder::add_lstm(TensorId input, int32_t hidden, bool time_major,
                                float cell_clip, int32_t cell_scale_power) {
  const Tensor& in = checked(input, "add_lstm");
  if (in.shape.size() != 3 || in.type != DataType::kInt8) {
    bad_argument("add_lstm: int8 input [batches, steps, features]");
  }
  if (hidden < 1) bad_argument("add_lstm: hidden size must be positive");
  const std::vector<int32_t> in_shape = in.shape;
  const int32_t batches = in_shape[time_major ? 1 : 0], features = in_shape[2];
  const float in_rms = std::max(ranges_[input].rms, 1e-3f);
  const std::string name = op_name("lstm");
  // Gate pre-activations of about unit size: the sigmoids and tanh neither saturate nor stay
  // linear.
  const auto fan_in = [](int32_t n, float rms) {
    return std::max<int64_t>(1, std::llround(static_cast<double>(n) * rms * rms));
  };
  const char* const gates[] = {"input", "forget", "cell", "output"};
  std::vector<int32_t> inputs(24, ir::kNoTensor);
  inputs[0] = input;
  for (int g = 0; g < 4; ++g) {
    inputs[1 + g] = add_weights(name + "/" + gates[g] + "_input_weights", {hidden, features}, 0, 1,
                                fan_in(features, in_rms));
  }
  for (int g = 0; g < 4; ++g) {
    inputs[5 + g] = add_weights(name + "/" + gates[g] + "_recurrent_weights", {hidden, hidden}, 0,
                                1, fan_in(hidden, 0.5f));
  }
  for (int g = 0; g < 4; ++g) {
    const TensorId b = add_bias(name + "/" + gates[g] + "_bias", input, inputs[1 + g], hidden, 0.5f);
    if (g == 1) {
      Tensor& t = graph_.tensors[b];
      const int32_t one = static_cast<int32_t>(std::lround(1.0 / t.quantization.scale[0]));
      std::vector<int32_t> values(static_cast<size_t>(hidden));
      std::memcpy(values.data(), t.data.data(), values.size() * sizeof(int32_t));
      for (int32_t& v : values) v += one;
      t.data = int32_bytes(values);
    }
    inputs[12 + g] = b;
  }
  // h = o * tanh(c) lies in (-1, 1); an off-centre zero point exercises the recurrent offset.
  std::vector<int32_t> out_shape = in_shape;
  out_shape[2] = hidden;
  const TensorId out = add_activation(name, out_shape, {-0.9f, 1.0f, 0.4f});
  Tensor h;
  h.name = name + "/hidden_state";
  h.type = DataType::kInt8;
  h.shape = {batches, hidden};
  h.quantization = graph_.tensors[out].quantization;
  h.is_variable = true;
  inputs[18] = add_tensor(std::move(h), ranges_[out]);
  Tensor c;
  c.name = name + "/cell_state";
  c.type = DataType::kInt16;
  c.shape = {batches, hidden};
  c.quantization.scale = {std::ldexp(1.0f, cell_scale_power)};
  c.quantization.zero_point = {0};
  c.is_variable = true;
  inputs[19] = add_tensor(std::move(c), {});
  ir::LstmOptions o;
  o.cell_clip = cell_clip;
  o.time_major = time_major;
  return add_op(OpType::kUnidirectionalSequenceLstm, std::move(inputs), out, o);
}

TensorId ModelBuilder::window_op(OpType type, TensorId input, int32_t filter_h, int32_t filter_w,
                                 int32_t stride_h, int32_t stride_w, Padding padding) {
  const char* kind = type == OpType::kMaxPool2D ? "max_pool" : "average_pool";
  const Tensor& in = checked(input, kind);
  if (in.shape.size() != 4 || in.type != DataType::kInt8) bad_argument(std::string(kind) + ": int8 NHWC input");
  if (filter_h < 1 || filter_w < 1 || stride_h < 1 || stride_w < 1) {
    bad_argument(std::string(kind) + ": sizes must be positive");
  }
  const std::vector<int32_t> in_shape = in.shape;
  const int64_t oh = ir::window_output_size(in_shape[1], filter_h, stride_h, 1, padding);
  const int64_t ow = ir::window_output_size(in_shape[2], filter_w, stride_w, 1, padding);
  if (oh < 1 || ow < 1) bad_argument(std::string(kind) + ": filter larger than the input");
  const TensorId out = add_activation_like(
      op_name(kind), {in_shape[0], static_cast<int32_t>(oh), static_cast<int32_t>(ow), in_shape[3]},
      input);
  ir::Pool2DOptions o;
  o.padding = padding;
  o.stride_h = stride_h;
  o.stride_w = stride_w;
  o.filter_h = filter_h;
  o.filter_w = filter_w;
  return add_op(type, {input}, out, o);
}

TensorId ModelBuilder::add_average_pool(TensorId input, int32_t filter_h, int32_t filter_w,
                                        int32_t stride, Padding padding) {
  return window_op(OpType::kAveragePool2D, input, filter_h, filter_w, stride, stride, padding);
}

TensorId ModelBuilder::add_average_pool(TensorId input, int32_t filter_h, int32_t filter_w,
                                        int32_t stride_h, int32_t stride_w, Padding padding) {
  return window_op(OpType::kAveragePool2D, input, filter_h, filter_w, stride_h, stride_w, padding);
}

TensorId ModelBuilder::add_max_pool(TensorId input, int32_t filter_h, int32_t filter_w,
                                    int32_t stride, Padding padding) {
  return window_op(OpType::kMaxPool2D, input, filter_h, filter_w, stride, stride, padding);
}

TensorId ModelBuilder::add_max_pool(TensorId input, int32_t filter_h, int32_t filter_w,
                                    int32_t stride_h, int32_t stride_w, Padding padding) {
  return window_op(OpType::kMaxPool2D, input, filter_h, filter_w, stride_h, stride_w, padding);
}

namespace {

// The shape `a` and `b` broadcast to (TFLite's rule); `kind` names the operator in the error.
std::vector<int32_t> broadcast_shape(const Tensor& ta, const Tensor& tb, const char* kind) {
  const size_t rank = std::max(ta.shape.size(), tb.shape.size());
  std::vector<int32_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t da = i < rank - ta.shape.size() ? 1 : ta.shape[i - (rank - ta.shape.size())];
    const int32_t db = i < rank - tb.shape.size() ? 1 : tb.shape[i - (rank - tb.shape.size())];
    if (da != db && da != 1 && db != 1) bad_argument(std::string(kind) + ": shapes do not broadcast");
    shape[i] = std::max(da, db);
  }
  return shape;
}

}  // namespace

TensorId ModelBuilder::elementwise(OpType type, TensorId a, TensorId b, Activation activation) {
  const char* kind = type == OpType::kAdd ? "add" : "mul";
  const Tensor& ta = checked(a, kind);
  const Tensor& tb = checked(b, kind);
  if (ta.type != DataType::kInt8 || tb.type != DataType::kInt8) bad_argument(std::string(kind) + ": int8 inputs");
  const std::vector<int32_t> shape = broadcast_shape(ta, tb, kind);
  const Range ra = ranges_[a], rb = ranges_[b];
  Range r;
  if (type == OpType::kAdd) {
    // Independent values: mean squares add.
    r.rms = std::sqrt(ra.rms * ra.rms + rb.rms * rb.rms);
    r.lo = std::max(ra.lo + rb.lo, -kSigmas * r.rms);
    r.hi = std::min(ra.hi + rb.hi, kSigmas * r.rms);
  } else {
    r.rms = ra.rms * rb.rms;
    const float p[] = {ra.lo * rb.lo, ra.lo * rb.hi, ra.hi * rb.lo, ra.hi * rb.hi};
    r.lo = std::max(*std::min_element(std::begin(p), std::end(p)), -kSigmas * r.rms);
    r.hi = std::min(*std::max_element(std::begin(p), std::end(p)), kSigmas * r.rms);
  }
  apply_activation(activation, &r.lo, &r.hi);
  const TensorId out = add_activation(op_name(kind), shape, r);
  return add_op(type, {a, b}, out, ir::ElementwiseOptions{activation});
}

TensorId ModelBuilder::add_add(TensorId a, TensorId b, Activation activation) {
  return elementwise(OpType::kAdd, a, b, activation);
}

TensorId ModelBuilder::add_mul(TensorId a, TensorId b, Activation activation) {
  return elementwise(OpType::kMul, a, b, activation);
}

TensorId ModelBuilder::extremum(OpType type, TensorId a, TensorId b) {
  const char* kind = type == OpType::kMaximum ? "add_maximum" : "add_minimum";
  const Tensor& ta = checked(a, kind);
  const Tensor& tb = checked(b, kind);
  if (ta.type != tb.type || (ta.type != DataType::kInt8 && ta.type != DataType::kInt16)) {
    bad_argument(std::string(kind) + ": two int8 or two int16 inputs");
  }
  // TFLite compares the raw values: only a shared quantization makes that a comparison of reals.
  if (ta.quantization.scale != tb.quantization.scale ||
      ta.quantization.zero_point != tb.quantization.zero_point) {
    bad_argument(std::string(kind) + ": the inputs must share their quantization");
  }
  const Range ra = ranges_[a], rb = ranges_[b];
  const bool max = type == OpType::kMaximum;
  const TensorId out = add_activation_like(op_name(max ? "maximum" : "minimum"),
                                           broadcast_shape(ta, tb, kind), a);
  ranges_[out] = {max ? std::max(ra.lo, rb.lo) : std::min(ra.lo, rb.lo),
                  max ? std::max(ra.hi, rb.hi) : std::min(ra.hi, rb.hi), ra.rms};
  return add_op(type, {a, b}, out, std::monostate{});
}

TensorId ModelBuilder::add_maximum(TensorId a, TensorId b) {
  return extremum(OpType::kMaximum, a, b);
}

TensorId ModelBuilder::add_minimum(TensorId a, TensorId b) {
  return extremum(OpType::kMinimum, a, b);
}

TensorId ModelBuilder::add_softmax(TensorId input, float beta) {
  const Tensor& in = checked(input, "add_softmax");
  Tensor t;
  t.name = op_name("softmax");
  t.shape = in.shape;
  t.quantization.scale = {1.0f / 256};
  t.quantization.zero_point = {-128};
  const TensorId out = add_tensor(std::move(t), {0.0f, 255.0f / 256, 0.5f});
  return add_op(OpType::kSoftmax, {input}, out, ir::SoftmaxOptions{beta});
}

TensorId ModelBuilder::add_logistic(TensorId input) {
  const Tensor& in = checked(input, "add_logistic");
  Tensor t;
  t.name = op_name("logistic");
  t.shape = in.shape;
  t.quantization.scale = {1.0f / 256};
  t.quantization.zero_point = {-128};
  const TensorId out = add_tensor(std::move(t), {0.0f, 255.0f / 256, 0.5f});
  return add_op(OpType::kLogistic, {input}, out, std::monostate{});
}

TensorId ModelBuilder::add_hard_swish(TensorId input) {
  const Tensor& in = checked(input, "add_hard_swish");
  const Range r = ranges_[input];
  // hard_swish falls to its minimum -0.375 at -1.5 and rises on both sides of it.
  const float lo = r.lo <= -1.5f && r.hi >= -1.5f ? -0.375f
                                                  : std::min(hard_swish(r.lo), hard_swish(r.hi));
  const float hi = std::max(hard_swish(r.lo), hard_swish(r.hi));
  const float rms = std::min(r.rms, std::max(std::fabs(lo), std::fabs(hi)));
  const TensorId out = add_activation(op_name("hard_swish"), in.shape, {lo, hi, rms});
  return add_op(OpType::kHardSwish, {input}, out, std::monostate{});
}

TensorId ModelBuilder::add_transpose_conv(TensorId input, int32_t out_channels, int32_t kernel_h,
                                          int32_t kernel_w, int32_t stride, Padding padding,
                                          Activation activation, bool bias) {
  const Tensor& in = checked(input, "add_transpose_conv");
  if (in.shape.size() != 4 || in.type != DataType::kInt8) {
    bad_argument("add_transpose_conv: int8 NHWC input");
  }
  if (out_channels < 1 || kernel_h < 1 || kernel_w < 1 || stride < 1) {
    bad_argument("add_transpose_conv: sizes must be positive");
  }
  const std::vector<int32_t> in_shape = in.shape;
  auto out_size = [&](int32_t size, int32_t kernel) {
    return padding == Padding::kSame ? size * stride : (size - 1) * stride + kernel;
  };
  const std::vector<int32_t> out_shape = {in_shape[0], out_size(in_shape[1], kernel_h),
                                          out_size(in_shape[2], kernel_w), out_channels};
  const std::string name = op_name("transpose_conv");
  // Each output element gathers about ceil(k / stride)^2 taps of every input channel.
  const int64_t fan_in = int64_t{(kernel_h + stride - 1) / stride} *
                         ((kernel_w + stride - 1) / stride) * in_shape[3];
  const TensorId w = add_weights(name + "/weights", {out_channels, kernel_h, kernel_w, in_shape[3]},
                                 0, out_channels, fan_in);
  const TensorId shape = add_int32_constant(name + "/output_shape", {4}, out_shape);
  ir::TransposeConvOptions o;
  o.padding = padding;
  o.stride_h = o.stride_w = stride;
  o.activation = activation;
  const TensorId out = finish_weighted_sum(name, input, w, 0, out_channels, fan_in, 1.0, bias,
                                           activation, out_shape, OpType::kTransposeConv, o);
  // TFLite's order: (output shape, weights, input, bias).
  std::vector<int32_t>& inputs = graph_.operators.back().inputs;
  inputs = {shape, w, input, inputs[2]};
  return out;
}

TensorId ModelBuilder::add_operator(OpType type, const std::vector<TensorId>& inputs,
                                    ir::Options options, const std::vector<int32_t>& shape,
                                    float scale, int32_t zero_point) {
  for (TensorId t : inputs) checked(t, "add_operator");
  if (!(scale > 0.0f)) bad_argument("add_operator: the output needs a positive scale");
  Tensor t;
  t.name = op_name("op");
  t.shape = shape;
  t.quantization.scale = {scale};
  t.quantization.zero_point = {zero_point};
  const float lo = scale * static_cast<float>(-128 - zero_point);
  const float hi = scale * static_cast<float>(127 - zero_point);
  const TensorId out = add_tensor(std::move(t), {lo, hi, uniform_rms(lo, hi)});
  return add_op(type, inputs, out, std::move(options));
}

TensorId ModelBuilder::add_plain_input(const std::vector<int32_t>& shape, DataType type) {
  Tensor t;
  t.name = graph_.inputs.empty() ? "input" : "input_" + std::to_string(graph_.inputs.size());
  t.type = type;
  t.shape = shape;
  const TensorId id = add_tensor(std::move(t), {});
  graph_.inputs.push_back(id);
  return id;
}

TensorId ModelBuilder::add_plain_constant(const std::vector<int32_t>& shape, DataType type,
                                          const std::vector<uint8_t>& bytes) {
  Tensor t;
  t.name = op_name("constant");
  t.type = type;
  t.shape = shape;
  t.data = bytes;
  t.is_constant = true;
  if (static_cast<int64_t>(bytes.size()) != t.num_bytes()) {
    bad_argument("add_plain_constant: " + std::to_string(bytes.size()) + " bytes for " +
                 std::string(ir::to_string(type)) + " " + ir::shape_string(shape));
  }
  return add_tensor(std::move(t), {});
}

std::vector<TensorId> ModelBuilder::add_plain_operator(
    OpType type, const std::vector<TensorId>& inputs, ir::Options options,
    const std::vector<std::pair<std::vector<int32_t>, DataType>>& outputs) {
  for (TensorId t : inputs) checked(t, "add_plain_operator");
  ir::Operator op;
  op.type = type;
  op.inputs.assign(inputs.begin(), inputs.end());
  op.options = std::move(options);
  std::vector<TensorId> ids;
  for (const auto& [shape, out_type] : outputs) {
    Tensor t;
    t.name = op_name("plain");
    t.type = out_type;
    t.shape = shape;
    ids.push_back(add_tensor(std::move(t), {}));
    op.outputs.push_back(ids.back());
  }
  if (const auto state = ops::op_def(type).internal_state) {
    for (Tensor& t : state(op)) op.inputs.push_back(add_tensor(std::move(t), {}));
  }
  graph_.operators.push_back(std::move(op));
  return ids;
}

TensorId ModelBuilder::add_batch_matmul(TensorId lhs, TensorId rhs, bool adj_x, bool adj_y) {
  const Tensor& a = checked(lhs, "add_batch_matmul");
  const Tensor& b = checked(rhs, "add_batch_matmul");
  kernels::BatchMatMulShape shape{};
  int32_t dims[kernels::kMaxBatchMatMulRank], rank = 0;
  if (!kernels::prepare_batch_matmul_shape(a.shape.data(), static_cast<int32_t>(a.shape.size()),
                                           b.shape.data(), static_cast<int32_t>(b.shape.size()),
                                           adj_x, adj_y, &shape, dims, &rank)) {
    bad_argument("add_batch_matmul: the shapes do not multiply");
  }
  // A sum of `depth` products of independent values: rms grows with the square root.
  const float rms = std::sqrt(static_cast<float>(shape.depth)) * ranges_[lhs].rms * ranges_[rhs].rms;
  const float bound = std::max(4.0f * rms, 1e-3f);
  const auto [scale, zero_point] = quantization_for_range(-bound, bound);
  return add_operator(OpType::kBatchMatMul, {lhs, rhs}, ir::BatchMatMulOptions{adj_x, adj_y},
                      std::vector<int32_t>(dims, dims + rank), scale, zero_point);
}

TensorId ModelBuilder::add_reshape(TensorId input, const std::vector<int32_t>& new_shape) {
  const Tensor& in = checked(input, "add_reshape");
  std::vector<int32_t> shape = new_shape;
  int64_t known = 1;
  int unknown = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && unknown < 0) {
      unknown = static_cast<int>(i);
    } else if (shape[i] < 1) {
      bad_argument("add_reshape: invalid shape");
    } else {
      known *= shape[i];
    }
  }
  const int64_t elements = in.num_elements();
  if (unknown >= 0) {
    if (elements % known != 0) bad_argument("add_reshape: shape does not divide the elements");
    shape[unknown] = static_cast<int32_t>(elements / known);
    known = elements;
  }
  if (known != elements) bad_argument("add_reshape: element count changes");
  const std::string name = op_name("reshape");
  const TensorId s = add_int32_constant(name + "/shape", {static_cast<int32_t>(new_shape.size())},
                                        new_shape);
  const TensorId out = add_activation_like(name, shape, input);
  // Like TFLite's converter: the shape is the second input, the options hold none.
  return add_op(OpType::kReshape, {input, s}, out, ir::ReshapeOptions{});
}

TensorId ModelBuilder::add_pad(TensorId input,
                               const std::vector<std::pair<int32_t, int32_t>>& paddings) {
  const Tensor& in = checked(input, "add_pad");
  if (paddings.size() != in.shape.size()) bad_argument("add_pad: one pair per dimension");
  std::vector<int32_t> shape = in.shape;
  std::vector<int32_t> values;
  for (size_t i = 0; i < paddings.size(); ++i) {
    if (paddings[i].first < 0 || paddings[i].second < 0) bad_argument("add_pad: negative padding");
    shape[i] += paddings[i].first + paddings[i].second;
    values.push_back(paddings[i].first);
    values.push_back(paddings[i].second);
  }
  const std::string name = op_name("pad");
  const TensorId p = add_int32_constant(name + "/paddings",
                                        {static_cast<int32_t>(paddings.size()), 2}, values);
  const TensorId out = add_activation_like(name, shape, input);
  return add_op(OpType::kPad, {input, p}, out, std::monostate{});
}

TensorId ModelBuilder::add_squeeze(TensorId input, const std::vector<int32_t>& squeeze_dims) {
  const Tensor& in = checked(input, "add_squeeze");
  const int32_t rank = static_cast<int32_t>(in.shape.size());
  std::vector<bool> removed(in.shape.size(), squeeze_dims.empty());
  for (int32_t d : squeeze_dims) {
    if (d < -rank || d >= rank) bad_argument("add_squeeze: dimension out of range");
    removed[d < 0 ? d + rank : d] = true;
  }
  std::vector<int32_t> shape;
  for (size_t i = 0; i < in.shape.size(); ++i) {
    if (!removed[i] || in.shape[i] != 1) shape.push_back(in.shape[i]);
  }
  const TensorId out = add_activation_like(op_name("squeeze"), shape, input);
  return add_op(OpType::kSqueeze, {input}, out, ir::SqueezeOptions{squeeze_dims});
}

TensorId ModelBuilder::add_expand_dims(TensorId input, int32_t axis) {
  const Tensor& in = checked(input, "add_expand_dims");
  const int32_t rank = static_cast<int32_t>(in.shape.size());
  if (axis < -rank - 1 || axis > rank) bad_argument("add_expand_dims: axis out of range");
  std::vector<int32_t> shape = in.shape;
  shape.insert(shape.begin() + (axis < 0 ? axis + rank + 1 : axis), 1);
  const std::string name = op_name("expand_dims");
  const TensorId a = add_int32_constant(name + "/axis", {1}, {axis});
  const TensorId out = add_activation_like(name, shape, input);
  return add_op(OpType::kExpandDims, {input, a}, out, std::monostate{});
}

TensorId ModelBuilder::add_reducer(OpType type, const char* kind, TensorId input,
                                   const std::vector<int32_t>& axes, bool keep_dims) {
  const Tensor& in = checked(input, kind);
  const int32_t rank = static_cast<int32_t>(in.shape.size());
  std::vector<bool> reduced(in.shape.size(), false);
  for (int32_t a : axes) {
    if (a < -rank || a >= rank) bad_argument(std::string(kind) + ": axis out of range");
    reduced[a < 0 ? a + rank : a] = true;
  }
  std::vector<int32_t> shape;
  for (size_t i = 0; i < in.shape.size(); ++i) {
    if (!reduced[i]) {
      shape.push_back(in.shape[i]);
    } else if (keep_dims) {
      shape.push_back(1);
    }
  }
  const std::string name = op_name(kind + 4);  // without "add_"
  const TensorId a = add_int32_constant(name + "/axes", {static_cast<int32_t>(axes.size())}, axes);
  const TensorId out = add_activation_like(name, shape, input);
  return add_op(type, {input, a}, out, ir::MeanOptions{keep_dims});
}

TensorId ModelBuilder::requantized(TensorId out, float scale, int32_t zero_point) {
  graph_.tensors[out].quantization.scale = {scale};
  graph_.tensors[out].quantization.zero_point = {zero_point};
  const float lo = scale * static_cast<float>(-128 - zero_point);
  const float hi = scale * static_cast<float>(127 - zero_point);
  ranges_[out] = {lo, hi, uniform_rms(lo, hi)};
  return out;
}

TensorId ModelBuilder::add_mean(TensorId input, const std::vector<int32_t>& axes, bool keep_dims) {
  return add_reducer(OpType::kMean, "add_mean", input, axes, keep_dims);
}

TensorId ModelBuilder::add_mean(TensorId input, const std::vector<int32_t>& axes, bool keep_dims,
                                float scale, int32_t zero_point) {
  if (!(scale > 0.0f)) bad_argument("add_mean: the output needs a positive scale");
  return requantized(add_mean(input, axes, keep_dims), scale, zero_point);
}

TensorId ModelBuilder::add_sum(TensorId input, const std::vector<int32_t>& axes, bool keep_dims,
                               float scale, int32_t zero_point) {
  if (!(scale > 0.0f)) bad_argument("add_sum: the output needs a positive scale");
  return requantized(add_reducer(OpType::kSum, "add_sum", input, axes, keep_dims), scale,
                     zero_point);
}

TensorId ModelBuilder::add_reduce_max(TensorId input, const std::vector<int32_t>& axes,
                                      bool keep_dims) {
  return add_reducer(OpType::kReduceMax, "add_reduce_max", input, axes, keep_dims);
}

TensorId ModelBuilder::add_arg_min_max(TensorId input, int32_t axis, bool arg_min,
                                       DataType index_type) {
  const Tensor& in = checked(input, "add_arg_min_max");
  const int32_t rank = static_cast<int32_t>(in.shape.size());
  if (axis < -rank || axis >= rank) bad_argument("add_arg_min_max: axis out of range");
  if (index_type != DataType::kInt32 && index_type != DataType::kInt64) {
    bad_argument("add_arg_min_max: index_type must be int32 or int64");
  }
  std::vector<int32_t> shape = in.shape;
  shape.erase(shape.begin() + (axis < 0 ? axis + rank : axis));
  const std::string name = op_name(arg_min ? "arg_min" : "arg_max");
  const TensorId a = add_int32_constant(name + "/axis", {1}, {axis});
  Tensor t;
  t.name = name;
  t.type = index_type;
  t.shape = std::move(shape);
  const TensorId out = add_tensor(std::move(t), {});
  return add_op(arg_min ? OpType::kArgMin : OpType::kArgMax, {input, a}, out,
                ir::ArgMinMaxOptions{index_type});
}

TensorId ModelBuilder::add_concatenation(const std::vector<TensorId>& inputs, int32_t axis) {
  if (inputs.empty()) bad_argument("add_concatenation: no inputs");
  const Tensor& first = checked(inputs[0], "add_concatenation");
  const int32_t rank = static_cast<int32_t>(first.shape.size());
  if (axis < -rank || axis >= rank) bad_argument("add_concatenation: axis out of range");
  const size_t a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  std::vector<int32_t> shape = first.shape;
  shape[a] = 0;
  for (TensorId id : inputs) {
    const Tensor& t = checked(id, "add_concatenation");
    if (t.shape.size() != first.shape.size() || t.quantization != first.quantization) {
      bad_argument("add_concatenation: inputs need equal rank and quantization");
    }
    for (size_t i = 0; i < t.shape.size(); ++i) {
      if (i != a && t.shape[i] != first.shape[i]) bad_argument("add_concatenation: shapes differ");
    }
    shape[a] += t.shape[a];
  }
  const TensorId out = add_activation_like(op_name("concatenation"), shape, inputs[0]);
  ir::ConcatenationOptions o;
  o.axis = axis;
  return add_op(OpType::kConcatenation, inputs, out, o);
}

TensorId ModelBuilder::add_branch_concatenation(const std::vector<TensorId>& inputs,
                                                int32_t axis) {
  if (inputs.empty()) bad_argument("add_branch_concatenation: no inputs");
  float lo = 0.0f, hi = 0.0f;
  for (TensorId id : inputs) {
    const Tensor& t = checked(id, "add_branch_concatenation");
    const auto holds = [id](const std::vector<int32_t>& list) {
      return std::find(list.begin(), list.end(), id) != list.end();
    };
    const auto& ops = graph_.operators;
    const bool made = std::any_of(ops.begin(), ops.end(),
                                  [&](const ir::Operator& op) { return holds(op.outputs); });
    const bool read = std::any_of(ops.begin(), ops.end(),
                                  [&](const ir::Operator& op) { return holds(op.inputs); });
    if (t.type != DataType::kInt8 || !made || read || holds(graph_.outputs)) {
      bad_argument("add_branch_concatenation: inputs must be int8 outputs of operators that "
                   "nothing reads yet");
    }
    lo = std::min(lo, ranges_[id].lo);
    hi = std::max(hi, ranges_[id].hi);
  }
  const auto [scale, zero_point] = quantization_for_range(lo, hi);
  for (TensorId id : inputs) {
    graph_.tensors[id].quantization.scale = {scale};
    graph_.tensors[id].quantization.zero_point = {zero_point};
    // Their real values stay what they were; only the range the quantization covers widens.
    ranges_[id] = {scale * static_cast<float>(-128 - zero_point),
                   scale * static_cast<float>(127 - zero_point), ranges_[id].rms};
  }
  return add_concatenation(inputs, axis);
}

TensorId ModelBuilder::add_transpose(TensorId input, const std::vector<int32_t>& perm) {
  const Tensor& in = checked(input, "add_transpose");
  if (perm.size() != in.shape.size()) bad_argument("add_transpose: one entry per dimension");
  std::vector<int32_t> shape(perm.size());
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || static_cast<size_t>(perm[i]) >= perm.size() || seen[perm[i]]) {
      bad_argument("add_transpose: not a permutation");
    }
    seen[perm[i]] = true;
    shape[i] = in.shape[perm[i]];
  }
  const std::string name = op_name("transpose");
  const TensorId p = add_int32_constant(name + "/perm", {static_cast<int32_t>(perm.size())}, perm);
  const TensorId out = add_activation_like(name, shape, input);
  return add_op(OpType::kTranspose, {input, p}, out, std::monostate{});
}

TensorId ModelBuilder::add_resize_nearest(TensorId input, int32_t height, int32_t width,
                                          bool align_corners, bool half_pixel_centers) {
  const Tensor& in = checked(input, "add_resize_nearest");
  if (in.shape.size() != 4) bad_argument("add_resize_nearest: NHWC input");
  if (height < 1 || width < 1) bad_argument("add_resize_nearest: size must be positive");
  const std::vector<int32_t> shape = {in.shape[0], height, width, in.shape[3]};
  const std::string name = op_name("resize_nearest_neighbor");
  const TensorId s = add_int32_constant(name + "/size", {2}, {height, width});
  const TensorId out = add_activation_like(name, shape, input);
  return add_op(OpType::kResizeNearestNeighbor, {input, s}, out,
                ir::ResizeNearestNeighborOptions{align_corners, half_pixel_centers});
}

TensorId ModelBuilder::add_resize_bilinear(TensorId input, int32_t height, int32_t width,
                                           bool align_corners, bool half_pixel_centers) {
  const Tensor& in = checked(input, "add_resize_bilinear");
  if (in.shape.size() != 4) bad_argument("add_resize_bilinear: NHWC input");
  if (height < 1 || width < 1) bad_argument("add_resize_bilinear: size must be positive");
  const std::vector<int32_t> shape = {in.shape[0], height, width, in.shape[3]};
  const std::string name = op_name("resize_bilinear");
  const TensorId s = add_int32_constant(name + "/size", {2}, {height, width});
  const TensorId out = add_activation_like(name, shape, input);
  return add_op(OpType::kResizeBilinear, {input, s}, out,
                ir::ResizeNearestNeighborOptions{align_corners, half_pixel_centers});
}

void ModelBuilder::mark_output(TensorId tensor) {
  checked(tensor, "mark_output");
  graph_.outputs.push_back(tensor);
}

ir::Graph ModelBuilder::build() const {
  ops::validate(graph_);
  return graph_;
}

}  // namespace mote::builder

// --- data movement ------------------------------------------------------------------------------

namespace mote::builder {

namespace {
int32_t resolve_axis(int32_t axis, size_t rank, const char* what) {
  const int32_t r = static_cast<int32_t>(rank);
  if (axis < -r || axis >= r) bad_argument(std::string(what) + ": axis out of range");
  return axis < 0 ? axis + r : axis;
}
}  // namespace

std::vector<TensorId> ModelBuilder::add_multi_output_op(
    OpType type, std::vector<int32_t> inputs, const std::vector<std::vector<int32_t>>& shapes,
    TensorId like, ir::Options options) {
  const std::string name = op_name(std::string(ir::to_string(type)).c_str());
  std::vector<TensorId> outputs;
  for (size_t j = 0; j < shapes.size(); ++j) {
    outputs.push_back(add_activation_like(name + ":" + std::to_string(j), shapes[j], like));
  }
  ir::Operator op;
  op.type = type;
  op.inputs = std::move(inputs);
  op.outputs = outputs;
  op.options = std::move(options);
  graph_.operators.push_back(std::move(op));
  return outputs;
}

TensorId ModelBuilder::add_strided_slice(TensorId input, const std::vector<int32_t>& begin,
                                         const std::vector<int32_t>& end,
                                         const std::vector<int32_t>& strides,
                                         const ir::StridedSliceOptions& masks) {
  const Tensor& in = checked(input, "add_strided_slice");
  ops::ResolvedSlice r;
  const std::string why = ops::resolve_strided_slice(in.shape, begin, end, strides, masks, &r);
  if (!why.empty()) bad_argument("add_strided_slice: " + why);
  const std::string name = op_name("strided_slice");
  const int32_t n = static_cast<int32_t>(begin.size());
  const TensorId b = add_int32_constant(name + "/begin", {n}, begin);
  const TensorId e = add_int32_constant(name + "/end", {n}, end);
  const TensorId s = add_int32_constant(name + "/strides", {n}, strides);
  const TensorId out = add_activation_like(name, r.output_shape, input);
  return add_op(OpType::kStridedSlice, {input, b, e, s}, out, masks);
}

TensorId ModelBuilder::add_slice(TensorId input, const std::vector<int32_t>& begin,
                                 const std::vector<int32_t>& size) {
  const Tensor& in = checked(input, "add_slice");
  ops::ResolvedSlice r;
  const std::string why = ops::resolve_slice(in.shape, begin, size, &r);
  if (!why.empty()) bad_argument("add_slice: " + why);
  const std::string name = op_name("slice");
  const int32_t n = static_cast<int32_t>(begin.size());
  const TensorId b = add_int32_constant(name + "/begin", {n}, begin);
  const TensorId z = add_int32_constant(name + "/size", {n}, size);
  const TensorId out = add_activation_like(name, r.output_shape, input);
  return add_op(OpType::kSlice, {input, b, z}, out, std::monostate{});
}

std::vector<TensorId> ModelBuilder::add_split(TensorId input, int32_t axis, int32_t num_splits) {
  const Tensor& in = checked(input, "add_split");
  const int32_t a = resolve_axis(axis, in.shape.size(), "add_split");
  if (num_splits < 1 || in.shape[a] % num_splits != 0) bad_argument("add_split: uneven split");
  std::vector<int32_t> shape = in.shape;
  shape[a] /= num_splits;
  const TensorId axis_tensor = add_int32_constant(op_name("split") + "/axis", {}, {axis});
  return add_multi_output_op(OpType::kSplit, {axis_tensor, input},
                             std::vector<std::vector<int32_t>>(num_splits, shape), input,
                             ir::SplitOptions{num_splits});
}

std::vector<TensorId> ModelBuilder::add_split_v(TensorId input, const std::vector<int32_t>& sizes,
                                                int32_t axis) {
  const Tensor& in = checked(input, "add_split_v");
  const int32_t a = resolve_axis(axis, in.shape.size(), "add_split_v");
  int32_t known = 0, unknown = -1;
  for (size_t j = 0; j < sizes.size(); ++j) {
    if (sizes[j] == -1) {
      unknown = static_cast<int32_t>(j);
    } else {
      known += sizes[j];
    }
  }
  std::vector<std::vector<int32_t>> shapes;
  for (size_t j = 0; j < sizes.size(); ++j) {
    std::vector<int32_t> shape = in.shape;
    shape[a] = static_cast<int32_t>(j) == unknown ? in.shape[a] - known : sizes[j];
    shapes.push_back(shape);
  }
  const std::string name = op_name("split_v");
  const TensorId s =
      add_int32_constant(name + "/size_splits", {static_cast<int32_t>(sizes.size())}, sizes);
  const TensorId axis_tensor = add_int32_constant(name + "/axis", {}, {axis});
  return add_multi_output_op(OpType::kSplitV, {input, s, axis_tensor}, shapes, input,
                             ir::SplitOptions{static_cast<int32_t>(sizes.size())});
}

TensorId ModelBuilder::add_pack(const std::vector<TensorId>& inputs, int32_t axis) {
  if (inputs.empty()) bad_argument("add_pack: no inputs");
  const Tensor& first = checked(inputs[0], "add_pack");
  const int32_t a = resolve_axis(axis, first.shape.size() + 1, "add_pack");
  std::vector<int32_t> shape = first.shape;
  shape.insert(shape.begin() + a, static_cast<int32_t>(inputs.size()));
  const TensorId out = add_activation_like(op_name("pack"), shape, inputs[0]);
  return add_op(OpType::kPack, inputs, out,
                ir::PackOptions{static_cast<int32_t>(inputs.size()), axis});
}

std::vector<TensorId> ModelBuilder::add_unpack(TensorId input, int32_t axis) {
  const Tensor& in = checked(input, "add_unpack");
  const int32_t a = resolve_axis(axis, in.shape.size(), "add_unpack");
  std::vector<int32_t> shape = in.shape;
  const int32_t num = shape[a];
  shape.erase(shape.begin() + a);
  return add_multi_output_op(OpType::kUnpack, {input},
                             std::vector<std::vector<int32_t>>(num, shape), input,
                             ir::UnpackOptions{num, axis});
}

TensorId ModelBuilder::add_gather(TensorId input, const std::vector<int32_t>& indices,
                                  const std::vector<int32_t>& indices_shape, int32_t axis,
                                  int32_t batch_dims) {
  checked(input, "add_gather");
  const TensorId idx = add_int32_constant(op_name("gather") + "/indices", indices_shape, indices);
  return add_gather_by(input, idx, axis, batch_dims);
}

TensorId ModelBuilder::add_gather_by(TensorId input, TensorId indices, int32_t axis,
                                  int32_t batch_dims) {
  const Tensor& in = checked(input, "add_gather");
  const Tensor& idx = checked(indices, "add_gather");
  const int32_t a = resolve_axis(axis, in.shape.size(), "add_gather");
  const int32_t bd = batch_dims < 0 ? batch_dims + static_cast<int32_t>(idx.shape.size())
                                    : batch_dims;
  if (bd < 0 || bd > a || bd > static_cast<int32_t>(idx.shape.size())) {
    bad_argument("add_gather: batch_dims out of range");
  }
  std::vector<int32_t> shape(in.shape.begin(), in.shape.begin() + a);
  shape.insert(shape.end(), idx.shape.begin() + bd, idx.shape.end());
  shape.insert(shape.end(), in.shape.begin() + a + 1, in.shape.end());
  const TensorId out = add_activation_like(op_name("gather"), shape, input);
  return add_op(OpType::kGather, {input, indices}, out, ir::GatherOptions{axis, batch_dims});
}

TensorId ModelBuilder::add_depth_to_space(TensorId input, int32_t block_size) {
  const Tensor& in = checked(input, "add_depth_to_space");
  if (in.shape.size() != 4 || block_size < 1 || in.shape[3] % (block_size * block_size) != 0) {
    bad_argument("add_depth_to_space: NHWC input with depth a multiple of block_size^2");
  }
  const std::vector<int32_t> shape = {in.shape[0], in.shape[1] * block_size,
                                      in.shape[2] * block_size,
                                      in.shape[3] / (block_size * block_size)};
  const TensorId out = add_activation_like(op_name("depth_to_space"), shape, input);
  return add_op(OpType::kDepthToSpace, {input}, out, ir::BlockSizeOptions{block_size});
}

TensorId ModelBuilder::add_space_to_depth(TensorId input, int32_t block_size) {
  const Tensor& in = checked(input, "add_space_to_depth");
  if (in.shape.size() != 4 || block_size < 1 || in.shape[1] % block_size != 0 ||
      in.shape[2] % block_size != 0) {
    bad_argument("add_space_to_depth: NHWC input with height and width multiples of block_size");
  }
  const std::vector<int32_t> shape = {in.shape[0], in.shape[1] / block_size,
                                      in.shape[2] / block_size,
                                      in.shape[3] * block_size * block_size};
  const TensorId out = add_activation_like(op_name("space_to_depth"), shape, input);
  return add_op(OpType::kSpaceToDepth, {input}, out, ir::BlockSizeOptions{block_size});
}

}  // namespace mote::builder
