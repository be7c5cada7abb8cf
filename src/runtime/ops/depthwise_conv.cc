// DEPTHWISE_CONV_2D: int8 NHWC input, filter [1, Kh, Kw, Ci * depth_multiplier], optional int32
// bias, per-channel requantization.

#include "mote/kernels/depthwise_conv.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

kernels::DepthwiseShape depthwise_shape(const schema::Program& p, const schema::Operator& op) {
  const auto& o = *op.options_as_DepthwiseConvOptions();
  const Tensor &x = input_of(p, op, 0), &w = input_of(p, op, 1), &y = output_of(p, op);
  return kernels::DepthwiseShape{dim(x, 0), dim(x, 1), dim(x, 2), dim(x, 3), dim(w, 1),
                                 dim(w, 2), dim(y, 1), dim(y, 2), dim(y, 3), o.stride_h(),
                                 o.stride_w(), o.pad_h(), o.pad_w(), o.dilation_h(),
                                 o.dilation_w()};
}

Error check(const OpChecker& c) {
  MOTE_TRY(c.shape_of_op(2, 3, 1, schema::OpOptions::DepthwiseConvOptions));
  const auto& o = *c.op().options_as_DepthwiseConvOptions();
  const Tensor& x = *c.in(0);
  const Tensor& w = *c.in(1);
  const Tensor& y = c.out();
  if (!is(x, DataType::Int8, 4) || !is(w, DataType::Int8, 4) || !is(y, DataType::Int8, 4)) {
    return c.bad("input, filter and output must be int8 NHWC");
  }
  const int32_t ci = dim(x, 3), co = dim(w, 3);
  if (dim(w, 0) != 1 || o.depth_multiplier() < 1 || int64_t{ci} * o.depth_multiplier() != co) {
    return c.bad("filter channels differ from input channels times depth multiplier");
  }
  if (dim(y, 0) != dim(x, 0) || dim(y, 3) != co) return c.bad("output shape inconsistent");
  MOTE_TRY(c.strides(o.stride_h(), o.stride_w(), o.dilation_h(), o.dilation_w()));
  const int64_t kh_eff = (int64_t{dim(w, 1)} - 1) * o.dilation_h() + 1;
  const int64_t kw_eff = (int64_t{dim(w, 2)} - 1) * o.dilation_w() + 1;
  if (!window_ok(dim(x, 1), dim(y, 1), kh_eff, o.stride_h(), o.pad_h()) ||
      !window_ok(dim(x, 2), dim(y, 2), kw_eff, o.stride_w(), o.pad_w())) {
    return c.bad("output size inconsistent with input, filter, stride and padding");
  }
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
  int64_t bias_max = 0;
  MOTE_TRY(c.bias(c.in(2), co, &bias_max));
  const int64_t acc_bound = bias_max + int64_t{dim(w, 1)} * dim(w, 2) * kMaxCenteredInput * 128;
  if (acc_bound > kAccLimit) return c.bad("accumulator could overflow int32", Error::kUnsupported);
  MOTE_TRY(c.per_channel(o.multipliers(), o.shifts(), co, acc_bound));
  return Error::kOk;
}

Error invoke(const Op& op) {
  const auto& o = *op.op().options_as_DepthwiseConvOptions();
  kernels::DepthwiseConvParams p{};
  p.shape = depthwise_shape(op.program(), op.op());
  p.input_offset = o.input_offset();
  p.output_offset = o.output_offset();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  p.output_multiplier = op.constant_i32(o.multipliers());
  p.output_shift = op.constant_i32(o.shifts());
  kernels::depthwise_conv2d(p, op.in_data<int8_t>(0), op.in_data<int8_t>(1),
                            op.optional_in_data<int32_t>(2), op.out_data<int8_t>(), op.scratch());
  return Error::kOk;
}

size_t required_scratch(const schema::Program& p, const schema::Operator& op) {
  return kernels::built_depthwise_conv_scratch_bytes(depthwise_shape(p, op));
}

}  // namespace

extern const OpRegistration kDepthwiseConv2DOp{&check, &invoke, &required_scratch,
                                               /*runs_in_place=*/false};

}  // namespace mote::runtime::internal
