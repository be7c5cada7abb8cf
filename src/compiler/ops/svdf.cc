// SVDF: TFLM's integer SVDF (int8 input, weights_feature and output; int16 weights_time and
// state, or TFLM's int8 form; int32 bias). Input 4 is the state, a variable tensor the operator
// updates at every run (one time step); the state mechanism plans it as a persistent region.
#include <cmath>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/quantization.h"
#include "mote/kernels/svdf.h"

namespace mote::ops {
namespace {

constexpr int8_t kStateInput = 4;
constexpr int8_t kStateInputs[] = {kStateInput};

ir::Options read(const TfliteOptions& t) {
  const auto& o = *t.table<tfl::SVDFOptions>(tfl::BuiltinOptions::SVDFOptions, true);
  ir::SvdfOptions r;
  r.rank = o.rank();
  r.activation = t.activation(o.fused_activation_function());
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::SvdfOptions>(op.options);
  tfl::SVDFOptionsT t;
  t.rank = o.rank;
  t.fused_activation_function = activation_code(o.activation);
  out.Set(std::move(t));
}

// TFLM's effective scales, computed in float as its Prepare does, then widened.
kernels::QuantizedMultiplier feature_requant(const ir::Graph& g, const ir::Operator& op) {
  const float s = g.tensors[op.inputs[0]].quantization.scale[0] *
                  g.tensors[op.inputs[1]].quantization.scale[0] /
                  g.tensors[op.inputs[kStateInput]].quantization.scale[0];
  return kernels::quantize_multiplier(static_cast<double>(s));
}
kernels::QuantizedMultiplier time_requant(const ir::Graph& g, const ir::Operator& op) {
  const float s = g.tensors[op.inputs[kStateInput]].quantization.scale[0] *
                  g.tensors[op.inputs[2]].quantization.scale[0] /
                  g.tensors[op.outputs[0]].quantization.scale[0];
  return kernels::quantize_multiplier(static_cast<double>(s));
}

void check(Checker& c) {
  const auto& o = c.options<ir::SvdfOptions>();
  const Tensor& input = c.data_input(0);
  c.expect_rank(0, 2);
  const Tensor& wf = c.param_input(1, DataType::kInt8);
  c.expect_rank(1, 2);
  c.expect_per_tensor(1);
  const Tensor& wt = c.in(2);
  if (wt.type != DataType::kInt16 && wt.type != DataType::kInt8) {
    c.fail(c.in_label(2) + " (weights_time) has type " + std::string(to_string(wt.type)) +
           ", expected int16 or int8");
  }
  c.param_input(2, wt.type);
  c.expect_rank(2, 2);
  c.expect_per_tensor(2);
  const Tensor& state = c.in(kStateInput);
  if (state.type != wt.type) {
    c.fail(c.in_label(kStateInput) + " (state) has type " + std::string(to_string(state.type)) +
           ", expected weights_time's " + std::string(to_string(wt.type)));
  }
  c.expect_rank(kStateInput, 2);
  c.expect_per_tensor(kStateInput);
  c.data_output();
  c.expect_rank(Checker::kOutput, 2);
  for (size_t k : {size_t{1}, size_t{2}}) {
    if (c.in(k).quantization.zero_point[0] != 0) {
      c.fail(c.in_label(k) + " has zero point " + std::to_string(c.in(k).quantization.zero_point[0]) +
             "; SVDF's weights are symmetric (zero point 0)");
    }
  }
  const int64_t zp = state.quantization.zero_point[0];
  if (state.type == DataType::kInt16 && zp != 0) {
    c.fail(c.in_label(kStateInput) + " (int16 state) has zero point " + std::to_string(zp) +
           ", expected 0");
  }

  const int32_t batches = input.shape[0], input_size = input.shape[1];
  const int32_t filters = wf.shape[0], memory = wt.shape[1];
  if (o.rank < 1) c.fail("rank " + std::to_string(o.rank) + " must be at least 1");
  if (filters % o.rank != 0) {
    c.fail("weights_feature's " + std::to_string(filters) + " filters are not a multiple of rank " +
           std::to_string(o.rank));
  }
  const int32_t units = filters / o.rank;
  if (wf.shape[1] != input_size) {
    c.fail(c.in_label(1) + " (weights_feature) has shape " + shape_string(wf.shape) +
           ", expected [filters, " + std::to_string(input_size) + "]");
  }
  if (wt.shape[0] != filters) {
    c.fail(c.in_label(2) + " (weights_time) has shape " + shape_string(wt.shape) + ", expected [" +
           std::to_string(filters) + ", memory]");
  }
  const int64_t state_width = int64_t{filters} * memory;
  if (state.shape[0] != batches || state.shape[1] != state_width) {
    c.fail(c.in_label(kStateInput) + " (state) has shape " + shape_string(state.shape) +
           ", expected [" + std::to_string(batches) + ", " + std::to_string(state_width) + "]");
  }
  c.expect_output_shape({batches, units});
  const float state_scale = state.quantization.scale[0];
  const float wt_scale = wt.quantization.scale[0];
  if (c.has_input(3)) {
    const Tensor& bias = c.param_input(3, DataType::kInt32);
    if (bias.shape != std::vector<int32_t>{units}) {
      c.fail(c.in_label(3) + " (bias) has shape " + shape_string(bias.shape) + ", expected [" +
             std::to_string(units) + "]");
    }
    c.expect_per_tensor(3);
    // TFLM's tolerance between the bias scale and state_scale * weights_time_scale.
    const double want = static_cast<double>(state_scale * wt_scale);
    if (std::abs(static_cast<double>(bias.quantization.scale[0]) - want) >= 1e-5) {
      c.fail(c.in_label(3) + " (bias) scale " + num(bias.quantization.scale[0]) +
             " differs from state scale * weights_time scale " + num(want));
    }
  }
  // TFLite refuses an int8 SVDF whose activation is not RELU, TFLM takes any; neither applies
  // it (the output clamps to the int8 range). Mote takes the two that agree with the arithmetic.
  if (o.activation != ir::Activation::kNone && o.activation != ir::Activation::kRelu) {
    c.fail("fused activation " + std::string(to_string(o.activation)) +
           " not supported (TFLite's integer SVDF takes RELU or none and applies neither)");
  }
  const kernels::QuantizedMultiplier f = feature_requant(c.graph(), c.op());
  if (!kernels::requant_fits(kernels::svdf_feature_bound(input_size), f.multiplier, f.shift)) {
    c.fail("the feature requantization (input scale * weights_feature scale / state scale, shift " +
           std::to_string(f.shift) + ") overflows int32 for " + std::to_string(input_size) +
           " inputs");
  }
  const kernels::QuantizedMultiplier t = time_requant(c.graph(), c.op());
  if (t.shift > 0 || t.multiplier < 0) {
    c.fail("the output requantization (state scale * weights_time scale / output scale) is " +
           std::string("above 1 (shift ") + std::to_string(t.shift) + "), which the kernel does " +
           "not take");
  }
}

int64_t macs(const ir::Graph& g, const ir::Operator& op) {
  const ir::Tensor& input = g.tensors[op.inputs[0]];
  const ir::Tensor& wt = g.tensors[op.inputs[2]];
  const int64_t batches = input.shape[0], filters = wt.shape[0], memory = wt.shape[1];
  return batches * filters * (input.shape[1] + memory);
}

uint64_t scratch(const ir::Graph& g, const ir::Operator& op, kernels::Extension) {
  const auto& o = std::get<ir::SvdfOptions>(op.options);
  return kernels::svdf_scratch_bytes(g.tensors[op.inputs[0]].shape[0],
                                     g.tensors[op.inputs[1]].shape[0], o.rank);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const ir::Operator& op = ctx.op();
  const auto& o = std::get<ir::SvdfOptions>(op.options);
  const kernels::QuantizedMultiplier f = feature_requant(ctx.graph(), op);
  const kernels::QuantizedMultiplier t = time_requant(ctx.graph(), op);
  schema::SvdfOptionsT s;
  s.rank = o.rank;
  s.input_offset = -zero_point_of(ctx.in(0));
  s.output_offset = zero_point_of(ctx.out());
  s.state_zero_point = zero_point_of(ctx.in(kStateInput));
  s.feature_requant = std::make_unique<schema::Requant>(f.multiplier, f.shift);
  s.time_requant = std::make_unique<schema::Requant>(t.multiplier, t.shift);
  out.options.Set(std::move(s));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::SvdfOptions>(op.options);
  const ir::Tensor& wt = g.tensors[op.inputs[2]];
  const ir::Tensor& state = g.tensors[op.inputs[kStateInput]];
  d.add("rank " + std::to_string(o.rank) + " units " + std::to_string(wt.shape[0] / o.rank) +
        " memory " + std::to_string(wt.shape[1]) + " state " +
        std::string(to_string(state.type)) + " " + std::to_string(state.num_bytes()) + " B");
  d.json["rank"] = o.rank;
  d.json["units"] = wt.shape[0] / o.rank;
  d.json["memory"] = wt.shape[1];
  d.json["state_type"] = std::string(to_string(state.type));
  d.json["state_bytes"] = state.num_bytes();
  if (o.activation != ir::Activation::kNone) {
    d.add("(fused " + std::string(to_string(o.activation)) + " not applied, as in TFLite)");
    d.json["activation"] = std::string(to_string(o.activation));
  }
}

}  // namespace

extern const OpDef svdf{
    .builtin_code = builtin(tfl::BuiltinOperator::SVDF), .read_options = read,
    .write_options = write, .inputs = {5, 5, 3}, .check = check, .macs = macs,
    .scratch_bytes = scratch, .lower = lower, .state_inputs = kStateInputs,
    .describe = describe};

}  // namespace mote::ops
