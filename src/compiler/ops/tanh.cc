// TANH int8: output scale 1/128 and zero point 0; int16 (16x8): output scale 1/32768. Mote runs TensorFlow Lite Micro's integer tanh
// (TFLite's reference_integer_ops::Tanh), as it does for LOGISTIC: it is the kernel the
// microcontroller runtime Mote replaces computes, it needs no table in flash, and it is exact
// integer arithmetic whatever the host's float library. The program format also takes the
// TFLite interpreter's 256-entry table (TanhOptions.table; kernels::prepare_tanh_table), which
// can differ from it in the last bit. An ONNX model's Tanh takes any output quantization through a
// table of ONNX's float tanh (LowerContext::onnx_table).
#include <cmath>

#include "compiler/ops/activation16.h"
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/tanh.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  c.no_options();
  if (c.out().type == DataType::kInt16) {
    check_activation16(c, true);
    return;
  }
  c.expect_unary_elementwise();
  if (c.graph().round_once) return;  // the table takes any quantization
  // The integer kernel writes tanh in Q0.7: the output must be read as such.
  const ir::Quantization& q = c.out().quantization;
  if (q.zero_point[0] != 0 || std::fabs(q.scale[0] - 1.0 / 128) > 0.001 / 128) {
    c.fail(c.out_label() + " must have scale 1/128 and zero point 0, has scale " +
           num(q.scale[0]) + " and zero point " + std::to_string(q.zero_point[0]));
  }
  const ir::Tensor& input = c.in(0);
  const auto p = kernels::prepare_tanh(scale_of(input), zero_point_of(input));
  // What the runtime's shifts can take: input scales in [2^-59, 8).
  if (p.input_left_shift < -31 || p.input_left_shift > 30) {
    c.fail("input scale " + num(scale_of(input)) +
           " outside what the int8 kernel supports ([2^-59, 8))");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  if (ctx.out().type == ir::DataType::kInt16) {
    lower_activation16<schema::TanhOptionsT>(ctx, out, true);
    return;
  }
  if (ctx.graph().round_once) {
    schema::TanhOptionsT o;
    o.table = std::make_unique<schema::Region>(
        ctx.onnx_table([](double x) { return std::tanh(x); }));
    out.options.Set(std::move(o));
    return;
  }
  const ir::Tensor& input = ctx.in(0);
  const auto p = kernels::prepare_tanh(scale_of(input), zero_point_of(input));
  schema::TanhOptionsT o;
  o.input_zero_point = p.input_zero_point;
  o.input_range_radius = p.input_range_radius;
  o.input_multiplier = p.input_multiplier;
  o.input_left_shift = p.input_left_shift;
  out.options.Set(std::move(o));
}

}  // namespace

extern const OpDef tanh{.builtin_code = builtin(tfl::BuiltinOperator::TANH),
                        .read_options = read_empty<tfl::BuiltinOptions::NONE>,
                        .write_options = write_empty<void>, .check = check, .lower = lower,
                        .overlap = elementwise_overlap, .int16_activations = true};

}  // namespace mote::ops
