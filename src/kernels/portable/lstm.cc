#include "mote/kernels/lstm.h"

#include "mote/kernels/activation16.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

constexpr int64_t kLimit = 2147483647;  // int32's bound for the 32-bit requantizations

inline int16_t sat16(int32_t v) {
  return static_cast<int16_t>(v < -32768 ? -32768 : (v > 32767 ? 32767 : v));
}

// Both fully connected layers of one gate for output unit `o`, summed and saturated (Q3.12).
int16_t gate_pre_activation(const LstmParams& p, const LstmGateParams& g, int32_t o,
                            const int8_t* x, const int8_t* h) {
  const int8_t* wi = g.input_weights + static_cast<size_t>(o) * p.input_size;
  int32_t acc = g.bias != nullptr ? g.bias[o] : 0;
  for (int32_t k = 0; k < p.input_size; ++k) acc += wi[k] * (x[k] + p.input_offset);
  const int16_t from_input =
      sat16(multiply_by_quantized_multiplier(acc, g.input_multiplier, g.input_shift));
  const int8_t* wh = g.hidden_weights + static_cast<size_t>(o) * p.hidden_size;
  int32_t rec = 0;
  for (int32_t k = 0; k < p.hidden_size; ++k) rec += wh[k] * (h[k] - p.hidden_zero_point);
  const int16_t from_hidden =
      sat16(multiply_by_quantized_multiplier(rec, g.hidden_multiplier, g.hidden_shift));
  return sat16(int32_t{from_input} + from_hidden);
}

// The 16x8 form, as TFLM instantiates its FullyConnected with an int64 bias type for both layers
// (the recurrent one without a bias): int64 sums and the 64-bit MultiplyByQuantizedMultiplier.
// The offsets are 0 (int16 activations are symmetric).
int16_t gate_pre_activation_16x8(const LstmParams& p, const LstmGateParams& g, const int64_t* bias,
                                 int32_t o, const int16_t* x, const int16_t* h) {
  const int8_t* wi = g.input_weights + static_cast<size_t>(o) * p.input_size;
  int64_t acc = bias != nullptr ? bias[o] : 0;
  for (int32_t k = 0; k < p.input_size; ++k) acc += int32_t{wi[k]} * x[k];
  const int16_t from_input =
      sat16(multiply_by_quantized_multiplier_64(acc, g.input_multiplier, g.input_shift));
  const int8_t* wh = g.hidden_weights + static_cast<size_t>(o) * p.hidden_size;
  int64_t rec = 0;
  for (int32_t k = 0; k < p.hidden_size; ++k) rec += int32_t{wh[k]} * h[k];
  const int16_t from_hidden =
      sat16(multiply_by_quantized_multiplier_64(rec, g.hidden_multiplier, g.hidden_shift));
  return sat16(int32_t{from_input} + from_hidden);
}

// What both forms require alike: sizes, weights, the cell clip and scale, and the gate
// products' requantizations (products of two Q0.15 / Q3.12 int16 values: |x| <= 2^30).
bool cell_params_ok(const LstmParams& p) {
  if (p.batch_size < 1 || p.time_steps < 1 || p.input_size < 1 || p.hidden_size < 1) return false;
  if (p.cell_clip < 0 || p.cell_clip > 32767) return false;
  const int64_t cell_tanh_shift = int64_t{15} + p.cell_scale_power - 3;
  if (cell_tanh_shift < -31 || cell_tanh_shift > 14) return false;
  for (const LstmGateParams& g : p.gates) {
    if (g.input_weights == nullptr || g.hidden_weights == nullptr) return false;
  }
  constexpr int64_t kProduct = int64_t{1} << 30;
  return requant_fits(kProduct, p.forget_to_cell_multiplier, p.forget_to_cell_shift, kLimit) &&
         requant_fits(kProduct, p.input_to_cell_multiplier, p.input_to_cell_shift, kLimit) &&
         requant_fits(kProduct, p.output_multiplier, p.output_shift, kLimit);
}

