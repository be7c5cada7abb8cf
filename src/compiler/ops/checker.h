#pragma once
// The checks operator definitions are made of (src/compiler/ops/*.cc, `OpDef::check`): arity,
// operand types, quantization, weights and bias, windows and the expected output shape. Every
// failure throws mote::InputError naming the operator ("operator 3 (CONV_2D): ...").

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "compiler/ir/error.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/label.h"
#include "compiler/ir/validate.h"
#include "mote/kernels/common.h"

namespace mote::ops {

using ir::DataType;
using ir::kNoTensor;
using ir::shape_string;
using ir::window_output_size;
using ir::Padding;
using ir::Quantization;
using ir::Tensor;

// Relative tolerance for "the same scale" (TFLite compares pooling scales to 1e-6 absolute and
// concatenation scales exactly; scales written by converters are bit-identical in practice).
constexpr double kSameScaleTolerance = 1e-5;
// Relative tolerance between a bias scale and input scale * weight scale. Converters compute the
// product in float, so a correct model is within a few ulps; a larger difference gets a note.
constexpr double kBiasScaleTolerance = 1e-4;

inline std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

inline std::string tensor_label(const ir::Graph& g, int32_t index) {
  return ir::tensor_label(static_cast<size_t>(index), g.tensors[index].name);
}

inline bool close(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

inline std::vector<int32_t> int32_values(const Tensor& t) {
  std::vector<int32_t> values(t.data.size() / sizeof(int32_t));
  if (!values.empty()) std::memcpy(values.data(), t.data.data(), values.size() * sizeof(int32_t));
  return values;
}


class Checker {
 public:
  // `notes` collects what the checks accepted although it differs from the usual form.
  Checker(const ir::Graph& g, size_t index, std::vector<std::string>* notes = nullptr)
      : g_(g), index_(index), op_(g.operators[index]), notes_(notes) {}

  const ir::Graph& graph() const { return g_; }
  const ir::Operator& op() const { return op_; }

  [[noreturn]] void fail(const std::string& why) const {
    throw InputError("operator " + std::to_string(index_) + " (" + std::string(to_string(op_.type)) +
                     "): " + why);
  }
  void note(const std::string& what) const {
    if (notes_ == nullptr) return;
    notes_->push_back("operator " + std::to_string(index_) + " (" +
                      std::string(to_string(op_.type)) + "): " + what);
  }

  // Operators list their inputs and outputs; indices were range-checked by the caller.
  // Inputs from `first_optional` on may be kNoTensor.
  void arity(size_t min_inputs, size_t max_inputs, size_t first_optional = SIZE_MAX,
             size_t min_outputs = 1, size_t max_outputs = 1) {
    if (op_.inputs.size() < min_inputs || op_.inputs.size() > max_inputs) {
      fail("has " + std::to_string(op_.inputs.size()) + " inputs, expected " +
           (min_inputs == max_inputs ? std::to_string(min_inputs)
            : max_inputs == SIZE_MAX
                ? "at least " + std::to_string(min_inputs)
                : std::to_string(min_inputs) + " to " + std::to_string(max_inputs)));
    }
    if (op_.outputs.size() < min_outputs || op_.outputs.size() > max_outputs) {
      fail("has " + std::to_string(op_.outputs.size()) + " outputs, expected " +
           (min_outputs == max_outputs ? std::to_string(min_outputs)
            : max_outputs == SIZE_MAX
                ? "at least " + std::to_string(min_outputs)
                : std::to_string(min_outputs) + " to " + std::to_string(max_outputs)));
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
  // Output `j` of an operator with several (SPLIT, SPLIT_V, UNPACK).
  const Tensor& out_at(size_t j) const { return g_.tensors[op_.outputs[j]]; }
  size_t num_outputs() const { return op_.outputs.size(); }
  std::string in_label(size_t k) const {
    return "input " + std::to_string(k) + " (tensor " + std::to_string(op_.inputs[k]) + ")";
  }
  std::string out_label() const {
    return op_.outputs.size() == 1 ? "output (tensor " + std::to_string(op_.outputs[0]) + ")"
                                   : out_label(0);
  }
  std::string out_label(size_t j) const {
    return "output " + std::to_string(j) + " (tensor " + std::to_string(op_.outputs[j]) + ")";
  }
  // Output `j`: an activation of input `k`'s type (int8 or int16) and quantization, one scale,
  // `shape` (the multi-output operators only move elements).
  void expect_moved_output(size_t j, const std::vector<int32_t>& shape, size_t k) const {
    const Tensor& t = out_at(j);
    if (t.type != in(k).type) {
      fail(out_label(j) + " has type " + std::string(to_string(t.type)) + ", expected " +
           std::string(to_string(in(k).type)) + " like " + in_label(k));
    }
    if (t.quantization.scale.size() != 1) {
      fail(out_label(j) + " needs one quantization scale, has " +
           std::to_string(t.quantization.scale.size()));
    }
    if (t.shape != shape) {
      fail(out_label(j) + " has shape " + shape_string(t.shape) + ", expected " +
           shape_string(shape));
    }
    expect_same_quantization(k, j);
  }

  // An operand, named only when a message needs it: kOutput or an input index.
  static constexpr size_t kOutput = SIZE_MAX;
  const Tensor& operand(size_t k) const { return k == kOutput ? out() : in(k); }
  std::string label(size_t k) const { return k == kOutput ? out_label() : in_label(k); }

  void expect_type(size_t k, DataType type) const {
    const Tensor& t = operand(k);
    if (t.type != type) {
      fail(label(k) + " has type " + std::string(to_string(t.type)) + ", expected " +
           std::string(to_string(type)) +
           (t.type == DataType::kInt4
                ? "; int4 weights are taken by CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED "
                  "with int8 activations (as TFLite's int4 kernels): quantize these to int8"
                : ""));
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

  // The activation type of an operator with a 16x8 form (OpDef::int16_activations): int16 when
  // its output is, else int8.
  DataType activation_type() const {
    return out().type == DataType::kInt16 ? DataType::kInt16 : DataType::kInt8;
  }
  // An int8 (or int16) activation input: not constant, one scale; int16 symmetric (zero point
  // 0, as TFLite's 16x8 kernels require).
  const Tensor& data_input(size_t k, DataType type = DataType::kInt8) const {
    const Tensor& t = in(k);
    expect_type(k, type);
    if (t.is_constant) fail(in_label(k) + " is a constant; expected an activation");
    if (type == DataType::kInt8 || type == DataType::kUInt8 || type == DataType::kInt16) {
      expect_per_tensor(k);
    }
    if (type == DataType::kInt16) expect_symmetric16(k);
    return t;
  }
  const Tensor& data_output(DataType type = DataType::kInt8) const {
    expect_type(kOutput, type);
    if (type == DataType::kInt8 || type == DataType::kUInt8 || type == DataType::kInt16) {
      expect_per_tensor(kOutput);
    }
    if (type == DataType::kInt16) expect_symmetric16(kOutput);
    return out();
  }
  void expect_symmetric16(size_t k) const {
    const int64_t zp = operand(k).quantization.zero_point[0];
    if (zp != 0) {
      fail(label(k) + " is int16 with zero point " + std::to_string(zp) +
           "; int16 activations must be symmetric (zero point 0)");
    }
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
  void expect_same_quantization(size_t k, size_t j = 0) const {
    const Quantization& a = in(k).quantization;
    const Quantization& b = out_at(j).quantization;
    if (a.zero_point[0] != b.zero_point[0] ||
        !close(a.scale[0], b.scale[0], kSameScaleTolerance)) {
      fail((j == 0 ? out_label() : out_label(j)) + " quantization (scale " + num(b.scale[0]) + ", zero point " +
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
    if (std::max({stride_h, stride_w, dilation_h, dilation_w}) > kernels::kMaxStride) {
      fail("stride " + std::to_string(stride_h) + "x" + std::to_string(stride_w) + " or dilation " +
           std::to_string(dilation_h) + "x" + std::to_string(dilation_w) + " above " +
           std::to_string(kernels::kMaxStride) + ", the most Mote's kernels take");
    }
  }
  // The window of an `fh` x `fw` filter (options `o`: strides, padding, dilation where it has
  // them) over NHWC `input`: checks it, and that the output is [batches, oh, ow, channels].
  template <typename Options>
  void expect_window_output(const Tensor& input, int32_t fh, int32_t fw, const Options& o,
                            int32_t channels) const {
    int32_t dh = 1, dw = 1;
    if constexpr (requires { o.dilation_h; }) {
      dh = o.dilation_h;
      dw = o.dilation_w;
    }
    check_window(o.stride_h, o.stride_w, dh, dw);
    // A folded PAD: the window runs over the padded input.
    const ir::FoldedPad& f = o.folded;
    const int32_t h = input.shape[1] + f.top + f.bottom, w = input.shape[2] + f.left + f.right;
    expect_output_shape({input.shape[0], output_size(h, fh, o.stride_h, dh, o.padding, "height"),
                         output_size(w, fw, o.stride_w, dw, o.padding, "width"), channels});
  }
  // A 4-D activation input, and a 4-D int8 constant filter.
  const Tensor& nhwc_input(size_t k, DataType type = DataType::kInt8) const {
    const Tensor& t = data_input(k, type);
    expect_rank(k, 4);
    return t;
  }
  const Tensor& filter(size_t k) const {
    const Tensor& t = param_input(k, DataType::kInt8);
    expect_rank(k, 4);
    return t;
  }
  // A 4-D constant filter of `weights`: int8, or int4 under int8 activations.
  const Tensor& window_weights(size_t k, DataType activation) const {
    const Tensor& t = weights(k, activation);
    expect_rank(k, 4);
    return t;
  }
  // Constant weights: int8, or int4 (packed two per byte) under int8 activations, as TFLite's
  // convolutions and FULLY_CONNECTED take them (its 16x8 kernels take int8 weights only).
  const Tensor& weights(size_t k, DataType activation) const {
    const bool int4 = in(k).type == DataType::kInt4 && activation == DataType::kInt8;
    return param_input(k, int4 ? DataType::kInt4 : DataType::kInt8);
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

  // Symmetric weights (input `weights_index`) with one scale or one per output channel along
  // `channel_dim`, and an optional int32 bias (input `bias_index`) whose scales are input scale *
  // weight scale.
  void check_weights_and_bias(const Tensor& input, const Tensor& weights, size_t channel_dim,
                              int32_t out_channels, size_t weights_index = 1,
                              size_t bias_index = 2) const {
    const Quantization& wq = weights.quantization;
    if (wq.scale.empty()) fail(in_label(weights_index) + " (weights) is not quantized");
    if (wq.scale.size() != 1 && wq.scale.size() != static_cast<size_t>(out_channels)) {
      fail(in_label(weights_index) + " has " + std::to_string(wq.scale.size()) + " scales, expected 1 or " +
           std::to_string(out_channels) + " (one per output channel)");
    }
    if (wq.scale.size() > 1 && wq.quantized_dimension != static_cast<int32_t>(channel_dim)) {
      fail(in_label(weights_index) + " is quantized along dimension " +
           std::to_string(wq.quantized_dimension) + ", expected " + std::to_string(channel_dim));
    }
    for (size_t c = 0; c < wq.zero_point.size(); ++c) {
      if (wq.zero_point[c] != 0) {
        fail(in_label(weights_index) + " zero_point[" + std::to_string(c) + "] is " +
             std::to_string(wq.zero_point[c]) + "; int8 weights must be symmetric (0)");
      }
    }
    if (!has_input(bias_index)) return;
    // 16x8: an int64 bias (the converter's) or an int32 one; int8: int32.
    const bool int64_bias = input.type == DataType::kInt16 && in(bias_index).type == DataType::kInt64;
    const Tensor& bias =
        param_input(bias_index, int64_bias ? DataType::kInt64 : DataType::kInt32);
    if (bias.shape != std::vector<int32_t>{out_channels}) {
      fail(in_label(bias_index) + " (bias) has shape " + shape_string(bias.shape) + ", expected [" +
           std::to_string(out_channels) + "]");
    }
    const Quantization& bq = bias.quantization;
    if (bq.scale.size() != wq.scale.size()) {
      fail(in_label(bias_index) + " (bias) has " + std::to_string(bq.scale.size()) +
           " scales, expected " + std::to_string(wq.scale.size()) + " like the weights");
    }
    const double input_scale = input.quantization.scale[0];
    for (size_t c = 0; c < bq.scale.size(); ++c) {
      if (bq.zero_point[c] != 0) {
        fail(in_label(bias_index) + " (bias) zero_point[" + std::to_string(c) + "] must be 0");
      }
    }
    // TFLite's kernels add the bias in the accumulator's units and never read its scale, so a
    // bias scale off input scale * weight scale changes nothing: taken, with a note (the first).
    for (size_t c = 0; c < bq.scale.size(); ++c) {
      const double expected = input_scale * static_cast<double>(wq.scale[c]);
      if (!close(bq.scale[c], expected, kBiasScaleTolerance)) {
        note(in_label(bias_index) + " (bias) scale[" + std::to_string(c) + "] " +
             num(bq.scale[c]) + " differs from input scale * weight scale " + num(expected) +
             "; ignored, as TFLite ignores the bias scale");
        break;
      }
    }
  }

  // A plain integer operand (input k, or kOutput) of `type`: not quantized (the signal
  // operators' samples and energies, int32 arithmetic), never confused with a quantized one.
  const Tensor& plain(size_t k, DataType type) const {
    expect_type(k, type);
    if (!operand(k).quantization.empty()) {
      fail(label(k) + " is quantized; expected a plain " + std::string(to_string(type)) +
           " (no quantization)");
    }
    return operand(k);
  }
  // A plain 1-D operand of `type` (the signal operators' tensors).
  const Tensor& plain_vector(size_t k, DataType type) const {
    const Tensor& t = plain(k, type);
    expect_rank(k, 1);
    return t;
  }
  // Whether an operator that moves elements (RESHAPE, STRIDED_SLICE, CONCATENATION) moves plain
  // integers: its output an int16 or int32 without quantization, whose inputs must be too.
  bool plain_move() const {
    return out().quantization.empty() &&
           (out().type == DataType::kInt16 || out().type == DataType::kInt32);
  }

  // Two plain int32 operands (either may be a constant) in, one plain int32 out, broadcast (the
  // integer arithmetic: TFLM's int32 ADD, MUL, DIV, MINIMUM, MAXIMUM).
  void expect_integer_binary() {
    arity(2, 2);
    plain(0, DataType::kInt32);
    plain(1, DataType::kInt32);
    plain(kOutput, DataType::kInt32);
    if (in(0).is_constant && in(1).is_constant) fail("both inputs are constants");
    expect_broadcast_output();
  }

  // The broadcast of inputs 0 and 1 (TFLite's rule, the kernels' own function) is the output.
  void expect_broadcast_output() const;
  // Two int8 operands in, one out, broadcast (the binary arithmetic and extremum operators).
  // With `constants`, either operand may be a constant (not both): TFLite's binary arithmetic
  // operators take one as they take an activation.
  // `type`: int16 for the 16x8 form.
  void expect_binary_elementwise(bool constants = false, DataType type = DataType::kInt8);
  // One int8 (or `type`) activation in, one out of its shape (the elementwise activations).
  void expect_unary_elementwise(DataType type = DataType::kInt8);

 private:
  const ir::Graph& g_;
  size_t index_;
  const ir::Operator& op_;
  std::vector<std::string>* notes_;
};

}  // namespace mote::ops
