// RSQRT int8: TFLite's RsqrtEvalQuantized (fixed-point 1/sqrt of the centred input, then one
// requantization by 1 / (sqrt(input scale) * output scale)).
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/rsqrt.h"

namespace mote::ops {
namespace {

kernels::RsqrtParams params(const ir::Tensor& input, const ir::Tensor& output) {
  return kernels::prepare_rsqrt(scale_of(input), zero_point_of(input), scale_of(output),
                                zero_point_of(output));
}

void check(Checker& c) {
  c.no_options();
  c.expect_unary_elementwise();
  if (!(scale_of(c.in(0)) > 0.0f) || !(scale_of(c.out()) > 0.0f)) {
    c.fail("input and output scales must be positive");
  }
  if (!kernels::rsqrt_fits(params(c.in(0), c.out()))) {
    c.fail("input scale " + num(scale_of(c.in(0))) + " with output scale " +
           num(scale_of(c.out())) + " gives a requantization the int8 kernel cannot take");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const kernels::RsqrtParams p = params(ctx.in(0), ctx.out());
  schema::RsqrtOptionsT o;
  o.input_zero_point = p.input_zero_point;
  o.output_zero_point = p.output_zero_point;
  o.requant = std::make_unique<schema::Requant>(p.multiplier, p.shift);
  out.options.Set(std::move(o));
}

}  // namespace

extern const OpDef rsqrt{.builtin_code = builtin(tfl::BuiltinOperator::RSQRT),
                         .read_options = read_empty<tfl::BuiltinOptions::NONE>,
                         .write_options = write_empty<void>, .check = check, .lower = lower,
                         .overlap = elementwise_overlap};

}  // namespace mote::ops
