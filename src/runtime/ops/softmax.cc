// SOFTMAX: over the last axis of an int8 input, to int8 or int16 (TFLite's fixed-point exp).

#include "mote/kernels/softmax.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::SoftmaxOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  if (x.type() != DataType::Int8 || (y.type() != DataType::Int8 && y.type() != DataType::Int16)) {
    return c.bad("input must be int8 and output int8 or int16");
  }
  if (!same_shape(x, y) || rank(x) < 1) return c.bad("output shape differs from input");
  // Fixed-point exp sums over a row carry 12 integer bits: 4096 ones would overflow.
  if (dim(x, rank(x) - 1) >= 4096) return c.bad("softmax row of 4096 or more", Error::kUnsupported);
  if (o.diff_min() > 0 || o.input_multiplier() < 0 || !in_range(o.input_left_shift(), 0, 31)) {
    return c.bad("softmax parameters out of range");
  }
  const int64_t largest_diff = min64(kMaxCenteredInput, -int64_t{o.diff_min()});
  if ((largest_diff << o.input_left_shift()) > INT32_MAX) {
    return c.bad("softmax parameters out of range");
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::SoftmaxOptions>();
  const Tensor& x = op.in(0);
  kernels::SoftmaxParams p{};
  p.row_size = dim(x, rank(x) - 1);
  p.rows = static_cast<int32_t>(element_count(x) / static_cast<size_t>(p.row_size));
  p.input_multiplier = o.input_multiplier();
  p.input_left_shift = o.input_left_shift();
  p.diff_min = o.diff_min();
  if (op.out().type() == DataType::Int16) {
    kernels::softmax(p, op.in_data<int8_t>(0), op.out_data<int16_t>());
  } else {
    kernels::softmax(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
  }
}

}  // namespace

extern const OpRegistration kSoftmaxOp{
    takes(1, 1, schema::OpOptions::SoftmaxOptions), &check, &invoke, /*required_scratch=*/nullptr,
    /*runs_in_place=*/false, /*overlap=*/nullptr};

}  // namespace mote::runtime::internal
