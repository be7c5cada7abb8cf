// ADD and SUB: two int8 inputs broadcast to the output (TFLite's rule), each rescaled to a common
// scale before the sum or difference (the same parameters and bounds); run in place, front to back.

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
  MOTE_TRY(check_binary_offsets(c, o));
  if (!in_range(o.left_shift(), 0, 22)) return c.bad("left shift out of range");
  const schema::Requant *r1 = o.input1_requant(), *r2 = o.input2_requant(),
                        *ro = o.output_requant();
  if (r1 == nullptr || r2 == nullptr || ro == nullptr) return c.bad("requantization missing");
  if (r1->multiplier() < 0 || r2->multiplier() < 0 || ro->multiplier() < 0) {
    return c.bad("negative multiplier");
  }
  // The compiler's bound (ops/add_sub.cc checks the same).
  if (!kernels::add_fits(params_of(o))) {
    return c.bad("multipliers or shifts out of range", Error::kUnsupported);
  }
  return Error::kOk;
}

// ADD's kernel or SUB's.
template <void (*kKernel)(const kernels::AddParams&, const kernels::BroadcastShape&, const int8_t*,
                          const int8_t*, int8_t*)>
void invoke(const Op& op) {
  kKernel(params_of(op.options<schema::AddOptions>()), broadcast_shape(op.in(0), op.in(1)),
          op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.out_data<int8_t>());
}

// The rule of the ADD variant this library runs (src/kernels/add.cc).
kernels::OverlapRule add_overlap(const schema::Program& p, const schema::Operator& op, size_t k) {
  if (k > 1) return kernels::kNoOverlap;
  return kernels::built_add_overlap(broadcast_shape(input_of(p, op, 0), input_of(p, op, 1)),
                                    static_cast<int32_t>(k));
}

}  // namespace

extern const OpRegistration kAddOp{
    takes(2, 2, schema::OpOptions::AddOptions).int8(2).broadcasting(), &check,
    &invoke<kernels::add>, /*required_scratch=*/nullptr, /*runs_in_place=*/true,
    &add_overlap};
extern const OpRegistration kSubOp{
    takes(2, 2, schema::OpOptions::AddOptions).int8(2).broadcasting(), &check,
    &invoke<kernels::sub>, /*required_scratch=*/nullptr, /*runs_in_place=*/true,
    &elementwise_overlap};

}  // namespace mote::runtime::internal
