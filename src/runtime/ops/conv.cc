// CONV_2D: int8 NHWC input, filter [Co, Kh, Kw, Cf] (grouped when Cf < Ci; int8 or packed int4),
// optional int32 bias, per-channel requantization; or 16x8.

#include "mote/kernels/conv.h"
#include "runtime/ops/convolution.h"

namespace mote::runtime::internal {
namespace {

kernels::ConvShape shape_of(const schema::ConvOptions& o, const Tensor& x, const Tensor& w,
                            const Tensor& y) {
  const int32_t *xs = shape_data(x), *ws = shape_data(w), *ys = shape_data(y);
  return kernels::ConvShape{xs[0], xs[1], xs[2], xs[3], ws[1], ws[2], ws[3], ys[1], ys[2], ys[3],
                            o.stride_h(), o.stride_w(), o.pad_h(), o.pad_w(), o.dilation_h(),
                            o.dilation_w()};
}

}  // namespace

kernels::ConvShape conv_shape(const schema::Program& p, const schema::Operator& op) {
  return shape_of(*op.options_as_ConvOptions(), input_of(p, op, 0), input_of(p, op, 1),
                  output_of(p, op));
}

namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::ConvOptions>();
  const Tensor &x = *c.in(0), &w = *c.in(1), &y = c.out();
  if (rank(w) != 4) return c.bad("filter must be 4-D");
  const int32_t ci = dim(x, 3), co = dim(w, 0), cf = dim(w, 3);
  if (dim(y, 0) != dim(x, 0) || dim(y, 3) != co) return c.bad("output shape inconsistent");
  if (ci % cf != 0 || co % (ci / cf) != 0) return c.bad("channels inconsistent with groups");
  MOTE_TRY(check_dilated_window(c, o, x, w, y));
  if (c.op().backward() && (direct_loops(c.program(), c.op()) ||
                            !kernels::conv_runs_backward(conv_shape(c.program(), c.op())))) {
    return c.bad("only a pointwise int8 convolution of stride 1 runs backward");
  }
  if (!direct_loops(c.program(), c.op())) {
    MOTE_TRY(c.extension_takes(
        [&] { return kernels::conv_extension_takes(conv_shape(c.program(), c.op())); }));
  }
  MOTE_TRY(check_convolution_quantization(c, o, co, int64_t{dim(w, 1)} * dim(w, 2) * cf,
                                          o.kernel_sums()));
  if (direct_loops(c.program(), c.op())) return Error::kOk;
  return c.extension_linked([&] {
    return kernels::conv_extension_linked(conv_shape(c.program(), c.op()),
                                          c.int32_data(o.shifts()));
  });
}

// Plain runs the extension's kernel alone; portable (Operator.portable_kernel) the portable one.
constexpr auto invoke = &invoke_convolution<kernels::ConvParams, schema::ConvOptions, &conv_shape,
                                            &kernels::conv2d_extension>;
constexpr auto invoke_portable =
    &invoke_convolution<kernels::ConvParams, schema::ConvOptions, &conv_shape,
                        &kernels::portable_conv2d>;
void invoke_16x8(const Op& op) {
  using Kernel64 = void (*)(const kernels::ConvParams&, const int16_t*, const int8_t*,
                              const int64_t*, int16_t*);
  using Kernel32 = void (*)(const kernels::ConvParams&, const int16_t*, const int8_t*,
                            const int32_t*, int16_t*);
  invoke_convolution_16x8<kernels::ConvParams, schema::ConvOptions, &conv_shape,
                          static_cast<Kernel64>(&kernels::conv2d_16x8),
                          static_cast<Kernel32>(&kernels::conv2d_16x8)>(op);
}
constexpr auto invoke_int4 = &invoke_convolution_int4<kernels::ConvParams, schema::ConvOptions,
                                                      &conv_shape, &kernels::conv2d_int4>;
constexpr auto invoke_backward =
    &invoke_convolution<kernels::ConvParams, schema::ConvOptions, &conv_shape,
                        &kernels::conv2d_backward>;

// What the kernel built into this library needs, whatever extension the program was planned for:
// a plan for other kernels may be too small for these.
size_t required_scratch(const schema::Program& p, const schema::Operator& op) {
  if (direct_loops(p, op)) return 0;
  return kernels::built_conv_scratch_bytes(conv_shape(p, op));
}

// Run backward, the backward rule only: an output below its input would be overwritten.
kernels::OverlapRule overlap(const schema::Program& p, const schema::Operator& op, size_t k) {
  if (k != 0 || direct_loops(p, op)) return kernels::kNoOverlap;
  return op.backward() ? kernels::conv_backward_overlap(conv_shape(p, op))
                       : kernels::built_conv_overlap(conv_shape(p, op));
}

bool row_reach(const schema::Program& p, const schema::Operator& op, size_t k,
               StageRowReach* reach) {
  return !direct_loops(p, op) && window_row_reach(conv_shape(p, op), k, reach);
}

using RowArgs = WindowRowArgs<kernels::ConvShape>;
constexpr auto row_args = &window_row_args<kernels::ConvShape, schema::ConvOptions, &shape_of>;
// As the plain and portable forms: the extension's row kernel alone, or the portable one.
constexpr auto invoke_rows =
    &invoke_window_rows<kernels::ConvParams, kernels::ConvShape, &kernels::conv2d_rows_extension>;
constexpr auto invoke_rows_portable =
    &invoke_window_rows<kernels::ConvParams, kernels::ConvShape, &kernels::portable_conv2d_rows>;

}  // namespace

extern const OpRegistration kConv2DOp{
    takes(2, 3, schema::OpOptions::ConvOptions).int8(2).int16(1).int4().nhwc(), &check,
    &required_scratch, /*runs_in_place=*/false, &overlap};
extern const OpForm kConv2DPlain{invoke};
extern const OpForm kConv2DPortable{invoke_portable};
extern const OpForm kConv2DBackward{invoke_backward};
extern const OpForm kConv2DInt16{&invoke_16x8};
extern const OpForm kConv2DInt4{invoke_int4};
extern const OpRowForm kConv2DRows{&row_reach, row_args, kRowWords<RowArgs>, invoke_rows};
extern const OpRowForm kConv2DRowsPortable{&row_reach, row_args, kRowWords<RowArgs>,
                                           invoke_rows_portable};

}  // namespace mote::runtime::internal
