#pragma once
// What LOGISTIC and TANH share in their 16x8 form: TFLM's int16 kernels (zero points 0, output
// scale 2^-15), the input scaled onto the sigmoid table by kernels::prepare_activation16.
#include <cmath>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "mote/kernels/activation16.h"

namespace mote::ops {

inline void check_activation16(Checker& c, bool tanh) {
  c.expect_unary_elementwise(DataType::kInt16);
  const float out_scale = scale_of(c.out());
  if (std::fabs(std::log2(static_cast<double>(out_scale)) + 15) > 1e-3) {
    c.fail(c.out_label() + " is int16, so it must have scale 1/32768 (has " + num(out_scale) + ")");
  }
  kernels::Activation16Params p{};
  if (!kernels::prepare_activation16(scale_of(c.in(0)), tanh, &p)) {
    c.fail(c.in_label(0) + " scale " + num(scale_of(c.in(0))) +
           " is above 8/3, more than TFLite's int16 kernel takes");
  }
}

// Options: the operator's program table (LogisticOptionsT, TanhOptionsT).
template <typename Options>
void lower_activation16(LowerContext& ctx, schema::OperatorT& out, bool tanh) {
  kernels::Activation16Params p{};
  kernels::prepare_activation16(scale_of(ctx.in(0)), tanh, &p);
  Options o;
  o.input_multiplier = p.multiplier;
  o.input_left_shift = p.left_shift;
  out.options.Set(std::move(o));
}

}  // namespace mote::ops
