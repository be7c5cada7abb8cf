// HARD_SWISH: int8, TFLite's fixed-point x * relu6(x + 3) / 6, or a 256-byte lookup table the
// compiler computed (an ONNX model's).

#include "mote/kernels/hard_swish.h"
#include "mote/kernels/lookup_table.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::HardSwishOptions>();
  if (has_lookup_table(o.table())) return c.lookup_table(o.table());
  if (!in_range(o.input_zero_point(), -128, 127) || !in_range(o.output_zero_point(), -128, 127) ||
      !in_range(o.reluish_multiplier_exponent(), -30, 30) ||
      !in_range(o.output_multiplier_exponent(), -30, 0)) {
    return c.bad("hard swish parameters out of range");
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::HardSwishOptions>();
  if (const int8_t* table = op.lookup_table(o.table())) {
    kernels::lookup_table(table, op.in_data<int8_t>(0), op.out_data<int8_t>(),
                          element_count(op.in(0)));
    return;
  }
  kernels::HardSwishParams p{};
  p.input_zero_point = static_cast<int16_t>(o.input_zero_point());
  p.output_zero_point = static_cast<int16_t>(o.output_zero_point());
  p.reluish_multiplier_fixedpoint_int16 = o.reluish_multiplier_fixedpoint_int16();
  p.reluish_multiplier_exponent = o.reluish_multiplier_exponent();
  p.output_multiplier_fixedpoint_int16 = o.output_multiplier_fixedpoint_int16();
  p.output_multiplier_exponent = o.output_multiplier_exponent();
  kernels::hard_swish(p, op.in_data<int8_t>(0), op.out_data<int8_t>(), element_count(op.in(0)));
}

}  // namespace

extern const OpRegistration kHardSwishOp{
    takes(1, 1, schema::OpOptions::HardSwishOptions).int8(1).one_to_one(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kHardSwishPlain{&invoke};

}  // namespace mote::runtime::internal
