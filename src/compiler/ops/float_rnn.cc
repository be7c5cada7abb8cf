// MoteFloatRnn: ONNX's LSTM or GRU with its default activations, computed in float32
// (mote/kernels/float_rnn.h). Quantized ONNX models keep their recurrent layers in float
// (ONNX Runtime's quantize_static does not quantize them; PyTorch's fake-quantized exports
// leave them so): the ONNX reader makes DequantizeLinear -> LSTM -> QuantizeLinear one operator
// that dequantizes its int8 input and quantizes its results. Mote's own custom operator: its
// options are a FlexBuffers map (cell, direction, linear_before_reset) in a .tflite file.
// Inputs: 0 X [T, B, I], 1 W [D, G*H, I], 2 R [D, G*H, H], 3 B [D, 2*G*H] (optional), 4 initial_h
// and 5 initial_c [D, B, H] (optional), 6 P [D, 3*H] (an LSTM's peepholes, optional); outputs Y [T, D, B, H], then Y_h and Y_c [D, B, H].
// batch_first (ONNX's layout 1): X [B, T, I], Y [B, T, D, H], the states [B, D, H]. Y may also
// be shaped as the next stacked layer's X, the same bytes: [T, B, D*H] (layout 0, when D or B is
// 1: PyTorch's stacked layers) or [B, T, D*H].
// X, the initial states and the results are each int8 (one scale) or float32; weights float32.
#include <flatbuffers/flexbuffers.h>

#include "compiler/ops/checker.h"
#include "compiler/ops/lower_context.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/tflite_options.h"
#include "mote/kernels/float_rnn.h"

