#pragma once
// Integer UNIDIRECTIONAL_SEQUENCE_LSTM, bit exact with TensorFlow Lite Micro's integer LSTM
// (lstm_eval) in its two integer configurations: lstm(), "8x8->16" (int8 input, output and
// hidden state, int16 cell state, int8 weights, int32 biases), and lstm_16x8(), "16x8->16"
// (int16 input, output and hidden state, symmetric; int16 cell state, int8 weights, int64
// biases). Gates in int16 (Q3.12 pre-activations, TFLite's reference int16 Logistic and Tanh,
// which interpolate a 256-entry sigmoid table). Embeddable C++17: the caller owns every buffer
// (hidden and cell state, which survive from one call to the next, and a scratch of
// lstm_scratch_bytes()); no heap, bounded stack.
//
// One step, for each batch row (x the step's input row, h the row's hidden state, c its cell):
//   fc(v, W, b, off, m, s)[o] = sat16(MBQM(sum_k W[o][k] * (v[k] + off) + b[o], m, s))
//   pre_g = sat16(fc(x, W_in_g, bias_g, input_offset, ·) + fc(h, W_h_g, 0, -hidden_zp, ·))
//   i, f, o = Logistic16(pre); g = Tanh16(pre)                  (inputs Q3.12: x * 3 scaled)
//   c = sat16(MBQM(f * c, forget_to_cell)); c = sat16(c + sat16(MBQM(i * g, input_to_cell)))
//   c = clamp(c, -cell_clip, cell_clip) when cell_clip > 0
//   h = clamp(MBQM(Tanh16_cell(c) * o, output) + hidden_zp, -128, 127), which is also the output.
// Tanh16_cell reads the cell at scale 2^cell_scale_power.
// 16x8 differs only where TFLM's types do: both fully connected layers sum in int64 (an int64
// bias) and requantize with TFLite's 64-bit MultiplyByQuantizedMultiplier (the multiplier
// rounded to 16 bits, one rounding shift); the offsets are 0; h is clamped to int16.
//
// Not supported (TFLite's converter does not emit them for Keras LSTM layers; the operator's
// check must refuse them): peephole (cell-to-gate) weights, projection weights and bias, layer
// normalization, CIFG (the input gate coupled to the forget gate), an auxiliary input, a fused
// activation other than TANH, hybrid (float input) models and the 8x8->8 variant. Recurrent
// (hidden) weights carry no bias, as in TFLM.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/common.h"

namespace mote {
namespace kernels {

enum LstmGate : int32_t { kLstmInputGate = 0, kLstmForgetGate = 1, kLstmCellGate = 2, kLstmOutputGate = 3 };
inline constexpr int32_t kLstmGates = 4;

struct LstmGateParams {
  const int8_t* input_weights;   // [hidden_size, input_size]
  const int8_t* hidden_weights;  // [hidden_size, hidden_size]
  const int32_t* bias;           // [hidden_size], or null (no bias)
  int32_t input_multiplier;      // input fully connected -> Q3.12
  int32_t input_shift;           // positive = left shift
  int32_t hidden_multiplier;     // recurrent fully connected -> Q3.12
  int32_t hidden_shift;
};

struct LstmParams {
  int32_t batch_size;
  int32_t time_steps;
  int32_t input_size;
  int32_t hidden_size;
  bool time_major;  // input [T, B, I] and output [T, B, H]; else [B, T, I] and [B, T, H]
  int32_t input_offset;       // -input zero point, added to x
  int32_t hidden_zero_point;  // the output's zero point, which is also the hidden state's
  LstmGateParams gates[kLstmGates];  // indexed by LstmGate
  int32_t forget_to_cell_multiplier;
  int32_t forget_to_cell_shift;
  int32_t input_to_cell_multiplier;
  int32_t input_to_cell_shift;
  int32_t cell_clip;         // 1..32767: clamp the cell to +-cell_clip; 0: no clip
  int32_t cell_scale_power;  // the cell's scale is 2^cell_scale_power
  int32_t output_multiplier;  // Tanh16(c) * o (Q0.15 * Q0.15) -> the int8 hidden state
  int32_t output_shift;
};

// The hidden state a sequence starts from (real 0: every element the hidden zero point) and the
// cell state (0): what TFLite's variable tensors hold before the first invocation.
void lstm_reset_state(const LstmParams& params, int8_t* hidden_state, int16_t* cell_state);

// Scratch bytes lstm() needs (the four gates of one batch row, int16), the same on every
// extension.
size_t lstm_scratch_bytes(const LstmParams& params);

// Whether the kernel takes these parameters: positive sizes, offsets inside int8, shifts in
// [-31, 30] (the cell's tanh scale 15 + cell_scale_power - 3 in [-31, 15]), a clip in
// [0, 32767], and every fully connected sum bounded inside int32 (bias + depth * 255 * 128).
bool lstm_params_ok(const LstmParams& params);

// The 16x8 LSTM's gate biases, int64 as TFLite's converter writes 16x8 biases (each
// [hidden_size], or null: no bias). lstm_16x8() reads these, never LstmGateParams::bias.
struct LstmBiases64 {
  const int64_t* gate[kLstmGates];  // indexed by LstmGate
};

// Whether lstm_16x8() takes these parameters: lstm_params_ok()'s sizes, clip and cell shift;
// both offsets 0; biases that keep every int64 sum (bias + depth * 32768 * 128) inside 2^62;
// multipliers non-negative, shifts in [-31, 30] (the 64-bit requantization saturates, so the
// sums need no int32 bound), and the products' requantizations as in lstm_params_ok().
bool lstm_16x8_params_ok(const LstmParams& params, const LstmBiases64& biases);

// Runs the whole sequence. input and output as time_major says; hidden_state [batch, hidden]
// (int8) and cell_state [batch, hidden] (int16) are read as the state before the first step and
// hold the state after the last one (call lstm_reset_state() to start a new sequence). The output
// must not overlap the input or the states. scratch.size >= lstm_scratch_bytes(params), 2-byte
// aligned.
void lstm(const LstmParams& params, const int8_t* input, int8_t* hidden_state, int16_t* cell_state,
          int8_t* output, Scratch scratch);
// The same for 16x8: int16 input, output and hidden state (which starts at 0), int64 biases.
void lstm_16x8(const LstmParams& params, const LstmBiases64& biases, const int16_t* input,
               int16_t* hidden_state, int16_t* cell_state, int16_t* output, Scratch scratch);

// TFLite's reference int16 Logistic and Tanh as the LSTM calls them (power-of-two input scale):
// Logistic16 reads x (Q3.12) as x * 3 on the table's grid, output Q0.15; Tanh16 with
// `input_left_shift` s: x * 3 * 2^s for s >= 0, (x * 3 + 2^(-s-1)) >> -s for s < 0 (the gate uses
// s = 0; the cell s = 15 + cell_scale_power - 3), output Q0.15.
int16_t lstm_logistic16(int16_t x);
int16_t lstm_tanh16(int16_t x, int32_t input_left_shift);
// Entry i (in [0, 256)) of the sigmoid grid both interpolate (lstm.cc says its rule).
uint16_t lstm_sigmoid_table(int32_t i);

}  // namespace kernels
}  // namespace mote