// Both forms' cell update for unit o: the new cell (clipped) into c[o], and the squashed cell
// times the output gate, which each form requantizes into its hidden state.
inline int32_t update_cell(const LstmParams& p, int16_t* const gate[kLstmGates], int32_t o,
                           int16_t* c, int32_t cell_tanh_shift) {
  int32_t cell = sat16(multiply_by_quantized_multiplier(
      int32_t{gate[kLstmForgetGate][o]} * c[o], p.forget_to_cell_multiplier,
      p.forget_to_cell_shift));
  const int16_t update = sat16(multiply_by_quantized_multiplier(
      int32_t{gate[kLstmInputGate][o]} * gate[kLstmCellGate][o], p.input_to_cell_multiplier,
      p.input_to_cell_shift));
  cell = sat16(cell + update);
  if (p.cell_clip > 0) {
    cell = cell < -p.cell_clip ? -p.cell_clip : (cell > p.cell_clip ? p.cell_clip : cell);
  }
  c[o] = static_cast<int16_t>(cell);
  const int16_t squashed = lstm_tanh16(static_cast<int16_t>(cell), cell_tanh_shift);
  return int32_t{squashed} * gate[kLstmOutputGate][o];
}

int64_t max_abs_bias(const LstmGateParams& g, int32_t n) {
  int64_t m = 0;
  if (g.bias == nullptr) return 0;
  for (int32_t i = 0; i < n; ++i) {
    const int64_t v = g.bias[i] < 0 ? -int64_t{g.bias[i]} : g.bias[i];
    m = v > m ? v : m;
  }
  return m;
}

}  // namespace

uint16_t lstm_sigmoid_table(int32_t i) { return sigmoid_table16(i); }

int16_t lstm_logistic16(int16_t x) { return logistic16_scaled(int32_t{x} * 3); }

int16_t lstm_tanh16(int16_t x, int32_t input_left_shift) {
  const int32_t s = input_left_shift;
  return tanh16_scaled(s >= 0 ? int32_t{x} * (3 << s) : (int32_t{x} * 3 + (1 << (-s - 1))) >> -s);
}

void lstm_reset_state(const LstmParams& p, int8_t* hidden_state, int16_t* cell_state) {
  const size_t n = static_cast<size_t>(p.batch_size) * static_cast<size_t>(p.hidden_size);
  for (size_t i = 0; i < n; ++i) {
    hidden_state[i] = static_cast<int8_t>(p.hidden_zero_point);
    cell_state[i] = 0;
  }
}

size_t lstm_scratch_bytes(const LstmParams& p) {
  return p.hidden_size > 0 ? static_cast<size_t>(kLstmGates) * p.hidden_size * sizeof(int16_t) : 0;
}

bool lstm_params_ok(const LstmParams& p) {
  if (!cell_params_ok(p)) return false;
  if (p.input_offset < -127 || p.input_offset > 128) return false;
  if (p.hidden_zero_point < -128 || p.hidden_zero_point > 127) return false;
  for (const LstmGateParams& g : p.gates) {
    const int64_t input_bound = max_abs_bias(g, p.hidden_size) + int64_t{p.input_size} * 255 * 128;
    const int64_t hidden_bound = int64_t{p.hidden_size} * 255 * 128;
    if (!requant_fits(input_bound, g.input_multiplier, g.input_shift, kLimit) ||
        !requant_fits(hidden_bound, g.hidden_multiplier, g.hidden_shift, kLimit)) {
      return false;
    }
  }
  return true;
}

