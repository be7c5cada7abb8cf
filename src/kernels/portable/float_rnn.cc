#include "mote/kernels/float_rnn.h"

#include <math.h>

namespace mote {
namespace kernels {
namespace {

float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

float dot(const float* a, const float* b, int32_t n) {
  float s = 0.0f;
  for (int32_t k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

// `count` values of `in` starting at element `at`, as floats.
void read(const RnnInput& in, size_t at, int32_t count, float* out) {
  if (in.real != nullptr) {
    for (int32_t k = 0; k < count; ++k) out[k] = in.real[at + static_cast<size_t>(k)];
  } else if (in.quantized != nullptr) {
    for (int32_t k = 0; k < count; ++k) {
      out[k] = in.scale * static_cast<float>(in.quantized[at + static_cast<size_t>(k)] -
                                             in.zero_point);
    }
  } else {
    for (int32_t k = 0; k < count; ++k) out[k] = 0.0f;
  }
}

void write(const RnnOutput& out, size_t at, const float* values, int32_t count) {
  if (out.real != nullptr) {
    for (int32_t k = 0; k < count; ++k) out.real[at + static_cast<size_t>(k)] = values[k];
  } else if (out.quantized != nullptr) {
    for (int32_t k = 0; k < count; ++k) {
      out.quantized[at + static_cast<size_t>(k)] =
          quantize_half_even(values[k], out.scale, out.zero_point);
    }
  }
}

}  // namespace

int8_t quantize_half_even(float x, float scale, int32_t zero_point) {
  const float v = x / scale;
  if (!(v == v)) return static_cast<int8_t>(zero_point);  // NaN: what the saturation leaves
  // Outside [-256, 256] every zero point saturates; inside, floorf is exact.
  if (v >= 256.0f) return 127;
  if (v <= -256.0f) return -128;
  float r = floorf(v);
  const float d = v - r;
  if (d > 0.5f || (d == 0.5f && fmodf(r, 2.0f) != 0.0f)) r += 1.0f;
  int32_t q = static_cast<int32_t>(r) + zero_point;
  if (q < -128) q = -128;
  if (q > 127) q = 127;
  return static_cast<int8_t>(q);
}

void float_rnn(const FloatRnnParams& p, const FloatRnnOperands& o, float* scratch) {
  const int32_t T = p.steps, B = p.batches, I = p.input_size, H = p.hidden_size;
  const int32_t G = rnn_gates(p.cell);
  const bool lstm = p.cell == RnnCell::kLstm;
  const size_t bh = static_cast<size_t>(B) * static_cast<size_t>(H);
  float* h_state = scratch;
  float* c_state = h_state + bh;  // LSTM only
  float* x_row = lstm ? c_state + bh : h_state + bh;
  float* gates = x_row + I;
  float* reset_h = gates + static_cast<size_t>(G) * H;  // GRU: r * H, then the recurrent part
  float* recurrent = reset_h + H;
  const size_t gh = static_cast<size_t>(G) * static_cast<size_t>(H);

  for (int32_t d = 0; d < p.directions; ++d) {
    const bool backward = d == 1 || p.reverse;
    const float* w = o.w + static_cast<size_t>(d) * gh * static_cast<size_t>(I);
    const float* r = o.r + static_cast<size_t>(d) * gh * static_cast<size_t>(H);
    const float* wb = o.bias != nullptr ? o.bias + static_cast<size_t>(d) * 2 * gh : nullptr;
    const float* rb = wb != nullptr ? wb + gh : nullptr;
    read(o.initial_h, static_cast<size_t>(d) * bh, static_cast<int32_t>(bh), h_state);
    if (lstm) read(o.initial_c, static_cast<size_t>(d) * bh, static_cast<int32_t>(bh), c_state);

    for (int32_t s = 0; s < T; ++s) {
      const int32_t t = backward ? T - 1 - s : s;
      for (int32_t b = 0; b < B; ++b) {
        read(o.x, (static_cast<size_t>(t) * B + b) * static_cast<size_t>(I), I, x_row);
        float* h = h_state + static_cast<size_t>(b) * H;
        // Input part and both biases of every gate row; the recurrent part where it needs no
        // reset gate (all but a GRU's h rows).
        for (int32_t row = 0; row < G * H; ++row) {
          float v = dot(x_row, w + static_cast<size_t>(row) * I, I);
          if (wb != nullptr) v += wb[row];
          const bool gru_h = !lstm && row >= 2 * H;
          if (!gru_h) {
            if (rb != nullptr) v += rb[row];
            v += dot(h, r + static_cast<size_t>(row) * H, H);
          }
          gates[row] = v;
        }
        if (lstm) {
          float* c = c_state + static_cast<size_t>(b) * H;
          for (int32_t j = 0; j < H; ++j) {
            const float i_gate = sigmoid(gates[j]);
            const float o_gate = sigmoid(gates[H + j]);
            const float f_gate = sigmoid(gates[2 * H + j]);
            const float cell = tanhf(gates[3 * H + j]);
            c[j] = f_gate * c[j] + i_gate * cell;
            h[j] = o_gate * tanhf(c[j]);
          }
        } else {
          const float* rh = r + static_cast<size_t>(2) * H * H;
          const float* rbh = rb != nullptr ? rb + 2 * H : nullptr;
          for (int32_t j = 0; j < H; ++j) reset_h[j] = sigmoid(gates[H + j]);  // r
          if (p.linear_before_reset) {
            for (int32_t j = 0; j < H; ++j) {
              float v = dot(h, rh + static_cast<size_t>(j) * H, H);
              if (rbh != nullptr) v += rbh[j];
              recurrent[j] = reset_h[j] * v;
            }
          } else {
            for (int32_t j = 0; j < H; ++j) reset_h[j] *= h[j];
            for (int32_t j = 0; j < H; ++j) {
              float v = dot(reset_h, rh + static_cast<size_t>(j) * H, H);
              if (rbh != nullptr) v += rbh[j];
              recurrent[j] = v;
            }
          }
          for (int32_t j = 0; j < H; ++j) {
            const float z = sigmoid(gates[j]);
            const float n = tanhf(gates[2 * H + j] + recurrent[j]);
            h[j] = (1.0f - z) * n + z * h[j];
          }
        }
        write(o.y, ((static_cast<size_t>(t) * p.directions + d) * B + b) * static_cast<size_t>(H),
              h, H);
      }
    }
    write(o.y_h, static_cast<size_t>(d) * bh, h_state, static_cast<int32_t>(bh));
    if (lstm) write(o.y_c, static_cast<size_t>(d) * bh, c_state, static_cast<int32_t>(bh));
  }
}

}  // namespace kernels
}  // namespace mote
