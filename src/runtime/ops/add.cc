// ADD and SUB: two int8 inputs broadcast to the output (TFLite's rule), each rescaled to a common
// scale before the sum or difference (the same parameters and bounds); run in place, front to
// back; ADD also by rows in a stage.

#include "mote/kernels/add.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

kernels::AddParams params_of(const schema::AddOptions& o) {
  kernels::AddParams p{};
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
  p.act_min = o.activation_min();
  p.act_max = o.activation_max();
  return p;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::AddOptions>();
  if (c.int32()) return check_int32_clamp(c, o);
  MOTE_TRY(check_binary_offsets(c, o));
  if (!in_range(o.left_shift(), 0, 22)) return c.bad("left shift out of range");
  const schema::Requant *r1 = o.input1_requant(), *r2 = o.input2_requant(),
                        *ro = o.output_requant();
  if (r1 == nullptr || r2 == nullptr || ro == nullptr) return c.bad("requantization missing");
  if (r1->multiplier() < 0 || r2->multiplier() < 0 || ro->multiplier() < 0) {
    return c.bad("negative multiplier");
  }
  // The compiler's bound (ops/add_sub.cc checks the same).
  const kernels::AddParams p = params_of(o);
  if (c.int16() ? !kernels::add_int16_fits(p) : !kernels::add_fits(p)) {
    return c.bad("multipliers or shifts out of range", Error::kUnsupported);
  }
  return Error::kOk;
}

// ADD's kernel or SUB's, int8 or int16 (16x8).
template <typename T>
using AddKernel = void (*)(const kernels::AddParams&, const kernels::BroadcastShape&, const T*,
                           const T*, T*);
template <AddKernel<int8_t> kKernel, AddKernel<int16_t> kKernel16>
void invoke(const Op& op) {
  const kernels::AddParams p = params_of(op.options<schema::AddOptions>());
  const kernels::BroadcastShape shape = broadcast_shape(op.in(0), op.in(1));
  if (op.out().type() == DataType::Int16) {
    kKernel16(p, shape, op.in_data<int16_t>(0), op.in_data<int16_t>(1), op.out_data<int16_t>());
  } else {
    kKernel(p, shape, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
  }
}

// The rule of the ADD variant this library runs (src/kernels/add.cc).
kernels::OverlapRule add_overlap(const schema::Program& p, const schema::Operator& op, size_t k) {
  if (k > 1 || output_of(p, op).type() != DataType::Int8) return kernels::kNoOverlap;
  return kernels::built_add_overlap(broadcast_shape(input_of(p, op, 0), input_of(p, op, 1)),
                                    static_cast<int32_t>(k));
}

// Inside a row-streamed stage (int8, elementwise_row_reach): the parameters, then BinaryRows.
bool row_args(const schema::Program& p, const schema::Operator& op, int32_t* words) {
  return binary_row_args(p, op, params_of(*op.options_as_AddOptions()), words);
}

}  // namespace

extern const OpRegistration kAddOp{
    takes(2, 2, schema::OpOptions::AddOptions).int8(2).int16(2).int32(2).broadcasting(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &add_overlap};
extern const OpForm kAddPlain{&invoke<kernels::add, kernels::add>};
extern const OpForm kAddInt32{&invoke_int32<kernels::IntegerOp::kAdd, schema::AddOptions>};
extern const OpRowForm kAddRows{&elementwise_row_reach, &row_args,
                                kRowWords<BinaryRowArgs<kernels::AddParams>>,
                                &invoke_binary_rows<kernels::AddParams, kernels::add>};
extern const OpRegistration kSubOp{
    takes(2, 2, schema::OpOptions::AddOptions).int8(2).int16(2).broadcasting(), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/true, &elementwise_overlap};
extern const OpForm kSubPlain{&invoke<kernels::sub, kernels::sub>};

}  // namespace mote::runtime::internal
