// PACK of int8 (or int16) tensors of one shape and quantization, stacked along a new axis of the
// output. The runtime copies each input into its place with the strided-copy kernel.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  const auto* o = t.table<tfl::PackOptions>(tfl::BuiltinOptions::PackOptions, true);
  ir::PackOptions r;
  r.values_count = o->values_count();
  r.axis = o->axis();
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::PackOptions>(op.options);
  tfl::PackOptionsT t;
  t.values_count = o.values_count;
  t.axis = o.axis;
  out.Set(std::move(t));
}

int32_t resolved_axis(const ir::Operator& op, int32_t output_rank) {
  const int32_t a = std::get<ir::PackOptions>(op.options).axis;
  return a < 0 ? a + output_rank : a;
}

void check(Checker& c) {
  const auto& o = c.options<ir::PackOptions>();
  const size_t n = c.op().inputs.size();
  if (o.values_count < 1 || static_cast<size_t>(o.values_count) != n) {
    c.fail("values_count " + std::to_string(o.values_count) + " differs from the " +
           std::to_string(n) + " inputs");
  }
  const DataType type = c.activation_type();  // int16 moves as int8 does
  const Tensor& first = c.data_input(0, type);
  const int32_t rank = static_cast<int32_t>(first.shape.size()) + 1;  // the output's
  if (o.axis < -rank || o.axis >= rank) {
    c.fail("axis " + std::to_string(o.axis) + " is outside [" + std::to_string(-rank) + ", " +
           std::to_string(rank) + ")");
  }
  c.data_output(type);
  for (size_t k = 0; k < n; ++k) {
    const Tensor& t = c.data_input(k, type);
    if (t.shape != first.shape) {
      c.fail(c.in_label(k) + " has shape " + shape_string(t.shape) + ", expected " +
             shape_string(first.shape) + " like input 0");
    }
    c.expect_same_quantization(k);
  }
  std::vector<int32_t> shape = first.shape;
  shape.insert(shape.begin() + resolved_axis(c.op(), rank), static_cast<int32_t>(n));
  c.expect_output_shape(shape);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  schema::PackOptionsT p;
  p.axis = resolved_axis(ctx.op(), static_cast<int32_t>(ctx.out().shape.size()));
  out.options.Set(std::move(p));
}

}  // namespace

extern const OpDef pack{.builtin_code = builtin(tfl::BuiltinOperator::PACK), .read_options = read,
                        .write_options = write, .inputs = {1, SIZE_MAX}, .check = check,
                        .lower = lower, .int16_activations = true};

}  // namespace mote::ops
