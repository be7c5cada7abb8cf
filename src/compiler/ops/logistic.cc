// LOGISTIC int8: output scale 1/256 and zero point -128 (TFLite Micro's integer logistic), or, in
// an ONNX model, any output quantization through a table of ONNX's float sigmoid
// (LowerContext::onnx_table); int16 (16x8): output scale 1/32768.
#include <cmath>

#include "compiler/emit/kernel_options.h"
#include "compiler/ops/activation16.h"
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/logistic.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  c.no_options();
  if (c.out().type == DataType::kInt16) {
    check_activation16(c, false);
    return;
  }
  c.expect_unary_elementwise();
  if (c.graph().round_once) return;  // the table takes any quantization
  c.expect_fixed_output_quantization();
  const ir::Tensor& input = c.in(0);
  const auto p = kernels::prepare_logistic(scale_of(input), zero_point_of(input));
  // What the runtime's shifts can take: input scales in [2^-59, 8).
  if (p.input_left_shift < -31 || p.input_left_shift > 30) {
    c.fail("input scale " + num(scale_of(input)) +
           " outside what the int8 kernel supports ([2^-59, 8))");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  if (ctx.out().type == ir::DataType::kInt16) {
    lower_activation16<schema::LogisticOptionsT>(ctx, out, false);
    return;
  }
  if (ctx.graph().round_once) {
    schema::LogisticOptionsT o;
    o.table = std::make_unique<schema::Region>(
        ctx.onnx_table([](double x) { return 1.0 / (1.0 + std::exp(-x)); }));
    out.options.Set(std::move(o));
    return;
  }
  const ir::Tensor& input = ctx.in(0);
  const auto p = kernels::prepare_logistic(scale_of(input), zero_point_of(input));
  out.options.Set(emit::program_options(p));
}

}  // namespace

extern const OpDef logistic{.builtin_code = builtin(tfl::BuiltinOperator::LOGISTIC),
                            .read_options = read_empty<tfl::BuiltinOptions::NONE>,
                            .write_options = write_empty<void>, .check = check, .lower = lower,
                            .int16_activations = true,
                            // Inside a row-streamed stage (int8): row y of the input for row y.
                            .row_reach = elementwise_rows};

}  // namespace mote::ops
