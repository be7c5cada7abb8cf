// ARG_MAX and ARG_MIN of an int8 tensor along a constant axis, int32 or int64 indices out as
// the output tensor's type says (mote/kernels/arg_min_max.h: TFLite's rule, ties to the lowest
// index).
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

constexpr int8_t kTfliteInt32 = 2, kTfliteInt64 = 4;  // TFLite's TensorType codes

ir::DataType output_type(const TfliteOptions& t, int8_t code) {
  if (code == kTfliteInt32) return ir::DataType::kInt32;
  if (code == kTfliteInt64) return ir::DataType::kInt64;
  t.fail("output_type " + std::to_string(code) + " is neither INT32 (2) nor INT64 (4)");
}

template <typename Table, tfl::BuiltinOptions kTable>
ir::Options read(const TfliteOptions& t) {
  ir::ArgMinMaxOptions r;
  if (const auto* o = t.table<Table>(kTable, false)) {
    r.output_type = output_type(t, o->output_type());
  }
  return r;
}

template <typename TableT>
void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  TableT t;
  t.output_type = std::get<ir::ArgMinMaxOptions>(op.options).output_type == ir::DataType::kInt64
                      ? kTfliteInt64
                      : kTfliteInt32;
  out.Set(std::move(t));
}

// The axis in [0, rank).
int32_t resolved_axis(const ir::Tensor& input, const ir::Tensor& axis) {
  const int32_t a = int32_values(axis).at(0);
  return a < 0 ? a + static_cast<int32_t>(input.shape.size()) : a;
}

void check(Checker& c) {
  const auto& o = c.options<ir::ArgMinMaxOptions>();
  const Tensor& input = c.data_input(0);
  if (input.shape.empty()) c.fail(c.in_label(0) + " is a scalar; expected rank 1 or more");
  const Tensor& axis = c.param_input(1, DataType::kInt32);
  if (!(axis.shape.empty() || axis.shape == std::vector<int32_t>{1})) {
    c.fail(c.in_label(1) + " (axis) has shape " + shape_string(axis.shape) +
           ", expected a scalar or [1]");
  }
  const int32_t rank = static_cast<int32_t>(input.shape.size());
  const int32_t a = int32_values(axis).at(0);
  if (a < -rank || a >= rank) {
    c.fail("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
  }
  if (c.out().type != o.output_type) {
    c.fail(c.out_label() + " is " + std::string(to_string(c.out().type)) + " but output_type is " +
           std::string(to_string(o.output_type)));
  }
  c.plain(Checker::kOutput, o.output_type);
  std::vector<int32_t> expected = input.shape;
  expected.erase(expected.begin() + resolved_axis(input, axis));
  c.expect_output_shape(expected);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  schema::ArgMinMaxOptionsT t;
  t.axis = resolved_axis(ctx.in(0), ctx.in(1));
  out.options.Set(std::move(t));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const int32_t a = resolved_axis(g.tensors[op.inputs[0]], g.tensors[op.inputs[1]]);
  d.add("axis " + std::to_string(a));
  d.json["axis"] = a;
}

constexpr int8_t kProgramInputs[] = {0};  // the axis is an option

}  // namespace

extern const OpDef arg_max{
    .builtin_code = builtin(tfl::BuiltinOperator::ARG_MAX),
    .read_options = read<tfl::ArgMaxOptions, tfl::BuiltinOptions::ArgMaxOptions>,
    .write_options = write<tfl::ArgMaxOptionsT>, .inputs = {2, 2}, .check = check,
    .lower = lower, .program_inputs = kProgramInputs, .describe = describe};

extern const OpDef arg_min{
    .builtin_code = builtin(tfl::BuiltinOperator::ARG_MIN),
    .read_options = read<tfl::ArgMinOptions, tfl::BuiltinOptions::ArgMinOptions>,
    .write_options = write<tfl::ArgMinOptionsT>, .inputs = {2, 2}, .check = check,
    .lower = lower, .program_inputs = kProgramInputs, .describe = describe};

}  // namespace mote::ops
