// SQUARED_DIFFERENCE: two int8 (or int16) inputs broadcast to the output (TFLite's rule), each
// shifted and rescaled to a common scale, the difference squared and requantized; run in place,
// front to back.

#include "mote/kernels/squared_difference.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

kernels::SquaredDifferenceParams params_of(const schema::SquaredDifferenceOptions& o) {
  kernels::SquaredDifferenceParams p{};
  p.input1_offset = o.input1_offset();
  p.input2_offset = o.input2_offset();
  p.output_offset = o.output_offset();
  p.left_shift = o.left_shift();
  p.input1_multiplier = o.input1_requant()->multiplier();
  p.input1_shift = o.input1_requant()->shift();
  p.input2_multiplier = o.input2_requant()->multiplier();
  p.input2_shift = o.input2_requant()->shift();
  p.output_multiplier = o.output_requant()->multiplier();
  p.output_shift = o.output_requant()->shift();
  return p;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::SquaredDifferenceOptions>();
  if (c.int16()) {
    if (o.input1_offset() != 0 || o.input2_offset() != 0 || o.output_offset() != 0) {
      return c.bad("int16 zero point not 0");
    }
  } else if (!in_range(o.input1_offset(), -127, 128) || !in_range(o.input2_offset(), -127, 128) ||
             !in_range(o.output_offset(), -128, 127)) {
    return c.bad("zero point outside int8");
  }
  const schema::Requant *r1 = o.input1_requant(), *r2 = o.input2_requant(),
                        *ro = o.output_requant();
  if (r1 == nullptr || r2 == nullptr || ro == nullptr) return c.bad("requantization missing");
  if (r1->multiplier() < 0 || r2->multiplier() < 0 || ro->multiplier() < 0) {
    return c.bad("negative multiplier");
  }
  // The compiler's bound (ops/squared_difference.cc checks the same).
  if (!kernels::squared_difference_fits(params_of(o), c.int16())) {
    return c.bad("multipliers or shifts out of range", Error::kUnsupported);
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const kernels::SquaredDifferenceParams p =
      params_of(op.options<schema::SquaredDifferenceOptions>());
  const kernels::BroadcastShape shape = broadcast_shape(op.in(0), op.in(1));
  if (op.in(0).type() == DataType::Int16) {
    kernels::squared_difference(p, shape, op.in_data<int16_t>(0), op.in_data<int16_t>(1),
                                op.out_data<int16_t>());
  } else {
    kernels::squared_difference(p, shape, op.in_data<int8_t>(0), op.in_data<int8_t>(1),
                                op.out_data<int8_t>());
  }
}

}  // namespace

extern const OpRegistration kSquaredDifferenceOp{
    takes(2, 2, schema::OpOptions::SquaredDifferenceOptions).int8(2).int16(2).broadcasting(),
    &check, /*required_scratch=*/nullptr, /*runs_in_place=*/true, &elementwise_overlap};
extern const OpForm kSquaredDifferencePlain{&invoke};

}  // namespace mote::runtime::internal
