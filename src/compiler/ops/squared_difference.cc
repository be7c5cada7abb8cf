// SQUARED_DIFFERENCE int8 (or int16, as TFLM) with TFLite's broadcasting: both inputs shifted left
// by 7 (int16: 0) and brought to twice the larger scale, the difference squared and requantized
// (squared_difference.cc). Either operand may be a constant.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/squared_difference.h"

namespace mote::ops {
namespace {

kernels::SquaredDifferenceParams params(const ir::Tensor& a, const ir::Tensor& b,
                                        const ir::Tensor& y) {
  return kernels::prepare_squared_difference(scale_of(a), zero_point_of(a), scale_of(b),
                                             zero_point_of(b), scale_of(y), zero_point_of(y),
                                             y.type == ir::DataType::kInt16);
}

void check(Checker& c) {
  c.no_options();
  const DataType type = c.activation_type();
  c.expect_binary_elementwise(/*constants=*/true, type);
  const ir::Tensor &a = c.in(0), &b = c.in(1), &y = c.out();
  if (!kernels::squared_difference_fits(params(a, b, y), type == DataType::kInt16)) {
    c.fail("input scales " + num(scale_of(a)) + " and " + num(scale_of(b)) + " with output scale " +
           num(scale_of(y)) + " overflow the int32 arithmetic (the output scale is too small)");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const kernels::SquaredDifferenceParams p = params(ctx.in(0), ctx.in(1), ctx.out());
  schema::SquaredDifferenceOptionsT o;
  o.input1_offset = p.input1_offset;
  o.input2_offset = p.input2_offset;
  o.output_offset = p.output_offset;
  o.left_shift = p.left_shift;
  o.input1_requant = std::make_unique<schema::Requant>(p.input1_multiplier, p.input1_shift);
  o.input2_requant = std::make_unique<schema::Requant>(p.input2_multiplier, p.input2_shift);
  o.output_requant = std::make_unique<schema::Requant>(p.output_multiplier, p.output_shift);
  out.options.Set(std::move(o));
}

}  // namespace

extern const OpDef squared_difference{
    .builtin_code = builtin(tfl::BuiltinOperator::SQUARED_DIFFERENCE),
    .read_options = read_empty<tfl::BuiltinOptions::SquaredDifferenceOptions>,
    .write_options = write_empty<tfl::SquaredDifferenceOptionsT>, .check = check, .lower = lower,
    .overlap = elementwise_overlap, .int16_activations = true};

}  // namespace mote::ops
