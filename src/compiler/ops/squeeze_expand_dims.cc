// SQUEEZE and EXPAND_DIMS: no kernel work, as RESHAPE; the planner gives the output its input's
// bytes (an alias). Their checks are TFLite's: SQUEEZE removes the listed dimensions of size 1
// (all of them when none is listed), EXPAND_DIMS inserts one at its constant axis.
#include <algorithm>

#include "compiler/ops/checker.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

ir::Options read_squeeze(const TfliteOptions& t) {
  ir::SqueezeOptions r;
  if (const auto* o = t.table<tfl::SqueezeOptions>(tfl::BuiltinOptions::SqueezeOptions, false)) {
    if (o->squeeze_dims() != nullptr) r.squeeze_dims.assign(o->squeeze_dims()->begin(), o->squeeze_dims()->end());
  }
  return r;
}

void write_squeeze(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  tfl::SqueezeOptionsT t;
  t.squeeze_dims = std::get<ir::SqueezeOptions>(op.options).squeeze_dims;
  out.Set(std::move(t));
}

// The data input and an output of its type, quantization and element count (the alias).
const Tensor& alias_of_input(Checker& c) {
  const DataType type = c.activation_type();  // int16 moves as int8 does
  const Tensor& input = c.data_input(0, type);
  c.data_output(type);
  c.expect_same_quantization(0);
  return input;
}

void check_squeeze(Checker& c) {
  const Tensor& input = alias_of_input(c);
  const auto& dims = c.options<ir::SqueezeOptions>().squeeze_dims;
  const int32_t rank = static_cast<int32_t>(input.shape.size());
  std::vector<bool> removed(input.shape.size(), false);
  for (int32_t d : dims) {
    const int32_t axis = d < 0 ? d + rank : d;
    if (axis < 0 || axis >= rank) {
      c.fail("squeeze_dims " + std::to_string(d) + " is outside " + c.in_label(0) + " shape " +
             shape_string(input.shape));
    }
    if (input.shape[axis] != 1) {
      c.fail("squeeze_dims " + std::to_string(d) + " names a dimension of size " +
             std::to_string(input.shape[axis]) + ", not 1");
    }
    removed[axis] = true;
  }
  std::vector<int32_t> shape;
  for (int32_t i = 0; i < rank; ++i) {
    const bool remove = dims.empty() ? input.shape[i] == 1 : removed[i];
    if (!remove) shape.push_back(input.shape[i]);
  }
  c.expect_output_shape(shape);
}

void check_expand_dims(Checker& c) {
  const Tensor& input = alias_of_input(c);
  const Tensor& axis_tensor = c.param_input(1, DataType::kInt32);
  const std::vector<int32_t> axis_values = int32_values(axis_tensor);
  if (axis_values.size() != 1) {
    c.fail(c.in_label(1) + " (axis) holds " + std::to_string(axis_values.size()) +
           " values, expected 1");
  }
  const int32_t rank = static_cast<int32_t>(input.shape.size());
  const int32_t axis = axis_values[0] < 0 ? axis_values[0] + rank + 1 : axis_values[0];
  if (axis < 0 || axis > rank) {
    c.fail(c.in_label(1) + " (axis) " + std::to_string(axis_values[0]) + " is outside [" +
           std::to_string(-rank - 1) + ", " + std::to_string(rank) + "]");
  }
  std::vector<int32_t> shape = input.shape;
  shape.insert(shape.begin() + axis, 1);
  c.expect_output_shape(shape);
}

constexpr int8_t kProgramInputs[] = {0};  // EXPAND_DIMS' axis is folded into the output shape

}  // namespace

extern const OpDef squeeze{.builtin_code = builtin(tfl::BuiltinOperator::SQUEEZE),
                           .read_options = read_squeeze, .write_options = write_squeeze,
                           .inputs = {1, 1}, .check = check_squeeze,
                           .int16_activations = true, .output_aliases_input = true};

extern const OpDef expand_dims{.builtin_code = builtin(tfl::BuiltinOperator::EXPAND_DIMS),
                               .read_options = read_empty<tfl::BuiltinOptions::ExpandDimsOptions>,
                               .write_options = write_empty<tfl::ExpandDimsOptionsT>,
                               .inputs = {2, 2}, .check = check_expand_dims,
                               .program_inputs = kProgramInputs, .int16_activations = true,
                               .output_aliases_input = true};

}  // namespace mote::ops
