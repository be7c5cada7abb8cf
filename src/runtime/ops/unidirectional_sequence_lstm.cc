// UNIDIRECTIONAL_SEQUENCE_LSTM (TFLM's integer LSTM, 8x8->16): inputs (input int8 [T, B, I] or
// [B, T, I]; input weights int8 [H, I] and recurrent weights int8 [H, H] of the input, forget,
// cell and output gates; their biases int32 [H]; hidden state int8 and cell state
// int16, B * H each, state tensors the kernel updates), output int8; int16 scratch [4, H].
// 16x8->16: input, hidden state and output int16 (zero points 0), biases int64; the rest alike.

#include "mote/kernels/lstm.h"
#include "runtime/ops/op_support.h"

namespace mote {
namespace runtime {
namespace internal {
namespace {

constexpr size_t kInputWeights = 1, kRecurrentWeights = 5, kBias = 9;
constexpr size_t kHidden = 13, kCell = 14, kInputs = 15;

// The kernel's parameters without the weight pointers: sizes and the options' requantizations.
kernels::LstmParams params_of(const schema::LstmOptions& o, const Tensor& x, const Tensor& w) {
  kernels::LstmParams p{};
  p.time_major = o.time_major();
  p.time_steps = dim(x, p.time_major ? 0 : 1);
  p.batch_size = dim(x, p.time_major ? 1 : 0);
  p.input_size = dim(x, 2);
  p.hidden_size = dim(w, 0);
  p.input_offset = o.input_offset();
  p.hidden_zero_point = o.hidden_zero_point();
  for (int32_t g = 0; g < kernels::kLstmGates; ++g) {
    const schema::Requant* in = o.input_requant()->Get(static_cast<flatbuffers::uoffset_t>(g));
    const schema::Requant* h = o.hidden_requant()->Get(static_cast<flatbuffers::uoffset_t>(g));
    p.gates[g].input_multiplier = in->multiplier();
    p.gates[g].input_shift = in->shift();
    p.gates[g].hidden_multiplier = h->multiplier();
    p.gates[g].hidden_shift = h->shift();
  }
  p.forget_to_cell_multiplier = o.forget_to_cell()->multiplier();
  p.forget_to_cell_shift = o.forget_to_cell()->shift();
  p.input_to_cell_multiplier = o.input_to_cell()->multiplier();
  p.input_to_cell_shift = o.input_to_cell()->shift();
  p.output_multiplier = o.output_requant()->multiplier();
  p.output_shift = o.output_requant()->shift();
  p.cell_clip = o.cell_clip();
  p.cell_scale_power = o.cell_scale_power();
  return p;
}

Error check(const OpChecker& c) {
  const auto& o = c.options<schema::LstmOptions>();
  if (o.input_requant() == nullptr || o.input_requant()->size() != kernels::kLstmGates ||
      o.hidden_requant() == nullptr || o.hidden_requant()->size() != kernels::kLstmGates ||
      o.forget_to_cell() == nullptr || o.input_to_cell() == nullptr ||
      o.output_requant() == nullptr) {
    return c.bad("missing requantization");
  }
  const Tensor *hidden = c.in(kHidden), *cell = c.in(kCell);
  if (hidden == nullptr || !hidden->state() || cell == nullptr || !cell->state()) {
    return c.bad("inputs 13 and 14 must be state tensors");
  }
  // The signature made the input and output int16 together (16x8) or int8 together.
  const bool int16 = c.int16();
  if (hidden->type() != (int16 ? DataType::Int16 : DataType::Int8) ||
      cell->type() != DataType::Int16) {
    return c.bad(int16 ? "16x8: hidden state must be int16, cell state int16"
                       : "hidden state must be int8, cell state int16");
  }
  const Tensor &x = *c.in(0), &y = c.out();
  if (rank(x) != 3 || rank(y) != 3) return c.bad("input and output must be 3-D");
  for (size_t k = kInputWeights; k < kBias; ++k) {
    if (rank(*c.in(k)) != 2) return c.bad("gate weights must be 2-D");
  }
  const kernels::LstmParams p = params_of(o, x, *c.in(kInputWeights));
  const int32_t n = p.hidden_size;
  if (p.time_steps < 1 || p.batch_size < 1 || p.input_size < 1 || n < 1) {
    return c.bad("empty sequence");
  }
  for (size_t g = 0; g < kernels::kLstmGates; ++g) {
    const Tensor &wi = *c.in(kInputWeights + g), &wh = *c.in(kRecurrentWeights + g);
    if (dim(wi, 0) != n || dim(wi, 1) != p.input_size || dim(wh, 0) != n || dim(wh, 1) != n) {
      return c.bad("gate weights shapes inconsistent");
    }
  }
  const size_t states = static_cast<size_t>(p.batch_size) * static_cast<size_t>(n);
  if (element_count(*hidden) != states || element_count(*cell) != states ||
      dim(y, 0) != dim(x, 0) || dim(y, 1) != dim(x, 1) || dim(y, 2) != n) {
    return c.bad("shapes inconsistent");
  }
  if (int16 && (p.input_offset != 0 || p.hidden_zero_point != 0)) {
    return c.bad("int16 zero point not 0");
  }
  if (!in_range(p.input_offset, -127, 128) || !in_range(p.hidden_zero_point, -128, 127)) {
    return c.bad("zero point outside int8");
  }
  if (!in_range(p.cell_clip, 0, 32767)) return c.bad("cell clip outside [0, 32767]");
  // A program's field may hold any int32: the shift is formed in 64 bits.
  const int64_t cell_tanh_shift = int64_t{15} + p.cell_scale_power - 3;
  if (!in_range(cell_tanh_shift, -31, 14)) {
    return c.bad("cell scale power out of range", Error::kUnsupported);
  }
  // Every requantization within int32 for any sum the kernel can form (lstm_params_ok's rule);
  // 16x8: int64 sums that cannot overflow, under the 64-bit requantization, which saturates
  // (lstm_16x8_params_ok's rule).
  constexpr int64_t kLimit = 2147483647;
  for (size_t g = 0; g < kernels::kLstmGates; ++g) {
    const Tensor* b = c.in(kBias + g);
    if (b == nullptr || b->type() != (int16 ? DataType::Int64 : DataType::Int32)) {
      return c.bad(int16 ? "16x8: gate biases must be int64" : "gate biases must be int32");
    }
    int64_t bias_max = 0;
    MOTE_TRY(c.bias(b, n, &bias_max));
    const auto gate = static_cast<flatbuffers::uoffset_t>(g);
    if (int16) {
      // |x| <= 32768, |w| <= 128; input_size < 2^31, so the products stay below 2^53.
      if (bias_max > (int64_t{1} << 62) - int64_t{p.input_size} * 32768 * 128) {
        return c.bad("accumulator could overflow int64", Error::kUnsupported);
      }
      MOTE_TRY(c.requant(o.input_requant()->Get(gate), 0));
      MOTE_TRY(c.requant(o.hidden_requant()->Get(gate), 0));
      continue;
    }
    MOTE_TRY(c.requant(o.input_requant()->Get(gate), bias_max + int64_t{p.input_size} * 255 * 128,
                       kLimit));
    MOTE_TRY(c.requant(o.hidden_requant()->Get(gate), int64_t{n} * 255 * 128, kLimit));
  }
  constexpr int64_t kProduct = int64_t{1} << 30;
  MOTE_TRY(c.requant(o.forget_to_cell(), kProduct, kLimit));
  MOTE_TRY(c.requant(o.input_to_cell(), kProduct, kLimit));
  MOTE_TRY(c.requant(o.output_requant(), kProduct, kLimit));
  return Error::kOk;
}

// 16x8: the int16 tensors and the int64 biases. Not inlined into invoke, whose int8 path then
// pays little more than the type test (a few tens of instructions a call).
__attribute__((noinline)) void invoke_16x8(const Op& op) {
  kernels::LstmParams p =
      params_of(op.options<schema::LstmOptions>(), op.in(0), op.in(kInputWeights));
  kernels::LstmBiases64 biases{};
  for (size_t g = 0; g < kernels::kLstmGates; ++g) {
    p.gates[g].input_weights = op.in_data<int8_t>(kInputWeights + g);
    p.gates[g].hidden_weights = op.in_data<int8_t>(kRecurrentWeights + g);
    biases.gate[g] = op.optional_in_data<int64_t>(kBias + g);
  }
  kernels::lstm_16x8(p, biases, op.in_data<int16_t>(0), op.state_data<int16_t>(kHidden),
                     op.state_data<int16_t>(kCell), op.out_data<int16_t>(), op.scratch());
}

void invoke(const Op& op) {
  if (op.in(0).type() == DataType::Int16) {
    invoke_16x8(op);
    return;
  }
  kernels::LstmParams p =
      params_of(op.options<schema::LstmOptions>(), op.in(0), op.in(kInputWeights));
  for (size_t g = 0; g < kernels::kLstmGates; ++g) {
    p.gates[g].input_weights = op.in_data<int8_t>(kInputWeights + g);
    p.gates[g].hidden_weights = op.in_data<int8_t>(kRecurrentWeights + g);
    p.gates[g].bias = op.optional_in_data<int32_t>(kBias + g);
  }
  kernels::lstm(p, op.in_data<int8_t>(0), op.state_data<int8_t>(kHidden),
                op.state_data<int16_t>(kCell), op.out_data<int8_t>(), op.scratch());
}

size_t required_scratch(const schema::Program& program, const schema::Operator& op) {
  kernels::LstmParams p{};
  p.hidden_size = dim(input_of(program, op, kInputWeights), 0);
  return kernels::lstm_scratch_bytes(p);
}

}  // namespace

extern const OpRegistration kUnidirectionalSequenceLstmOp{
    takes(kInputs, kInputs, schema::OpOptions::LstmOptions).int8(kBias).int16(1), &check,
    &required_scratch, /*runs_in_place=*/false, /*overlap=*/nullptr};
extern const OpForm kUnidirectionalSequenceLstmPlain{&invoke};

}  // namespace internal
}  // namespace runtime
}  // namespace mote
