// DEPTHWISE_CONV_2D: int8 NHWC input, filter [1, Kh, Kw, Ci * depth_multiplier] (int8 or packed
// int4), optional int32 bias, per-channel requantization; or 16x8 (int16 input and output,
// optional int64 bias).

#include "mote/kernels/depthwise_conv.h"
#include "runtime/ops/convolution.h"

namespace mote::runtime::internal {
namespace {

kernels::DepthwiseShape shape_of(const schema::DepthwiseConvOptions& o, const Tensor& x,
                                 const Tensor& w, const Tensor& y) {
  const int32_t *xs = shape_data(x), *ws = shape_data(w), *ys = shape_data(y);
  return kernels::DepthwiseShape{xs[0], xs[1], xs[2], xs[3], ws[1], ws[2], ys[1], ys[2], ys[3],
                                 o.stride_h(), o.stride_w(), o.pad_h(), o.pad_w(),
                                 o.dilation_h(), o.dilation_w()};
}

}  // namespace

kernels::DepthwiseShape depthwise_shape(const schema::Program& p, const schema::Operator& op) {
  return shape_of(*op.options_as_DepthwiseConvOptions(), input_of(p, op, 0), input_of(p, op, 1),
                  output_of(p, op));
}

namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::DepthwiseConvOptions>();
  const Tensor &x = *c.in(0), &w = *c.in(1), &y = c.out();
  if (rank(w) != 4) return c.bad("filter must be 4-D");
  const int32_t ci = dim(x, 3), co = dim(w, 3);
  if (dim(w, 0) != 1 || o.depth_multiplier() < 1 || int64_t{ci} * o.depth_multiplier() != co) {
    return c.bad("filter channels differ from input channels times depth multiplier");
  }
  if (dim(y, 0) != dim(x, 0) || dim(y, 3) != co) return c.bad("output shape inconsistent");
  MOTE_TRY(check_dilated_window(c, o, x, w, y));
  if (c.int16() && c.in(2) != nullptr && c.in(2)->type() != DataType::Int64) {
    return c.bad("a 16x8 depthwise convolution takes an int64 bias");
  }
  if (c.op().in_place() &&
      (direct_loops(c.program(), c.op()) ||
       !kernels::depthwise_conv_runs_in_place(depthwise_shape(c.program(), c.op())))) {
    return c.bad("only a depthwise convolution of depth multiplier 1, with no more output pixels "
                 "than input pixels, runs in place");
  }
  if (!direct_loops(c.program(), c.op())) {
    MOTE_TRY(c.extension_takes([&] {
      return kernels::depthwise_conv_extension_takes(depthwise_shape(c.program(), c.op()));
    }));
  }
  MOTE_TRY(check_convolution_quantization(c, o, co, int64_t{dim(w, 1)} * dim(w, 2)));
  if (direct_loops(c.program(), c.op())) return Error::kOk;
  return c.extension_linked([&] {
    return kernels::depthwise_conv_extension_linked(depthwise_shape(c.program(), c.op()),
                                                    c.streamed());
  });
}

// Plain runs the extension's kernel alone; portable (Operator.portable_kernel) the portable one.
constexpr auto invoke =
    &invoke_convolution<kernels::DepthwiseConvParams, schema::DepthwiseConvOptions,
                        &depthwise_shape, &kernels::depthwise_conv2d_extension>;
// One input channel with a depth multiplier (one_input_channel): the extension's kernel for that
// shape, a form of its own so that other images do not link it.
constexpr auto invoke_one_input =
    &invoke_convolution<kernels::DepthwiseConvParams, schema::DepthwiseConvOptions,
                        &depthwise_shape, &kernels::depthwise_conv2d_one_input>;
constexpr auto invoke_portable =
    &invoke_convolution<kernels::DepthwiseConvParams, schema::DepthwiseConvOptions,
                        &depthwise_shape, &kernels::portable_depthwise_conv2d>;
constexpr auto invoke_16x8 =
    &invoke_convolution_16x8<kernels::DepthwiseConvParams, schema::DepthwiseConvOptions,
                             &depthwise_shape, &kernels::depthwise_conv2d_16x8, nullptr>;
constexpr auto invoke_int4 =
    &invoke_convolution_int4<kernels::DepthwiseConvParams, schema::DepthwiseConvOptions,
                             &depthwise_shape, &kernels::depthwise_conv2d_int4>;

constexpr auto invoke_in_place =
    &invoke_convolution<kernels::DepthwiseConvParams, schema::DepthwiseConvOptions,
                        &depthwise_shape, &kernels::depthwise_conv2d_in_place>;

size_t required_scratch(const schema::Program& p, const schema::Operator& op) {
  if (direct_loops(p, op)) return 0;
  return op.in_place() ? kernels::depthwise_conv_in_place_scratch_bytes(depthwise_shape(p, op))
                       : kernels::built_depthwise_conv_scratch_bytes(depthwise_shape(p, op));
}

// In place, the exact rule only: the kernel's plane order fits no lead.
kernels::OverlapRule overlap(const schema::Program& p, const schema::Operator& op, size_t k) {
  if (k != 0 || direct_loops(p, op)) return kernels::kNoOverlap;
  return op.in_place() ? kernels::depthwise_conv_in_place_overlap(depthwise_shape(p, op))
                       : kernels::built_depthwise_conv_overlap(depthwise_shape(p, op));
}

bool row_reach(const schema::Program& p, const schema::Operator& op, size_t k,
               StageRowReach* reach) {
  return !direct_loops(p, op) && window_row_reach(depthwise_shape(p, op), k, reach);
}

using RowArgs = WindowRowArgs<kernels::DepthwiseShape>;
constexpr auto row_args =
    &window_row_args<kernels::DepthwiseShape, schema::DepthwiseConvOptions, &shape_of>;
// As the plain and portable forms: the extension's row kernel alone, or the portable one.
constexpr auto invoke_rows =
    &invoke_window_rows<kernels::DepthwiseConvParams, kernels::DepthwiseShape,
                        &kernels::depthwise_conv2d_rows_extension>;
constexpr auto invoke_rows_portable =
    &invoke_window_rows<kernels::DepthwiseConvParams, kernels::DepthwiseShape,
                        &kernels::portable_depthwise_conv2d_rows>;

}  // namespace

extern const OpRegistration kDepthwiseConv2DOp{
    takes(2, 3, schema::OpOptions::DepthwiseConvOptions).int8(2).int16(1).int4().nhwc(), &check,
    &required_scratch, /*runs_in_place=*/false, &overlap};
extern const OpForm kDepthwiseConv2DPlain{invoke};
extern const OpForm kDepthwiseConv2DPortable{invoke_portable};
extern const OpForm kDepthwiseConv2DInPlace{invoke_in_place};
extern const OpForm kDepthwiseConv2DInt16{invoke_16x8};
extern const OpForm kDepthwiseConv2DInt4{invoke_int4};
extern const OpForm kDepthwiseConv2DOneInput{invoke_one_input};
extern const OpRowForm kDepthwiseConv2DRows{&row_reach, row_args, kRowWords<RowArgs>,
                                            invoke_rows};
extern const OpRowForm kDepthwiseConv2DRowsPortable{&row_reach, row_args, kRowWords<RowArgs>,
                                                    invoke_rows_portable};

}  // namespace mote::runtime::internal
