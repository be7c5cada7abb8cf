// RELU and RELU6: int8 or int16, TFLite's ReluX (requantize to the output's scale, clamp to its quantized 0
// and 6); elementwise, so they may run in place.

#include "mote/kernels/relu.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

kernels::ReluParams params_of(const schema::ReluOptions& o) {
  kernels::ReluParams p{};
  p.input_offset = o.input_offset();
  p.output_offset = o.output_offset();
  p.multiplier = o.requant()->multiplier();
  p.shift = o.requant()->shift();
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  return p;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::ReluOptions>();
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), o.activation_min(),
                               o.activation_max()));
  // The kernel shifts a centred input (|x| <= 255, int16 32768) left by the shift before
  // multiplying.
  return c.requant(o.requant(), c.int16() ? 32768 : kMaxCenteredInput);
}

void invoke(const Op& op) {
  const kernels::ReluParams p = params_of(op.options<schema::ReluOptions>());
  if (op.in(0).type() == DataType::Int16) {
    kernels::relu(p, op.in_data<int16_t>(0), op.out_data<int16_t>(), element_count(op.in(0)));
  } else {
    kernels::relu(p, op.in_data<int8_t>(0), op.out_data<int8_t>(), element_count(op.in(0)));
  }
}

}  // namespace

extern const OpRegistration kReluOp{
    takes(1, 1, schema::OpOptions::ReluOptions).int8(1).int16(1).one_to_one(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &elementwise_overlap};
extern const OpForm kReluPlain{&invoke};
extern const OpRegistration kRelu6Op{
    takes(1, 1, schema::OpOptions::ReluOptions).int8(1).int16(1).one_to_one(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &elementwise_overlap};
extern const OpForm kRelu6Plain{&invoke};

}  // namespace mote::runtime::internal
