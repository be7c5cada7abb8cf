// LEAKY_RELU: int8 or int16, TFLite's two multipliers (input/output scale for x >= 0, alpha times it
// below), or (int8) a 256-byte lookup table the compiler computed (an ONNX model's); elementwise,
// so it may run in place.

#include "mote/kernels/leaky_relu.h"
#include "mote/kernels/lookup_table.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::LeakyReluOptions>();
  const bool int16 = c.int16();
  if (has_lookup_table(o.table())) {
    return int16 ? c.bad("a leaky relu table is for int8") : c.lookup_table(o.table());
  }
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), int16 ? -32768 : -128,
                               int16 ? 32767 : 127));
  // The kernel shifts a centred input (|x| <= 255, int16 |x| <= 32768) left by the shift before
  // multiplying.
  const int64_t bound = int16 ? 32768 : kMaxCenteredInput;
  MOTE_TRY(c.requant(o.identity_requant(), bound));
  return c.requant(o.alpha_requant(), bound);
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::LeakyReluOptions>();
  if (const int8_t* table = op.lookup_table(o.table())) {
    kernels::lookup_table(table, op.in_data<int8_t>(0), op.out_data<int8_t>(),
                          element_count(op.in(0)));
    return;
  }
  kernels::LeakyReluParams p{};
  p.input_offset = o.input_offset();
  p.output_offset = o.output_offset();
  p.identity_multiplier = o.identity_requant()->multiplier();
  p.identity_shift = o.identity_requant()->shift();
  p.alpha_multiplier = o.alpha_requant()->multiplier();
  p.alpha_shift = o.alpha_requant()->shift();
  if (op.in(0).type() == DataType::Int16) {
    kernels::leaky_relu(p, op.in_data<int16_t>(0), op.out_data<int16_t>(),
                        element_count(op.in(0)));
  } else {
    kernels::leaky_relu(p, op.in_data<int8_t>(0), op.out_data<int8_t>(), element_count(op.in(0)));
  }
}

}  // namespace

extern const OpRegistration kLeakyReluOp{
    takes(1, 1, schema::OpOptions::LeakyReluOptions).int8(1).int16(1).one_to_one(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, /*overlap=*/nullptr};
extern const OpForm kLeakyReluPlain{&invoke};

}  // namespace mote::runtime::internal
