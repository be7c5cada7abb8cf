// HARD_SWISH int8 (TFLite's int16 fixed-point HardSwishParams).
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/hard_swish.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  c.no_options();
  c.expect_unary_elementwise();
  const ir::Tensor& input = c.in(0);
  const ir::Tensor& output = c.out();
  const auto p = kernels::prepare_hard_swish(scale_of(input), zero_point_of(input),
                                             scale_of(output), zero_point_of(output));
  if (p.output_multiplier_exponent > 0) {
    c.fail("output scale too small for the input scale (TFLite requires a non-positive exponent)");
  }
  // The int16 fixed-point kernel shifts by these exponents.
  if (p.output_multiplier_exponent < -30 || p.reluish_multiplier_exponent < -30 ||
      p.reluish_multiplier_exponent > 30) {
    c.fail("input scale " + num(scale_of(input)) + " or output scale " + num(scale_of(output)) +
           " outside what the int8 kernel supports");
  }
}

// The program's options are the kernel's parameters, field for field.
schema::HardSwishOptionsT program_options(const kernels::HardSwishParams& p) {
  schema::HardSwishOptionsT o;
  o.input_zero_point = p.input_zero_point;
  o.output_zero_point = p.output_zero_point;
  o.reluish_multiplier_fixedpoint_int16 = p.reluish_multiplier_fixedpoint_int16;
  o.reluish_multiplier_exponent = p.reluish_multiplier_exponent;
  o.output_multiplier_fixedpoint_int16 = p.output_multiplier_fixedpoint_int16;
  o.output_multiplier_exponent = p.output_multiplier_exponent;
  return o;
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const ir::Tensor& input = ctx.in(0);
  const ir::Tensor& output = ctx.out();
  const auto p = kernels::prepare_hard_swish(scale_of(input), zero_point_of(input),
                                             scale_of(output), zero_point_of(output));
  out.options.Set(program_options(p));
}

}  // namespace

extern const OpDef hard_swish{.builtin_code = builtin(tfl::BuiltinOperator::HARD_SWISH),
                              .read_options = read_empty<tfl::BuiltinOptions::HardSwishOptions>,
                              .write_options = write_empty<tfl::HardSwishOptionsT>, .check = check,
                              .lower = lower};

}  // namespace mote::ops
