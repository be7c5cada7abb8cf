#include "mote/kernels/float_rnn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Random;

TEST(QuantizeHalfEven, RoundsTiesToEvenAndSaturates) {
  EXPECT_EQ(quantize_half_even(0.5f, 1.0f, 0), 0);
  EXPECT_EQ(quantize_half_even(1.5f, 1.0f, 0), 2);
  EXPECT_EQ(quantize_half_even(2.5f, 1.0f, 0), 2);
  EXPECT_EQ(quantize_half_even(-0.5f, 1.0f, 0), 0);
  EXPECT_EQ(quantize_half_even(-1.5f, 1.0f, 0), -2);
  EXPECT_EQ(quantize_half_even(-2.5f, 1.0f, 0), -2);
  EXPECT_EQ(quantize_half_even(2.6f, 1.0f, 0), 3);
  EXPECT_EQ(quantize_half_even(0.25f, 0.5f, -3), -3);  // 0.5 -> 0
  EXPECT_EQ(quantize_half_even(200.0f, 1.0f, 10), 127);
  EXPECT_EQ(quantize_half_even(-200.0f, 1.0f, -10), -128);
  EXPECT_EQ(quantize_half_even(1e30f, 1e-3f, -128), 127);
  EXPECT_EQ(quantize_half_even(255.0f, 1.0f, -128), 127);
  EXPECT_EQ(quantize_half_even(254.0f, 1.0f, -128), 126);
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// ONNX's LSTM and GRU written from the operator's definition, in double, one matrix product per
// gate: Y [T, D, B, H], Y_h and Y_c [D, B, H].
struct Reference {
  std::vector<double> y, y_h, y_c;
};
Reference SlowRnn(const FloatRnnParams& p, const std::vector<double>& x,
                  const std::vector<float>& w, const std::vector<float>& r,
                  const std::vector<float>& bias, const std::vector<double>& h0,
                  const std::vector<double>& c0, const std::vector<float>& peep) {
  const int T = p.steps, B = p.batches, I = p.input_size, H = p.hidden_size, D = p.directions;
  const int G = rnn_gates(p.cell);
  Reference out;
  out.y.assign(static_cast<size_t>(T * D * B * H), 0);
  out.y_h.assign(static_cast<size_t>(D * B * H), 0);
  out.y_c.assign(static_cast<size_t>(D * B * H), 0);
  // Gate g's row j of W, R or a bias of direction d.
  auto W = [&](int d, int g, int j, int k) { return double{w[((d * G + g) * H + j) * I + k]}; };
  auto R = [&](int d, int g, int j, int k) { return double{r[((d * G + g) * H + j) * H + k]}; };
  auto Wb = [&](int d, int g, int j) { return double{bias[(d * 2 * G + g) * H + j]}; };
  auto Rb = [&](int d, int g, int j) { return double{bias[(d * 2 * G + G + g) * H + j]}; };
  for (int d = 0; d < D; ++d) {
    for (int b = 0; b < B; ++b) {
      std::vector<double> h(h0.begin() + (d * B + b) * H, h0.begin() + (d * B + b + 1) * H);
      std::vector<double> c(c0.begin() + (d * B + b) * H, c0.begin() + (d * B + b + 1) * H);
      for (int s = 0; s < T; ++s) {
        const int t = (d == 1 || p.reverse) ? T - 1 - s : s;
        const double* xt = &x[static_cast<size_t>((t * B + b) * I)];
        // xw[g][j] = W_g x + Wb_g; hr[g][j] = R_g h + Rb_g.
        std::vector<std::vector<double>> xw(G, std::vector<double>(H)), hr = xw;
        for (int g = 0; g < G; ++g) {
          for (int j = 0; j < H; ++j) {
            xw[g][j] = Wb(d, g, j);
            hr[g][j] = Rb(d, g, j);
            for (int k = 0; k < I; ++k) xw[g][j] += W(d, g, j, k) * xt[k];
            for (int k = 0; k < H; ++k) hr[g][j] += R(d, g, j, k) * h[k];
          }
        }
        std::vector<double> next(H);
        for (int j = 0; j < H; ++j) {
          if (p.cell == RnnCell::kLstm) {
            const auto P = [&](int g) { return peep.empty() ? 0.0 : double{peep[(d * 3 + g) * H + j]}; };
            const double i = sigmoid(xw[0][j] + hr[0][j] + P(0) * c[j]);
            const double f = sigmoid(xw[2][j] + hr[2][j] + P(2) * c[j]);
            const double g = std::tanh(xw[3][j] + hr[3][j]);
            c[j] = f * c[j] + i * g;
            const double o = sigmoid(xw[1][j] + hr[1][j] + P(1) * c[j]);
            next[j] = o * std::tanh(c[j]);
          } else {
            const double z = sigmoid(xw[0][j] + hr[0][j]), rg = sigmoid(xw[1][j] + hr[1][j]);
            double n;
            if (p.linear_before_reset) {
              n = std::tanh(xw[2][j] + rg * hr[2][j]);
            } else {
              double rec = Rb(d, 2, j);
              for (int k = 0; k < H; ++k) {
                rec += R(d, 2, j, k) * sigmoid(xw[1][k] + hr[1][k]) * h[k];
              }
              n = std::tanh(xw[2][j] + rec);
            }
            next[j] = (1 - z) * n + z * h[j];
          }
        }
        h = next;
        for (int j = 0; j < H; ++j) out.y[static_cast<size_t>(((t * D + d) * B + b) * H + j)] = h[j];
      }
      for (int j = 0; j < H; ++j) {
        out.y_h[static_cast<size_t>((d * B + b) * H + j)] = h[j];
        out.y_c[static_cast<size_t>((d * B + b) * H + j)] = c[j];
      }
    }
  }
  return out;
}

struct Case {
  RnnCell cell;
  int32_t directions;
  bool reverse, linear_before_reset;
  bool peephole = false;
};

class FloatRnnTest : public ::testing::TestWithParam<Case> {};

// int8 input and initial state dequantized, float and int8 results: the float ones within float
// rounding of the reference, the int8 ones within one step (the reference's value near a tie).
TEST_P(FloatRnnTest, MatchesTheDefinition) {
  const Case k = GetParam();
  FloatRnnParams p{};
  p.cell = k.cell;
  p.directions = k.directions;
  p.reverse = k.reverse;
  p.linear_before_reset = k.linear_before_reset;
  p.steps = 5;
  p.batches = 2;
  p.input_size = 3;
  p.hidden_size = 4;
  const int G = rnn_gates(p.cell), D = p.directions, T = p.steps, B = p.batches;
  const int I = p.input_size, H = p.hidden_size;
  Random rng(static_cast<uint32_t>(11 + G * 7 + D * 3 + k.reverse + 2 * k.linear_before_reset));
  auto floats = [&](size_t n) {
    std::vector<float> v(n);
    for (float& f : v) f = rng.Float(-0.8f, 0.8f);
    return v;
  };
  const std::vector<float> w = floats(static_cast<size_t>(D * G * H * I));
  const std::vector<float> r = floats(static_cast<size_t>(D * G * H * H));
  const std::vector<float> bias = floats(static_cast<size_t>(D * 2 * G * H));
  const std::vector<int8_t> xq = rng.Int8s(static_cast<size_t>(T * B * I));
  const std::vector<int8_t> h0q = rng.Int8s(static_cast<size_t>(D * B * H));
  const std::vector<float> c0 = floats(static_cast<size_t>(D * B * H));
  const float x_scale = 0.02f, h_scale = 1.0f / 128;
  const int32_t x_zp = 5, h_zp = -3;
  std::vector<double> x(xq.size()), h0(h0q.size()), c0d(c0.begin(), c0.end());
  for (size_t i = 0; i < xq.size(); ++i) x[i] = double{x_scale} * (xq[i] - x_zp);
  for (size_t i = 0; i < h0q.size(); ++i) h0[i] = double{h_scale} * (h0q[i] - h_zp);
  if (p.cell == RnnCell::kGru) std::fill(c0d.begin(), c0d.end(), 0.0);
  const std::vector<float> peep = k.peephole ? floats(static_cast<size_t>(D * 3 * H))
                                             : std::vector<float>{};

  std::vector<float> y(static_cast<size_t>(T * D * B * H)), y_c(static_cast<size_t>(D * B * H));
  std::vector<int8_t> y_h(static_cast<size_t>(D * B * H)), yq(y.size());
  const float yh_scale = 1.0f / 100;
  const int32_t yh_zp = 7;
  std::vector<float> scratch(float_rnn_scratch_bytes(p.cell, B, I, H) / 4 + 1, NAN);
  scratch.back() = 12345.0f;  // a guard the kernel must not touch
  FloatRnnOperands o{};
  o.x = {xq.data(), nullptr, x_scale, x_zp};
  o.w = w.data();
  o.r = r.data();
  o.bias = bias.data();
  o.initial_h = {h0q.data(), nullptr, h_scale, h_zp};
  if (p.cell == RnnCell::kLstm) o.initial_c = {nullptr, c0.data(), 0.0f, 0};
  o.peephole = peep.empty() ? nullptr : peep.data();
  o.y = {nullptr, y.data(), 0.0f, 0};
  o.y_h = {y_h.data(), nullptr, yh_scale, yh_zp};
  if (p.cell == RnnCell::kLstm) o.y_c = {nullptr, y_c.data(), 0.0f, 0};
  float_rnn(p, o, scratch.data());
  EXPECT_EQ(scratch.back(), 12345.0f);

  const Reference want = SlowRnn(p, x, w, r, bias, h0, c0d, peep);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want.y[i], 2e-5) << "Y " << i;
  for (size_t i = 0; i < y_h.size(); ++i) {
    const double q = std::nearbyint(want.y_h[i] / yh_scale) + yh_zp;
    EXPECT_NEAR(y_h[i], std::clamp(q, -128.0, 127.0), 1.0) << "Y_h " << i;
  }
  if (p.cell == RnnCell::kLstm) {
    for (size_t i = 0; i < y_c.size(); ++i) EXPECT_NEAR(y_c[i], want.y_c[i], 2e-5) << "Y_c " << i;
  }

  // The same run with a float input and an int8 Y: Y is the float run's, quantized.
  std::vector<float> xf(x.begin(), x.end());
  o.x = {nullptr, xf.data(), 0.0f, 0};
  o.y = {yq.data(), nullptr, 0.05f, -2};
  float_rnn(p, o, scratch.data());
  for (size_t i = 0; i < yq.size(); ++i) {
    EXPECT_EQ(yq[i], quantize_half_even(y[i], 0.05f, -2)) << "Y int8 " << i;
  }

  // Batch first (ONNX's layout 1): X [B, T, I], Y [B, T, D, H], the states [B, D, H] hold the
  // same values, bit for bit, with the batch rows first.
  FloatRnnParams bf = p;
  bf.batch_first = true;
  std::vector<int8_t> xb(xq.size()), h0b(h0q.size()), y_hb(y_h.size());
  std::vector<float> c0b(c0.size()), yb(y.size()), y_cb(y_c.size());
  for (int t = 0; t < T; ++t) {
    for (int b = 0; b < B; ++b) {
      for (int i = 0; i < I; ++i) xb[static_cast<size_t>((b * T + t) * I + i)] = xq[static_cast<size_t>((t * B + b) * I + i)];
    }
  }
  const auto state_bf = [&](int d, int b, int j) { return static_cast<size_t>((b * D + d) * H + j); };
  const auto state = [&](int d, int b, int j) { return static_cast<size_t>((d * B + b) * H + j); };
  for (int d = 0; d < D; ++d) {
    for (int b = 0; b < B; ++b) {
      for (int j = 0; j < H; ++j) {
        h0b[state_bf(d, b, j)] = h0q[state(d, b, j)];
        c0b[state_bf(d, b, j)] = c0[state(d, b, j)];
      }
    }
  }
  o.x = {xb.data(), nullptr, x_scale, x_zp};
  o.initial_h = {h0b.data(), nullptr, h_scale, h_zp};
  if (p.cell == RnnCell::kLstm) o.initial_c = {nullptr, c0b.data(), 0.0f, 0};
  o.y = {nullptr, yb.data(), 0.0f, 0};
  o.y_h = {y_hb.data(), nullptr, yh_scale, yh_zp};
  if (p.cell == RnnCell::kLstm) o.y_c = {nullptr, y_cb.data(), 0.0f, 0};
  float_rnn(bf, o, scratch.data());
  EXPECT_EQ(scratch.back(), 12345.0f);
  for (int t = 0; t < T; ++t) {
    for (int d = 0; d < D; ++d) {
      for (int b = 0; b < B; ++b) {
        for (int j = 0; j < H; ++j) {
          EXPECT_EQ(yb[static_cast<size_t>(((b * T + t) * D + d) * H + j)],
                    y[static_cast<size_t>(((t * D + d) * B + b) * H + j)])
              << "batch-first Y " << t << " " << d << " " << b << " " << j;
        }
      }
    }
  }
  for (int d = 0; d < D; ++d) {
    for (int b = 0; b < B; ++b) {
      for (int j = 0; j < H; ++j) {
        EXPECT_EQ(y_hb[state_bf(d, b, j)], y_h[state(d, b, j)]) << "batch-first Y_h";
        if (p.cell == RnnCell::kLstm) {
          EXPECT_EQ(y_cb[state_bf(d, b, j)], y_c[state(d, b, j)]) << "batch-first Y_c";
        }
      }
    }
  }
}

