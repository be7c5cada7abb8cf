// MUL: int8 with TFLite's broadcasting and fused activation.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/mul.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  c.options<ir::ElementwiseOptions>();
  c.expect_binary_elementwise(/*constants=*/true);
  const ir::Tensor &a = c.in(0), &b = c.in(1), &y = c.out();
  if (!kernels::mul_fits(kernels::prepare_mul(scale_of(a), zero_point_of(a), scale_of(b),
                                              zero_point_of(b), scale_of(y), zero_point_of(y),
                                              -128, 127))) {
    c.fail("input scale product " + num(double{scale_of(a)} * scale_of(b)) +
           " / output scale " + num(scale_of(y)) +
           " overflows the int32 requantization (the output scale is too small)");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::ElementwiseOptions>(ctx.op().options);
  const ir::Tensor& a = ctx.in(0);
  const ir::Tensor& b = ctx.in(1);
  const ir::Tensor& y = ctx.out();
  const auto range = ctx.activation_range(o.activation);
  const kernels::MulParams p =
      kernels::prepare_mul(scale_of(a), zero_point_of(a), scale_of(b), zero_point_of(b),
                           scale_of(y), zero_point_of(y), range.min, range.max);
  schema::MulOptionsT mul;
  mul.input1_offset = p.input1_offset;
  mul.input2_offset = p.input2_offset;
  mul.output_offset = p.output_offset;
  mul.output_requant = std::make_unique<schema::Requant>(p.output_multiplier, p.output_shift);
  mul.activation_min = p.act_min;
  mul.activation_max = p.act_max;
  out.options.Set(std::move(mul));
}

}  // namespace

extern const OpDef mul{
    .builtin_code = builtin(tfl::BuiltinOperator::MUL),
    .read_options = read_fused_activation<tfl::MulOptions, tfl::BuiltinOptions::MulOptions>,
    .write_options = write_fused_activation<tfl::MulOptionsT>, .check = check, .lower = lower,
    .describe = describe_activation};

}  // namespace mote::ops
