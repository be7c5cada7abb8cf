#include "compiler/ir/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "compiler/ir/error.h"

namespace mote::ir {
namespace {

// Relative tolerance for "the same scale" (TFLite compares pooling scales to 1e-6 absolute and
// concatenation scales exactly; scales written by converters are bit-identical in practice).
constexpr double kSameScaleTolerance = 1e-5;
// Relative tolerance between a bias scale and input scale * weight scale. Converters compute the
// product in float, so a correct model is within a few ulps; anything larger would shift every
// accumulator.
constexpr double kBiasScaleTolerance = 1e-4;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string tensor_label(const Graph& g, int32_t index) {
  return "tensor " + std::to_string(index) + " (" + g.tensors[index].name + ")";
}

bool close(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

std::vector<int32_t> int32_values(const Tensor& t) {
  std::vector<int32_t> values(t.data.size() / sizeof(int32_t));
  if (!values.empty()) std::memcpy(values.data(), t.data.data(), values.size() * sizeof(int32_t));
  return values;
}

void check_tensor(const Graph& g, int32_t index) {
  const Tensor& t = g.tensors[index];
  auto bad = [&](const std::string& why) {
    throw InputError(tensor_label(g, index) + ": " + why);
  };
  if (t.shape.size() > kMaxRank) {
    bad("rank " + std::to_string(t.shape.size()) + " exceeds " + std::to_string(kMaxRank));
  }
  if (t.type != DataType::kFloat32 && t.type != DataType::kInt8 && t.type != DataType::kInt32) {
    bad("type " + std::string(to_string(t.type)) + " not supported");
  }
  int64_t bytes = static_cast<int64_t>(element_size(t.type));
  for (int32_t d : t.shape) {
    if (d < 1) bad("shape " + shape_string(t.shape) + " has a dimension below 1");
    bytes *= d;  // both factors < 2^31: no overflow before the check below
    if (bytes > kMaxTensorBytes) bad("shape " + shape_string(t.shape) + " is larger than 2 GiB");
  }

  const Quantization& q = t.quantization;
  if (q.scale.size() != q.zero_point.size()) {
    bad("quantization has " + std::to_string(q.scale.size()) + " scales but " +
        std::to_string(q.zero_point.size()) + " zero points");
  }
  if (q.scale.empty()) {
    if (q.quantized_dimension != 0) bad("quantized_dimension set without quantization");
    if (t.type == DataType::kInt8) bad("int8 tensor without quantization");
  } else {
    const int32_t rank = static_cast<int32_t>(t.shape.size());
    const int32_t qd = q.quantized_dimension;
    if (qd < 0 || (rank > 0 && qd >= rank) || (rank == 0 && qd != 0)) {
      bad("quantized_dimension " + std::to_string(qd) + " out of range for shape " +
          shape_string(t.shape));
    }
    if (q.scale.size() > 1 && (rank == 0 || q.scale.size() != static_cast<size_t>(t.shape[qd]))) {
      bad(std::to_string(q.scale.size()) + " scales for dimension " + std::to_string(qd) +
          " of shape " + shape_string(t.shape));
    }
    for (size_t c = 0; c < q.scale.size(); ++c) {
      if (!std::isfinite(q.scale[c]) || q.scale[c] <= 0.0f) {
        bad("scale[" + std::to_string(c) + "] " + num(q.scale[c]) +
            " is not a positive finite number");
      }
      const int64_t zp = q.zero_point[c];
      const bool in_range =
          t.type == DataType::kInt8 ? (zp >= -128 && zp <= 127)
          : t.type == DataType::kInt32
              ? (zp >= std::numeric_limits<int32_t>::min() && zp <= std::numeric_limits<int32_t>::max())
              : true;
      if (!in_range) {
        bad("zero_point[" + std::to_string(c) + "] " + std::to_string(zp) + " out of range for " +
            std::string(to_string(t.type)));
      }
    }
  }

  if (t.is_constant) {
    if (static_cast<int64_t>(t.data.size()) != bytes) {
      bad("constant holds " + std::to_string(t.data.size()) + " bytes, " +
          std::string(to_string(t.type)) + " " + shape_string(t.shape) + " needs " +
          std::to_string(bytes));
    }
  } else if (!t.data.empty()) {
    bad("holds data but is not marked constant");
  }
}

// Checks one operator; every failure names it.
class OpChecker {
 public:
  OpChecker(const Graph& g, size_t index) : g_(g), index_(index), op_(g.operators[index]) {}

  void run() {
    switch (op_.type) {
      case OpType::kConv2D: return conv2d();
      case OpType::kDepthwiseConv2D: return depthwise();
      case OpType::kFullyConnected: return fully_connected();
      case OpType::kAveragePool2D:
      case OpType::kMaxPool2D: return pool();
      case OpType::kAdd:
      case OpType::kMul: return elementwise();
      case OpType::kSoftmax: return softmax();
      case OpType::kReshape: return reshape();
      case OpType::kQuantize: return quantize();
      case OpType::kDequantize: return dequantize();
      case OpType::kPad: return pad();
      case OpType::kMean: return mean();
      case OpType::kConcatenation: return concatenation();
      case OpType::kTranspose: return transpose();
      case OpType::kLogistic: return fixed_output_unary();
      case OpType::kResizeNearestNeighbor: return resize_nearest();
      case OpType::kHardSwish: return hard_swish();
    }
    fail("unknown operator type");
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw InputError("operator " + std::to_string(index_) + " (" + std::string(to_string(op_.type)) +
                     "): " + why);
  }

  // Operators list their inputs and outputs; indices were range-checked by the caller.
  // Inputs from `first_optional` on may be kNoTensor.
  void arity(size_t min_inputs, size_t max_inputs, size_t first_optional = SIZE_MAX) {
    if (op_.inputs.size() < min_inputs || op_.inputs.size() > max_inputs) {
      fail("has " + std::to_string(op_.inputs.size()) + " inputs, expected " +
           (min_inputs == max_inputs ? std::to_string(min_inputs)
            : max_inputs == SIZE_MAX
                ? "at least " + std::to_string(min_inputs)
                : std::to_string(min_inputs) + " to " + std::to_string(max_inputs)));
    }
    if (op_.outputs.size() != 1) {
      fail("has " + std::to_string(op_.outputs.size()) + " outputs, expected 1");
    }
    for (size_t k = 0; k < op_.inputs.size(); ++k) {
      if (op_.inputs[k] == kNoTensor && k < first_optional) {
        fail("input " + std::to_string(k) + " is required but absent");
      }
    }
  }

  bool has_input(size_t k) const { return k < op_.inputs.size() && op_.inputs[k] != kNoTensor; }
  const Tensor& in(size_t k) const { return g_.tensors[op_.inputs[k]]; }
  const Tensor& out() const { return g_.tensors[op_.outputs[0]]; }
  std::string in_label(size_t k) const {
    return "input " + std::to_string(k) + " (tensor " + std::to_string(op_.inputs[k]) + ")";
  }
  std::string out_label() const {
    return "output (tensor " + std::to_string(op_.outputs[0]) + ")";
  }

  // An operand, named only when a message needs it: kOutput or an input index.
  static constexpr size_t kOutput = SIZE_MAX;
  const Tensor& operand(size_t k) const { return k == kOutput ? out() : in(k); }
  std::string label(size_t k) const { return k == kOutput ? out_label() : in_label(k); }

  void expect_type(size_t k, DataType type) const {
    const Tensor& t = operand(k);
    if (t.type != type) {
      fail(label(k) + " has type " + std::string(to_string(t.type)) + ", expected " +
           std::string(to_string(type)));
    }
  }
  void expect_rank(size_t k, size_t rank) const {
    const Tensor& t = operand(k);
    if (t.shape.size() != rank) {
      fail(label(k) + " has shape " + shape_string(t.shape) + ", expected rank " +
           std::to_string(rank));
    }
  }
  void expect_per_tensor(size_t k) const {
    const Tensor& t = operand(k);
    if (t.quantization.scale.size() != 1) {
      fail(label(k) + " needs one quantization scale, has " +
           std::to_string(t.quantization.scale.size()));
    }
  }

  // An int8 activation input: not constant, one scale.
  const Tensor& data_input(size_t k, DataType type = DataType::kInt8) const {
    const Tensor& t = in(k);
    expect_type(k, type);
    if (t.is_constant) fail(in_label(k) + " is a constant; expected an activation");
    if (type == DataType::kInt8) expect_per_tensor(k);
    return t;
  }
  const Tensor& data_output(DataType type = DataType::kInt8) const {
    expect_type(kOutput, type);
    if (type == DataType::kInt8) expect_per_tensor(kOutput);
    return out();
  }
  // A constant parameter input (weights, bias, shape, axes ...).
  const Tensor& param_input(size_t k, DataType type) const {
    const Tensor& t = in(k);
    expect_type(k, type);
    if (!t.is_constant) fail(in_label(k) + " must be a constant");
    return t;
  }
  void expect_output_shape(const std::vector<int32_t>& expected) const {
    if (out().shape != expected) {
      fail(out_label() + " has shape " + shape_string(out().shape) + ", expected " +
           shape_string(expected));
    }
  }
  void expect_same_quantization(size_t k) const {
    const Quantization& a = in(k).quantization;
    const Quantization& b = out().quantization;
    if (a.zero_point[0] != b.zero_point[0] ||
        !close(a.scale[0], b.scale[0], kSameScaleTolerance)) {
      fail(out_label() + " quantization (scale " + num(b.scale[0]) + ", zero point " +
           std::to_string(b.zero_point[0]) + ") differs from " + in_label(k) + " (scale " +
           num(a.scale[0]) + ", zero point " + std::to_string(a.zero_point[0]) + ")");
    }
  }
  void expect_fixed_output_quantization() const {
    const Quantization& q = out().quantization;
    if (q.zero_point[0] != -128 || std::fabs(q.scale[0] - 1.0 / 256) > 0.001 / 256) {
      fail(out_label() + " must have scale 1/256 and zero point -128, has scale " +
           num(q.scale[0]) + " and zero point " + std::to_string(q.zero_point[0]));
    }
  }

  template <typename T>
  const T& options() const {
    const T* o = std::get_if<T>(&op_.options);
    if (o == nullptr) fail("options do not match the operator type");
    return *o;
  }
  void no_options() const {
    if (!std::holds_alternative<std::monostate>(op_.options)) fail("takes no options");
  }

  void check_window(int32_t stride_h, int32_t stride_w, int32_t dilation_h, int32_t dilation_w) const {
    if (stride_h < 1 || stride_w < 1) {
      fail("stride " + std::to_string(stride_h) + "x" + std::to_string(stride_w) + " must be >= 1");
    }
    if (dilation_h < 1 || dilation_w < 1) {
      fail("dilation " + std::to_string(dilation_h) + "x" + std::to_string(dilation_w) +
           " must be >= 1");
    }
  }
  int32_t output_size(int32_t input, int32_t filter, int32_t stride, int32_t dilation,
                      Padding padding, const char* axis) const {
    const int64_t o = window_output_size(input, filter, stride, dilation, padding);
    if (o < 1) {
      fail(std::string("window of ") + std::to_string(filter) + " (dilation " +
           std::to_string(dilation) + ") does not fit the input " + axis + " " +
           std::to_string(input) + " with VALID padding");
    }
    return static_cast<int32_t>(o);
  }

  // Symmetric weights with one scale or one per output channel along `channel_dim`, and an
  // optional int32 bias whose scales are input scale * weight scale.
  void check_weights_and_bias(const Tensor& input, const Tensor& weights, size_t channel_dim,
                              int32_t out_channels) const {
    const Quantization& wq = weights.quantization;
    if (wq.scale.empty()) fail(in_label(1) + " (weights) is not quantized");
    if (wq.scale.size() != 1 && wq.scale.size() != static_cast<size_t>(out_channels)) {
      fail(in_label(1) + " has " + std::to_string(wq.scale.size()) + " scales, expected 1 or " +
           std::to_string(out_channels) + " (one per output channel)");
    }
    if (wq.scale.size() > 1 && wq.quantized_dimension != static_cast<int32_t>(channel_dim)) {
      fail(in_label(1) + " is quantized along dimension " +
           std::to_string(wq.quantized_dimension) + ", expected " + std::to_string(channel_dim));
    }
    for (size_t c = 0; c < wq.zero_point.size(); ++c) {
      if (wq.zero_point[c] != 0) {
        fail(in_label(1) + " zero_point[" + std::to_string(c) + "] is " +
             std::to_string(wq.zero_point[c]) + "; int8 weights must be symmetric (0)");
      }
    }
    if (!has_input(2)) return;
    const Tensor& bias = param_input(2, DataType::kInt32);
    if (bias.shape != std::vector<int32_t>{out_channels}) {
      fail(in_label(2) + " (bias) has shape " + shape_string(bias.shape) + ", expected [" +
           std::to_string(out_channels) + "]");
    }
    const Quantization& bq = bias.quantization;
    if (bq.scale.size() != wq.scale.size()) {
      fail(in_label(2) + " (bias) has " + std::to_string(bq.scale.size()) +
           " scales, expected " + std::to_string(wq.scale.size()) + " like the weights");
    }
    const double input_scale = input.quantization.scale[0];
    for (size_t c = 0; c < bq.scale.size(); ++c) {
      if (bq.zero_point[c] != 0) {
        fail(in_label(2) + " (bias) zero_point[" + std::to_string(c) + "] must be 0");
      }
      const double expected = input_scale * static_cast<double>(wq.scale[c]);
      if (!close(bq.scale[c], expected, kBiasScaleTolerance)) {
        fail(in_label(2) + " (bias) scale[" + std::to_string(c) + "] " + num(bq.scale[c]) +
             " differs from input scale * weight scale " + num(expected));
      }
    }
  }

  void conv2d() {
    arity(2, 3, 2);
    const auto& o = options<Conv2DOptions>();
    const Tensor& input = data_input(0);
    const Tensor& weights = param_input(1, DataType::kInt8);
    expect_rank(0, 4);
    expect_rank(1, 4);
    data_output();
    const int32_t co = weights.shape[0], kh = weights.shape[1], kw = weights.shape[2];
    const int32_t cf = weights.shape[3], ci = input.shape[3];
    if (ci % cf != 0) {
      fail("filter depth " + std::to_string(cf) + " does not divide the input channels " +
           std::to_string(ci));
    }
    if (co % (ci / cf) != 0) {
      fail("output channels " + std::to_string(co) + " not a multiple of the " +
           std::to_string(ci / cf) + " groups");
    }
    check_window(o.stride_h, o.stride_w, o.dilation_h, o.dilation_w);
    expect_output_shape({input.shape[0],
                         output_size(input.shape[1], kh, o.stride_h, o.dilation_h, o.padding, "height"),
                         output_size(input.shape[2], kw, o.stride_w, o.dilation_w, o.padding, "width"),
                         co});
    check_weights_and_bias(input, weights, 0, co);
  }

  void depthwise() {
    arity(2, 3, 2);
    const auto& o = options<DepthwiseConv2DOptions>();
    const Tensor& input = data_input(0);
    const Tensor& weights = param_input(1, DataType::kInt8);
    expect_rank(0, 4);
    expect_rank(1, 4);
    data_output();
    if (weights.shape[0] != 1) {
      fail(in_label(1) + " has shape " + shape_string(weights.shape) + ", expected [1,h,w,channels]");
    }
    const int32_t kh = weights.shape[1], kw = weights.shape[2], co = weights.shape[3];
    const int32_t ci = input.shape[3];
    if (o.depth_multiplier < 1 || static_cast<int64_t>(ci) * o.depth_multiplier != co) {
      fail("input channels " + std::to_string(ci) + " * depth multiplier " +
           std::to_string(o.depth_multiplier) + " != filter channels " + std::to_string(co));
    }
    check_window(o.stride_h, o.stride_w, o.dilation_h, o.dilation_w);
    expect_output_shape({input.shape[0],
                         output_size(input.shape[1], kh, o.stride_h, o.dilation_h, o.padding, "height"),
                         output_size(input.shape[2], kw, o.stride_w, o.dilation_w, o.padding, "width"),
                         co});
    check_weights_and_bias(input, weights, 3, co);
  }

  void fully_connected() {
    arity(2, 3, 2);
    const auto& o = options<FullyConnectedOptions>();
    const Tensor& input = data_input(0);
    const Tensor& weights = param_input(1, DataType::kInt8);
    expect_rank(1, 2);
    data_output();
    const int32_t units = weights.shape[0], depth = weights.shape[1];
    if (input.shape.empty()) fail(in_label(0) + " is a scalar");
    if (input.num_elements() % depth != 0) {
      fail(in_label(0) + " shape " + shape_string(input.shape) + " does not split into rows of " +
           std::to_string(depth));
    }
    std::vector<int32_t> expected;
    if (o.keep_num_dims) {
      if (input.shape.back() != depth) {
        fail(in_label(0) + " last dimension " + std::to_string(input.shape.back()) +
             " != weight depth " + std::to_string(depth) + " (keep_num_dims)");
      }
      expected = input.shape;
      expected.back() = units;
    } else {
      expected = {static_cast<int32_t>(input.num_elements() / depth), units};
    }
    expect_output_shape(expected);
    check_weights_and_bias(input, weights, 0, units);
  }

  void pool() {
    arity(1, 1);
    const auto& o = options<Pool2DOptions>();
    const Tensor& input = data_input(0);
    expect_rank(0, 4);
    data_output();
    if (o.filter_h < 1 || o.filter_w < 1) {
      fail("filter " + std::to_string(o.filter_h) + "x" + std::to_string(o.filter_w) +
           " must be >= 1");
    }
    check_window(o.stride_h, o.stride_w, 1, 1);
    expect_output_shape({input.shape[0],
                         output_size(input.shape[1], o.filter_h, o.stride_h, 1, o.padding, "height"),
                         output_size(input.shape[2], o.filter_w, o.stride_w, 1, o.padding, "width"),
                         input.shape[3]});
    expect_same_quantization(0);
  }

  void elementwise() {
    arity(2, 2);
    options<ElementwiseOptions>();
    const Tensor& a = data_input(0);
    const Tensor& b = data_input(1);
    data_output();
    const size_t rank = std::max(a.shape.size(), b.shape.size());
    std::vector<int32_t> expected(rank);
    for (size_t i = 0; i < rank; ++i) {
      const int32_t da = i < rank - a.shape.size() ? 1 : a.shape[i - (rank - a.shape.size())];
      const int32_t db = i < rank - b.shape.size() ? 1 : b.shape[i - (rank - b.shape.size())];
      if (da != db && da != 1 && db != 1) {
        fail("input shapes " + shape_string(a.shape) + " and " + shape_string(b.shape) +
             " do not broadcast");
      }
      expected[i] = std::max(da, db);
    }
    expect_output_shape(expected);
  }

  void softmax() {
    arity(1, 1);
    const auto& o = options<SoftmaxOptions>();
    const Tensor& input = data_input(0);
    data_output();
    if (input.shape.empty()) fail(in_label(0) + " is a scalar");
    if (!std::isfinite(o.beta) || o.beta <= 0.0f) fail("beta " + num(o.beta) + " must be positive");
    expect_output_shape(input.shape);
    expect_fixed_output_quantization();
  }

  // Resolves a TFLite shape list (one entry may be -1) against `elements`; fails unless it
  // equals the output shape.
  void expect_reshape_target(const std::vector<int32_t>& target, int64_t elements,
                             const char* what) const {
    std::vector<int32_t> resolved = target;
    int64_t known = 1;
    int unknown = -1;
    for (size_t i = 0; i < target.size(); ++i) {
      if (target[i] == -1 && unknown < 0) {
        unknown = static_cast<int>(i);
      } else if (target[i] < 1) {
        fail(describe_target(what) + " " + shape_string(target) + " is not a valid shape");
      } else {
        known *= target[i];
        if (known > elements) break;
      }
    }
    if (unknown >= 0 && known > 0 && elements % known == 0) {
      resolved[unknown] = static_cast<int32_t>(elements / known);
    }
    if (resolved != out().shape) {
      fail(describe_target(what) + " " + shape_string(target) + " does not match " + out_label() +
           " shape " + shape_string(out().shape));
    }
  }

  std::string describe_target(const char* what) const {
    return what == nullptr ? in_label(1) + " (shape)" : std::string(what);
  }

  void reshape() {
    arity(1, 2, 1);
    const auto& o = options<ReshapeOptions>();
    const Tensor& input = data_input(0);
    data_output();
    if (out().num_elements() != input.num_elements()) {
      fail(out_label() + " shape " + shape_string(out().shape) + " holds a different number of " +
           "elements than " + in_label(0) + " shape " + shape_string(input.shape));
    }
    expect_same_quantization(0);
    if (has_input(1)) {
      const Tensor& shape = param_input(1, DataType::kInt32);
      expect_rank(1, 1);
      expect_reshape_target(int32_values(shape), input.num_elements(), nullptr);
    } else if (!o.new_shape.empty()) {
      expect_reshape_target(o.new_shape, input.num_elements(), "new_shape");
    }
  }

  void quantize() {
    arity(1, 1);
    no_options();
    const Tensor& input = in(0);
    if (input.type != DataType::kFloat32 && input.type != DataType::kInt8) {
      fail(in_label(0) + " has type " + std::string(to_string(input.type)) +
           ", expected float32 or int8");
    }
    data_input(0, input.type);
    data_output();
    expect_output_shape(input.shape);
  }

  void dequantize() {
    arity(1, 1);
    no_options();
    const Tensor& input = data_input(0);
    data_output(DataType::kFloat32);
    expect_output_shape(input.shape);
  }

  void pad() {
    arity(2, 2);
    no_options();
    const Tensor& input = data_input(0);
    data_output();
    const Tensor& paddings = param_input(1, DataType::kInt32);
    const std::vector<int32_t> expected_shape = {static_cast<int32_t>(input.shape.size()), 2};
    if (paddings.shape != expected_shape) {
      fail(in_label(1) + " (paddings) has shape " + shape_string(paddings.shape) + ", expected " +
           shape_string(expected_shape));
    }
    const std::vector<int32_t> p = int32_values(paddings);
    std::vector<int32_t> expected = input.shape;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (p[2 * i] < 0 || p[2 * i + 1] < 0) fail(in_label(1) + " (paddings) has a negative entry");
      const int64_t d = int64_t{expected[i]} + p[2 * i] + p[2 * i + 1];
      if (d > std::numeric_limits<int32_t>::max()) fail(in_label(1) + " (paddings) too large");
      expected[i] = static_cast<int32_t>(d);
    }
    expect_output_shape(expected);
    expect_same_quantization(0);
  }

  void mean() {
    arity(2, 2);
    const auto& o = options<MeanOptions>();
    const Tensor& input = data_input(0);
    data_output();
    const Tensor& axes = param_input(1, DataType::kInt32);
    if (axes.shape.size() > 1) fail(in_label(1) + " (axes) must be a scalar or a list");
    const int32_t rank = static_cast<int32_t>(input.shape.size());
    std::vector<bool> reduced(input.shape.size(), false);
    for (int32_t a : int32_values(axes)) {
      if (a < -rank || a >= rank) {
        fail("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
      }
      reduced[a < 0 ? a + rank : a] = true;
    }
    std::vector<int32_t> expected;
    for (size_t i = 0; i < input.shape.size(); ++i) {
      if (!reduced[i]) {
        expected.push_back(input.shape[i]);
      } else if (o.keep_dims) {
        expected.push_back(1);
      }
    }
    expect_output_shape(expected);
  }

  void concatenation() {
    arity(1, SIZE_MAX);
    const auto& o = options<ConcatenationOptions>();
    const Tensor& output = data_output();
    const int32_t rank = static_cast<int32_t>(output.shape.size());
    if (o.axis < -rank || o.axis >= rank) {
      fail("axis " + std::to_string(o.axis) + " out of range for rank " + std::to_string(rank));
    }
    const size_t axis = static_cast<size_t>(o.axis < 0 ? o.axis + rank : o.axis);
    std::vector<int32_t> expected;
    int64_t total = 0;
    for (size_t k = 0; k < op_.inputs.size(); ++k) {
      const Tensor& t = data_input(k);
      if (t.shape.size() != output.shape.size()) {
        fail(in_label(k) + " has rank " + std::to_string(t.shape.size()) + ", expected " +
             std::to_string(rank));
      }
      if (k == 0) expected = t.shape;
      for (size_t i = 0; i < t.shape.size(); ++i) {
        if (i != axis && t.shape[i] != expected[i]) {
          fail(in_label(k) + " shape " + shape_string(t.shape) + " differs from " +
               shape_string(expected) + " outside axis " + std::to_string(axis));
        }
      }
      total += t.shape[axis];
      expect_same_quantization(k);
    }
    if (total > std::numeric_limits<int32_t>::max()) fail("concatenated axis too large");
    expected[axis] = static_cast<int32_t>(total);
    expect_output_shape(expected);
  }

  void transpose() {
    arity(2, 2);
    no_options();
    const Tensor& input = data_input(0);
    data_output();
    const Tensor& perm = param_input(1, DataType::kInt32);
    const std::vector<int32_t> expected_shape = {static_cast<int32_t>(input.shape.size())};
    if (perm.shape != expected_shape) {
      fail(in_label(1) + " (permutation) has shape " + shape_string(perm.shape) + ", expected " +
           shape_string(expected_shape));
    }
    const std::vector<int32_t> p = int32_values(perm);
    std::vector<bool> seen(p.size(), false);
    std::vector<int32_t> expected(p.size());
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] < 0 || static_cast<size_t>(p[i]) >= p.size() || seen[p[i]]) {
        fail(in_label(1) + " " + shape_string(p) + " is not a permutation");
      }
      seen[p[i]] = true;
      expected[i] = input.shape[p[i]];
    }
    expect_output_shape(expected);
    expect_same_quantization(0);
  }

