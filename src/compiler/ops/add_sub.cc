// ADD and SUB: int8 with TFLite's broadcasting and fused activation. TFLite prepares both the
// same way (inputs to a common scale with 20 bits of headroom); SUB subtracts the scaled inputs.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/add.h"

namespace mote::ops {
namespace {

template <typename Table, tfl::BuiltinOptions kTable>
ir::Options read(const TfliteOptions& t) {
  ir::ElementwiseOptions r;
  if (const auto* o = t.table<Table>(kTable, false)) {
    r.activation = t.activation(o->fused_activation_function());
  }
  return r;
}

template <typename TableT>
void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  TableT t;
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

void describe(const ir::Graph&, const ir::Operator& op, Description& d) {
  d.activation(std::get<ir::ElementwiseOptions>(op.options).activation);
}

}  // namespace

extern const OpDef add{
    .builtin_code = static_cast<int32_t>(tfl::BuiltinOperator::ADD),
    .read_options = read<tfl::AddOptions, tfl::BuiltinOptions::AddOptions>,
    .write_options = write<tfl::AddOptionsT>,
    .check = check,
    .lower = lower,
    .describe = describe,
};

extern const OpDef sub{
    .builtin_code = static_cast<int32_t>(tfl::BuiltinOperator::SUB),
    .read_options = read<tfl::SubOptions, tfl::BuiltinOptions::SubOptions>,
    .write_options = write<tfl::SubOptionsT>,
    .check = check,
    .lower = lower,
    .describe = describe,
};

}  // namespace mote::ops
