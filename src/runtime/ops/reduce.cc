// SUM (the centred int32 sum requantized, TFLite's compute_sum rule) and REDUCE_MAX (the largest
// raw value, output quantized as the input) over any axes of an int8 input of rank <=
// kMaxMeanRank; SUM also of an int16 one.

#include "mote/kernels/mean.h"
#include "runtime/ops/op_support.h"
#include "runtime/ops/reduction.h"

namespace mote::runtime::internal {
namespace {

Error check_sum(const OpChecker& c) {
  const auto& o = c.options<schema::ReduceOptions>();
  int64_t count = 1;
  MOTE_TRY(check_reduction(c, o.axes(), o.keep_dims(), &count));
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
  // |sum(x) - input_zp * count| <= 255 * count (int16: 32768 * count), requantized.
  return c.requant(o.requant(), count * (c.int16() ? 32768 : kMaxCenteredInput),
                   kernels::kMaxMeanSum);
}

void invoke_sum(const Op& op) {
  const auto& o = op.options<schema::ReduceOptions>();
  const kernels::MeanParams p =
      reduction_params(op, o.axes(), -o.input_offset(), o.output_offset(),
                       o.requant()->multiplier(), o.requant()->shift());
  if (op.in(0).type() == DataType::Int16) {
    kernels::mean(p, op.in_data<int16_t>(0), op.out_data<int16_t>());
  } else {
    kernels::mean(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
  }
}

Error check_reduce_max(const OpChecker& c) {
  const auto& o = c.options<schema::ReduceOptions>();
  int64_t count = 1;
  // The kernel copies raw values: the output's quantization (the input's, within the compiler's
  // tolerance) does not matter to it.
  return check_reduction(c, o.axes(), o.keep_dims(), &count);
}

void invoke_reduce_max(const Op& op) {
  const auto& o = op.options<schema::ReduceOptions>();
  const kernels::MeanParams p = reduction_params(op, o.axes(), 0, 0, 0, 0);
  kernels::reduce_max(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
}

}  // namespace

extern const OpRegistration kSumOp{
    takes(1, 2, schema::OpOptions::ReduceOptions).int8(1).int16(1), &check_sum,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kSumPlain{&invoke_sum};
extern const OpRegistration kReduceMaxOp{
    takes(1, 2, schema::OpOptions::ReduceOptions).int8(1), &check_reduce_max,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kReduceMaxPlain{&invoke_reduce_max};

}  // namespace mote::runtime::internal
