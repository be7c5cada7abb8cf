// MEAN over any axes of an int8 (or int16) tensor, keep_dims or not, with TFLite's integer rule (1/count
// folded into the requantization multiplier: mote/kernels/mean.h).
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/reduction.h"
#include "mote/kernels/mean.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  const Reduction r = check_reduction(c);
  const Tensor& input = c.in(0);
  const Tensor& output = c.out();
  check_sum_fits(c, r.count,
                 kernels::mean_requant(input.quantization.scale[0], output.quantization.scale[0],
                                       r.count),
                 "averages");
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::MeanOptions>(ctx.op().options);
  const ir::Tensor& input = ctx.in(0);
  const ir::Tensor& output = ctx.out();
  const Reduction r = reduction(input.shape, int_values(ctx.in(1)));
  const kernels::QuantizedMultiplier m =
      kernels::mean_requant(scale_of(input), scale_of(output), r.count);
  schema::MeanOptionsT t;
  t.axes = r.axes;
  t.keep_dims = o.keep_dims;
  t.input_offset = -zero_point_of(input);
  t.output_offset = zero_point_of(output);
  t.requant = std::make_unique<schema::Requant>(m.multiplier, m.shift);
  t.formula = schema::MeanFormula::Folded;
  out.options.Set(std::move(t));
}

constexpr int8_t kProgramInputs[] = {0};  // the axes are options

}  // namespace

extern const OpDef mean{.builtin_code = builtin(tfl::BuiltinOperator::MEAN),
                        .read_options = read_reducer, .write_options = write_reducer,
                        .inputs = {2, 2}, .check = check, .lower = lower,
                        .program_inputs = kProgramInputs, .int16_activations = true,
                        .describe = describe_reducer};

}  // namespace mote::ops
