// SOFTMAX over the last dimension: int8 in, int8 out with scale 1/256 and zero point -128 (or
// int16 out, 1/65536 and -32768); int16 in, int16 out with scale 1/32768 and zero point 0.
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

// TFLite's SoftmaxInt16: x - max(row) scaled onto [-10, 0] by input scale x beta / (10 / 65535).
kernels::QuantizedMultiplier int16_input_multiplier(float input_scale, float beta) {
  return kernels::quantize_multiplier(static_cast<double>(input_scale) * static_cast<double>(beta) /
                                      (10.0 / 65535.0));
}

void check_int16(Checker& c) {
  const auto& o = c.options<ir::SoftmaxOptions>();
  const Tensor& input = c.data_input(0, DataType::kInt16);
  const Tensor& output = c.data_output(DataType::kInt16);
  if (std::fabs(output.quantization.scale[0] - 1.0 / 32768) > 0.001 / 32768) {
    c.fail(c.out_label() + " is int16 from an int16 input, so it must have scale 1/32768 and "
           "zero point 0, has scale " + num(output.quantization.scale[0]));
  }
  if (input.shape.empty()) c.fail(c.in_label(0) + " is a scalar");
  if (!std::isfinite(o.beta) || o.beta <= 0.0f) c.fail("beta " + num(o.beta) + " must be positive");
  c.expect_output_shape(input.shape);
  // Each row sums up to row_size values of at most 32767 in int32.
  if (input.shape.back() >= 65536) c.fail("rows of 65536 or more values overflow the int16 sum");
  const auto m = int16_input_multiplier(scale_of(input), o.beta);
  if (!kernels::requant_fits(65535, m.multiplier, m.shift)) {
    c.fail("input scale " + num(scale_of(input)) + " x beta " + num(o.beta) +
           " overflows the int32 rescaling of the int16 kernel");
  }
}

void check(Checker& c) {
  const auto& o = c.options<ir::SoftmaxOptions>();
  if (c.in(0).type == DataType::kInt16) {
    check_int16(c);
    return;
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
  if (input.type == ir::DataType::kInt16) {
    const auto m = int16_input_multiplier(scale_of(input), o.beta);
    schema::SoftmaxOptionsT s;
    s.input_multiplier = m.multiplier;
    s.input_left_shift = m.shift;
    std::vector<int16_t> exp_lut(kernels::kSoftmax16LutSize), reciprocal(kernels::kSoftmax16LutSize);
    kernels::populate_softmax16_tables(exp_lut.data(), reciprocal.data());
    s.exp_lut = std::make_unique<schema::Region>(ctx.constants().add_array(exp_lut));
    s.one_over_one_plus_x_lut =
        std::make_unique<schema::Region>(ctx.constants().add_array(reciprocal));
    out.options.Set(std::move(s));
    return;
  }
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
