// BATCH_MATMUL: int8 (or int16, as TFLM: int64 sums), per tensor, TFLite's reference
// BatchMatMul; either operand may be a constant (weights) or an activation; ranks 2..5 with
// broadcast batch dimensions.
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/batch_matmul.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  ir::BatchMatMulOptions r;
  // asymmetric_quantize_inputs applies to hybrid (float lhs) models only, which check refuses.
  if (const auto* o =
          t.table<tfl::BatchMatMulOptions>(tfl::BuiltinOptions::BatchMatMulOptions, false)) {
    r.adj_x = o->adj_x();
    r.adj_y = o->adj_y();
  }
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::BatchMatMulOptions>(op.options);
  tfl::BatchMatMulOptionsT t;
  t.adj_x = o.adj_x;
  t.adj_y = o.adj_y;
  out.Set(std::move(t));
}

// The kernel's parameters, TFLite's Prepare: the multiplier lhs_scale * rhs_scale (in float) /
// output_scale (in double), as GetQuantizedConvolutionMultipler; the output type's range as the
// clamp.
kernels::BatchMatMulParams params(const ir::Tensor& lhs, const ir::Tensor& rhs,
                                  const ir::Tensor& out, const kernels::BatchMatMulShape& shape) {
  kernels::BatchMatMulParams p{};
  p.shape = shape;
  p.lhs_offset = -zero_point_of(lhs);
  p.rhs_offset = -zero_point_of(rhs);
  p.output_offset = zero_point_of(out);
  const float product = scale_of(lhs) * scale_of(rhs);
  const auto q = kernels::quantize_multiplier(static_cast<double>(product) /
                                              static_cast<double>(scale_of(out)));
  p.output_multiplier = q.multiplier;
  p.output_shift = q.shift;
  const bool int16 = out.type == ir::DataType::kInt16;
  p.act_min = int16 ? -32768 : -128;
  p.act_max = int16 ? 32767 : 127;
  return p;
}

bool shape_of(const ir::Graph& g, const ir::Operator& op, kernels::BatchMatMulShape* shape,
              std::vector<int32_t>* output) {
  const auto& o = std::get<ir::BatchMatMulOptions>(op.options);
  const ir::Tensor& lhs = g.tensors[op.inputs[0]];
  const ir::Tensor& rhs = g.tensors[op.inputs[1]];
  int32_t dims[kernels::kMaxBatchMatMulRank], rank = 0;
  if (!kernels::prepare_batch_matmul_shape(lhs.shape.data(), static_cast<int32_t>(lhs.shape.size()),
                                           rhs.shape.data(), static_cast<int32_t>(rhs.shape.size()),
                                           o.adj_x, o.adj_y, shape, dims, &rank)) {
    return false;
  }
  if (output != nullptr) output->assign(dims, dims + rank);
  return true;
}

void check(Checker& c) {
  const auto& o = c.options<ir::BatchMatMulOptions>();
  const Tensor &lhs = c.in(0), &rhs = c.in(1);
  const DataType type = c.activation_type();
  for (size_t k = 0; k < 2; ++k) {
    c.expect_type(k, type);
    c.expect_per_tensor(k);
    if (type == DataType::kInt16) c.expect_symmetric16(k);
    const size_t rank = c.in(k).shape.size();
    if (rank < 2 || rank > static_cast<size_t>(kernels::kMaxBatchMatMulRank)) {
      c.fail(c.in_label(k) + " has shape " + shape_string(c.in(k).shape) + ", expected rank 2 to " +
             std::to_string(kernels::kMaxBatchMatMulRank));
    }
  }
  if (lhs.is_constant && rhs.is_constant) {
    c.fail("both inputs are constants (a product a converter folds); expected an activation");
  }
  c.data_output(type);
  const size_t lr = lhs.shape.size(), rr = rhs.shape.size();
  const int32_t depth = o.adj_x ? lhs.shape[lr - 2] : lhs.shape[lr - 1];
  const int32_t rhs_depth = o.adj_y ? rhs.shape[rr - 1] : rhs.shape[rr - 2];
  if (depth != rhs_depth) {
    c.fail("lhs " + shape_string(lhs.shape) + (o.adj_x ? " (adj_x)" : "") + " and rhs " +
           shape_string(rhs.shape) + (o.adj_y ? " (adj_y)" : "") +
           " do not multiply: accumulation depths " + std::to_string(depth) + " and " +
           std::to_string(rhs_depth));
  }
  kernels::BatchMatMulShape shape{};
  std::vector<int32_t> expected;
  if (!shape_of(c.graph(), c.op(), &shape, &expected)) {
    c.fail("batch dimensions of " + shape_string(lhs.shape) + " and " + shape_string(rhs.shape) +
           " do not broadcast (or an operand is too large)");
  }
  c.expect_output_shape(expected);
  const kernels::BatchMatMulParams p = params(lhs, rhs, c.out(), shape);
  if (!kernels::batch_matmul_fits(p, type == DataType::kInt16)) {
    c.fail("accumulation depth " + std::to_string(depth) + " with scales " + num(scale_of(lhs)) +
           " x " + num(scale_of(rhs)) + " -> " + num(scale_of(c.out())) +
           " overflows the int32 accumulator or requantization");
  }
}

int64_t macs(const ir::Graph& g, const ir::Operator& op) {
  kernels::BatchMatMulShape shape{};
  if (!shape_of(g, op, &shape, nullptr)) return 0;
  return g.tensors[op.outputs[0]].num_elements() * shape.depth;
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::BatchMatMulOptions>(ctx.op().options);
  kernels::BatchMatMulShape shape{};
  shape_of(ctx.graph(), ctx.op(), &shape, nullptr);
  const kernels::BatchMatMulParams p = params(ctx.in(0), ctx.in(1), ctx.out(), shape);
  schema::BatchMatMulOptionsT b;
  b.adj_x = o.adj_x;
  b.adj_y = o.adj_y;
  b.lhs_offset = p.lhs_offset;
  b.rhs_offset = p.rhs_offset;
  b.output_offset = p.output_offset;
  b.output_requant = std::make_unique<schema::Requant>(p.output_multiplier, p.output_shift);
  b.activation_min = p.act_min;
  b.activation_max = p.act_max;
  out.options.Set(std::move(b));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::BatchMatMulOptions>(op.options);
  kernels::BatchMatMulShape shape{};
  if (shape_of(g, op, &shape, nullptr)) {
    d.add("rows " + std::to_string(shape.rows) + " depth " + std::to_string(shape.depth) +
          " cols " + std::to_string(shape.cols));
    d.json["rows"] = shape.rows;
    d.json["depth"] = shape.depth;
    d.json["cols"] = shape.cols;
  }
  if (o.adj_x) d.add("adj_x");
  if (o.adj_y) d.add("adj_y");
  if (g.tensors[op.inputs[1]].is_constant) d.add("constant rhs");
  d.json["adj_x"] = o.adj_x;
  d.json["adj_y"] = o.adj_y;
}

}  // namespace

extern const OpDef batch_matmul{
    .builtin_code = builtin(tfl::BuiltinOperator::BATCH_MATMUL), .read_options = read,
    .write_options = write, .inputs = {2, 2}, .check = check, .macs = macs, .lower = lower,
    .int16_activations = true, .describe = describe};

}  // namespace mote::ops
