// UNPACK of an int8 (or int16) tensor along an axis into one output per index (the axis
// removed). Several outputs, each its own tensor and buffer; the runtime copies each with the
// strided-copy kernel.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  const auto* o = t.table<tfl::UnpackOptions>(tfl::BuiltinOptions::UnpackOptions, true);
  ir::UnpackOptions r;
  r.num = o->num();
  r.axis = o->axis();
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::UnpackOptions>(op.options);
  tfl::UnpackOptionsT t;
  t.num = o.num;
  t.axis = o.axis;
  out.Set(std::move(t));
}

int32_t resolved_axis(const ir::Operator& op, int32_t rank) {
  const int32_t a = std::get<ir::UnpackOptions>(op.options).axis;
  return a < 0 ? a + rank : a;
}

void check(Checker& c) {
  const auto& o = c.options<ir::UnpackOptions>();
  const Tensor& input = c.data_input(0, c.activation_type());  // int16 moves as int8 does
  const int32_t rank = static_cast<int32_t>(input.shape.size());
  if (rank < 1) c.fail(c.in_label(0) + " is a scalar");
  if (o.axis < -rank || o.axis >= rank) {
    c.fail("axis " + std::to_string(o.axis) + " is outside [" + std::to_string(-rank) + ", " +
           std::to_string(rank) + ")");
  }
  const int32_t axis = resolved_axis(c.op(), rank);
  if (o.num != input.shape[axis] || static_cast<size_t>(o.num) != c.num_outputs()) {
    c.fail("num " + std::to_string(o.num) + " and the " + std::to_string(c.num_outputs()) +
           " outputs differ from dimension " + std::to_string(axis) + "'s size " +
           std::to_string(input.shape[axis]));
  }
  std::vector<int32_t> shape = input.shape;
  shape.erase(shape.begin() + axis);
  for (size_t j = 0; j < c.num_outputs(); ++j) c.expect_moved_output(j, shape, 0);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  schema::SplitOptionsT s;
  s.axis = resolved_axis(ctx.op(), static_cast<int32_t>(ctx.in(0).shape.size()));
  out.options.Set(std::move(s));
}

}  // namespace

extern const OpDef unpack{.builtin_code = builtin(tfl::BuiltinOperator::UNPACK),
                          .read_options = read, .write_options = write, .inputs = {1, 1},
                          .outputs = {1, SIZE_MAX}, .check = check, .lower = lower,
                          .int16_activations = true};

}  // namespace mote::ops
