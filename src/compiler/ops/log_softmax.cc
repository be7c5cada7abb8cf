// LOG_SOFTMAX over the last dimension: int8 in, int8 out with scale 16/256 and zero point 127
// (TFLite's int8 kernel writes log-probabilities in [-16, 0) so; converters quantize its output
// that way).
#include <cmath>

#include "compiler/emit/kernel_options.h"
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/log_softmax.h"

namespace mote::ops {
namespace {

kernels::LogSoftmaxParams params_of(const ir::Tensor& input) {
  const int32_t row_size = input.shape.back();
  return kernels::prepare_log_softmax(static_cast<int32_t>(input.num_elements() / row_size),
                                      row_size, scale_of(input));
}

void check(Checker& c) {
  c.no_options();
  const Tensor& input = c.data_input(0);
  const Tensor& output = c.data_output();
  if (input.shape.empty()) c.fail(c.in_label(0) + " is a scalar");
  c.expect_output_shape(input.shape);
  const Quantization& q = output.quantization;
  if (q.zero_point[0] != 127 || std::fabs(q.scale[0] - 16.0 / 256) > 0.001 * 16 / 256) {
    c.fail(c.out_label() + " must have scale 16/256 and zero point 127, has scale " +
           num(q.scale[0]) + " and zero point " + std::to_string(q.zero_point[0]));
  }
  if (input.shape.back() >= kernels::kLogSoftmaxMaxRow) {
    c.fail("rows of " + std::to_string(kernels::kLogSoftmaxMaxRow) +
           " or more values overflow the int8 kernel's sum of exps");
  }
  const auto p = params_of(input);
  // TFLite's reverse scaling (2^(31 - left shift) / multiplier) must be below one.
  if (p.input_left_shift < 1 || !kernels::log_softmax_params_ok(p)) {
    c.fail("input scale " + num(scale_of(input)) +
           " too small for the int8 kernel (needs more than 2^-26)");
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto p = params_of(ctx.in(0));
  out.options.Set(emit::program_options(p));
}

}  // namespace

extern const OpDef log_softmax{
    .builtin_code = builtin(tfl::BuiltinOperator::LOG_SOFTMAX),
    .read_options = read_empty<tfl::BuiltinOptions::LogSoftmaxOptions>,
    .write_options = write_empty<tfl::LogSoftmaxOptionsT>, .inputs = {1, 1}, .check = check,
    .lower = lower};

}  // namespace mote::ops
