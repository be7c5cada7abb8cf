// HARD_SWISH int8 (TFLite's int16 fixed-point HardSwishParams), or, in an ONNX model, a table of
// ONNX's float x * clip(x / 6 + 1/2, 0, 1) (LowerContext::onnx_table).
#include <algorithm>

#include "compiler/emit/kernel_options.h"
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
  if (c.graph().round_once) return;  // the table takes any scales
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

void lower(LowerContext& ctx, schema::OperatorT& out) {
  if (ctx.graph().round_once) {
    schema::HardSwishOptionsT o;
    o.table = std::make_unique<schema::Region>(ctx.onnx_table(
        [](double x) { return x * std::clamp(x / 6 + 0.5, 0.0, 1.0); }));
    out.options.Set(std::move(o));
    return;
  }
  const ir::Tensor& input = ctx.in(0);
  const ir::Tensor& output = ctx.out();
  const auto p = kernels::prepare_hard_swish(scale_of(input), zero_point_of(input),
                                             scale_of(output), zero_point_of(output));
  out.options.Set(emit::program_options(p));
}

}  // namespace

extern const OpDef hard_swish{.builtin_code = builtin(tfl::BuiltinOperator::HARD_SWISH),
                              .read_options = read_empty<tfl::BuiltinOptions::HardSwishOptions>,
                              .write_options = write_empty<tfl::HardSwishOptionsT>, .check = check,
                              .lower = lower};

}  // namespace mote::ops
