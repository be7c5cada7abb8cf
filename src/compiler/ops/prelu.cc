// PRELU int8 (or 16x8: int16 input and output): alpha (a constant or an activation, int8 with one
// scale) broadcast over the input, whose shape the output keeps; TFLite's two requantizations
// (identity and alpha paths). Int8 with a constant alpha that does not vary along H runs in
// row-streamed stages (MediaPipe's detectors' activation).
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/prelu.h"

namespace mote::ops {
namespace {

kernels::PreluParams params(const ir::Tensor& input, const ir::Tensor& alpha,
                            const ir::Tensor& output) {
  return kernels::prepare_prelu(scale_of(input), zero_point_of(input), scale_of(alpha),
                                zero_point_of(alpha), scale_of(output), zero_point_of(output));
}

void check(Checker& c) {
  c.no_options();
  c.arity(2, 2);
  const DataType type = c.activation_type();
  const ir::Tensor& input = c.data_input(0, type);
  c.expect_type(1, DataType::kInt8);  // alpha: int8 in the 16x8 form too, as TFLM takes it
  c.expect_per_tensor(1);
  c.data_output(type);
  const ir::Tensor& alpha = c.in(1);
  // TFLite: the broadcast of input and alpha, which must be the input's shape.
  c.expect_broadcast_output();
  c.expect_output_shape(input.shape);
  // TFLite broadcasts alpha in its 4-D reference kernel.
  if (alpha.shape != input.shape && input.shape.size() > 4) {
    c.fail("input of rank " + std::to_string(input.shape.size()) +
           " with alpha of another shape: TFLite broadcasts alpha up to 4 dimensions");
  }
  if (!kernels::prelu_fits(params(input, alpha, c.out()), type == DataType::kInt16)) {
    c.fail("input scale " + num(scale_of(input)) + " and alpha scale " + num(scale_of(alpha)) +
           " with output scale " + num(scale_of(c.out())) +
           " overflow the int32 requantization (the output scale is too small)");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const kernels::PreluParams p = params(ctx.in(0), ctx.in(1), ctx.out());
  schema::PreluOptionsT o;
  o.input_offset = p.input_offset;
  o.alpha_offset = p.alpha_offset;
  o.output_offset = p.output_offset;
  o.identity_requant = std::make_unique<schema::Requant>(p.identity_multiplier, p.identity_shift);
  o.alpha_requant = std::make_unique<schema::Requant>(p.alpha_multiplier, p.alpha_shift);
  out.options.Set(std::move(o));
}

// In place over the input (alpha, broadcast, is read again and again).
kernels::OverlapRule overlap(const ir::Graph& g, const ir::Operator& op, size_t input,
                             kernels::Extension extension) {
  return input == 0 ? elementwise_overlap(g, op, input, extension) : kernels::kNoOverlap;
}

// Inside a row-streamed stage: an int8 [1, H, W, C] activation of the output's shape, row y for
// row y, where alpha is a constant of rank <= 4 that does not vary along H (per channel, say), so
// every row reads all of it. The stage asks for no constant input's reach; an activation alpha,
// or one varying along H, keeps the operator out.
std::optional<RowReach> row_reach(const ir::Graph& g, const ir::Operator& op, size_t input) {
  const ir::Tensor& out = g.tensors[static_cast<size_t>(op.outputs[0])];
  if (input != 0 || op.inputs.size() != 2 || op.inputs[0] == ir::kNoTensor ||
      op.inputs[1] == ir::kNoTensor || out.type != ir::DataType::kInt8 || out.shape.size() != 4 ||
      out.shape[0] != 1) {
    return std::nullopt;
  }
  const ir::Tensor& x = g.tensors[static_cast<size_t>(op.inputs[0])];
  const ir::Tensor& alpha = g.tensors[static_cast<size_t>(op.inputs[1])];
  if (x.is_constant || x.shape != out.shape || !constant_across_rows(alpha)) return std::nullopt;
  return RowReach{};
}

}  // namespace

extern const OpDef prelu{.builtin_code = builtin(tfl::BuiltinOperator::PRELU),
                         .read_options = read_empty<tfl::BuiltinOptions::NONE>,
                         .write_options = write_empty<void>, .check = check, .lower = lower,
                         .overlap = overlap, .int16_activations = true,
                         .row_reach = row_reach};

}  // namespace mote::ops
