// SPLIT of an int8 (or int16) tensor into num_splits equal parts along a constant axis (TFLite's
// inputs: the axis first, then the data). Several outputs, each its own tensor and buffer; the
// runtime copies each part with the strided-copy kernel.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  ir::SplitOptions r;
  r.num_splits = t.table<tfl::SplitOptions>(tfl::BuiltinOptions::SplitOptions, true)->num_splits();
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  tfl::SplitOptionsT t;
  t.num_splits = std::get<ir::SplitOptions>(op.options).num_splits;
  out.Set(std::move(t));
}

// The constant scalar axis of input `k`, resolved against `rank`.
int32_t axis_of(Checker& c, size_t k, int32_t rank) {
  const Tensor& a = c.param_input(k, DataType::kInt32);
  const std::vector<int32_t> v = int32_values(a);
  if (v.size() != 1) {
    c.fail(c.in_label(k) + " (axis) holds " + std::to_string(v.size()) + " values, expected 1");
  }
  if (v[0] < -rank || v[0] >= rank) {
    c.fail("axis " + std::to_string(v[0]) + " is outside [" + std::to_string(-rank) + ", " +
           std::to_string(rank) + ")");
  }
  return v[0] < 0 ? v[0] + rank : v[0];
}

void check(Checker& c) {
  const Tensor& input = c.data_input(1, c.activation_type());  // int16 moves as int8 does
  const int32_t rank = static_cast<int32_t>(input.shape.size());
  if (rank < 1) c.fail(c.in_label(1) + " is a scalar");
  const int32_t axis = axis_of(c, 0, rank);
  const int32_t n = c.options<ir::SplitOptions>().num_splits;
  if (n < 1 || static_cast<size_t>(n) != c.num_outputs()) {
    c.fail("num_splits " + std::to_string(n) + " differs from the " +
           std::to_string(c.num_outputs()) + " outputs");
  }
  if (input.shape[axis] % n != 0) {
    c.fail("dimension " + std::to_string(axis) + " of size " + std::to_string(input.shape[axis]) +
           " does not split into " + std::to_string(n) + " equal parts");
  }
  std::vector<int32_t> shape = input.shape;
  shape[axis] /= n;
  for (size_t j = 0; j < c.num_outputs(); ++j) c.expect_moved_output(j, shape, 1);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const int32_t rank = static_cast<int32_t>(ctx.in(1).shape.size());
  const int32_t a = int_values(ctx.in(0)).at(0);
  schema::SplitOptionsT s;
  s.axis = a < 0 ? a + rank : a;
  out.options.Set(std::move(s));
}

constexpr int8_t kProgramInputs[] = {1};  // the axis is an option

}  // namespace

extern const OpDef split{.builtin_code = builtin(tfl::BuiltinOperator::SPLIT),
                         .read_options = read, .write_options = write, .inputs = {2, 2},
                         .outputs = {1, SIZE_MAX}, .check = check, .lower = lower,
                         .program_inputs = kProgramInputs, .int16_activations = true};

}  // namespace mote::ops
