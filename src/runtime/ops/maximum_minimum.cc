// MAXIMUM and MINIMUM: two int8 inputs broadcast to the output; run in place, front to back.

#include "mote/kernels/maximum_minimum.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

void invoke_maximum(const Op& op) {
  kernels::maximum(broadcast_shape(op.in(0), op.in(1)), op.in_data<int8_t>(0),
                   op.in_data<int8_t>(1), op.out_data<int8_t>());
}

void invoke_minimum(const Op& op) {
  kernels::minimum(broadcast_shape(op.in(0), op.in(1)), op.in_data<int8_t>(0),
                   op.in_data<int8_t>(1), op.out_data<int8_t>());
}

}  // namespace

extern const OpRegistration kMaximumOp{
    takes(2, 2, schema::OpOptions::NONE).int8(2).broadcasting(), /*check=*/nullptr, &invoke_maximum,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpRegistration kMinimumOp{
    takes(2, 2, schema::OpOptions::NONE).int8(2).broadcasting(), /*check=*/nullptr, &invoke_minimum,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};

}  // namespace mote::runtime::internal