  void fixed_output_unary() {
    arity(1, 1);
    no_options();
    const Tensor& input = data_input(0);
    data_output();
    expect_output_shape(input.shape);
    expect_fixed_output_quantization();
  }

  void resize_nearest() {
    arity(2, 2);
    options<ResizeNearestNeighborOptions>();
    const Tensor& input = data_input(0);
    expect_rank(0, 4);
    data_output();
    const Tensor& size = param_input(1, DataType::kInt32);
    if (size.shape != std::vector<int32_t>{2}) {
      fail(in_label(1) + " (size) has shape " + shape_string(size.shape) + ", expected [2]");
    }
    const std::vector<int32_t> s = int32_values(size);
    if (s[0] < 1 || s[1] < 1) fail(in_label(1) + " (size) " + shape_string(s) + " must be positive");
    expect_output_shape({input.shape[0], s[0], s[1], input.shape[3]});
    expect_same_quantization(0);
  }

  void hard_swish() {
    arity(1, 1);
    no_options();
    const Tensor& input = data_input(0);
    data_output();
    expect_output_shape(input.shape);
  }

  const Graph& g_;
  size_t index_;
  const Operator& op_;
};

}  // namespace

int64_t window_output_size(int64_t input, int64_t filter, int64_t stride, int64_t dilation,
                           Padding padding) {
  const int64_t effective = (filter - 1) * dilation + 1;
  if (padding == Padding::kSame) return (input + stride - 1) / stride;
  if (effective > input) return 0;
  return (input - effective + stride) / stride;
}

