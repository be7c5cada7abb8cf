// MUL: int8 with TFLite's broadcasting and fused activation.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/mul.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  ir::ElementwiseOptions r;
  if (const auto* o = t.table<tfl::MulOptions>(tfl::BuiltinOptions::MulOptions, false)) {
    r.activation = t.activation(o->fused_activation_function());
  }
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  tfl::MulOptionsT t;
  t.fused_activation_function =
      activation_code(std::get<ir::ElementwiseOptions>(op.options).activation);
  out.Set(std::move(t));
}

void check(Checker& c) {
  c.arity(2, 2);
  c.options<ir::ElementwiseOptions>();
  c.data_input(0);
  c.data_input(1);
  c.data_output();
  c.expect_broadcast_output();
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

void describe(const ir::Graph&, const ir::Operator& op, Description& d) {
  d.activation(std::get<ir::ElementwiseOptions>(op.options).activation);
}

}  // namespace

extern const OpDef mul{
    .builtin_code = static_cast<int32_t>(tfl::BuiltinOperator::MUL),
    .read_options = read,
    .write_options = write,
    .check = check,
    .lower = lower,
    .describe = describe,
};

}  // namespace mote::ops
