// ADD and SUB: int8 with TFLite's broadcasting and fused activation. TFLite prepares both the
// same way (inputs to a common scale with 20 bits of headroom); SUB subtracts the scaled inputs.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/add.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  c.options<ir::ElementwiseOptions>();
  c.expect_binary_elementwise(/*constants=*/true);
  const ir::Tensor &a = c.in(0), &b = c.in(1), &y = c.out();
  if (!kernels::add_fits(kernels::prepare_add(scale_of(a), zero_point_of(a), scale_of(b),
                                              zero_point_of(b), scale_of(y), zero_point_of(y),
                                              -128, 127))) {
    c.fail("input scales " + num(scale_of(a)) + " and " + num(scale_of(b)) +
           " with output scale " + num(scale_of(y)) +
           " overflow the int32 rescaling (the output scale is too small for the inputs')");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::ElementwiseOptions>(ctx.op().options);
  const ir::Tensor& a = ctx.in(0);
  const ir::Tensor& b = ctx.in(1);
  const ir::Tensor& y = ctx.out();
  const auto range = ctx.activation_range(o.activation);
  const kernels::AddParams p =
      kernels::prepare_add(scale_of(a), zero_point_of(a), scale_of(b), zero_point_of(b),
                           scale_of(y), zero_point_of(y), range.min, range.max);
  schema::AddOptionsT add;
  add.input1_offset = p.input1_offset;
  add.input2_offset = p.input2_offset;
  add.output_offset = p.output_offset;
  add.left_shift = p.left_shift;
  add.input1_requant = std::make_unique<schema::Requant>(p.input1_multiplier, p.input1_shift);
  add.input2_requant = std::make_unique<schema::Requant>(p.input2_multiplier, p.input2_shift);
  add.output_requant = std::make_unique<schema::Requant>(p.output_multiplier, p.output_shift);
  add.activation_min = p.act_min;
  add.activation_max = p.act_max;
  out.options.Set(std::move(add));
}

}  // namespace

extern const OpDef add{
    .builtin_code = builtin(tfl::BuiltinOperator::ADD),
    .read_options = read_fused_activation<tfl::AddOptions, tfl::BuiltinOptions::AddOptions>,
    .write_options = write_fused_activation<tfl::AddOptionsT>, .check = check, .lower = lower,
    .describe = describe_activation};

extern const OpDef sub{
    .builtin_code = builtin(tfl::BuiltinOperator::SUB),
    .read_options = read_fused_activation<tfl::SubOptions, tfl::BuiltinOptions::SubOptions>,
    .write_options = write_fused_activation<tfl::SubOptionsT>, .check = check, .lower = lower,
    .describe = describe_activation};

}  // namespace mote::ops
