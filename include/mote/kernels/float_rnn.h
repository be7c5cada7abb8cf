#pragma once
// ONNX's LSTM and GRU with their default activations (sigmoid, tanh, tanh), computed in float32
// as ONNX defines them: the float island that ONNX Runtime's quantize_static and PyTorch's
// fake-quantized exports leave between int8 layers (DequantizeLinear -> LSTM -> QuantizeLinear).
// An int8 operand is dequantized on the fly (scale * (q - zero_point), in float, as
// DequantizeLinear does); an int8 result is quantized as QuantizeLinear does (x / scale rounded
// half to even, plus the zero point, saturated).
//
// Per direction d (forward: t = 0 .. T-1; reverse: t = T-1 .. 0), per batch row, with H_{t-1}
// starting at initial_h (zeros when absent) and C at initial_c:
//   LSTM (gate rows i, o, f, c of W, R and B; peepholes P_i, P_o, P_f, zero when absent):
//     i = s(W_i x + R_i H + Wb_i + Rb_i + P_i * C)    f = s(... f ... + P_f * C)
//     g = tanh(W_c x + R_c H + Wb_c + Rb_c)     C' = f * C + i * g
//     o = s(W_o x + R_o H + Wb_o + Rb_o + P_o * C')     H = o * tanh(C')
//   GRU (gate rows z, r, h):
//     z = s(W_z x + R_z H + Wb_z + Rb_z)    r = s(... r ...)
//     linear_before_reset 0: n = tanh(W_h x + R_h (r * H) + Rb_h + Wb_h)
//     linear_before_reset 1: n = tanh(W_h x + r * (R_h H + Rb_h) + Wb_h)
//     H = (1 - z) * n + z * H
// Y[t][d] = H after step t; Y_h[d] = the last H; Y_c[d] = the last C.
// Embeddable C++17: no heap, no exceptions; float math (soft float where the CPU has no FPU).

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

enum class RnnCell : uint8_t { kLstm = 0, kGru = 1 };

// Gate rows per direction: 4 * H (LSTM) or 3 * H (GRU).
inline int32_t rnn_gates(RnnCell cell) { return cell == RnnCell::kLstm ? 4 : 3; }

// An operand the recurrence reads: int8 (`quantized`, dequantized with scale and zero point) or
// float32 (`real`); both null: absent (zeros).
struct RnnInput {
  const int8_t* quantized;
  const float* real;
  float scale;
  int32_t zero_point;
};
// A result: int8 (`quantized`, quantized with scale and zero point) or float32 (`real`); both
// null: not written.
struct RnnOutput {
  int8_t* quantized;
  float* real;
  float scale;
  int32_t zero_point;
};

struct FloatRnnParams {
  RnnCell cell;
  int32_t directions;  // 1 or 2 (bidirectional: direction 1 runs in reverse)
  bool reverse;        // one direction, run from the last step to the first
  bool linear_before_reset;  // GRU
  // ONNX's layout 1: X [B, T, I], Y [B, T, D, H], the states [B, D, H] (else [T, B, I],
  // [T, D, B, H] and [D, B, H]).
  bool batch_first;
  int32_t steps;        // T
  int32_t batches;      // B
  int32_t input_size;   // I
  int32_t hidden_size;  // H
};

struct FloatRnnOperands {
  // Shapes of layout 0; batch_first moves B to the front (FloatRnnParams).
  RnnInput x;          // [T, B, I]
  const float* w;      // [D, G*H, I]
  const float* r;      // [D, G*H, H]
  const float* bias;   // [D, 2*G*H] (input then recurrent biases) or null (zeros)
  RnnInput initial_h;  // [D, B, H]
  RnnInput initial_c;  // [D, B, H], LSTM
  const float* peephole;  // [D, 3*H] (i, o, f) or null, LSTM
  RnnOutput y;         // [T, D, B, H]
  RnnOutput y_h;       // [D, B, H]
  RnnOutput y_c;       // [D, B, H], LSTM
};

// Float32 scratch: the state of one direction (H, and C for an LSTM, per batch row), one input
// row, the gate pre-activations, and for a GRU the reset hidden state and its product.
inline size_t float_rnn_scratch_bytes(RnnCell cell, int32_t batches, int32_t input_size,
                                      int32_t hidden_size) {
  const size_t b = static_cast<size_t>(batches), i = static_cast<size_t>(input_size);
  const size_t h = static_cast<size_t>(hidden_size);
  const size_t floats = cell == RnnCell::kLstm ? 2 * b * h + i + 4 * h : b * h + i + 5 * h;
  return 4 * floats;
}

// Multiply-accumulates of one run: every step's gate rows times (input + hidden) columns.
inline int64_t float_rnn_macs(const FloatRnnParams& p) {
  return int64_t{p.directions} * p.steps * p.batches * rnn_gates(p.cell) * p.hidden_size *
         (int64_t{p.input_size} + p.hidden_size);
}

// x / scale rounded half to even plus zero_point, saturated to int8 (ONNX's QuantizeLinear).
int8_t quantize_half_even(float x, float scale, int32_t zero_point);

// `scratch` holds float_rnn_scratch_bytes (4-byte aligned). No output may overlap an input.
void float_rnn(const FloatRnnParams& params, const FloatRnnOperands& operands, float* scratch);

}  // namespace kernels
}  // namespace mote
