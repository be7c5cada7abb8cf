// GATHER of int8 slices along an axis by int32 indices, with batch dimensions (TFLite's
// reference). Constant indices are checked here; indices computed at run time (an int32
// activation) that fall outside the axis give slices of the output's zero point, where TFLite's
// interpreter would fail the run.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  ir::GatherOptions r;
  if (const auto* o = t.table<tfl::GatherOptions>(tfl::BuiltinOptions::GatherOptions, false)) {
    r.axis = o->axis();
    r.batch_dims = o->batch_dims();
  }
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::GatherOptions>(op.options);
  tfl::GatherOptionsT t;
  t.axis = o.axis;
  t.batch_dims = o.batch_dims;
  out.Set(std::move(t));
}

struct Resolved {
  int32_t axis, batch_dims;
};

Resolved resolved(const ir::Operator& op, const Tensor& params, const Tensor& indices) {
  const auto& o = std::get<ir::GatherOptions>(op.options);
  const int32_t rank = static_cast<int32_t>(params.shape.size());
  const int32_t index_rank = static_cast<int32_t>(indices.shape.size());
  return {o.axis < 0 ? o.axis + rank : o.axis,
          o.batch_dims < 0 ? o.batch_dims + index_rank : o.batch_dims};
}

void check(Checker& c) {
  const auto& o = c.options<ir::GatherOptions>();
  const Tensor& params = c.data_input(0);
  const Tensor& indices = c.in(1);
  if (indices.type != DataType::kInt32) {
    c.fail(c.in_label(1) + " (indices) has type " + std::string(to_string(indices.type)) +
           ", expected int32");
  }
  const int32_t rank = static_cast<int32_t>(params.shape.size());
  const int32_t index_rank = static_cast<int32_t>(indices.shape.size());
  if (rank < 1) c.fail(c.in_label(0) + " is a scalar");
  if (o.axis < -rank || o.axis >= rank) {
    c.fail("axis " + std::to_string(o.axis) + " is outside [" + std::to_string(-rank) + ", " +
           std::to_string(rank) + ")");
  }
  const Resolved r = resolved(c.op(), params, indices);
  if (r.batch_dims < 0 || r.batch_dims > index_rank || r.batch_dims > r.axis) {
    c.fail("batch_dims " + std::to_string(o.batch_dims) + " must resolve to [0, min(axis " +
           std::to_string(r.axis) + ", indices rank " + std::to_string(index_rank) + ")]");
  }
  for (int32_t d = 0; d < r.batch_dims; ++d) {
    if (params.shape[d] != indices.shape[d]) {
      c.fail("batch dimension " + std::to_string(d) + " differs: " + shape_string(params.shape) +
             " and indices " + shape_string(indices.shape));
    }
  }
  if (indices.is_constant) {
    const int32_t size = params.shape[r.axis];
    for (int32_t v : int32_values(indices)) {
      if (v < 0 || v >= size) {
        c.fail(c.in_label(1) + " (indices) holds " + std::to_string(v) + ", outside [0, " +
               std::to_string(size) + ")");
      }
    }
  }
  c.data_output();
  std::vector<int32_t> shape(params.shape.begin(), params.shape.begin() + r.axis);
  shape.insert(shape.end(), indices.shape.begin() + r.batch_dims, indices.shape.end());
  shape.insert(shape.end(), params.shape.begin() + r.axis + 1, params.shape.end());
  c.expect_output_shape(shape);
  c.expect_same_quantization(0);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const Resolved r = resolved(ctx.op(), ctx.in(0), ctx.in(1));
  schema::GatherOptionsT g;
  g.axis = r.axis;
  g.batch_dims = r.batch_dims;
  out.options.Set(std::move(g));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::GatherOptions>(op.options);
  d.add("axis " + std::to_string(o.axis) + " batch_dims " + std::to_string(o.batch_dims));
  d.json["axis"] = o.axis;
  d.json["batch_dims"] = o.batch_dims;
  d.json["constant_indices"] = g.tensors[static_cast<size_t>(op.inputs[1])].is_constant;
}

}  // namespace

extern const OpDef gather{.builtin_code = builtin(tfl::BuiltinOperator::GATHER),
                          .read_options = read, .write_options = write, .inputs = {2, 2},
                          .check = check, .lower = lower, .describe = describe};

}  // namespace mote::ops
