#include "compiler/ops/shapes.h"

#include "compiler/ir/validate.h"

namespace mote::ops {
namespace {

const ir::Tensor& input_at(const ir::Graph& graph, const ir::Operator& op, size_t k) {
  return graph.tensors[static_cast<size_t>(op.inputs[k])];
}
const ir::Tensor& output_of(const ir::Graph& graph, const ir::Operator& op) {
  return graph.tensors[static_cast<size_t>(op.outputs[0])];
}

// The dimensions every window shape holds, from its input, filter and output tensors.
template <typename Shape>
Shape tensor_dims(const ir::Tensor& input, const ir::Tensor& filter, const ir::Tensor& output) {
  Shape s{};
  s.batches = input.shape[0];
  s.input_h = input.shape[1];
  s.input_w = input.shape[2];
  s.input_c = input.shape[3];
  s.filter_h = filter.shape[1];
  s.filter_w = filter.shape[2];
  s.output_h = output.shape[1];
  s.output_w = output.shape[2];
  s.output_c = output.shape[3];
  return s;
}

// The convolution and depthwise shapes: (input, filter, ...) and the window options, with the
// padding TFLite computes.
template <typename Shape, typename Options>
Shape window_shape(const ir::Graph& graph, const ir::Operator& op) {
  const auto& options = std::get<Options>(op.options);
  Shape s =
      tensor_dims<Shape>(input_at(graph, op, 0), input_at(graph, op, 1), output_of(graph, op));
  s.stride_h = options.stride_h;
  s.stride_w = options.stride_w;
  s.dilation_h = options.dilation_h;
  s.dilation_w = options.dilation_w;
  const ir::FoldedPad& f = options.folded;
  s.pad_h = window_pad_before(s.input_h, f.top, f.bottom, s.filter_h, s.stride_h, s.dilation_h,
                              options.padding);
  s.pad_w = window_pad_before(s.input_w, f.left, f.right, s.filter_w, s.stride_w, s.dilation_w,
                              options.padding);
  return s;
}

}  // namespace

int32_t padding_before(int32_t input, int32_t filter, int32_t stride, int32_t dilation,
                       ir::Padding padding) {
  return static_cast<int32_t>(ir::window_padding_before(input, filter, stride, dilation, padding));
}

int32_t window_pad_before(int32_t input, int32_t folded_before, int32_t folded_after,
                          int32_t filter, int32_t stride, int32_t dilation, ir::Padding padding) {
  return folded_before + padding_before(input + folded_before + folded_after, filter, stride,
                                        dilation, padding);
}

kernels::ConvShape conv_shape(const ir::Graph& graph, const ir::Operator& op) {
  kernels::ConvShape s = window_shape<kernels::ConvShape, ir::Conv2DOptions>(graph, op);
  s.filter_c = input_at(graph, op, 1).shape[3];
  return s;
}

kernels::DepthwiseShape depthwise_shape(const ir::Graph& graph, const ir::Operator& op) {
  return window_shape<kernels::DepthwiseShape, ir::DepthwiseConv2DOptions>(graph, op);
}

kernels::TransposeConvShape transpose_conv_shape(const ir::Graph& graph, const ir::Operator& op) {
  const auto& options = std::get<ir::TransposeConvOptions>(op.options);
  // TRANSPOSE_CONV's inputs are (output shape, filter, input, bias).
  kernels::TransposeConvShape s = tensor_dims<kernels::TransposeConvShape>(
      input_at(graph, op, 2), input_at(graph, op, 1), output_of(graph, op));
  s.stride_h = options.stride_h;
  s.stride_w = options.stride_w;
  // TFLite pads a transposed convolution as the forward one from its output back to its input.
  s.pad_h = padding_before(s.output_h, s.filter_h, s.stride_h, 1, options.padding);
  s.pad_w = padding_before(s.output_w, s.filter_w, s.stride_w, 1, options.padding);
  return s;
}

kernels::PoolParams pool_params(const ir::Graph& graph, const ir::Operator& op) {
  const auto& o = std::get<ir::Pool2DOptions>(op.options);
  const ir::Tensor &x = input_at(graph, op, 0), &y = output_of(graph, op);
  kernels::PoolParams p = kernels::prepare_pool(x.shape[0], x.shape[1], x.shape[2], x.shape[3],
                                                o.filter_h, o.filter_w, o.stride_h, o.stride_w,
                                                o.padding == ir::Padding::kSame, -128, 127);
  // A folded PAD: the leading padding grows, the output is the padded input's.
  p.pad_h = window_pad_before(x.shape[1], o.folded.top, o.folded.bottom, o.filter_h, o.stride_h, 1,
                              o.padding);
  p.pad_w = window_pad_before(x.shape[2], o.folded.left, o.folded.right, o.filter_w, o.stride_w,
                              1, o.padding);
  p.output_h = y.shape[1];
  p.output_w = y.shape[2];
  return p;
}

}  // namespace mote::ops
