// MEAN over the spatial axes [1, 2] of an int8 NHWC input, with TFLite's or TFLM's rounding.

#include "mote/kernels/mean.h"
#include "runtime/ops/op_support.h"

namespace mote::runtime::internal {
namespace {

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::MeanOptions>();
  const Tensor &x = *c.in(0), &y = c.out();
  if (rank(x) != 4) return c.bad("input must be NHWC");
  const auto* axes = o.axes();
  if (axes == nullptr || axes->size() != 2 ||
      !((axes->Get(0) == 1 && axes->Get(1) == 2) || (axes->Get(0) == 2 && axes->Get(1) == 1))) {
    return c.bad("mean supports axes [1, 2] only", Error::kUnsupported);
  }
  const bool shape_ok =
      o.keep_dims() ? (rank(y) == 4 && dim(y, 0) == dim(x, 0) && dim(y, 1) == 1 &&
                       dim(y, 2) == 1 && dim(y, 3) == dim(x, 3))
                    : (rank(y) == 2 && dim(y, 0) == dim(x, 0) && dim(y, 1) == dim(x, 3));
  if (!shape_ok) return c.bad("output shape inconsistent with axes");
  if (o.formula() != schema::MeanFormula::TfLite && o.formula() != schema::MeanFormula::Tflm) {
    return c.bad("unknown mean formula");
  }
  MOTE_TRY(c.offsets_and_range(o.input_offset(), o.output_offset(), -128, 127));
  const int64_t count = int64_t{dim(x, 1)} * dim(x, 2);
  // The sum over the window, then (kTfLite) a rounding division that adds count / 2.
  const int64_t bound = count * (kMaxCenteredInput + 1);
  return c.requant(o.requant(), bound);
}

void invoke(const Op& op) {
  const auto& o = op.options<schema::MeanOptions>();
  const Tensor& x = op.in(0);
  kernels::MeanParams p{};
  p.batches = dim(x, 0);
  p.height = dim(x, 1);
  p.width = dim(x, 2);
  p.channels = dim(x, 3);
  p.input_zero_point = -o.input_offset();
  p.output_zero_point = o.output_offset();
  p.multiplier = o.requant()->multiplier();
  p.shift = o.requant()->shift();
  p.formula = o.formula() == schema::MeanFormula::Tflm ? kernels::MeanFormula::kTflm
                                                        : kernels::MeanFormula::kTfLite;
  kernels::mean(p, op.in_data<int8_t>(0), op.out_data<int8_t>());
}

}  // namespace

extern const OpRegistration kMeanOp{
    takes(1, 2, schema::OpOptions::MeanOptions).int8(1), &check, &invoke,
    /*required_scratch=*/nullptr, /*runs_in_place=*/false};

}  // namespace mote::runtime::internal
