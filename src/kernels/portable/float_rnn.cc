#include "mote/kernels/float_rnn.h"

#include <string.h>

// Every CPU computes the same bits as the host (`mote validate` compares them exactly): only
// IEEE additions, multiplications and divisions, each rounded on its own (hardware or soft
// float alike), no library exp or tanh (newlib's and glibc's differ), and no fused
// multiply-adds, which GCC would otherwise form for the FPUs of the M4 and M55.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace mote {
namespace kernels {
namespace {

// e^x within a few ulp: x = n ln2 + r (ln2 in two parts, so r is exact enough), |r| <= ln2 / 2,
// e^r by its Taylor series to r^7 (relative error below 2^-24 there), times 2^n built in the
// exponent field.
float exp_float(float x) {
  // NaN (a program's weights may hold anything) stays NaN, without converting it to an integer;
  // quantize_half_even gives it the zero point.
  if (!(x == x)) return x;
  if (x > 88.0f) x = 88.0f;
  if (x < -87.0f) return 0.0f;  // below 2^-125: nothing a gate distinguishes from 0
  const float shifted = x * 1.44269504f + (x < 0.0f ? -0.5f : 0.5f);
  const int32_t n = static_cast<int32_t>(shifted);  // rounds x / ln2 to nearest
  const float nf = static_cast<float>(n);
  const float r = (x - nf * 0.693145752f) - nf * 1.42860677e-6f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const uint32_t bits = static_cast<uint32_t>(n + 127) << 23;  // 2^n, n in [-126, 127]
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

float sigmoid(float x) { return 1.0f / (1.0f + exp_float(-x)); }

// tanh(x) = 1 - 2 / (e^2|x| + 1), signed; within 2^-23 absolutely.
float tanh_float(float x) {
  const float a = x < 0.0f ? -x : x;
  const float t = a > 9.0f ? 1.0f : 1.0f - 2.0f / (exp_float(2.0f * a) + 1.0f);
  return x < 0.0f ? -t : t;
}

// floor(v) for |v| < 2^23 (the integer part truncated, stepped down below zero).
float floor_float(float v) {
  const float t = static_cast<float>(static_cast<int32_t>(v));
  return t > v ? t - 1.0f : t;
}

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
  int32_t q = static_cast<int32_t>(floor_float(v));
  const float d = v - static_cast<float>(q);
  if (d > 0.5f || (d == 0.5f && (q & 1) != 0)) ++q;
  q += zero_point;
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
  // Where step t of batch row b lies in X (times I), where Y's row of step t, direction d and
  // batch row b starts, and a state row: layout 0 puts the steps (X, Y) or the directions
  // (states) first, batch_first the batch rows.
  const size_t D = static_cast<size_t>(p.directions);
  const auto row_at = [&](int32_t t, int32_t b) {
    return p.batch_first ? static_cast<size_t>(b) * T + static_cast<size_t>(t)
                         : static_cast<size_t>(t) * B + static_cast<size_t>(b);
  };
  const auto y_at = [&](int32_t t, int32_t d, int32_t b) {
    const size_t row = p.batch_first ? row_at(t, b) * D + static_cast<size_t>(d)
                                     : (static_cast<size_t>(t) * D + static_cast<size_t>(d)) * B +
                                           static_cast<size_t>(b);
    return row * static_cast<size_t>(H);
  };
  const auto state_at = [&](int32_t d, int32_t b) {
    return (p.batch_first ? static_cast<size_t>(b) * D + static_cast<size_t>(d)
                          : static_cast<size_t>(d) * B + static_cast<size_t>(b)) *
           static_cast<size_t>(H);
  };

  for (int32_t d = 0; d < p.directions; ++d) {
    const bool backward = d == 1 || p.reverse;
    const float* w = o.w + static_cast<size_t>(d) * gh * static_cast<size_t>(I);
    const float* r = o.r + static_cast<size_t>(d) * gh * static_cast<size_t>(H);
    const float* wb = o.bias != nullptr ? o.bias + static_cast<size_t>(d) * 2 * gh : nullptr;
    const float* rb = wb != nullptr ? wb + gh : nullptr;
    const float* peep = o.peephole != nullptr ? o.peephole + static_cast<size_t>(d) * 3 * H : nullptr;
    for (int32_t b = 0; b < B; ++b) {
      read(o.initial_h, state_at(d, b), H, h_state + static_cast<size_t>(b) * H);
      if (lstm) read(o.initial_c, state_at(d, b), H, c_state + static_cast<size_t>(b) * H);
    }

    for (int32_t s = 0; s < T; ++s) {
      const int32_t t = backward ? T - 1 - s : s;
      for (int32_t b = 0; b < B; ++b) {
        read(o.x, row_at(t, b) * static_cast<size_t>(I), I, x_row);
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
            float i_in = gates[j], f_in = gates[2 * H + j], o_in = gates[H + j];
            if (peep != nullptr) {
              i_in += peep[j] * c[j];
              f_in += peep[2 * H + j] * c[j];
            }
            const float cell = tanh_float(gates[3 * H + j]);
            c[j] = sigmoid(f_in) * c[j] + sigmoid(i_in) * cell;
            if (peep != nullptr) o_in += peep[H + j] * c[j];
            h[j] = sigmoid(o_in) * tanh_float(c[j]);
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
            const float n = tanh_float(gates[2 * H + j] + recurrent[j]);
            h[j] = (1.0f - z) * n + z * h[j];
          }
        }
        write(o.y, y_at(t, d, b), h, H);
      }
    }
    for (int32_t b = 0; b < B; ++b) {
      write(o.y_h, state_at(d, b), h_state + static_cast<size_t>(b) * H, H);
      if (lstm) write(o.y_c, state_at(d, b), c_state + static_cast<size_t>(b) * H, H);
    }
  }
}

}  // namespace kernels
}  // namespace mote
