// DEPTHWISE_CONV_2D: int8 or 16x8, any depth multiplier, stride, dilation and padding.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/shapes.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/rows.h"
#include "mote/kernels/depthwise_conv.h"

namespace mote::ops {
namespace {

using Window =
    WindowOptions<tfl::DepthwiseConv2DOptions, tfl::BuiltinOptions::DepthwiseConv2DOptions,
                  ir::DepthwiseConv2DOptions>;

void check(Checker& c) {
  const auto& o = c.options<ir::DepthwiseConv2DOptions>();
  const DataType type = c.activation_type();
  const Tensor &input = c.nhwc_input(0, type), &weights = c.window_weights(1, type);
  c.data_output(type);
  if (weights.shape[0] != 1) {
    c.fail(c.in_label(1) + " has shape " + shape_string(weights.shape) +
           ", expected [1,h,w,channels]");
  }
  const int32_t kh = weights.shape[1], kw = weights.shape[2], co = weights.shape[3];
  const int32_t ci = input.shape[3];
  if (o.depth_multiplier < 1 || static_cast<int64_t>(ci) * o.depth_multiplier != co) {
    c.fail("input channels " + std::to_string(ci) + " * depth multiplier " +
           std::to_string(o.depth_multiplier) + " != filter channels " + std::to_string(co));
  }
  c.expect_window_output(input, kh, kw, o, co);
  c.check_weights_and_bias(input, weights, 3, co);
  // TFLite's 16x8 depthwise kernel sums into an int64 bias only.
  if (type == DataType::kInt16 && c.has_input(2) && c.in(2).type != DataType::kInt64) {
    c.fail(c.in_label(2) + " (bias) is " + std::string(to_string(c.in(2).type)) +
           "; a 16x8 depthwise convolution takes an int64 bias, as TFLite's converter writes it");
  }
}

int64_t macs(const ir::Graph& g, const ir::Operator& op) {
  const ir::Tensor& w = g.tensors[op.inputs[1]];
  return g.tensors[op.outputs[0]].num_elements() * w.shape[1] * w.shape[2];
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::DepthwiseConv2DOptions>(ctx.op().options);
  const kernels::DepthwiseShape shape = depthwise_shape(ctx.graph(), ctx.op());
  auto d = convolution_options<schema::DepthwiseConvOptionsT>(ctx, shape, o.activation);
  d.depth_multiplier = shape.output_c / shape.input_c;
  out.options.Set(std::move(d));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::DepthwiseConv2DOptions>(op.options);
  const ir::Tensor& w = g.tensors[op.inputs[1]];
  d.window("kernel", w.shape[1], w.shape[2], o.stride_h, o.stride_w, o.padding);
  d.add("dilation " + std::to_string(o.dilation_h) + "x" + std::to_string(o.dilation_w) +
        " multiplier " + std::to_string(o.depth_multiplier));
  d.folded(o.folded);
  d.json["dilation"] = {o.dilation_h, o.dilation_w};
  d.json["depth_multiplier"] = o.depth_multiplier;
  d.activation(o.activation);
}

// The 16x8 and int4 forms run the direct loops (ops::direct_loops).
uint64_t scratch_bytes(const ir::Graph& g, const ir::Operator& op, kernels::Extension e) {
  return direct_loops(g, op)
             ? 0
             : variant_scratch<&depthwise_shape, &kernels::depthwise_conv_scratch_bytes>(g, op, e);
}
const char* kernel_variant(const ir::Graph& g, const ir::Operator& op, kernels::Extension e) {
  return direct_loops(g, op)
             ? direct_variant(g, op)
             : variant_name<&depthwise_shape, &kernels::depthwise_conv_kernel_variant>(g, op, e);
}
kernels::OverlapRule overlap(const ir::Graph& g, const ir::Operator& op, size_t input,
                             kernels::Extension e) {
  return direct_loops(g, op)
             ? kernels::kNoOverlap
             : variant_overlap<&depthwise_shape, &kernels::depthwise_conv_overlap>(g, op, input, e);
}

// Depth multiplier 1: one channel plane at a time (depthwise_conv2d_in_place).
uint64_t in_place_scratch(const ir::Graph& g, const ir::Operator& op) {
  return direct_loops(g, op)
             ? 0
             : kernels::depthwise_conv_in_place_scratch_bytes(depthwise_shape(g, op));
}

// Rows of input 0 (batch 1): the window's rows.
std::optional<RowReach> row_reach(const ir::Graph& g, const ir::Operator& op, size_t input) {
  const kernels::DepthwiseShape s = depthwise_shape(g, op);
  if (input != 0 || direct_loops(g, op) || s.batches != 1 ||
      s.filter_h > kernels::kMaxRowWindowRows) {
    return std::nullopt;
  }
  return RowReach{s.filter_h, s.stride_h, s.pad_h, s.dilation_h};
}

// TFLite's DepthwiseConv2DOptions table: padding, strides, fused activation and the operator's own
// fields.
constexpr auto read =
    &read_window<tfl::DepthwiseConv2DOptions, tfl::BuiltinOptions::DepthwiseConv2DOptions,
                 ir::DepthwiseConv2DOptions>;
constexpr auto write = &write_window<tfl::DepthwiseConv2DOptionsT, ir::DepthwiseConv2DOptions>;

}  // namespace

extern const OpDef depthwise_conv_2d{
    .builtin_code = builtin(tfl::BuiltinOperator::DEPTHWISE_CONV_2D), .read_options = Window::read,
    .write_options = Window::write, .inputs = {2, 3, 2}, .check = check, .macs = macs,
    .scratch_bytes = scratch_bytes, .kernel_variant = kernel_variant, .lower = lower,
    .overlap = overlap, .in_place_scratch = in_place_scratch, .int16_activations = true,
    .describe = describe, .row_reach = row_reach};

}  // namespace mote::ops
