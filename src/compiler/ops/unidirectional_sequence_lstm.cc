// UNIDIRECTIONAL_SEQUENCE_LSTM: TFLM's integer LSTM, 8x8->16 or 16x8->16 (int16 input, output
// and hidden state, int64 biases; mote/kernels/lstm.h). TFLite's
// 24 inputs (20 in older files, without layer norm) are: 0 input; 1-4 input weights and 5-8
// recurrent weights of the input, forget, cell and output gates; 9-11 peephole weights; 12-15
// gate biases; 16-17 projection; 18 hidden (output) state and 19 cell state, variable tensors the
// operator updates at every run; 20-23 layer norm. Mote takes the form TFLite's converter writes
// for a Keras LSTM layer (every gate's weights and bias) and refuses the rest in `check`. The
// program keeps 15 inputs (input, 4 input weights, 4 recurrent weights, 4 biases, hidden state,
// cell state).
#include <cmath>
#include <cstring>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/lstm.h"
#include "mote/kernels/quantization.h"

namespace mote::ops {
namespace {

constexpr size_t kInput = 0;
constexpr size_t kInputWeights = 1;      // + gate (input, forget, cell, output)
constexpr size_t kRecurrentWeights = 5;  // + gate
constexpr size_t kPeephole = 9;          // 9, 10, 11
constexpr size_t kBias = 12;             // + gate
constexpr size_t kProjectionWeights = 16, kProjectionBias = 17;
constexpr size_t kHiddenState = 18, kCellState = 19;
constexpr size_t kLayerNorm = 20;  // 20..23
constexpr int8_t kStateInputs[] = {kHiddenState, kCellState};
constexpr int8_t kProgramInputs[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 14, 15, 18, 19};
constexpr const char* kGateNames[kernels::kLstmGates] = {"input", "forget", "cell", "output"};

// TFLM's fixed scales: gate pre-activations in Q3.12, the sigmoid and tanh outputs in Q0.15.
constexpr double kGateInputScale = 1.0 / 4096;
constexpr double kGateOutputScale = 1.0 / 32768;

ir::Options read(const TfliteOptions& t) {
  const auto& o = *t.table<tfl::UnidirectionalSequenceLSTMOptions>(
      tfl::BuiltinOptions::UnidirectionalSequenceLSTMOptions, true);
  ir::LstmOptions r;
  r.activation_code = o.fused_activation_function();
  r.cell_clip = o.cell_clip();
  r.time_major = o.time_major();
  r.diagonal_recurrent_tensors = o.diagonal_recurrent_tensors();
  return r;
}

void write(const ir::Operator& op, tfl::BuiltinOptionsUnion& out) {
  const auto& o = std::get<ir::LstmOptions>(op.options);
  tfl::UnidirectionalSequenceLSTMOptionsT t;
  t.fused_activation_function = o.activation_code;
  t.cell_clip = o.cell_clip;
  t.time_major = o.time_major;
  t.diagonal_recurrent_tensors = o.diagonal_recurrent_tensors;
  out.Set(std::move(t));
}

// Every parameter TFLM's Prepare computes, once for check and lower.
struct Prepared {
  kernels::QuantizedMultiplier input_requant[kernels::kLstmGates];
  kernels::QuantizedMultiplier hidden_requant[kernels::kLstmGates];
  kernels::QuantizedMultiplier forget_to_cell, input_to_cell, output;
  int32_t cell_scale_power = 0;
  int32_t cell_clip = 0;  // quantized; 0: no clip
};

float scale(const ir::Graph& g, const ir::Operator& op, size_t k) {
  return g.tensors[op.inputs[k]].quantization.scale[0];
}

// The fully connected layers' multipliers as TFLM's GetQuantizedConvolutionMultipler computes
// them (the two scales multiplied in float, then divided in double); the products of gates in
// double (CreateInterGateMulParams). The cell scale is 2^power (check requires it).
Prepared prepare(const ir::Graph& g, const ir::Operator& op) {
  Prepared p;
  const float input_scale = scale(g, op, kInput), hidden_scale = scale(g, op, kHiddenState);
  for (int32_t gate = 0; gate < kernels::kLstmGates; ++gate) {
    const float wi = scale(g, op, kInputWeights + gate), wh = scale(g, op, kRecurrentWeights + gate);
    p.input_requant[gate] =
        kernels::quantize_multiplier(static_cast<double>(input_scale * wi) / kGateInputScale);
    p.hidden_requant[gate] =
        kernels::quantize_multiplier(static_cast<double>(hidden_scale * wh) / kGateInputScale);
  }
  const double cell_scale = scale(g, op, kCellState);
  p.cell_scale_power = static_cast<int32_t>(std::lround(std::log2(cell_scale)));
  p.forget_to_cell = kernels::quantize_multiplier(kGateOutputScale * cell_scale / cell_scale);
  p.input_to_cell = kernels::quantize_multiplier(kGateOutputScale * kGateOutputScale / cell_scale);
  p.output = kernels::quantize_multiplier(kGateOutputScale * kGateOutputScale /
                                          static_cast<double>(hidden_scale));
  // TFLM clips only for a positive cell_clip, at cell_clip / cell scale saturated to int16 and
  // truncated.
  const float clip = std::get<ir::LstmOptions>(op.options).cell_clip;
  if (clip > 0) {
    p.cell_clip = static_cast<int16_t>(
        std::min(std::max(static_cast<double>(clip) / cell_scale, -32768.0), 32767.0));
  }
  return p;
}

// The largest |bias| of an int32 (8x8) or int64 (16x8) bias.
int64_t max_abs_bias(const Tensor& bias) {
  int64_t m = 0;
  if (bias.type == DataType::kInt32) {
    for (int32_t v : int32_values(bias)) m = std::max(m, std::abs(int64_t{v}));
    return m;
  }
  for (size_t k = 0; k + sizeof(int64_t) <= bias.data.size(); k += sizeof(int64_t)) {
    int64_t v;
    std::memcpy(&v, bias.data.data() + k, sizeof v);
    m = std::max(m, v == INT64_MIN ? INT64_MAX : std::abs(v));
  }
  return m;
}

// Whether TFLite's 64-bit MultiplyByQuantizedMultiplier (the 16x8 fully connected layers) of any
// |x| <= bound stays where TFLite defines it (|x| < 2^47, shift in [-31, 7]) and within int32:
// there Mote's kernel, which saturates instead, computes what TFLM computes.
bool requant64_fits(int64_t bound, const kernels::QuantizedMultiplier& m) {
  if (m.multiplier < 0 || m.shift < -31 || m.shift > 7 || bound >= (int64_t{1} << 47)) return false;
  const int64_t reduced =
      m.multiplier < 0x7FFF0000 ? (int64_t{m.multiplier} + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = 15 - m.shift;
  return ((bound * reduced + (int64_t{1} << (total_shift - 1))) >> total_shift) <= INT32_MAX;
}

int32_t hidden_size(const ir::Graph& g, const ir::Operator& op) {
  return g.tensors[op.inputs[kInputWeights + kernels::kLstmForgetGate]].shape[0];
}

void check(Checker& c) {
  const auto& o = c.options<ir::LstmOptions>();
  // What the kernel does not run, each with its own reason.
  if (!c.has_input(kInputWeights + kernels::kLstmInputGate)) {
    c.fail("CIFG (no input gate: input 1, the input-to-input weights, is absent) is not supported");
  }
  for (size_t k = kPeephole; k < kPeephole + 3; ++k) {
    if (c.has_input(k)) c.fail(c.in_label(k) + ": peephole (cell-to-gate) weights are not supported");
  }
  if (c.has_input(kProjectionWeights) || c.has_input(kProjectionBias)) {
    c.fail(c.in_label(c.has_input(kProjectionWeights) ? kProjectionWeights : kProjectionBias) +
           ": projection is not supported");
  }
  for (size_t k = kLayerNorm; k < kLayerNorm + 4; ++k) {
    if (c.has_input(k)) c.fail(c.in_label(k) + ": layer normalization is not supported");
  }
  // TFLM's integer LSTM reads every gate's weights and bias.
  for (size_t k = kInputWeights; k < kPeephole; ++k) {
    if (!c.has_input(k)) c.fail("input " + std::to_string(k) + " (gate weights) is required but absent");
  }
  for (size_t k = kBias; k < kBias + kernels::kLstmGates; ++k) {
    if (!c.has_input(k)) c.fail("input " + std::to_string(k) + " (gate bias) is required but absent");
  }
  for (size_t k : {kHiddenState, kCellState}) {
    if (!c.has_input(k)) c.fail("input " + std::to_string(k) + " (state) is required but absent");
  }
  if (o.activation_code != ir::kTfliteTanh) {
    c.fail("fused activation " + std::to_string(o.activation_code) +
           " not supported (TFLM's integer LSTM squashes the cell with TANH, 4)");
  }
  if (o.diagonal_recurrent_tensors) c.fail("diagonal recurrent weights are not supported");

  const Tensor& input = c.in(kInput);
  if (input.type == DataType::kFloat32) {
    c.fail(c.in_label(kInput) + " is float32: hybrid (float input) LSTMs are not supported");
  }
  if (input.type != DataType::kInt8 && input.type != DataType::kInt16) {
    c.fail(c.in_label(kInput) + " is " + std::string(to_string(input.type)) +
           "; the integer LSTM takes an int8 or an int16 (16x8) input");
  }
  // TFLM runs two integer forms, chosen by the input's type: int8 (8x8->16) and int16 (16x8->16,
  // TFLite's 16x8 quantization). A layer that mixes them is refused, saying what each needs.
  const bool int16 = input.type == DataType::kInt16;
  const DataType activation = input.type, bias_type = int16 ? DataType::kInt64 : DataType::kInt32;
  const auto expect_form = [&](size_t k, DataType type, const std::string& what) {
    const DataType have = c.operand(k).type;
    if (have == type) return;
    c.fail(c.label(k) + " (" + what + ") is " + std::string(to_string(have)) + ", but input 0 is " +
           std::string(to_string(activation)) + ", so " + what + " must be " +
           std::string(to_string(type)) +
           ": TFLM's integer LSTM takes int8 input, output and hidden state with int32 biases, "
           "or int16 ones with int64 biases (TFLite's 16x8 quantization), both with int8 weights "
           "and an int16 cell state; quantize the whole layer in one of the two forms");
  };
  expect_form(Checker::kOutput, activation, "the output");
  expect_form(kHiddenState, activation, "the hidden state");
  for (int32_t gate = 0; gate < kernels::kLstmGates; ++gate) {
    const std::string name = kGateNames[gate];
    expect_form(kInputWeights + gate, DataType::kInt8, "the " + name + " gate's input weights");
    expect_form(kRecurrentWeights + gate, DataType::kInt8,
                "the " + name + " gate's recurrent weights");
    expect_form(kBias + gate, bias_type, "the " + name + " gate's bias");
  }
  c.data_input(kInput, activation);
  c.expect_rank(kInput, 3);
  const bool tm = o.time_major;
  const int32_t time_steps = input.shape[tm ? 0 : 1], batches = input.shape[tm ? 1 : 0];
  const int32_t input_size = input.shape[2];
  const Tensor& forget = c.param_input(kInputWeights + kernels::kLstmForgetGate, DataType::kInt8);
  c.expect_rank(kInputWeights + kernels::kLstmForgetGate, 2);
  const int32_t hidden = forget.shape[0];

  auto expect_weights = [&](size_t k, int32_t cols, const char* what) {
    const Tensor& w = c.param_input(k, DataType::kInt8);
    if (w.shape != std::vector<int32_t>{hidden, cols}) {
      c.fail(c.in_label(k) + " (" + what + ") has shape " + shape_string(w.shape) + ", expected [" +
             std::to_string(hidden) + ", " + std::to_string(cols) + "]");
    }
    if (w.quantization.scale.size() != 1) {
      c.fail(c.in_label(k) + " (" + what + ") has " + std::to_string(w.quantization.scale.size()) +
             " scales; the LSTM's weights are quantized per tensor");
    }
    if (w.quantization.zero_point[0] != 0) {
      c.fail(c.in_label(k) + " (" + what + ") has zero point " +
             std::to_string(w.quantization.zero_point[0]) + "; weights must be symmetric (0)");
    }
  };
  for (int32_t gate = 0; gate < kernels::kLstmGates; ++gate) {
    const std::string name = kGateNames[gate];
    expect_weights(kInputWeights + gate, input_size, (name + " gate input weights").c_str());
    expect_weights(kRecurrentWeights + gate, hidden,
                   (name + " gate recurrent weights").c_str());
    const size_t b = kBias + gate;
    const Tensor& bias = c.param_input(b, bias_type);
    if (bias.shape != std::vector<int32_t>{hidden}) {
      c.fail(c.in_label(b) + " (" + name + " gate bias) has shape " + shape_string(bias.shape) +
             ", expected [" + std::to_string(hidden) + "]");
    }
  }

  // The states: the hidden state (which is also the output; int8, or int16 and symmetric) and
  // the int16 cell state, [B, H].
  c.expect_type(kHiddenState, activation);
  c.expect_per_tensor(kHiddenState);
  if (int16) c.expect_symmetric16(kHiddenState);
  const Tensor& cell = c.in(kCellState);
  c.expect_type(kCellState, DataType::kInt16);
  c.expect_per_tensor(kCellState);
  for (size_t k : {kHiddenState, kCellState}) {
    if (c.in(k).shape != std::vector<int32_t>{batches, hidden}) {
      c.fail(c.in_label(k) + (k == kHiddenState ? " (hidden state)" : " (cell state)") +
             " has shape " + shape_string(c.in(k).shape) + ", expected [" +
             std::to_string(batches) + ", " + std::to_string(hidden) + "]");
    }
  }
  if (cell.quantization.zero_point[0] != 0) {
    c.fail(c.in_label(kCellState) + " (cell state) has zero point " +
           std::to_string(cell.quantization.zero_point[0]) + ", expected 0");
  }
  const double cell_scale = cell.quantization.scale[0];
  const double power = std::log2(cell_scale);
  if (!(cell_scale > 0) || std::fabs(power - std::round(power)) > 1e-3) {
    c.fail(c.in_label(kCellState) + " (cell state) scale " + num(cell_scale) +
           " is not a power of two, which TFLM's integer LSTM needs");
  }
  c.data_output(activation);
  c.expect_output_shape(tm ? std::vector<int32_t>{time_steps, batches, hidden}
                           : std::vector<int32_t>{batches, time_steps, hidden});
  // TFLM writes the hidden state to the output unchanged: they must mean the same.
  c.expect_same_quantization(kHiddenState);

  const Prepared p = prepare(c.graph(), c.op());
  if (p.cell_scale_power < -43 || p.cell_scale_power > 2) {
    c.fail(c.in_label(kCellState) + " (cell state) scale 2^" + std::to_string(p.cell_scale_power) +
           " is outside [2^-43, 2^2], the range of the kernel's tanh input shift");
  }
  if (o.cell_clip > 0 && p.cell_clip < 1) {
    c.fail("cell_clip " + num(o.cell_clip) + " is below one step of the cell state (" +
           num(cell_scale) + ")");
  }
  // Every requantization within int32 for any input the kernel can see (lstm_params_ok's rule);
  // 16x8: the fully connected layers' within TFLite's 64-bit requantization's domain too.
  constexpr int64_t kLimit = 2147483647;
  auto expect_fits = [&](int64_t bound, const kernels::QuantizedMultiplier& m,
                         const std::string& what, bool sum64 = false) {
    if (sum64 ? !requant64_fits(bound, m)
              : !kernels::requant_fits(bound, m.multiplier, m.shift, kLimit)) {
      c.fail("the " + what + " requantization (multiplier " + std::to_string(m.multiplier) +
             ", shift " + std::to_string(m.shift) + ") overflows int32" +
             (sum64 ? " or leaves TFLite's 64-bit requantization's range (|sum| < 2^47, shift <= 7)"
                    : ""));
    }
  };
  // The largest |activation - zero point|: 255 for int8, 32768 for int16 (zero point 0).
  const int64_t centered = int16 ? 32768 : 255;
  for (int32_t gate = 0; gate < kernels::kLstmGates; ++gate) {
    // Beyond 2^47 no bias fits either requantization; held there, the bound cannot overflow.
    const int64_t bias_max = std::min(max_abs_bias(c.in(kBias + gate)), int64_t{1} << 47);
    const std::string name = kGateNames[gate];
    expect_fits(bias_max + int64_t{input_size} * centered * 128, p.input_requant[gate],
                name + " gate's input (input scale * weights scale / 2^-12)", int16);
    expect_fits(int64_t{hidden} * centered * 128, p.hidden_requant[gate],
                name + " gate's recurrent (hidden scale * weights scale / 2^-12)", int16);
  }
  constexpr int64_t kProduct = int64_t{1} << 30;
  expect_fits(kProduct, p.forget_to_cell, "forget-to-cell");
  expect_fits(kProduct, p.input_to_cell, "input-to-cell (2^-30 / cell scale)");
  expect_fits(kProduct, p.output, "hidden state (2^-30 / hidden scale)");
}

int64_t macs(const ir::Graph& g, const ir::Operator& op) {
  const ir::Tensor& input = g.tensors[op.inputs[kInput]];
  const int64_t rows = int64_t{input.shape[0]} * input.shape[1], hidden = hidden_size(g, op);
  return rows * kernels::kLstmGates * hidden * (input.shape[2] + hidden);
}

uint64_t scratch(const ir::Graph& g, const ir::Operator& op, kernels::Extension) {
  kernels::LstmParams p{};
  p.hidden_size = hidden_size(g, op);
  return kernels::lstm_scratch_bytes(p);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const ir::Operator& op = ctx.op();
  const auto& o = std::get<ir::LstmOptions>(op.options);
  const Prepared p = prepare(ctx.graph(), op);
  schema::LstmOptionsT s;
  s.time_major = o.time_major;
  s.input_offset = -zero_point_of(ctx.in(kInput));
  s.hidden_zero_point = zero_point_of(ctx.in(kHiddenState));
  for (int32_t gate = 0; gate < kernels::kLstmGates; ++gate) {
    s.input_requant.emplace_back(p.input_requant[gate].multiplier, p.input_requant[gate].shift);
    s.hidden_requant.emplace_back(p.hidden_requant[gate].multiplier, p.hidden_requant[gate].shift);
  }
  s.forget_to_cell = std::make_unique<schema::Requant>(p.forget_to_cell.multiplier,
                                                       p.forget_to_cell.shift);
  s.input_to_cell =
      std::make_unique<schema::Requant>(p.input_to_cell.multiplier, p.input_to_cell.shift);
  s.output_requant = std::make_unique<schema::Requant>(p.output.multiplier, p.output.shift);
  s.cell_clip = p.cell_clip;
  s.cell_scale_power = p.cell_scale_power;
  out.options.Set(std::move(s));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<ir::LstmOptions>(op.options);
  const ir::Tensor& input = g.tensors[op.inputs[kInput]];
  const int32_t hidden = hidden_size(g, op);
  const int32_t steps = input.shape[o.time_major ? 0 : 1];
  const int64_t state_bytes = g.tensors[op.inputs[kHiddenState]].num_bytes() +
                              g.tensors[op.inputs[kCellState]].num_bytes();
  d.add("hidden " + std::to_string(hidden) + " steps " + std::to_string(steps) +
        (o.time_major ? " time-major" : " batch-major") + " state " +
        std::to_string(state_bytes) + " B");
  d.json["hidden_size"] = hidden;
  d.json["time_steps"] = steps;
  d.json["time_major"] = o.time_major;
  d.json["state_bytes"] = state_bytes;
  if (o.cell_clip > 0) {
    d.add("cell clip " + num(o.cell_clip));
    d.json["cell_clip"] = o.cell_clip;
  }
}

}  // namespace

extern const OpDef unidirectional_sequence_lstm{
    .builtin_code = builtin(tfl::BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM),
    .read_options = read, .write_options = write, .inputs = {20, 24, 1}, .check = check,
    .macs = macs, .scratch_bytes = scratch, .lower = lower, .program_inputs = kProgramInputs,
    .state_inputs = kStateInputs, .int16_activations = true, .describe = describe};

}  // namespace mote::ops
