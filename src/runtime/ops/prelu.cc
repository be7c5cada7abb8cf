// PRELU: int8 input and alpha broadcast to the input's shape, TFLite's two requantizations; may
// run in place over the input.

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
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
  if (!in_range(o.alpha_offset(), -127, 128)) return c.bad("alpha zero point outside int8");
  MOTE_TRY(c.requant(o.identity_requant(), kMaxCenteredInput));
  // A negative centred input times a centred alpha: |x * alpha| <= 255 * 255.
  return c.requant(o.alpha_requant(), kMaxCenteredInput * kMaxCenteredInput);
}

void invoke(const Op& op) {
  kernels::prelu(params_of(op.options<schema::PreluOptions>()), broadcast_shape(op.in(0), op.in(1)),
                 op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
}

// In place over the input only (alpha is broadcast).
kernels::OverlapRule overlap(const schema::Program& p, const schema::Operator& op, size_t k) {
  return k == 0 ? elementwise_overlap(p, op, k) : kernels::kNoOverlap;
}

}  // namespace

extern const OpRegistration kPreluOp{
    takes(2, 2, schema::OpOptions::PreluOptions).int8(2).broadcasting(), &check, &invoke,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &overlap};

}  // namespace mote::runtime::internal
