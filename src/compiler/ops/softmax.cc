// SOFTMAX over the last dimension: int8 in, int8 out with scale 1/256 and zero point -128.
#include <cstdio>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/softmax.h"

namespace mote::ops {
namespace {

using Options = OneFieldOptions<tfl::BuiltinOptions::SoftmaxOptions, &tfl::SoftmaxOptions::beta,
                                &tfl::SoftmaxOptionsT::beta, &ir::SoftmaxOptions::beta>;

void check(Checker& c) {
  const auto& o = c.options<ir::SoftmaxOptions>();
  if (c.in(0).type == DataType::kInt16) {
    c.fail(c.in_label(0) + ": int16 input is not yet supported for SOFTMAX (int8 input, int8 or "
           "int16 output is)");
  }
  const Tensor& input = c.data_input(0);
  // int8 input to an int16 output (keyword spotting models): scale 1/65536, zero point -32768.
  const bool int16_output = c.out().type == DataType::kInt16;
  if (int16_output) {
    c.expect_per_tensor(Checker::kOutput);
    const Quantization& q = c.out().quantization;
    if (q.zero_point[0] != -32768 || std::fabs(q.scale[0] - 1.0 / 65536) > 0.001 / 65536) {
      c.fail(c.out_label() + " is int16, so it must have scale 1/65536 and zero point -32768, "
             "has scale " + num(q.scale[0]) + " and zero point " + std::to_string(q.zero_point[0]));
    }
  } else {
    c.data_output();
  }
  if (input.shape.empty()) c.fail(c.in_label(0) + " is a scalar");
  if (!std::isfinite(o.beta) || o.beta <= 0.0f) c.fail("beta " + num(o.beta) + " must be positive");
  c.expect_output_shape(input.shape);
  if (!int16_output) c.expect_fixed_output_quantization();
  const int32_t row_size = input.shape.back();
  const auto p = kernels::prepare_softmax(static_cast<int32_t>(input.num_elements() / row_size),
                                          row_size, scale_of(input), o.beta);
  // The runtime's (and TFLite's) int8 softmax shifts the scaled differences left.
  if (p.input_left_shift < 0) {
    c.fail("beta x input scale " + num(o.beta * scale_of(input)) +
           " too small for the int8 kernel (needs at least 2^-27)");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::SoftmaxOptions>(ctx.op().options);
  const ir::Tensor& input = ctx.in(0);
  const int32_t row_size = input.shape.back();
  const auto p = kernels::prepare_softmax(static_cast<int32_t>(input.num_elements() / row_size),
                                          row_size, scale_of(input), o.beta);
  schema::SoftmaxOptionsT s;
  s.input_multiplier = p.input_multiplier;
  s.input_left_shift = p.input_left_shift;
  s.diff_min = p.diff_min;
  out.options.Set(std::move(s));
}

void describe(const ir::Graph&, const ir::Operator& op, Description& d) {
  const float beta = std::get<ir::SoftmaxOptions>(op.options).beta;
  char text[32];
  std::snprintf(text, sizeof text, "%g", beta);
  d.add("beta " + std::string(text));
  d.json["beta"] = beta;
}

}  // namespace

extern const OpDef softmax{
    .builtin_code = builtin(tfl::BuiltinOperator::SOFTMAX), .read_options = Options::read,
    .write_options = Options::write, .inputs = {1, 1}, .check = check, .lower = lower,
    .int16_activations = true, .describe = describe};

}  // namespace mote::ops
