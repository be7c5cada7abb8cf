// MEAN over any axes of an int8 (or int16) input of rank <= kMaxMeanRank, TFLite's integer rule.

#include "mote/kernels/mean.h"
#include "runtime/ops/op_support.h"
#include "runtime/ops/reduction.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::MeanOptions>();
  int64_t count = 1;
  MOTE_TRY(check_reduction(c, o.axes(), o.keep_dims(), &count));
  if (o.formula() != schema::MeanFormula::Folded) {
    return c.bad("mean requantization of an older compiler (recompile the model)",
                 Error::kUnsupported);
  }
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
  // |sum(x) - input_zp * count| <= 255 * count (int16: 32768 * count), requantized.
  return c.requant(o.requant(), count * (c.int16() ? 32768 : kMaxCenteredInput),
                   kernels::kMaxMeanSum);
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::MeanOptions>();
  const kernels::MeanParams p =
      reduction_params(op, o.axes(), -o.input_offset(), o.output_offset(),
                       o.requant()->multiplier(), o.requant()->shift());
  if (op.in(0).type() == DataType::Int16) {
    kernels::mean(p, op.in_data<int16_t>(0), op.out_data<int16_t>());
  } else {
    kernels::mean(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
  }
}

}  // namespace

extern const OpRegistration kMeanOp{
    takes(1, 2, schema::OpOptions::MeanOptions).int8(1).int16(1), &check,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kMeanPlain{&invoke};

}  // namespace mote::runtime::internal
