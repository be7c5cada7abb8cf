// PRELU: int8 input and alpha broadcast to the input's shape, TFLite's two requantizations; or
// 16x8 (int16 input and output, int8 alpha). May run in place over the input.

#include "mote/kernels/prelu.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

kernels::PreluParams params_of(const schema::PreluOptions& o) {
  kernels::PreluParams p{};
  p.input_offset = o.input_offset();
  p.alpha_offset = o.alpha_offset();
  p.output_offset = o.output_offset();
  p.identity_multiplier = o.identity_requant()->multiplier();
  p.identity_shift = o.identity_requant()->shift();
  p.alpha_multiplier = o.alpha_requant()->multiplier();
  p.alpha_shift = o.alpha_requant()->shift();
  return p;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::PreluOptions>();
  if (!same_shape(*c.in(0), c.out())) return c.bad("output shape must be the input's");
  if (!in_range(o.alpha_offset(), -127, 128)) return c.bad("alpha zero point outside int8");
  if (c.int16()) {
    if (o.input_offset() != 0 || o.output_offset() != 0) return c.bad("int16 zero point not 0");
    MOTE_TRY(c.requant(o.identity_requant(), 32768));
    return c.requant(o.alpha_requant(), int64_t{32768} * kMaxCenteredInput);
  }
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
  MOTE_TRY(c.requant(o.identity_requant(), kMaxCenteredInput));
  // A negative centred input times a centred alpha: |x * alpha| <= 255 * 255.
  return c.requant(o.alpha_requant(), kMaxCenteredInput * kMaxCenteredInput);
}

void invoke(const Op& op) {
  const kernels::PreluParams p = params_of(op.options<schema::PreluOptions>());
  const kernels::BroadcastShape shape = broadcast_shape(op.in(0), op.in(1));
  if (op.in(0).type() == DataType::Int16) {
    kernels::prelu(p, shape, op.in_data<int16_t>(0), op.in_data<int8_t>(1),
                   op.out_data<int16_t>());
  } else {
    kernels::prelu(p, shape, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
  }
}

// In place over the input only (alpha is broadcast).
kernels::OverlapRule overlap(const schema::Program& p, const schema::Operator& op, size_t k) {
  return k == 0 ? elementwise_overlap(p, op, k) : kernels::kNoOverlap;
}

}  // namespace

extern const OpRegistration kPreluOp{
    takes(2, 2, schema::OpOptions::PreluOptions).int8(2).int16(1).broadcasting(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &overlap};
extern const OpForm kPreluPlain{&invoke};

}  // namespace mote::runtime::internal
