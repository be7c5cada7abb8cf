// TANH: int8, either TFLite's fixed-point tanh (TensorFlow Lite Micro's) or a 256-byte lookup
// table the compiler computed, or int16 (16x8), TFLite's int16 kernel; elementwise, so it may run
// in place.

#include "mote/kernels/lookup_table.h"
#include "mote/kernels/activation16.h"
#include "mote/kernels/tanh.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::TanhOptions>();
  if (c.int16()) {
    // 16x8: the int16 kernel's scaling (kernels::Activation16Params) keeps x * multiplier in int32.
    if (!in_range(o.input_multiplier(), 0, 32767) || !in_range(o.input_left_shift(), 0, 31)) {
      return c.bad("int16 parameters out of range");
    }
    return Error::kOk;
  }
  if (has_lookup_table(o.table())) return c.lookup_table(o.table());
  const int32_t shift = o.input_left_shift();
  if (!in_range(o.input_zero_point(), -128, 127) || o.input_range_radius() < 0 ||
      o.input_multiplier() < 0 || !in_range(shift, -31, 30) ||
      (min64(kMaxCenteredInput, o.input_range_radius()) << (shift > 0 ? shift : 0)) > INT32_MAX) {
    return c.bad("tanh parameters out of range");
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  if (op.in(0).type() == DataType::Int16) {
    const auto& o16 = op.options<schema::TanhOptions>();
    kernels::tanh(kernels::Activation16Params{o16.input_multiplier(), o16.input_left_shift()},
                   op.in_data<int16_t>(0), op.out_data<int16_t>(), element_count(op.in(0)));
    return;
  }
  const auto& o = op.options<schema::TanhOptions>();
  const size_t count = element_count(op.in(0));
  if (const int8_t* table = op.lookup_table(o.table())) {
    kernels::lookup_table(table, op.in_data<int8_t>(0), op.out_data<int8_t>(), count);
    return;
  }
  kernels::TanhParams p{};
  p.input_zero_point = o.input_zero_point();
  p.input_range_radius = o.input_range_radius();
  p.input_multiplier = o.input_multiplier();
  p.input_left_shift = o.input_left_shift();
  kernels::tanh(p, op.in_data<int8_t>(0), op.out_data<int8_t>(), count);
}

}  // namespace

extern const OpRegistration kTanhOp{
    takes(1, 1, schema::OpOptions::TanhOptions).int8(1).int16(1).one_to_one(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &elementwise_overlap};
extern const OpForm kTanhPlain{&invoke};

}  // namespace mote::runtime::internal
