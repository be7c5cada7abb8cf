// PAD with the output's zero point (TFLite's PAD on int8 and int16: padding is real 0). An int8
// PAD of a [1, H, W, C] map that no pass folded (channel padding, as BlazeFace's shortcuts
// write it, or several readers) runs by rows in row-streamed stages.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

void check(Checker& c) {
  c.no_options();
  const DataType type = c.activation_type();
  const Tensor& input = c.data_input(0, type);
  c.data_output(type);
  const Tensor& paddings = c.param_input(1, DataType::kInt32);
  const std::vector<int32_t> expected_shape = {static_cast<int32_t>(input.shape.size()), 2};
  if (paddings.shape != expected_shape) {
    c.fail(c.in_label(1) + " (paddings) has shape " + shape_string(paddings.shape) +
           ", expected " + shape_string(expected_shape));
  }
  const std::vector<int32_t> p = int32_values(paddings);
  std::vector<int32_t> expected = input.shape;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (p[2 * i] < 0 || p[2 * i + 1] < 0) {
      c.fail(c.in_label(1) + " (paddings) has a negative entry");
    }
    const int64_t d = int64_t{expected[i]} + p[2 * i] + p[2 * i + 1];
    if (d > std::numeric_limits<int32_t>::max()) c.fail(c.in_label(1) + " (paddings) too large");
    expected[i] = static_cast<int32_t>(d);
  }
  c.expect_output_shape(expected);
  c.expect_same_quantization(0);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const std::vector<int32_t> amounts = int_values(ctx.in(1));
  schema::PadOptionsT p;
  for (size_t d = 0; d + 1 < amounts.size(); d += 2) {
    p.before.push_back(amounts[d]);
    p.after.push_back(amounts[d + 1]);
  }
  p.pad_value = zero_point_of(ctx.out());
  out.options.Set(std::move(p));
}

constexpr int8_t kProgramInputs[] = {0};  // the paddings are options

// Inside a row-streamed stage: int8 [1, H, W, C] in and out, no batch padding. Output row y is
// input row y - top (a one-row window with `top` rows of padding above), or pad value alone
// where that row is outside the input.
std::optional<RowReach> row_reach(const ir::Graph& g, const ir::Operator& op, size_t input) {
  const ir::Tensor& out = g.tensors[static_cast<size_t>(op.outputs[0])];
  if (input != 0 || op.inputs.size() != 2 || out.type != ir::DataType::kInt8 ||
      out.shape.size() != 4 || out.shape[0] != 1) {
    return std::nullopt;
  }
  const std::vector<int32_t> p = int32_values(g.tensors[static_cast<size_t>(op.inputs[1])]);
  if (p.size() != 8 || p[0] != 0 || p[1] != 0) return std::nullopt;
  RowReach reach;
  reach.pad = p[2];
  return reach;
}

}  // namespace

extern const OpDef pad{.builtin_code = builtin(tfl::BuiltinOperator::PAD),
                       .read_options = read_empty<tfl::BuiltinOptions::PadOptions>,
                       .write_options = write_empty<tfl::PadOptionsT>, .inputs = {2, 2},
                       .check = check, .lower = lower, .program_inputs = kProgramInputs,
                       .int16_activations = true, .row_reach = row_reach};

}  // namespace mote::ops
