// FULLY_CONNECTED: int8 or 16x8, per-tensor or per-channel weights, any number of rows.
#include <cstring>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/fully_connected.h"

namespace mote::ops {
namespace {

ir::Options read(const TfliteOptions& t) {
  ir::FullyConnectedOptions r;
  if (const auto* o =
          t.table<tfl::FullyConnectedOptions>(tfl::BuiltinOptions::FullyConnectedOptions, false)) {
    if (o->weights_format() != 0) {
      t.fail("weights format " +
             (o->weights_format() == 1 ? std::string("SHUFFLED4x16INT8")
                                       : std::to_string(o->weights_format())) +
             " not supported");
    }
    r.activation = t.activation(o->fused_activation_function());
    r.keep_num_dims = o->keep_num_dims();
  }
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::FullyConnectedOptions>(op.options);
  tfl::FullyConnectedOptionsT t;
  t.fused_activation_function = activation_code(o.activation);
  t.keep_num_dims = o.keep_num_dims;
  out.Set(std::move(t));
}

void check(Checker& c) {
  const auto& o = c.options<ir::FullyConnectedOptions>();
  const DataType type = c.activation_type();
  const Tensor& input = c.data_input(0, type);
  const Tensor& weights = c.weights(1, type);
  c.expect_rank(1, 2);
  c.data_output(type);
  const int32_t units = weights.shape[0], depth = weights.shape[1];
  if (input.shape.empty()) c.fail(c.in_label(0) + " is a scalar");
  if (input.num_elements() % depth != 0) {
    c.fail(c.in_label(0) + " shape " + shape_string(input.shape) +
           " does not split into rows of " + std::to_string(depth));
  }
  std::vector<int32_t> expected;
  if (o.keep_num_dims) {
    if (input.shape.back() != depth) {
      c.fail(c.in_label(0) + " last dimension " + std::to_string(input.shape.back()) +
             " != weight depth " + std::to_string(depth) + " (keep_num_dims)");
    }
    expected = input.shape;
    expected.back() = units;
  } else {
    expected = {static_cast<int32_t>(input.num_elements() / depth), units};
  }
  c.expect_output_shape(expected);
  c.check_weights_and_bias(input, weights, 0, units);
}

int64_t macs(const ir::Graph& g, const ir::Operator& op) {
  return g.tensors[op.outputs[0]].num_elements() * g.tensors[op.inputs[1]].shape[1];
}

// The kernel variant tables are keyed by the number of output units.
int32_t units(const ir::Graph& g, const ir::Operator& op) {
  return g.tensors[op.inputs[1]].shape[0];
}

// The 16x8 and int4 forms run the direct loops (ops::direct_loops).
uint64_t scratch_bytes(const ir::Graph& g, const ir::Operator& op, kernels::Extension e) {
  return direct_loops(g, op) ? 0 : kernels::fully_connected_scratch_bytes(units(g, op), e);
}
const char* kernel_variant(const ir::Graph& g, const ir::Operator& op, kernels::Extension e) {
  return direct_loops(g, op) ? direct_variant(g, op)
                             : kernels::fully_connected_kernel_variant(units(g, op), e);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const ir::Operator& op = ctx.op();
  const auto& o = std::get<ir::FullyConnectedOptions>(op.options);
  const ir::Tensor& input = ctx.in(0);
  const ir::Tensor& filter = ctx.in(1);
  const int32_t output_depth = filter.shape[0];
  const int32_t input_depth = filter.shape[1];

  schema::FullyConnectedOptionsT f;
  f.input_offset = -zero_point_of(input);
  f.filter_offset = -static_cast<int32_t>(filter.quantization.zero_point.at(0));
  f.output_offset = zero_point_of(ctx.out());
  const auto range = ctx.activation_range(o.activation);
  f.activation_min = range.min;
  f.activation_max = range.max;
  if (filter.quantization.per_channel()) {
    ctx.set_channel_requant(f, output_depth);
  } else {
    // TFLite's GetQuantizedConvolutionMultipler: the scales multiplied in float, then divided in
    // double (per channel, PopulateConvolutionQuantizationParams multiplies in double).
    const float product = scale_of(input) * filter.quantization.scale[0];
    const auto q = ctx.multiplier(
        ctx.graph().round_once
            ? ctx.weights_ratio(scale_of(input), filter.quantization.scale[0], scale_of(ctx.out()))
            : static_cast<double>(product) / static_cast<double>(scale_of(ctx.out())));
    f.output_requant = std::make_unique<schema::Requant>(q.multiplier, q.shift);
  }

  // Kernel sums: the bias and every input-independent term, so the kernel's inner loop is a
  // plain dot product (and CMSIS-NN's MVE buffer becomes a constant). The direct loops (16x8,
  // int4) read the bias themselves.
  if (direct_loops(ctx.graph(), op)) {
    out.options.Set(std::move(f));
    return;
  }
  kernels::FullyConnectedParams params{};
  params.batches = static_cast<int32_t>(input.num_elements() / input_depth);
  params.input_depth = input_depth;
  params.output_depth = output_depth;
  params.input_offset = f.input_offset;
  params.filter_offset = f.filter_offset;
  std::vector<int32_t> bias;
  if (ctx.has_input(2)) {
    bias.resize(static_cast<size_t>(output_depth));
    std::memcpy(bias.data(), ctx.in(2).data.data(), bias.size() * 4);
  }
  std::vector<int32_t> sums(static_cast<size_t>(output_depth));
  kernels::fully_connected_kernel_sums(params, reinterpret_cast<const int8_t*>(filter.data.data()),
                                       bias.empty() ? nullptr : bias.data(), sums.data());
  f.kernel_sums = std::make_unique<schema::Region>(ctx.constants().add_array(sums));
  out.options.Set(std::move(f));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::FullyConnectedOptions>(op.options);
  const ir::Tensor& w = g.tensors[op.inputs[1]];
  d.add("units " + std::to_string(w.shape[0]) + " depth " + std::to_string(w.shape[1]));
  d.json["units"] = w.shape[0];
  d.json["depth"] = w.shape[1];
  d.json["keep_num_dims"] = o.keep_num_dims;
  if (o.keep_num_dims) d.add("keep_num_dims");
  d.activation(o.activation);
}

}  // namespace

extern const OpDef fully_connected{
    .builtin_code = builtin(tfl::BuiltinOperator::FULLY_CONNECTED), .read_options = read,
    .write_options = write, .inputs = {2, 3, 2}, .check = check, .macs = macs,
    .scratch_bytes = scratch_bytes, .kernel_variant = kernel_variant, .lower = lower,
    .int16_activations = true, .describe = describe};

}  // namespace mote::ops