int64_t window_padding_before(int64_t input, int64_t filter, int64_t stride, int64_t dilation,
                              Padding padding) {
  if (padding == Padding::kValid) return 0;
  const int64_t effective = (filter - 1) * dilation + 1;
  const int64_t out = window_output_size(input, filter, stride, dilation, padding);
  const int64_t total = std::max<int64_t>((out - 1) * stride + effective - input, 0);
  return total / 2;
}

void validate(const Graph& g) {
  const int64_t num_tensors = static_cast<int64_t>(g.tensors.size());
  if (num_tensors > std::numeric_limits<int32_t>::max()) throw InputError("too many tensors");
  for (int32_t i = 0; i < static_cast<int32_t>(num_tensors); ++i) check_tensor(g, i);

  auto in_range = [&](int32_t t) { return t >= 0 && t < num_tensors; };
  if (g.operators.empty()) throw InputError("graph has no operators");
  if (g.outputs.empty()) throw InputError("graph has no outputs");

  // Tensors readable so far: constants, graph inputs, then each operator's outputs.
  std::vector<bool> available(g.tensors.size(), false);
  for (size_t i = 0; i < g.tensors.size(); ++i) available[i] = g.tensors[i].is_constant;
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    const int32_t t = g.inputs[k];
    if (!in_range(t)) {
      throw InputError("graph input " + std::to_string(k) + " refers to tensor " +
                       std::to_string(t) + ", out of range (" + std::to_string(num_tensors) +
                       " tensors)");
    }
    if (g.tensors[t].is_constant) {
      throw InputError("graph input " + std::to_string(k) + ": " + tensor_label(g, t) +
                       " is a constant");
    }
    if (available[t]) {
      throw InputError("graph input " + std::to_string(k) + ": " + tensor_label(g, t) +
                       " is listed twice");
    }
    available[t] = true;
  }

  for (size_t i = 0; i < g.operators.size(); ++i) {
    const Operator& op = g.operators[i];
    auto where = [&] {
      return "operator " + std::to_string(i) + " (" + std::string(to_string(op.type)) + "): ";
    };
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const int32_t t = op.inputs[k];
      if (t == kNoTensor) continue;
      if (!in_range(t)) {
        throw InputError(where() + "input " + std::to_string(k) + " refers to tensor " +
                         std::to_string(t) + ", out of range (" + std::to_string(num_tensors) +
                         " tensors)");
      }
      if (!available[t]) {
        throw InputError(where() + "input " + std::to_string(k) + " (" + tensor_label(g, t) +
                         ") is read before any operator produces it");
      }
    }
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      const int32_t t = op.outputs[k];
      if (!in_range(t)) {
        throw InputError(where() + "output " + std::to_string(k) + " refers to tensor " +
                         std::to_string(t) + ", out of range (" + std::to_string(num_tensors) +
                         " tensors)");
      }
      if (available[t]) {
        throw InputError(where() + "output " + std::to_string(k) + " (" + tensor_label(g, t) +
                         ") is a constant, a graph input or already produced");
      }
    }
    OpChecker(g, i).run();
    for (int32_t t : op.outputs) available[t] = true;
  }

  for (size_t k = 0; k < g.outputs.size(); ++k) {
    const int32_t t = g.outputs[k];
    if (!in_range(t)) {
      throw InputError("graph output " + std::to_string(k) + " refers to tensor " +
                       std::to_string(t) + ", out of range (" + std::to_string(num_tensors) +
                       " tensors)");
    }
    if (!available[t] || g.tensors[t].is_constant) {
      throw InputError("graph output " + std::to_string(k) + ": " + tensor_label(g, t) +
                       " is not produced by any operator or graph input");
    }
  }
}

}  // namespace mote::ir
