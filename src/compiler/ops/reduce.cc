// SUM and REDUCE_MAX over any axes of an int8 tensor, keep_dims or not (TFLite's ReducerOptions
// family, with MEAN: compiler/ops/reduction.h).
// - SUM: TFLite's reference QuantizedMeanOrSum with compute_sum: the int32 sum centred on the
//   input's zero point, requantized by input_scale / output_scale (nothing folded), clamped.
//   TFLite's interpreter takes this path whenever the two quantizations differ, TensorFlow Lite
//   Micro always; with identical quantizations the interpreter instead adds the raw int8 values
//   in int8 (wrapping, zero point ignored), which Mote does not reproduce: it requantizes by 1.
// - REDUCE_MAX: the largest raw value; TFLite requires the output quantized as the input.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/reduction.h"
#include "mote/kernels/mean.h"

namespace mote::ops {
namespace {

void check_sum(Checker& c) {
  const Reduction r = check_reduction(c);
  check_sum_fits(c, r.count,
                 kernels::sum_requant(c.in(0).quantization.scale[0], c.out().quantization.scale[0]),
                 "adds");
}

void check_reduce_max(Checker& c) {
  check_reduction(c);
  c.expect_same_quantization(0);
}

// The program's options; SUM's requantization when `requant`.
void lower_reduce(LowerContext& ctx, schema::OperatorT& out, bool requant) {
  const auto& o = std::get<ir::MeanOptions>(ctx.op().options);
  const ir::Tensor& input = ctx.in(0);
  const ir::Tensor& output = ctx.out();
  schema::ReduceOptionsT t;
  t.axes = reduction(input.shape, int_values(ctx.in(1))).axes;
  t.keep_dims = o.keep_dims;
  t.input_offset = -zero_point_of(input);
  t.output_offset = zero_point_of(output);
  if (requant) {
    // TFLite's sum_requant, or rounding once for an ONNX model (LowerContext::multiplier).
    const kernels::QuantizedMultiplier m =
        ctx.multiplier(static_cast<double>(scale_of(input)) / static_cast<double>(scale_of(output)));
    t.requant = std::make_unique<schema::Requant>(m.multiplier, m.shift);
  }
  out.options.Set(std::move(t));
}

void lower_sum(LowerContext& ctx, schema::OperatorT& out) { lower_reduce(ctx, out, true); }
void lower_reduce_max(LowerContext& ctx, schema::OperatorT& out) { lower_reduce(ctx, out, false); }

constexpr int8_t kProgramInputs[] = {0};  // the axes are options

}  // namespace

extern const OpDef sum{.builtin_code = builtin(tfl::BuiltinOperator::SUM),
                       .read_options = read_reducer, .write_options = write_reducer,
                       .inputs = {2, 2}, .check = check_sum, .lower = lower_sum,
                       .program_inputs = kProgramInputs, .int16_activations = true,
                       .describe = describe_reducer};

extern const OpDef reduce_max{.builtin_code = builtin(tfl::BuiltinOperator::REDUCE_MAX),
                              .read_options = read_reducer, .write_options = write_reducer,
                              .inputs = {2, 2}, .check = check_reduce_max,
                              .lower = lower_reduce_max, .program_inputs = kProgramInputs,
                              .describe = describe_reducer};

}  // namespace mote::ops
