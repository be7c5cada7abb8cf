// MAXIMUM and MINIMUM: two int8 inputs broadcast to the output; run in place, front to back.

#include "mote/kernels/maximum_minimum.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  MOTE_TRY(c.shape_of_op(2, 2, 1, schema::OpOptions::NONE));
  const Tensor &a = *c.in(0), &b = *c.in(1), &y = c.out();
  if (a.type() != DataType::Int8 || b.type() != DataType::Int8 || y.type() != DataType::Int8) {
    return c.bad("inputs and output must be int8");
  }
  if (!broadcast_ok(a, b, y)) return c.bad("input shapes do not broadcast to the output shape");
  return Error::kOk;
}

Error invoke_maximum(const Op& op) {
  kernels::maximum(broadcast_shape(op.in(0), op.in(1)), op.in_data<int8_t>(0),
                   op.in_data<int8_t>(1), op.out_data<int8_t>());
  return Error::kOk;
}

Error invoke_minimum(const Op& op) {
  kernels::minimum(broadcast_shape(op.in(0), op.in(1)), op.in_data<int8_t>(0),
                   op.in_data<int8_t>(1), op.out_data<int8_t>());
  return Error::kOk;
}

}  // namespace

extern const OpRegistration kMaximumOp{&check, &invoke_maximum, /*required_scratch=*/nullptr,
                                       /*runs_in_place=*/true};
extern const OpRegistration kMinimumOp{&check, &invoke_minimum, /*required_scratch=*/nullptr,
                                       /*runs_in_place=*/true};

}  // namespace mote::runtime::internal
