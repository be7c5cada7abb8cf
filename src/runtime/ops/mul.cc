// MUL: two int8 (or int16) inputs broadcast to the output (TFLite's rule), one output
// requantization; runs in place, front to back, whole or (int8: each input of the output's shape
// or a constant that does not vary along H) by rows in a stage.

#include "mote/kernels/mul.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::MulOptions>();
  if (c.int32()) return check_int32_clamp(c, o);
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

kernels::MulParams params_of(const schema::MulOptions& o) {
  kernels::MulParams p{};
  p.input1_offset = o.input1_offset();
  p.input2_offset = o.input2_offset();
  p.output_offset = o.output_offset();
  p.output_multiplier = o.output_requant()->multiplier();
  p.output_shift = o.output_requant()->shift();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  return p;
}

void invoke(const Op& op) {
  const kernels::MulParams p = params_of(op.options<schema::MulOptions>());
  const kernels::BroadcastShape shape = broadcast_shape(op.in(0), op.in(1));
  if (op.out().type() == DataType::Int16) {
    kernels::mul(p, shape, op.in_data<int16_t>(0), op.in_data<int16_t>(1), op.out_data<int16_t>());
  } else {
    kernels::mul(p, shape, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
  }
}

// Inside a row-streamed stage (int8, elementwise_row_reach): the parameters, then BinaryRows, on
// the kernel the whole map runs (every variant takes equal shapes, bit for bit the portable
// kernel, which takes a constant's broadcast).
bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  return binary_row_args(p, op, params_of(*op.options_as_MulOptions()), words);
}

}  // namespace

extern const OpRegistration kMulOp{
    takes(2, 2, schema::OpOptions::MulOptions).int8(2).int16(2).int32(2).broadcasting(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kMulPlain{&invoke};
extern const OpForm kMulInt32{&invoke_int32<kernels::IntegerOp::kMul, schema::MulOptions>};
extern const OpRowForm kMulRows{&elementwise_row_reach, &row_args,
                                kRowWords<BinaryRowArgs<kernels::MulParams>>,
                                &invoke_binary_rows<kernels::MulParams, kernels::mul>};

}  // namespace mote::runtime::internal