void lstm(const LstmParams& p, const int8_t* input, int8_t* hidden_state, int16_t* cell_state,
          int8_t* output, Scratch scratch) {
  const int32_t n = p.hidden_size;
  int16_t* gate[kLstmGates];
  for (int32_t k = 0; k < kLstmGates; ++k) {
    gate[k] = reinterpret_cast<int16_t*>(scratch.data) + static_cast<size_t>(k) * n;
  }
  const int32_t cell_tanh_shift = 15 + p.cell_scale_power - 3;
  for (int32_t t = 0; t < p.time_steps; ++t) {
    for (int32_t b = 0; b < p.batch_size; ++b) {
      const size_t row = p.time_major ? static_cast<size_t>(t) * p.batch_size + b
                                      : static_cast<size_t>(b) * p.time_steps + t;
      const int8_t* x = input + row * p.input_size;
      int8_t* h = hidden_state + static_cast<size_t>(b) * n;
      int16_t* c = cell_state + static_cast<size_t>(b) * n;
      // Every gate reads the previous hidden state, so all of them first.
      for (int32_t g = 0; g < kLstmGates; ++g) {
        for (int32_t o = 0; o < n; ++o) {
          const int16_t pre = gate_pre_activation(p, p.gates[g], o, x, h);
          gate[g][o] = g == kLstmCellGate ? lstm_tanh16(pre, 0) : lstm_logistic16(pre);
        }
      }
      int8_t* y = output + row * n;
      for (int32_t o = 0; o < n; ++o) {
        int32_t v = multiply_by_quantized_multiplier(update_cell(p, gate, o, c, cell_tanh_shift),
                                                     p.output_multiplier, p.output_shift);
        v += p.hidden_zero_point;
        v = v < -128 ? -128 : (v > 127 ? 127 : v);
        h[o] = static_cast<int8_t>(v);
        y[o] = static_cast<int8_t>(v);
      }
    }
  }
}

bool lstm_16x8_params_ok(const LstmParams& p, const LstmBiases64& biases) {
  if (!cell_params_ok(p)) return false;
  if (p.input_offset != 0 || p.hidden_zero_point != 0) return false;
  // |x|, |h| <= 32768 and |w| <= 128: the int64 sums cannot overflow; the 64-bit requantization
  // saturates, so any multiplier and shift in range do.
  const int64_t input_products = int64_t{p.input_size} * 32768 * 128;
  constexpr int64_t kSumLimit = int64_t{1} << 62;
  for (int32_t g = 0; g < kLstmGates; ++g) {
    const LstmGateParams& gate = p.gates[g];
    const int64_t* bias = biases.gate[g];
    for (int32_t i = 0; bias != nullptr && i < p.hidden_size; ++i) {
      if (bias[i] > kSumLimit - input_products || bias[i] < input_products - kSumLimit) {
        return false;
      }
    }
    if (!requant_fits(0, gate.input_multiplier, gate.input_shift) ||
        !requant_fits(0, gate.hidden_multiplier, gate.hidden_shift)) {
      return false;
    }
  }
  return true;
}

// The step of lstm() with int16 activations and the 16x8 gates. A function of its own rather
// than a template shared with lstm(): the int8 loop keeps the instructions it had.
void lstm_16x8(const LstmParams& p, const LstmBiases64& biases, const int16_t* input,
               int16_t* hidden_state, int16_t* cell_state, int16_t* output, Scratch scratch) {
  const int32_t n = p.hidden_size;
  int16_t* gate[kLstmGates];
  for (int32_t k = 0; k < kLstmGates; ++k) {
    gate[k] = reinterpret_cast<int16_t*>(scratch.data) + static_cast<size_t>(k) * n;
  }
  const int32_t cell_tanh_shift = 15 + p.cell_scale_power - 3;
  for (int32_t t = 0; t < p.time_steps; ++t) {
    for (int32_t b = 0; b < p.batch_size; ++b) {
      const size_t row = p.time_major ? static_cast<size_t>(t) * p.batch_size + b
                                      : static_cast<size_t>(b) * p.time_steps + t;
      const int16_t* x = input + row * p.input_size;
      int16_t* h = hidden_state + static_cast<size_t>(b) * n;
      int16_t* c = cell_state + static_cast<size_t>(b) * n;
      for (int32_t g = 0; g < kLstmGates; ++g) {
        for (int32_t o = 0; o < n; ++o) {
          const int16_t pre = gate_pre_activation_16x8(p, p.gates[g], biases.gate[g], o, x, h);
          gate[g][o] = g == kLstmCellGate ? lstm_tanh16(pre, 0) : lstm_logistic16(pre);
        }
      }
      int16_t* y = output + row * n;
      for (int32_t o = 0; o < n; ++o) {
        // TFLM's int16 Mul: the 32-bit requantization, clamped to int16 (the zero point is 0).
        const int16_t v = sat16(multiply_by_quantized_multiplier(
            update_cell(p, gate, o, c, cell_tanh_shift), p.output_multiplier, p.output_shift));
        h[o] = v;
        y[o] = v;
      }
    }
  }
}

}  // namespace kernels
}  // namespace mote
