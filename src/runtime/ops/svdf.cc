// SVDF: int8 input [B, I], weights_feature int8 [F, I], weights_time [F, T] int16 (state int16)
// or int8 (state int8), optional int32 bias [F / rank], state [B, F * T] (a state tensor the
// kernel updates), int8 output [B, F / rank]; int32 scratch.

#include "mote/kernels/svdf.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

constexpr size_t kState = 4;

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::SvdfOptions>();
  const Tensor* state = c.in(kState);
  if (state == nullptr || !state->state()) return c.bad("input 4 must be a state tensor");
  const Tensor &x = *c.in(0), &wf = *c.in(1), &wt = *c.in(2), &y = c.out();
  if (rank(x) != 2 || rank(wf) != 2 || rank(wt) != 2 || rank(*state) != 2 || rank(y) != 2) {
    return c.bad("input, weights, state and output must be 2-D");
  }
  if (wt.type() != DataType::Int16 && wt.type() != DataType::Int8) {
    return c.bad("weights_time must be int16 or int8");
  }
  if (state->type() != wt.type()) return c.bad("state type differs from weights_time's");
  const int32_t batches = dim(x, 0), input_size = dim(x, 1), filters = dim(wf, 0);
  const int32_t memory = dim(wt, 1);
  if (o.rank() < 1 || filters % o.rank() != 0) return c.bad("rank does not divide the filters");
  const int32_t units = filters / o.rank();
  if (dim(wf, 1) != input_size || dim(wt, 0) != filters || dim(*state, 0) != batches ||
      int64_t{dim(*state, 1)} != int64_t{filters} * memory || dim(y, 0) != batches ||
      dim(y, 1) != units) {
    return c.bad("shapes inconsistent");
  }
  if (!in_range(o.input_offset(), -127, 128) || !in_range(o.output_offset(), -128, 127)) {
    return c.bad("zero point outside int8");
  }
  const bool int16 = wt.type() == DataType::Int16;
  if (int16 ? o.state_zero_point() != 0 : !in_range(o.state_zero_point(), -128, 127)) {
    return c.bad("state zero point outside its type (0 for int16)");
  }
  int64_t bias_max = 0;
  MOTE_TRY(c.bias(c.in(3), units, &bias_max));
  MOTE_TRY(c.requant(o.feature_requant(), kernels::svdf_feature_bound(input_size)));
  // The time sums wrap as int32 (as the reference's do); only a right shift keeps the
  // requantization within int32 for any of them.
  const schema::Requant* t = o.time_requant();
  if (t == nullptr) return c.bad("missing time requantization");
  if (t->multiplier() < 0 || t->shift() > 0 || t->shift() < -31) {
    return c.bad("time requantization must be a multiplier below 1",
                 t->multiplier() < 0 ? Error::kInvalidProgram : Error::kUnsupported);
  }
  return Error::kOk;
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::SvdfOptions>();
  const Tensor &x = op.in(0), &wf = op.in(1), &wt = op.in(2);
  kernels::SvdfParams p{};
  p.batches = dim(x, 0);
  p.input_size = dim(x, 1);
  p.filters = dim(wf, 0);
  p.memory = dim(wt, 1);
  p.rank = o.rank();
  p.input_zero_point = -o.input_offset();
  p.output_zero_point = o.output_offset();
  p.state_zero_point = o.state_zero_point();
  p.feature_multiplier = o.feature_requant()->multiplier();
  p.feature_shift = o.feature_requant()->shift();
  p.time_multiplier = o.time_requant()->multiplier();
  p.time_shift = o.time_requant()->shift();
  int32_t* scratch = reinterpret_cast<int32_t*>(op.scratch().data);
  const int32_t* bias = op.optional_in_data<int32_t>(3);
  if (wt.type() == DataType::Int16) {
    kernels::svdf(p, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.in_data<int16_t>(2), bias,
                  op.state_data<int16_t>(kState), op.out_data<int8_t>(), scratch);
  } else {
    kernels::svdf(p, op.in_data<int8_t>(0), op.in_data<int8_t>(1), op.in_data<int8_t>(2), bias,
                  op.state_data<int8_t>(kState), op.out_data<int8_t>(), scratch);
  }
}

size_t required_scratch(const schema::Program& p, const schema::Operator& op) {
  const auto& o = *op.options_as<schema::SvdfOptions>();
  return kernels::svdf_scratch_bytes(dim(input_of(p, op, 0), 0), dim(input_of(p, op, 1), 0),
                                     o.rank());
}

}  // namespace

extern const OpRegistration kSvdfOp{
    takes(3, 5, schema::OpOptions::SvdfOptions).int8(2), &check, &required_scratch,
    /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kSvdfPlain{&invoke};

}  // namespace mote::runtime::internal
