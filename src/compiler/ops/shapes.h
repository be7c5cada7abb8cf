#pragma once
// The kernels' shape structs of the window operators, from an IR operator (padding as TFLite
// computes it). Used by the definitions for both the scratch size and the lowering, so the two
// always see the same geometry.
#include "compiler/ir/graph.h"
#include "compiler/ops/lower_context.h"
#include "mote/kernels/pooling.h"
#include "mote/kernels/scratch.h"

namespace mote::ops {

// The padding TFLite computes before an input of `input` rows (or columns).
int32_t padding_before(int32_t input, int32_t filter, int32_t stride, int32_t dilation,
                       ir::Padding padding);
// The kernel's leading padding of a window whose input has a folded PAD's `folded_before` and
// `folded_after` rows around it: those, plus the operator's own padding of the padded size. The
// trailing padding follows from the output size.
int32_t window_pad_before(int32_t input, int32_t folded_before, int32_t folded_after,
                          int32_t filter, int32_t stride, int32_t dilation, ir::Padding padding);

kernels::ConvShape conv_shape(const ir::Graph& graph, const ir::Operator& op);
kernels::DepthwiseShape depthwise_shape(const ir::Graph& graph, const ir::Operator& op);
// AVERAGE_POOL_2D and MAX_POOL_2D: the kernel's window geometry, as the runtime builds it from the
// lowered options (the clamp left open).
kernels::PoolParams pool_params(const ir::Graph& graph, const ir::Operator& op);
// TRANSPOSE_CONV's inputs: (output shape, filter [Co,Kh,Kw,Ci], input, bias).
kernels::TransposeConvShape transpose_conv_shape(const ir::Graph& graph, const ir::Operator& op);

// The program options the convolutions share, from their shape: strides, padding (and dilation
// where the options have it), input and output offsets, the fused activation's clamp, and the
// per-channel requantization of the operator's `input` and `filter`.
template <typename Options, typename Shape>
Options convolution_options(LowerContext& ctx, const Shape& shape, ir::Activation activation,
                            size_t input = 0, size_t filter = 1) {
  Options o;
  o.stride_h = shape.stride_h;
  o.stride_w = shape.stride_w;
  o.pad_h = shape.pad_h;
  o.pad_w = shape.pad_w;
  if constexpr (requires { o.dilation_h; }) {
    o.dilation_h = shape.dilation_h;
    o.dilation_w = shape.dilation_w;
  }
  o.input_offset = -zero_point_of(ctx.in(input));
  o.output_offset = zero_point_of(ctx.out());
  const kernels::ActivationRange range = ctx.activation_range(activation);
  o.activation_min = range.min;
  o.activation_max = range.max;
  ctx.set_channel_requant(o, shape.output_c, input, filter);
  return o;
}

}  // namespace mote::ops