// Weights that are NaN or infinite (a program's constants may hold any bits) give defined
// results: no float-to-integer conversion out of range (the sanitized suite runs this), NaN
// outputs quantized to the zero point, infinities saturated.
TEST(FloatRnn, NonFiniteWeightsGiveDefinedOutputs) {
  for (const RnnCell cell : {RnnCell::kLstm, RnnCell::kGru}) {
    FloatRnnParams p{};
    p.cell = cell;
    p.directions = 1;
    p.steps = 2;
    p.batches = 1;
    p.input_size = 3;
    p.hidden_size = 2;
    const int32_t g = rnn_gates(cell);
    std::vector<float> w(static_cast<size_t>(g * 2 * 3), 0.5f), r(static_cast<size_t>(g * 2 * 2), 0.25f);
    w[0] = std::nanf("");
    w[1] = INFINITY;
    r[1] = -INFINITY;
    const std::vector<int8_t> x = {10, -20, 30, 40, -50, 60};
    std::vector<int8_t> y(2 * 2), y_h(2);
    std::vector<float> scratch(float_rnn_scratch_bytes(cell, 1, 3, 2) / sizeof(float));
    FloatRnnOperands o{};
    o.x = {x.data(), nullptr, 0.1f, 0};
    o.w = w.data();
    o.r = r.data();
    o.y = {y.data(), nullptr, 0.05f, 7};
    o.y_h = {y_h.data(), nullptr, 0.05f, 7};
    float_rnn(p, o, scratch.data());
    // Every hidden value reached by the NaN is NaN: the zero point.
    EXPECT_EQ(y_h[0], 7);
    EXPECT_EQ(y[0], 7);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cells, FloatRnnTest,
    ::testing::Values(Case{RnnCell::kLstm, 1, false, false}, Case{RnnCell::kLstm, 1, true, false},
                      Case{RnnCell::kLstm, 2, false, false}, Case{RnnCell::kLstm, 2, false, false, true},
                      Case{RnnCell::kGru, 1, false, false},
                      Case{RnnCell::kGru, 1, false, true}, Case{RnnCell::kGru, 2, false, true},
                      Case{RnnCell::kGru, 1, true, false}));

}  // namespace
}  // namespace mote::kernels
