// MAXIMUM and MINIMUM: two int8 (or int16) inputs broadcast to the output; run in place, front to
// back.

#include "mote/kernels/maximum_minimum.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

template <typename T>
void extremum(const Op& op, bool maximum) {
  const kernels::BroadcastShape shape = broadcast_shape(op.in(0), op.in(1));
  if (maximum) {
    kernels::maximum(shape, op.in_data<T>(0), op.in_data<T>(1), op.out_data<T>());
  } else {
    kernels::minimum(shape, op.in_data<T>(0), op.in_data<T>(1), op.out_data<T>());
  }
}

void invoke(const Op& op, bool maximum) {
  if (op.in(0).type() == DataType::Int16) {
    extremum<int16_t>(op, maximum);
  } else {
    extremum<int8_t>(op, maximum);
  }
}
void invoke_maximum(const Op& op) { invoke(op, true); }
void invoke_minimum(const Op& op) { invoke(op, false); }

}  // namespace

extern const OpRegistration kMaximumOp{
    takes(2, 2, schema::OpOptions::NONE).int8(2).int16(2).broadcasting(), /*check=*/nullptr,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kMaximumPlain{&invoke_maximum};
extern const OpRegistration kMinimumOp{
    takes(2, 2, schema::OpOptions::NONE).int8(2).int16(2).broadcasting(), /*check=*/nullptr,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kMinimumPlain{&invoke_minimum};

}  // namespace mote::runtime::internal
