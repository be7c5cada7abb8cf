#include "tests/lstm_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tests/activation_reference.h"

namespace mote::testing {
namespace {


int64_t sat16(int64_t v) { return std::clamp<int64_t>(v, -32768, 32767); }

int64_t value(const ir::Tensor& t, int64_t k) {
  if (t.type == ir::DataType::kInt8) return static_cast<int8_t>(t.data[static_cast<size_t>(k)]);
  if (t.type == ir::DataType::kInt64) {
    int64_t v;
    std::memcpy(&v, t.data.data() + 8 * k, 8);
    return v;
  }
  int32_t v;
  std::memcpy(&v, t.data.data() + 4 * k, 4);
  return v;
}

// TFLite's 256-entry sigmoid grid, sigmoid(i / 24) in 0.16 fixed point, from its rule: each
// sample lowered by half the linear interpolation's error at the interval's midpoint; the last
// entry is the top, 65535.
int64_t sigmoid_grid(int64_t i) {
  if (i >= 255) return 65535;
  auto s = [](double t) { return 65536.0 / (1.0 + std::exp(-t / 24.0)); };
  const double d = static_cast<double>(i);
  return static_cast<int64_t>(
      std::min(65535.0, std::floor(s(d) - ((s(d) + s(d + 1)) / 2 - s(d + 0.5)) / 2 + 0.5)));
}

}  // namespace

int64_t multiply64_reference(int64_t x, Multiplier m) {
  const int64_t reduced =
      m.mantissa < 0x7FFF0000 ? (int64_t{m.mantissa} + (1 << 15)) >> 16 : int64_t{0x7FFF};
  const int total_shift = 15 - m.shift;
  return (x * reduced + (int64_t{1} << (total_shift - 1))) >> total_shift;
}

// The grid's coordinate of a Q3.12 x is x * 24 / 4096 = 3x / 2^9; linear interpolation in units
// of 2^-25, saturated from index 255; a negative input mirrors (sigmoid(-y) = 1 - sigmoid(y)).
int64_t lstm_logistic_reference(int64_t x) {
  const int64_t v = 3 * x, a = v < 0 ? -v : v, i = a >> 9, frac = a & 511;
  const int64_t r = i >= 255 ? int64_t{0x7FFF} << 10
                             : sigmoid_grid(i) * 512 + frac * (sigmoid_grid(i + 1) - sigmoid_grid(i));
  return v >= 0 ? (r + 512) >> 10 : ((int64_t{1} << 25) - r + 511) >> 10;
}

// tanh(y) = 2 sigmoid(2y) - 1: the input read as x * 3 * 2^shift (shift >= 0) or
// (x * 3 + 2^(-shift-1)) >> -shift, the grid coordinate that over 2^8.
int64_t lstm_tanh_reference(int64_t x, int shift) {
  const int64_t v = shift >= 0 ? x * 3 * (int64_t{1} << shift)
                               : (x * 3 + (int64_t{1} << (-shift - 1))) >> -shift;
  const int64_t a = v < 0 ? -v : v, i = a >> 8, frac = a & 255;
  const int64_t r = i >= 255 ? int64_t{0xFFFF} << 8
                             : sigmoid_grid(i) * 256 + frac * (sigmoid_grid(i + 1) - sigmoid_grid(i));
  return v >= 0 ? (r - (int64_t{1} << 23) + 128) >> 8 : (-r + (int64_t{1} << 23) + 127) >> 8;
}

LstmState lstm_initial_state(const ir::Graph& g, const ir::Operator& op) {
  const ir::Tensor& h = g.tensors[op.inputs[18]];
  const size_t n = static_cast<size_t>(h.num_elements());
  return {std::vector<int64_t>(n, q_of(h).zero_point), std::vector<int64_t>(n, 0)};
}

// Per gate, two fully connected layers into Q3.12 (TFLM's Prepare: input scale * weights scale
// multiplied in float, over 2^-12), summed with saturation; sigmoid gates and a tanh cell gate in
// Q0.15; the cell (scale 2^p) becomes f*c + i*g, clipped to the quantized cell_clip; the hidden
// state o * tanh(c) requantized to the activation type is also the step's output. 16x8: TFLM
// instantiates both fully connected layers with the int64 bias type, so both requantize their
// sums with the 64-bit MultiplyByQuantizedMultiplier; the products of gates keep the 32-bit one.
std::vector<int64_t> lstm_reference(const ir::Graph& g, const ir::Operator& op,
                                    const std::vector<int64_t>& input, LstmState& state) {
  const auto& o = std::get<ir::LstmOptions>(op.options);
  auto t = [&](size_t k) -> const ir::Tensor& { return g.tensors[op.inputs[k]]; };
  const Q qx = q_of(t(0)), qh = q_of(t(18));
  const int32_t steps = t(0).shape[o.time_major ? 0 : 1];
  const int32_t batches = t(0).shape[o.time_major ? 1 : 0];
  const int32_t depth = t(0).shape[2], n = t(2).shape[0];
  const double cell_scale = t(19).quantization.scale[0];
  const int power = static_cast<int>(std::lround(std::log2(cell_scale)));
  const double q15 = 1.0 / 32768;
  const Multiplier forget_to_cell = quantize(q15 * cell_scale / cell_scale);
  const Multiplier input_to_cell = quantize(q15 * q15 / cell_scale);
  const Multiplier to_hidden = quantize(q15 * q15 / static_cast<double>(qh.scale));
  Multiplier from_input[4], from_hidden[4];
  for (int k = 0; k < 4; ++k) {
    from_input[k] = quantize(static_cast<double>(qx.scale * t(1 + k).quantization.scale[0]) * 4096);
    from_hidden[k] = quantize(static_cast<double>(qh.scale * t(5 + k).quantization.scale[0]) * 4096);
  }
  const int64_t clip =
      o.cell_clip > 0 ? static_cast<int64_t>(std::min(32767.0, o.cell_clip / cell_scale)) : 0;
  const bool int16 = t(0).type == ir::DataType::kInt16;
  const auto fc_requant = [&](int64_t sum, Multiplier m) {
    return sat16(int16 ? multiply64_reference(sum, m) : multiply(sum, m));
  };
  const int64_t lo = int16 ? -32768 : -128, hi = int16 ? 32767 : 127;
  std::vector<int64_t> y(static_cast<size_t>(steps) * batches * n);
  for (int32_t step = 0; step < steps; ++step) {
    for (int32_t b = 0; b < batches; ++b) {
      const size_t row = o.time_major ? static_cast<size_t>(step) * batches + b
                                      : static_cast<size_t>(b) * steps + step;
      int64_t* h = &state.hidden[static_cast<size_t>(b) * n];
      int64_t* c = &state.cell[static_cast<size_t>(b) * n];
      std::vector<int64_t> gate[4];  // input, forget, cell, output
      for (int k = 0; k < 4; ++k) {
        for (int32_t u = 0; u < n; ++u) {
          int64_t a = value(t(12 + k), u), r = 0;
          for (int32_t i = 0; i < depth; ++i) {
            a += value(t(1 + k), int64_t{u} * depth + i) * (input[row * depth + i] - qx.zero_point);
          }
          for (int32_t i = 0; i < n; ++i) {
            r += value(t(5 + k), int64_t{u} * n + i) * (h[i] - qh.zero_point);
          }
          const int64_t pre = sat16(fc_requant(a, from_input[k]) + fc_requant(r, from_hidden[k]));
          gate[k].push_back(k == 2 ? lstm_tanh_reference(pre, 0) : lstm_logistic_reference(pre));
        }
      }
      // Every gate read the previous hidden state; now the states move on.
      for (int32_t u = 0; u < n; ++u) {
        c[u] = sat16(multiply(gate[1][u] * c[u], forget_to_cell));
        c[u] = sat16(c[u] + sat16(multiply(gate[0][u] * gate[2][u], input_to_cell)));
        if (clip > 0) c[u] = std::clamp(c[u], -clip, clip);
        h[u] = std::clamp<int64_t>(
            multiply(lstm_tanh_reference(c[u], 15 + power - 3) * gate[3][u], to_hidden) +
                qh.zero_point,
            lo, hi);
        y[row * n + u] = h[u];
      }
    }
  }
  return y;
}

std::vector<int8_t> lstm_reference(const ir::Graph& g, const ir::Operator& op,
                                   const std::vector<int8_t>& input, LstmState& state) {
  const std::vector<int64_t> y =
      lstm_reference(g, op, std::vector<int64_t>(input.begin(), input.end()), state);
  return {y.begin(), y.end()};
}

}  // namespace mote::testing
