// MUL: two int8 (or int16) inputs broadcast to the output (TFLite's rule), one output
// requantization; runs in place, front to back.

#include "mote/kernels/mul.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::MulOptions>();
  MOTE_TRY(check_binary_offsets(c, o));
  const schema::Requant* r = o.output_requant();
  if (r == nullptr) return c.bad("requantization missing");
  // The compiler's bound (ops/mul.cc checks the same).
  kernels::MulParams p{};
  p.output_multiplier = r->multiplier();
  p.output_shift = r->shift();
  if (c.int16() ? !kernels::mul_int16_fits(p) : !kernels::mul_fits(p)) {
    return c.bad("multiplier or shift out of range", requant_error(r->multiplier()));
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::MulOptions>();
  kernels::MulParams p{};
  p.input1_offset = o.input1_offset();
  p.input2_offset = o.input2_offset();
  p.output_offset = o.output_offset();
  p.output_multiplier = o.output_requant()->multiplier();
  p.output_shift = o.output_requant()->shift();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  const kernels::BroadcastShape shape = broadcast_shape(op.in(0), op.in(1));
  if (op.out().type() == DataType::Int16) {
    kernels::mul(p, shape, op.in_data<int16_t>(0), op.in_data<int16_t>(1), op.out_data<int16_t>());
  } else {
    kernels::mul(p, shape, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
  }
}

}  // namespace

extern const OpRegistration kMulOp{
    takes(2, 2, schema::OpOptions::MulOptions).int8(2).int16(2).broadcasting(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kMulPlain{&invoke};

}  // namespace mote::runtime::internal