namespace mote::ops {
namespace {

using ir::RnnCell;
using ir::RnnDirection;
using ir::RnnOptions;

constexpr size_t kX = 0, kW = 1, kR = 2, kBias = 3, kInitialH = 4, kInitialC = 5, kPeephole = 6;

ir::Options read(const TfliteOptions& t) {
  const flexbuffers::Map m = t.custom_map();
  RnnOptions o;
  o.cell = static_cast<RnnCell>(t.custom_int(m, "cell", 0, 1));
  o.direction = static_cast<RnnDirection>(t.custom_int(m, "direction", 0, 2));
  o.linear_before_reset = t.custom_int(m, "linear_before_reset", 0, 1) != 0;
  o.batch_first = !m["batch_first"].IsNull() && t.custom_int(m, "batch_first", 0, 1) != 0;
  return o;
}

std::vector<uint8_t> write_custom(const ir::Operator& op) {
  const auto& o = std::get<RnnOptions>(op.options);
  flexbuffers::Builder b;
  b.Map([&] {
    b.Int("cell", static_cast<int64_t>(o.cell));
    b.Int("direction", static_cast<int64_t>(o.direction));
    b.Int("linear_before_reset", o.linear_before_reset ? 1 : 0);
    if (o.batch_first) b.Int("batch_first", 1);
  });
  b.Finish();
  return b.GetBuffer();
}

void write_nothing(const ir::Operator&, tfl::BuiltinOptionsUnion&) {}

kernels::RnnCell kernel_cell(RnnCell cell) {
  return cell == RnnCell::kLstm ? kernels::RnnCell::kLstm : kernels::RnnCell::kGru;
}

// The kernel's dimensions, from shapes check accepted.
kernels::FloatRnnParams params(const ir::Graph& g, const ir::Operator& op) {
  const auto& o = std::get<RnnOptions>(op.options);
  const ir::Tensor& x = g.tensors[op.inputs[kX]];
  const ir::Tensor& r = g.tensors[op.inputs[kR]];
  kernels::FloatRnnParams p{};
  p.cell = kernel_cell(o.cell);
  p.directions = o.direction == RnnDirection::kBidirectional ? 2 : 1;
  p.reverse = o.direction == RnnDirection::kReverse;
  p.linear_before_reset = o.linear_before_reset;
  p.batch_first = o.batch_first;
  p.steps = x.shape[o.batch_first ? 1 : 0];
  p.batches = x.shape[o.batch_first ? 0 : 1];
  p.input_size = x.shape[2];
  p.hidden_size = r.shape[2];
  return p;
}

const char* cell_name(RnnCell cell) { return cell == RnnCell::kLstm ? "LSTM" : "GRU"; }
const char* direction_name(RnnDirection d) {
  return d == RnnDirection::kForward ? "forward" : d == RnnDirection::kReverse ? "reverse"
                                                                              : "bidirectional";
}

void check(Checker& c) {
  const auto& o = c.options<RnnOptions>();
  const bool lstm = o.cell == RnnCell::kLstm;
  if (static_cast<int>(o.direction) > 2) c.fail("direction out of range");
  // An int8 operand (one scale: it is dequantized or quantized as one tensor) or float32.
  auto int8_or_float = [&](size_t k, const std::string& what) {
    const Tensor& t = c.operand(k);
    if (t.type == DataType::kFloat32) {
      if (!t.quantization.empty()) c.fail(c.label(k) + " (" + what + ") is float32 but quantized");
      return;
    }
    if (t.type != DataType::kInt8) {
      c.fail(c.label(k) + " (" + what + ") has type " + std::string(to_string(t.type)) +
             ", expected int8 or float32");
    }
    c.expect_per_tensor(k);
  };
  auto expect_shape = [&](size_t k, const std::vector<int32_t>& shape, const std::string& what) {
    if (c.operand(k).shape != shape) {
      c.fail(c.label(k) + " (" + what + ") has shape " + shape_string(c.operand(k).shape) +
             ", expected " + shape_string(shape));
    }
  };
  const Tensor& x = c.in(kX);
  int8_or_float(kX, "X");
  if (x.is_constant) c.fail(c.in_label(kX) + " (X) is a constant; expected an activation");
  c.expect_rank(kX, 3);
  const int32_t steps = x.shape[o.batch_first ? 1 : 0], batches = x.shape[o.batch_first ? 0 : 1];
  const int32_t input_size = x.shape[2];
  const int32_t directions = o.direction == RnnDirection::kBidirectional ? 2 : 1;
  const int32_t gates = lstm ? 4 : 3;
  const Tensor& r = c.param_input(kR, DataType::kFloat32);
  c.expect_rank(kR, 3);
  const int32_t hidden = r.shape[2];
  if (int64_t{hidden} * gates > INT32_MAX / 4 || int64_t{input_size} * hidden > INT32_MAX / 16) {
    c.fail("hidden size " + std::to_string(hidden) + " is too large");
  }
  expect_shape(kR, {directions, gates * hidden, hidden}, "R");
  c.param_input(kW, DataType::kFloat32);
  expect_shape(kW, {directions, gates * hidden, input_size}, "W");
  if (c.has_input(kBias)) {
    c.param_input(kBias, DataType::kFloat32);
    expect_shape(kBias, {directions, 2 * gates * hidden}, "B");
  }
  const std::vector<int32_t> state = o.batch_first
                                         ? std::vector<int32_t>{batches, directions, hidden}
                                         : std::vector<int32_t>{directions, batches, hidden};
  for (size_t k : {kInitialH, kInitialC}) {
    if (!c.has_input(k)) continue;
    if (k == kInitialC && !lstm) c.fail(c.in_label(k) + ": a GRU has no initial cell state");
    int8_or_float(k, k == kInitialH ? "initial_h" : "initial_c");
    expect_shape(k, state, k == kInitialH ? "initial_h" : "initial_c");
  }
  if (c.has_input(kPeephole)) {
    if (!lstm) c.fail(c.in_label(kPeephole) + ": a GRU has no peepholes");
    c.param_input(kPeephole, DataType::kFloat32);
    expect_shape(kPeephole, {directions, 3 * hidden}, "P");
  }
  if (c.num_outputs() > (lstm ? 3u : 2u)) {
    c.fail(std::string("has ") + std::to_string(c.num_outputs()) + " outputs; a " +
           cell_name(o.cell) + " writes Y, Y_h" + (lstm ? " and Y_c" : ""));
  }
  const std::vector<int32_t> y = o.batch_first
                                     ? std::vector<int32_t>{batches, steps, directions, hidden}
                                     : std::vector<int32_t>{steps, directions, batches, hidden};
  // Y's bytes as the next stacked layer's X, where they are that.
  std::vector<int32_t> stacked;
  if (o.batch_first) {
    stacked = {batches, steps, directions * hidden};
  } else if (directions == 1 || batches == 1) {
    stacked = {steps, batches, directions * hidden};
  }
  const char* const names[] = {"Y", "Y_h", "Y_c"};
  for (size_t j = 0; j < c.num_outputs(); ++j) {
    const Tensor& t = c.out_at(j);
    if (t.type != DataType::kFloat32 &&
        (t.type != DataType::kInt8 || t.quantization.scale.size() != 1)) {
      c.fail(c.out_label(j) + " (" + names[j] + ") must be float32 or int8 with one scale");
    }
    const std::vector<int32_t>& want = j == 0 ? y : state;
    if (t.shape != want && !(j == 0 && !stacked.empty() && t.shape == stacked)) {
      c.fail(c.out_label(j) + " (" + names[j] + ") has shape " + shape_string(t.shape) +
             ", expected " + shape_string(want) +
             (j == 0 && !stacked.empty() ? " or " + shape_string(stacked) : ""));
    }
  }
}

int64_t macs(const ir::Graph& g, const ir::Operator& op) {
  return kernels::float_rnn_macs(params(g, op));
}

uint64_t scratch(const ir::Graph& g, const ir::Operator& op, kernels::Extension) {
  const kernels::FloatRnnParams p = params(g, op);
  return kernels::float_rnn_scratch_bytes(p.cell, p.batches, p.input_size, p.hidden_size);
}

void lower(LowerContext& ctx, schema::OperatorT& out) {
  const auto& o = std::get<RnnOptions>(ctx.op().options);
  schema::FloatRnnOptionsT s;
  s.cell = o.cell == RnnCell::kLstm ? schema::RnnCell::Lstm : schema::RnnCell::Gru;
  s.direction = o.direction == RnnDirection::kForward   ? schema::RnnDirection::Forward
                : o.direction == RnnDirection::kReverse ? schema::RnnDirection::Reverse
                                                        : schema::RnnDirection::Bidirectional;
  s.linear_before_reset = o.linear_before_reset;
  s.batch_first = o.batch_first;
  out.options.Set(std::move(s));
}

void describe(const ir::Graph& g, const ir::Operator& op, Description& d) {
  const auto& o = std::get<RnnOptions>(op.options);
  const kernels::FloatRnnParams p = params(g, op);
  const bool int8_in = g.tensors[op.inputs[kX]].type == DataType::kInt8;
  const bool int8_out = g.tensors[op.outputs[0]].type == DataType::kInt8;
  d.add(std::string(cell_name(o.cell)) + " " + direction_name(o.direction) + " hidden " +
        std::to_string(p.hidden_size) + " steps " + std::to_string(p.steps) +
        (o.cell == RnnCell::kGru && o.linear_before_reset ? " linear_before_reset" : "") +
        (o.batch_first ? " batch first" : "") +
        " in float32 (" + (int8_in ? "int8" : "float32") + " in, " +
        (int8_out ? "int8" : "float32") + " out)");
  d.json["cell"] = cell_name(o.cell);
  d.json["direction"] = direction_name(o.direction);
  d.json["hidden_size"] = p.hidden_size;
  d.json["time_steps"] = p.steps;
  d.json["linear_before_reset"] = o.linear_before_reset;
  d.json["batch_first"] = o.batch_first;
}

}  // namespace

extern const OpDef float_rnn{
    .builtin_code = builtin(tfl::BuiltinOperator::CUSTOM), .custom_code = "MoteFloatRnn",
    .write_custom = write_custom, .read_options = read, .write_options = write_nothing,
    .inputs = {3, 7, 3}, .outputs = {1, 3}, .check = check, .macs = macs,
    .scratch_bytes = scratch, .lower = lower, .float_operands = true, .describe = describe};

}  // namespace mote::ops
