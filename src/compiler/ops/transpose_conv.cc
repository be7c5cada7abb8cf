// TRANSPOSE_CONV: int8 (or 16x8) transposed convolution, per-channel weights. TFLite's inputs are (output
// shape, filter [Co,Kh,Kw,Ci], input, optional bias); the program's are (input, filter, bias).
#include <algorithm>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/shapes.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

using Window = WindowOptions<tfl::TransposeConvOptions, tfl::BuiltinOptions::TransposeConvOptions,
                             ir::TransposeConvOptions>;

constexpr size_t kOutputShape = 0, kFilter = 1, kInput = 2, kBias = 3;

void check(Checker& c) {
  const auto& o = c.options<ir::TransposeConvOptions>();
  const Tensor& output_shape = c.in(kOutputShape);
  const DataType type = c.activation_type();
  const Tensor &weights = c.filter(kFilter), &input = c.nhwc_input(kInput, type);
  const Tensor& output = c.data_output(type);
  c.expect_type(kOutputShape, DataType::kInt32);
  if (output_shape.shape != std::vector<int32_t>{4}) {
    c.fail(c.in_label(kOutputShape) + " (output shape) has shape " +
           shape_string(output_shape.shape) + ", expected [4]");
  }
  if (output_shape.is_constant) {
    c.expect_output_shape(int32_values(output_shape));
  } else {
    // A graph input (as TFLM's seanet models have it): TFLM plans the output tensor's shape
    // and never reads the input's values; so does Mote.
    const auto& inputs = c.graph().inputs;
    if (std::find(inputs.begin(), inputs.end(), c.op().inputs[kOutputShape]) == inputs.end()) {
      c.fail(c.in_label(kOutputShape) + " (output shape) must be a constant or a graph input");
    }
    c.note(c.in_label(kOutputShape) + " (output shape) is a graph input; its values are not read, "
           "the output has the model's shape " + shape_string(output.shape) + " (as TFLM)");
  }
  const int32_t co = weights.shape[0], kh = weights.shape[1], kw = weights.shape[2];
  if (weights.shape[3] != input.shape[3]) {
    c.fail(c.in_label(kFilter) + " depth " + std::to_string(weights.shape[3]) +
           " != input channels " + std::to_string(input.shape[3]));
  }
  if (output.shape[0] != input.shape[0] || output.shape[3] != co) {
    c.fail(c.out_label() + " shape " + shape_string(output.shape) + " does not match batch " +
           std::to_string(input.shape[0]) + " and " + std::to_string(co) + " output channels");
  }
  c.check_window(o.stride_h, o.stride_w, 1, 1);
  // Every output row must be reachable from an input row (TFLite leaves the rest at the bias).
  if (int64_t{output.shape[1]} > int64_t{input.shape[1]} * o.stride_h + kh ||
      int64_t{output.shape[2]} > int64_t{input.shape[2]} * o.stride_w + kw) {
    c.fail(c.out_label() + " shape " + shape_string(output.shape) +
           " is larger than the input, stride and filter can produce");
  }
  c.check_weights_and_bias(input, weights, 0, co, kFilter, kBias);
  if (type == DataType::kInt16 && c.has_input(kBias) && c.in(kBias).type != DataType::kInt64) {
    c.fail(c.in_label(kBias) + " (bias) is int32; int16 TRANSPOSE_CONV takes an int64 bias (as "
           "the TFLite converter writes it)");
  }
}

// Every input element meets kh * kw * co filter taps.
int64_t macs(const ir::Graph& g, const ir::Operator& op) {
  const ir::Tensor& w = g.tensors[op.inputs[kFilter]];
  return g.tensors[op.inputs[kInput]].num_elements() * w.shape[0] * w.shape[1] * w.shape[2];
}

uint64_t scratch(const ir::Graph& g, const ir::Operator& op, kernels::Extension extension) {
  if (g.tensors[op.inputs[kInput]].type == ir::DataType::kInt16) return 0;  // 16x8: none
  return kernels::transpose_conv_scratch_bytes(transpose_conv_shape(g, op), extension).total();
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::TransposeConvOptions>(ctx.op().options);
  out.options.Set(convolution_options<schema::TransposeConvOptionsT>(
      ctx, transpose_conv_shape(ctx.graph(), ctx.op()), o.activation, kInput, kFilter));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::TransposeConvOptions>(op.options);
  const ir::Tensor& w = g.tensors[op.inputs[kFilter]];
  d.window("kernel", w.shape[1], w.shape[2], o.stride_h, o.stride_w, o.padding);
  d.json["output_channels"] = w.shape[0];
  d.activation(o.activation);
}

constexpr int8_t kProgramInputs[] = {kInput, kFilter, kBias};

// TFLite's TransposeConvOptions table: padding, strides, fused activation and the operator's own
// fields.
constexpr auto read =
    &read_window<tfl::TransposeConvOptions, tfl::BuiltinOptions::TransposeConvOptions,
                 ir::TransposeConvOptions>;
constexpr auto write = &write_window<tfl::TransposeConvOptionsT, ir::TransposeConvOptions>;

}  // namespace

extern const OpDef transpose_conv{.builtin_code = builtin(tfl::BuiltinOperator::TRANSPOSE_CONV),
                                  .read_options = Window::read, .write_options = Window::write,
                                  .inputs = {3, 4, kBias}, .check = check, .macs = macs,
                                  .scratch_bytes = scratch, .lower = lower,
                                  .program_inputs = kProgramInputs, .int16_activations = true,
                                  .describe = describe};

}  // namespace mote::ops
