// MUL: two int8 inputs broadcast to the output (TFLite's rule), one output requantization; runs
// in place, front to back.

#include "mote/kernels/mul.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  MOTE_TRY(c.shape_of_op(2, 2, 1, schema::OpOptions::MulOptions));
  const auto& o = *c.op().options_as_MulOptions();
  const Tensor &a = *c.in(0), &b = *c.in(1), &y = c.out();
  if (a.type() != DataType::Int8 || b.type() != DataType::Int8 || y.type() != DataType::Int8) {
    return c.bad("inputs and output must be int8");
  }
  if (!broadcast_ok(a, b, y)) return c.bad("input shapes do not broadcast to the output shape");
  MOTE_TRY(c.offsets_and_range(o.input1_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
  if (!in_range(o.input2_offset(), -127, 128)) return c.bad("zero point outside int8");
  const schema::Requant* r = o.output_requant();
  if (r == nullptr) return c.bad("output multiplier and shift missing");
  kernels::MulParams p{};
  p.output_multiplier = r->multiplier();
  p.output_shift = r->shift();
  if (!kernels::mul_fits(p)) {
    return c.bad("output multiplier or shift out of range", requant_error(r->multiplier()));
  }
  return Error::kOk;
}

Error invoke(const Op& op) {
  const auto& o = *op.op().options_as_MulOptions();
  kernels::MulParams p{};
  p.input1_offset = o.input1_offset();
  p.input2_offset = o.input2_offset();
  p.output_offset = o.output_offset();
  p.output_multiplier = o.output_requant()->multiplier();
  p.output_shift = o.output_requant()->shift();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  kernels::mul(p, broadcast_shape(op.in(0), op.in(1)), op.in_data<int8_t>(0),
               op.in_data<int8_t>(1), op.out_data<int8_t>());
  return Error::kOk;
}

}  // namespace

extern const OpRegistration kMulOp{&check, &invoke, /*required_scratch=*/nullptr,
                                   /*runs_in_place=*/true};

}  // namespace mote::runtime::internal
