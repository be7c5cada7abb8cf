// SPLIT_V of an int8 (or int16) tensor into parts of constant sizes (one may be -1: the rest)
// along a constant axis. Several outputs, each its own tensor and buffer; the runtime copies each
// part with the strided-copy kernel.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  ir::SplitOptions r;
  r.num_splits =
      t.table<tfl::SplitVOptions>(tfl::BuiltinOptions::SplitVOptions, true)->num_splits();
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  tfl::SplitVOptionsT t;
  t.num_splits = std::get<ir::SplitOptions>(op.options).num_splits;
  out.Set(std::move(t));
}

void check(Checker& c) {
  const Tensor& input = c.data_input(0, c.activation_type());  // int16 moves as int8 does
  const int32_t rank = static_cast<int32_t>(input.shape.size());
  if (rank < 1) c.fail(c.in_label(0) + " is a scalar");
  const Tensor& sizes_tensor = c.in(1);
  if ((sizes_tensor.type != DataType::kInt32 && sizes_tensor.type != DataType::kInt64) ||
      !sizes_tensor.is_constant || sizes_tensor.shape.size() != 1) {
    c.fail(c.in_label(1) + " (size_splits) must be a constant 1-D int32 or int64 tensor");
  }
  std::vector<int32_t> sizes = int_values(sizes_tensor);
  const std::vector<int32_t> axis_values = int32_values(c.param_input(2, DataType::kInt32));
  if (axis_values.size() != 1) c.fail(c.in_label(2) + " (axis) must hold one value");
  const int32_t a = axis_values[0];
  if (a < -rank || a >= rank) {
    c.fail("axis " + std::to_string(a) + " is outside [" + std::to_string(-rank) + ", " +
           std::to_string(rank) + ")");
  }
  const int32_t axis = a < 0 ? a + rank : a;
  const int32_t n = c.options<ir::SplitOptions>().num_splits;
  if (static_cast<size_t>(n) != c.num_outputs() || sizes.size() != c.num_outputs()) {
    c.fail("num_splits " + std::to_string(n) + " and " + std::to_string(sizes.size()) +
           " size_splits differ from the " + std::to_string(c.num_outputs()) + " outputs");
  }
  int64_t known = 0;
  int unknown = -1;
  for (size_t j = 0; j < sizes.size(); ++j) {
    if (sizes[j] == -1 && unknown < 0) {
      unknown = static_cast<int>(j);
    } else if (sizes[j] < 1) {
      c.fail("size_splits[" + std::to_string(j) + "] is " + std::to_string(sizes[j]) +
             (sizes[j] == 0 ? " (empty outputs are not supported)" : ", expected >= 1 or one -1"));
    } else {
      known += sizes[j];
    }
  }
  if (unknown >= 0) {
    if (known >= input.shape[axis]) {
      c.fail("size_splits leave nothing for the -1 entry along dimension " +
             std::to_string(axis) + " of size " + std::to_string(input.shape[axis]));
    }
    sizes[static_cast<size_t>(unknown)] = static_cast<int32_t>(input.shape[axis] - known);
  } else if (known != input.shape[axis]) {
    c.fail("size_splits add up to " + std::to_string(known) + ", not dimension " +
           std::to_string(axis) + "'s size " + std::to_string(input.shape[axis]));
  }
  for (size_t j = 0; j < c.num_outputs(); ++j) {
    std::vector<int32_t> shape = input.shape;
    shape[axis] = sizes[j];
    c.expect_moved_output(j, shape, 0);
  }
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const int32_t rank = static_cast<int32_t>(ctx.in(0).shape.size());
  const int32_t a = int_values(ctx.in(2)).at(0);
  schema::SplitOptionsT s;
  s.axis = a < 0 ? a + rank : a;
  out.options.Set(std::move(s));
}

constexpr int8_t kProgramInputs[] = {0};  // the sizes are the outputs' shapes, the axis an option

}  // namespace

extern const OpDef split_v{.builtin_code = builtin(tfl::BuiltinOperator::SPLIT_V),
                           .read_options = read, .write_options = write, .inputs = {3, 3},
                           .outputs = {1, SIZE_MAX}, .check = check, .lower = lower,
                           .program_inputs = kProgramInputs, .int16_activations = true};

}  // namespace mote::ops
