// TRANSPOSE_CONV: int8 NHWC input, filter [Co, Kh, Kw, Ci], optional int32 bias, per-channel
// requantization.

#include "mote/kernels/transpose_conv.h"
#include "runtime/ops/convolution.h"

namespace mote::runtime::internal {
namespace {

kernels::TransposeConvShape transpose_conv_shape(const schema::Program& p,
                                                 const schema::Operator& op) {
  const auto& o = *op.options_as_TransposeConvOptions();
  const Tensor &x = input_of(p, op, 0), &w = input_of(p, op, 1), &y = output_of(p, op);
  return kernels::TransposeConvShape{dim(x, 0), dim(x, 1), dim(x, 2), dim(x, 3), dim(w, 1),
                                     dim(w, 2), dim(y, 1), dim(y, 2), dim(y, 3), o.stride_h(),
                                     o.stride_w(), o.pad_h(), o.pad_w()};
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::TransposeConvOptions>();
  const Tensor &x = *c.in(0), &w = *c.in(1), &y = c.out();
  if (rank(w) != 4) return c.bad("filter must be 4-D");
  const int32_t ci = dim(x, 3), co = dim(w, 0);
  if (dim(w, 3) != ci || dim(y, 0) != dim(x, 0) || dim(y, 3) != co) {
    return c.bad("shapes inconsistent");
  }
  const int32_t kh = dim(w, 1), kw = dim(w, 2);
  MOTE_TRY(c.strides(o.stride_h(), o.stride_w()));
  if (o.pad_h() < 0 || o.pad_w() < 0 || o.pad_h() > kh - 1 || o.pad_w() > kw - 1 ||
      int64_t{dim(y, 1)} > int64_t{dim(x, 1)} * o.stride_h() + kh ||
      int64_t{dim(y, 2)} > int64_t{dim(x, 2)} * o.stride_w() + kw) {
    return c.bad("output size inconsistent with input, filter, stride and padding");
  }
  if (c.int16() && c.in(2) != nullptr && c.in(2)->type() != DataType::Int64) {
    return c.bad("int16 transpose convolution needs an int64 bias");
  }
  return check_convolution_quantization(c, o, co, int64_t{kh} * kw * ci);
}

void invoke(const Op& op) {
  if (op.in(0).type() == DataType::Int16) {
    invoke_convolution_16x8<kernels::TransposeConvParams, schema::TransposeConvOptions,
                            &transpose_conv_shape, &kernels::transpose_conv2d_16x8, nullptr>(op);
  } else {
    invoke_convolution<kernels::TransposeConvParams, schema::TransposeConvOptions,
                       &transpose_conv_shape, &kernels::transpose_conv2d>(op);
  }
}

size_t required_scratch(const schema::Program& p, const schema::Operator& op) {
  if (input_of(p, op, 0).type() == DataType::Int16) return 0;  // 16x8: none
  return kernels::transpose_conv_scratch_bytes(transpose_conv_shape(p, op), extension_of(p))
      .total();
}

}  // namespace

extern const OpRegistration kTransposeConvOp{
    takes(2, 3, schema::OpOptions::TransposeConvOptions).int8(2).int16(1).nhwc(), &check,
    &required_scratch, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kTransposeConvPlain{invoke};

}  // namespace mote::runtime::internal
