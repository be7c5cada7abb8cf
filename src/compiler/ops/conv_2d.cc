// CONV_2D: int8 convolution with per-channel (or per-tensor) weights, any stride, dilation and
// padding, grouped when the filter depth divides the input depth.
#include "compiler/ir/validate.h"
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/shapes.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/rows.h"

namespace mote::ops {
namespace {

using Window =
    WindowOptions<tfl::Conv2DOptions, tfl::BuiltinOptions::Conv2DOptions, ir::Conv2DOptions>;

void check(Checker& c) {
  const auto& o = c.options<ir::Conv2DOptions>();
  const DataType type = c.activation_type();
  const Tensor &input = c.nhwc_input(0, type), &weights = c.window_weights(1, type);
  c.data_output(type);
  const int32_t co = weights.shape[0], kh = weights.shape[1], kw = weights.shape[2];
  const int32_t cf = weights.shape[3], ci = input.shape[3];
  if (ci % cf != 0) {
    c.fail("filter depth " + std::to_string(cf) + " does not divide the input channels " +
           std::to_string(ci));
  }
  if (co % (ci / cf) != 0) {
    c.fail("output channels " + std::to_string(co) + " not a multiple of the " +
           std::to_string(ci / cf) + " groups");
  }
  c.expect_window_output(input, kh, kw, o, co);
  c.check_weights_and_bias(input, weights, 0, co);
}

// Each output element sums kh * kw * (filter depth) products.
int64_t macs(const ir::Graph& g, const ir::Operator& op) {
  const ir::Tensor& w = g.tensors[op.inputs[1]];
  return g.tensors[op.outputs[0]].num_elements() * w.shape[1] * w.shape[2] * w.shape[3];
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::Conv2DOptions>(ctx.op().options);
  out.options.Set(convolution_options<schema::ConvOptionsT>(ctx, conv_shape(ctx.graph(), ctx.op()),
                                                            o.activation));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::Conv2DOptions>(op.options);
  const ir::Tensor& w = g.tensors[op.inputs[1]];
  d.window("kernel", w.shape[1], w.shape[2], o.stride_h, o.stride_w, o.padding);
  d.add("dilation " + std::to_string(o.dilation_h) + "x" + std::to_string(o.dilation_w));
  d.folded(o.folded);
  d.json["dilation"] = {o.dilation_h, o.dilation_w};
  d.json["output_channels"] = w.shape[0];
  d.activation(o.activation);
}

// The 16x8 and int4 forms run the direct loops (ops::direct_loops).
uint64_t scratch_bytes(const ir::Graph& g, const ir::Operator& op, kernels::Extension e) {
  return direct_loops(g, op)
             ? 0
             : variant_scratch<&conv_shape, &kernels::conv_scratch_bytes>(g, op, e);
}
const char* kernel_variant(const ir::Graph& g, const ir::Operator& op, kernels::Extension e) {
  return direct_loops(g, op) ? direct_variant(g, op)
                             : variant_name<&conv_shape, &kernels::conv_kernel_variant>(g, op, e);
}
kernels::OverlapRule overlap(const ir::Graph& g, const ir::Operator& op, size_t input,
                             kernels::Extension e) {
  return direct_loops(g, op)
             ? kernels::kNoOverlap
             : variant_overlap<&conv_shape, &kernels::conv_overlap>(g, op, input, e);
}

// A pointwise convolution of stride 1 may run backward (the same rule for every variant).
kernels::OverlapRule back_overlap(const ir::Graph& g, const ir::Operator& op, size_t input) {
  return input == 0 && !direct_loops(g, op) ? kernels::conv_backward_overlap(conv_shape(g, op))
                                            : kernels::kNoOverlap;
}

// Rows of input 0 (batch 1): the window's rows.
std::optional<RowReach> row_reach(const ir::Graph& g, const ir::Operator& op, size_t input) {
  const kernels::ConvShape s = conv_shape(g, op);
  if (input != 0 || direct_loops(g, op) || s.batches != 1 ||
      s.filter_h > kernels::kMaxRowWindowRows) {
    return std::nullopt;
  }
  return RowReach{s.filter_h, s.stride_h, s.pad_h, s.dilation_h};
}

}  // namespace

extern const OpDef conv_2d{
    .builtin_code = builtin(tfl::BuiltinOperator::CONV_2D), .read_options = Window::read,
    .write_options = Window::write, .inputs = {2, 3, 2}, .check = check, .macs = macs,
    .scratch_bytes = scratch_bytes, .kernel_variant = kernel_variant, .lower = lower,
    .overlap = overlap, .back_overlap = back_overlap, .int16_activations = true,
    .describe = describe, .row_reach = row_reach};

}  // namespace mote::ops
