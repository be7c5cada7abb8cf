// AVERAGE_POOL_2D and MAX_POOL_2D: int8 or int16, output quantized as the input.
#include "compiler/ir/validate.h"
#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/shapes.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/pooling.h"

namespace mote::ops {
namespace {

using Window =
    WindowOptions<tfl::Pool2DOptions, tfl::BuiltinOptions::Pool2DOptions, ir::Pool2DOptions>;

void check(Checker& c) {
  const auto& o = c.options<ir::Pool2DOptions>();
  const DataType type = c.activation_type();
  const Tensor& input = c.nhwc_input(0, type);
  c.data_output(type);
  if (o.filter_h < 1 || o.filter_w < 1) {
    c.fail("filter " + std::to_string(o.filter_h) + "x" + std::to_string(o.filter_w) +
           " must be >= 1");
  }
  // The kernels sum a window in int32, as the runtime's load check requires.
  const int64_t most = kernels::kAccLimit / (type == DataType::kInt16 ? 32768 : 128);
  if (int64_t{o.filter_h} * o.filter_w > most) {
    c.fail("filter " + std::to_string(o.filter_h) + "x" + std::to_string(o.filter_w) +
           " has more than " + std::to_string(most) + " elements, the most a pooling window sums");
  }
  c.expect_window_output(input, o.filter_h, o.filter_w, o, input.shape[3]);
  c.expect_same_quantization(0);
}

// The 16x8 form (ops::int16) runs the portable kernel: no scratch, overlap or row stages.
uint64_t average_scratch(const ir::Graph& g, const ir::Operator& op,
                         kernels::Extension extension) {
  if (int16(g, op)) return 0;
  return kernels::average_pool_scratch_bytes(g.tensors[op.outputs[0]].shape.back(), extension);
}

// The average pool variant depends on the window only (dsp: at most 256 elements).
const char* average_variant(const ir::Graph& g, const ir::Operator& op,
                            kernels::Extension extension) {
  if (int16(g, op)) return "portable 16x8";
  const auto& o = std::get<ir::Pool2DOptions>(op.options);
  kernels::PoolParams p{};
  p.filter_h = o.filter_h;
  p.filter_w = o.filter_w;
  return kernels::average_pool_kernel_variant(p, extension);
}

kernels::OverlapRule average_overlap(const ir::Graph& g, const ir::Operator& op, size_t input,
                                     kernels::Extension extension) {
  if (int16(g, op)) return kernels::kNoOverlap;
  return kernels::average_pool_overlap(pool_params(g, op), extension);
}

// Max pool has a table too (dsp and mve, for every window).
const char* max_variant(const ir::Graph& g, const ir::Operator& op, kernels::Extension extension) {
  if (int16(g, op)) return "portable 16x8";
  return kernels::max_pool_kernel_variant(pool_params(g, op), extension);
}

kernels::OverlapRule max_overlap(const ir::Graph& g, const ir::Operator& op, size_t input,
                                 kernels::Extension extension) {
  if (int16(g, op)) return kernels::kNoOverlap;
  return kernels::max_pool_overlap(pool_params(g, op), extension);
}

// Rows of the input (batch 1): the window's rows.
std::optional<RowReach> row_reach(const ir::Graph& g, const ir::Operator& op, size_t input) {
  const kernels::PoolParams p = pool_params(g, op);
  if (input != 0 || int16(g, op) || p.batches != 1 || p.filter_h > kernels::kMaxRowWindowRows) {
    return std::nullopt;
  }
  return RowReach{p.filter_h, p.stride_h, p.pad_h, 1};
}

// A global average pool streams: its input's rows summed as they come.
std::optional<RowReach> average_row_reach(const ir::Graph& g, const ir::Operator& op,
                                          size_t input) {
  if (input == 0 && !int16(g, op) && kernels::global_average_pool_streams(pool_params(g, op))) {
    return RowReach{1, 1, 0, 1, true};
  }
  return row_reach(g, op, input);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<ir::Pool2DOptions>(ctx.op().options);
  schema::PoolOptionsT p;
  p.stride_h = o.stride_h;
  p.stride_w = o.stride_w;
  p.filter_h = o.filter_h;
  p.filter_w = o.filter_w;
  const kernels::PoolParams window = pool_params(ctx.graph(), ctx.op());
  p.pad_h = window.pad_h;
  p.pad_w = window.pad_w;
  const auto range = ctx.activation_range(o.activation);
  p.activation_min = range.min;
  p.activation_max = range.max;
  out.options.Set(std::move(p));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::Pool2DOptions>(op.options);
  d.window("filter", o.filter_h, o.filter_w, o.stride_h, o.stride_w, o.padding);
  d.folded(o.folded);
  d.activation(o.activation);
}

}  // namespace

extern const OpDef average_pool_2d{.builtin_code = builtin(tfl::BuiltinOperator::AVERAGE_POOL_2D),
                                   .read_options = Window::read, .write_options = Window::write,
                                   .inputs = {1, 1}, .check = check,
                                   .scratch_bytes = average_scratch,
                                   .kernel_variant = average_variant, .lower = lower,
                                   .overlap = average_overlap, .int16_activations = true,
                                   .describe = describe,
                                   .row_reach = average_row_reach};

extern const OpDef max_pool_2d{.builtin_code = builtin(tfl::BuiltinOperator::MAX_POOL_2D),
                               .read_options = Window::read, .write_options = Window::write,
                               .inputs = {1, 1}, .check = check,
                               .kernel_variant = max_variant, .lower = lower,
                               .overlap = max_overlap, .int16_activations = true,
                               .describe = describe,
                               .row_reach = row_reach};

}  // namespace mote::ops
