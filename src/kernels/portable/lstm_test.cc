#include "mote/kernels/lstm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "mote/kernels/quantization.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Clamp;
using ops_testing::Random;
using ops_testing::RefMultiply;

// The grid is its rule: sigmoid(i / 24) in 0.16, lowered by half the midpoint error of the linear
// interpolation to the next entry, the last entry 65535.
TEST(LstmTest, SigmoidTableIsItsRule) {
  auto s = [](double i) { return 65536.0 / (1.0 + std::exp(-i / 24.0)); };
  for (int32_t i = 0; i < 255; ++i) {
    const double corrected = s(i) - ((s(i) + s(i + 1)) / 2 - s(i + 0.5)) / 2;
    EXPECT_EQ(lstm_sigmoid_table(i), std::min(65535.0, std::floor(corrected + 0.5))) << i;
  }
  EXPECT_EQ(lstm_sigmoid_table(255), 65535);
}

TEST(LstmTest, GateFunctionsFollowSigmoidAndTanh) {
  // Hand-checked: 0 -> 0.5 and 0; 1.0 (4096 in Q3.12) -> sigmoid(1), tanh(1) in Q0.15, which
  // the table holds at indices 24 (47911, rounded: (47911 * 2^9 + 2^9) >> 10 = 23956) and 48
  // ((57724 * 2^8 - 2^23 + 2^7) >> 8 = 24956); the largest input saturates tanh, not sigmoid.
  EXPECT_EQ(lstm_logistic16(0), 16384);
  EXPECT_EQ(lstm_tanh16(0, 0), 0);
  EXPECT_EQ(lstm_logistic16(4096), 23956);
  EXPECT_EQ(lstm_tanh16(4096, 0), 24956);
  EXPECT_EQ(lstm_logistic16(-4096), 32768 - 23956);
  EXPECT_EQ(lstm_tanh16(32767, 0), 32767);
  // Everywhere within the table's interpolation error of the real functions, odd / symmetric.
  for (int32_t x = -32768; x <= 32767; x += 7) {
    const double real = x / 4096.0;
    EXPECT_NEAR(lstm_logistic16(static_cast<int16_t>(x)) / 32768.0, 1 / (1 + std::exp(-real)),
                1.5e-4)
        << x;
    EXPECT_NEAR(lstm_tanh16(static_cast<int16_t>(x), 0) / 32768.0, std::tanh(real), 3e-4) << x;
  }
  // The cell's tanh: the cell at scale 2^-15 (shift 15 - 15 - 3 = -3) reads 2^15 as 1.0.
  for (int32_t c = -32768; c <= 32767; c += 11) {
    EXPECT_NEAR(lstm_tanh16(static_cast<int16_t>(c), -3) / 32768.0, std::tanh(c / 32768.0), 3e-4)
        << c;
  }
}

// TFLM's integer LSTM step from its definition, in int64, one batch row at a time; the gate
// functions are the kernel's (checked above against the real functions, and bit for bit by the
// reference vectors).
// TFLite's MultiplyByQuantizedMultiplier for an int64 sum: the multiplier rounded to 16 bits,
// one rounding shift by 15 - shift.
int64_t RefMultiply64(int64_t x, int32_t multiplier, int shift) {
  const int64_t reduced = multiplier < 0x7FFF0000 ? (int64_t{multiplier} + (1 << 15)) >> 16 : 0x7FFF;
  return (x * reduced + (int64_t{1} << (14 - shift))) >> (15 - shift);
}

// With `biases64`, the 16x8 form: int64 biases, both fully connected layers requantized with the
// 64-bit rule, the hidden state clamped to int16.
struct SlowLstm {
  const LstmParams& p;
  std::vector<int64_t> h, c;  // per batch row, hidden then cell
  const LstmBiases64* biases64 = nullptr;

  static int64_t Sat16(int64_t v) { return Clamp(v, -32768, 32767); }

  int64_t Fc(int gate, bool recurrent, int o, const std::vector<int64_t>& v) const {
    const LstmGateParams& g = p.gates[gate];
    const int n = recurrent ? p.hidden_size : p.input_size;
    const int8_t* w = recurrent ? g.hidden_weights : g.input_weights;
    int64_t acc = 0;
    if (!recurrent && biases64 != nullptr && biases64->gate[gate] != nullptr) {
      acc = biases64->gate[gate][o];
    } else if (!recurrent && biases64 == nullptr && g.bias != nullptr) {
      acc = g.bias[o];
    }
    const int64_t offset = recurrent ? -p.hidden_zero_point : p.input_offset;
    for (int k = 0; k < n; ++k) acc += int64_t{w[o * n + k]} * (v[k] + offset);
    const int32_t m = recurrent ? g.hidden_multiplier : g.input_multiplier;
    const int32_t shift = recurrent ? g.hidden_shift : g.input_shift;
    return Sat16(biases64 != nullptr ? RefMultiply64(acc, m, shift) : RefMultiply(acc, m, shift));
  }

  // One step of batch row b with input row x; returns the new hidden row.
  template <typename T>
  std::vector<int64_t> Step(int b, const T* x) {
    const int n = p.hidden_size;
    std::vector<int64_t> xv(x, x + p.input_size), hv(h.begin() + b * n, h.begin() + (b + 1) * n);
    std::vector<int64_t> gate[4];
    for (int g = 0; g < 4; ++g) {
      for (int o = 0; o < n; ++o) {
        const int64_t pre = Sat16(Fc(g, false, o, xv) + Fc(g, true, o, hv));
        gate[g].push_back(g == 2 ? lstm_tanh16(static_cast<int16_t>(pre), 0)
                                 : lstm_logistic16(static_cast<int16_t>(pre)));
      }
    }
    std::vector<int64_t> out(n);
    for (int o = 0; o < n; ++o) {
      int64_t& cell = c[b * n + o];
      const int64_t kept =
          Sat16(RefMultiply(gate[1][o] * cell, p.forget_to_cell_multiplier, p.forget_to_cell_shift));
      const int64_t added = Sat16(
          RefMultiply(gate[0][o] * gate[2][o], p.input_to_cell_multiplier, p.input_to_cell_shift));
      cell = Sat16(kept + added);
      if (p.cell_clip > 0) cell = Clamp(cell, -p.cell_clip, p.cell_clip);
      const int64_t squashed =
          lstm_tanh16(static_cast<int16_t>(cell), 15 + p.cell_scale_power - 3);
      out[o] = Clamp(RefMultiply(squashed * gate[3][o], p.output_multiplier, p.output_shift) +
                         p.hidden_zero_point,
                     std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
      h[b * n + o] = out[o];
    }
    return out;
  }

  template <typename T>
  std::vector<T> Run(const std::vector<T>& input) {
    std::vector<T> output(static_cast<size_t>(p.time_steps) * p.batch_size * p.hidden_size);
    for (int b = 0; b < p.batch_size; ++b)
      for (int t = 0; t < p.time_steps; ++t) {
        const size_t row = p.time_major ? size_t(t) * p.batch_size + b : size_t(b) * p.time_steps + t;
        const std::vector<int64_t> y = Step(b, input.data() + row * p.input_size);
        for (int o = 0; o < p.hidden_size; ++o) output[row * p.hidden_size + o] = static_cast<T>(y[o]);
      }
    return output;
  }
};

struct Buffers {
  std::vector<int8_t> input_weights[4], hidden_weights[4];
  std::vector<int32_t> bias[4];
};

std::vector<int8_t> RunKernel(const LstmParams& p, const std::vector<int8_t>& input,
                              std::vector<int8_t>& hidden, std::vector<int16_t>& cell) {
  std::vector<int16_t> scratch(lstm_scratch_bytes(p) / 2 + 8, 0x5A5A);
  std::vector<int8_t> output(static_cast<size_t>(p.time_steps) * p.batch_size * p.hidden_size);
  lstm(p, input.data(), hidden.data(), cell.data(), output.data(),
       Scratch{reinterpret_cast<int8_t*>(scratch.data()), lstm_scratch_bytes(p)});
  for (size_t i = lstm_scratch_bytes(p) / 2; i < scratch.size(); ++i) {
    EXPECT_EQ(scratch[i], 0x5A5A) << "wrote past its scratch";
  }
  return output;
}

TEST(LstmTest, HandCheckedTwoSteps) {
  // One unit, weights 0: each gate's pre-activation is its bias (requantized by 1). Forget, input
  // and output gates sigmoid(0) = 0.5, cell gate tanh(1) = 24956. Step 1: c = 0.5 * 24956 / 2 =
  // 6239 (input_to_cell 2^-16 of the Q0.15 x Q0.15 product), tanh(6239 / 2^15) = 6165, h =
  // 6165 * 16384 * 2^-23 = 12.04 -> 12, + zero point 3. Step 2: c = 3119.5 -> 3120 (halves away
  // from zero) + 6239 = 9359, tanh -> 9113, h = 17.8 -> 18 + 3.
  const int8_t zero = 0;
  const int32_t biases[4] = {0, 0, 4096, 0};
  LstmParams p{};
  p.batch_size = 1;
  p.time_steps = 2;
  p.input_size = 1;
  p.hidden_size = 1;
  p.time_major = true;
  p.input_offset = 0;
  p.hidden_zero_point = 3;
  for (int g = 0; g < 4; ++g) {
    p.gates[g] = {&zero, &zero, &biases[g], 1 << 30, 1, 1 << 30, 1};
  }
  p.forget_to_cell_multiplier = 1 << 30;
  p.forget_to_cell_shift = -14;
  p.input_to_cell_multiplier = 1 << 30;
  p.input_to_cell_shift = -15;
  p.cell_clip = 32767;
  p.cell_scale_power = -15;
  p.output_multiplier = 1 << 30;
  p.output_shift = -22;
  ASSERT_TRUE(lstm_params_ok(p));
  std::vector<int8_t> hidden(1), input = {0, 0};
  std::vector<int16_t> cell(1);
  lstm_reset_state(p, hidden.data(), cell.data());
  EXPECT_EQ(hidden[0], 3);
  EXPECT_EQ(RunKernel(p, input, hidden, cell), (std::vector<int8_t>{15, 21}));
  EXPECT_EQ(cell[0], 9359);
  EXPECT_EQ(hidden[0], 21);
  // A cell clip of 5000 holds the cell there.
  p.cell_clip = 5000;
  lstm_reset_state(p, hidden.data(), cell.data());
  RunKernel(p, input, hidden, cell);
  EXPECT_EQ(cell[0], 5000);
}

LstmParams RandomParams(Random& rng, Buffers& buf) {
  LstmParams p{};
  p.batch_size = rng.Int(1, 3);
  p.time_steps = rng.Int(1, 5);
  p.input_size = rng.Int(1, 20);
  p.hidden_size = rng.Int(1, 12);
  p.time_major = rng.Int(0, 1);
  p.input_offset = rng.Int(-127, 128);
  p.hidden_zero_point = rng.Int(-128, 127);
  for (int g = 0; g < 4; ++g) {
    buf.input_weights[g] = rng.Int8s(size_t(p.hidden_size) * p.input_size, -127, 127);
    buf.hidden_weights[g] = rng.Int8s(size_t(p.hidden_size) * p.hidden_size, -127, 127);
    buf.bias[g].resize(p.hidden_size);
    for (auto& b : buf.bias[g]) b = rng.Int(-40000, 40000);
    LstmGateParams& gp = p.gates[g];
    gp.input_weights = buf.input_weights[g].data();
    gp.hidden_weights = buf.hidden_weights[g].data();
    gp.bias = rng.Int(0, 4) == 0 ? nullptr : buf.bias[g].data();
    // Effective scales as a converter writes them (input scale * weight scale / 2^-12).
    const QuantizedMultiplier mi = quantize_multiplier(rng.Scale(0.05f, 1.5f));
    const QuantizedMultiplier mh = quantize_multiplier(rng.Scale(0.05f, 1.5f));
    gp.input_multiplier = mi.multiplier;
    gp.input_shift = mi.shift;
    gp.hidden_multiplier = mh.multiplier;
    gp.hidden_shift = mh.shift;
  }
  p.cell_scale_power = rng.Int(-15, -11);
  // Q0.15 x Q0.15 (and x cell) products to the cell's scale, as TFLM's Prepare derives them.
  const QuantizedMultiplier ftc = quantize_multiplier(std::ldexp(1.0, -15));
  const QuantizedMultiplier itc = quantize_multiplier(std::ldexp(1.0, -15 - 15 - p.cell_scale_power));
  p.forget_to_cell_multiplier = ftc.multiplier;
  p.forget_to_cell_shift = ftc.shift;
  p.input_to_cell_multiplier = itc.multiplier;
  p.input_to_cell_shift = itc.shift;
  p.cell_clip = rng.Int(0, 2) == 0 ? 0 : rng.Int(1000, 32767);
  const QuantizedMultiplier out = quantize_multiplier(std::ldexp(1.0, -30) / rng.Scale(0.003f, 0.02f));
  p.output_multiplier = out.multiplier;
  p.output_shift = out.shift;
  return p;
}

TEST(LstmTest, RandomizedAgainstSlowReference) {
  Random rng(77);
  std::set<int8_t> seen;  // the trials must not all saturate or collapse
  for (int trial = 0; trial < 300; ++trial) {
    Buffers buf;
    const LstmParams p = RandomParams(rng, buf);
    ASSERT_TRUE(lstm_params_ok(p)) << trial;
    const auto input = rng.Int8s(size_t(p.time_steps) * p.batch_size * p.input_size);
    const size_t states = size_t(p.batch_size) * p.hidden_size;
    std::vector<int8_t> hidden(states);
    std::vector<int16_t> cell(states);
    lstm_reset_state(p, hidden.data(), cell.data());
    SlowLstm slow{p, std::vector<int64_t>(states, p.hidden_zero_point), std::vector<int64_t>(states, 0)};
    const std::vector<int8_t> want = slow.Run(input);
    ASSERT_EQ(RunKernel(p, input, hidden, cell), want) << "trial " << trial;
    seen.insert(want.begin(), want.end());
    for (size_t i = 0; i < states; ++i) {
      ASSERT_EQ(hidden[i], slow.h[i]) << "trial " << trial;
      ASSERT_EQ(cell[i], slow.c[i]) << "trial " << trial;
    }
    // The state carries over: a second call continues where the first stopped.
    const auto more = rng.Int8s(input.size());
    const std::vector<int8_t> want_more = slow.Run(more);
    ASSERT_EQ(RunKernel(p, more, hidden, cell), want_more) << "trial " << trial << " (continued)";
  }
  EXPECT_GE(seen.size(), 200u);
}

// The 16x8 form on the same random layers: int16 input in full range, int64 biases (some beyond
// int32), the gate multipliers of an input 256 times finer; hidden state from 0.
TEST(LstmTest, SixteenByEightRandomizedAgainstSlowReference) {
  Random rng(78);
  std::set<int16_t> seen;
  for (int trial = 0; trial < 200; ++trial) {
    Buffers buf;
    LstmParams p = RandomParams(rng, buf);
    p.input_offset = 0;
    p.hidden_zero_point = 0;
    LstmBiases64 biases{};
    std::vector<int64_t> bias64[kLstmGates];
    for (int g = 0; g < kLstmGates; ++g) {
      LstmGateParams& gp = p.gates[g];
      gp.bias = nullptr;  // lstm_16x8 reads the int64 ones
      bias64[g].resize(p.hidden_size);
      for (auto& b : bias64[g]) {
        b = int64_t{rng.Int(-40000, 40000)} * 256;
        if (rng.Int(0, 7) == 0) b *= int64_t{1} << 20;  // beyond int32: the sum saturates
      }
      biases.gate[g] = rng.Int(0, 4) == 0 ? nullptr : bias64[g].data();
      const QuantizedMultiplier mi = quantize_multiplier(rng.Scale(0.05f, 1.5f) / 256);
      gp.input_multiplier = mi.multiplier;
      gp.input_shift = mi.shift;
      const QuantizedMultiplier mh = quantize_multiplier(rng.Scale(0.05f, 1.5f) / 256);
      gp.hidden_multiplier = mh.multiplier;
      gp.hidden_shift = mh.shift;
    }
    // The hidden state at a scale of 2^-15 or so.
    const QuantizedMultiplier out = quantize_multiplier(std::ldexp(1.0, -30) / rng.Scale(2e-5f, 6e-5f));
    p.output_multiplier = out.multiplier;
    p.output_shift = out.shift;
    ASSERT_TRUE(lstm_16x8_params_ok(p, biases)) << trial;
    std::vector<int16_t> input(size_t(p.time_steps) * p.batch_size * p.input_size);
    for (auto& v : input) v = static_cast<int16_t>(rng.Int(-32768, 32767));
    const size_t states = size_t(p.batch_size) * p.hidden_size;
    std::vector<int16_t> hidden(states, 0), cell(states, 0);
    SlowLstm slow{p, std::vector<int64_t>(states, 0), std::vector<int64_t>(states, 0), &biases};
    for (int call = 0; call < 2; ++call) {  // the second call continues the first's sequence
      const std::vector<int16_t> want = slow.Run(input);
      std::vector<int16_t> scratch(lstm_scratch_bytes(p) / 2);
      std::vector<int16_t> output(want.size());
      lstm_16x8(p, biases, input.data(), hidden.data(), cell.data(), output.data(),
                Scratch{reinterpret_cast<int8_t*>(scratch.data()), lstm_scratch_bytes(p)});
      ASSERT_EQ(output, want) << "trial " << trial << " call " << call;
      seen.insert(want.begin(), want.end());
      for (size_t i = 0; i < states; ++i) {
        ASSERT_EQ(hidden[i], slow.h[i]) << "trial " << trial;
        ASSERT_EQ(cell[i], slow.c[i]) << "trial " << trial;
      }
    }
  }
  EXPECT_GE(seen.size(), 2000u);
}

TEST(LstmTest, SixteenByEightRefusesWhatItCannotRun) {
  Random rng(10);
  Buffers buf;
  LstmParams good = RandomParams(rng, buf);
  good.input_offset = 0;
  good.hidden_zero_point = 0;
  std::vector<int64_t> bias(good.hidden_size, 5);
  LstmBiases64 biases{{bias.data(), bias.data(), nullptr, bias.data()}};
  ASSERT_TRUE(lstm_16x8_params_ok(good, biases));
  LstmParams p = good;
  p.input_offset = 1;  // int16 activations are symmetric
  EXPECT_FALSE(lstm_16x8_params_ok(p, biases));
  p = good;
  p.hidden_zero_point = -1;
  EXPECT_FALSE(lstm_16x8_params_ok(p, biases));
  p = good;
  p.gates[kLstmCellGate].input_multiplier = -5;
  EXPECT_FALSE(lstm_16x8_params_ok(p, biases));
  // A bias whose int64 sums could overflow, either way.
  for (int64_t b : {INT64_MAX, INT64_MIN, (int64_t{1} << 62)}) {
    bias[1] = b;
    EXPECT_FALSE(lstm_16x8_params_ok(good, biases)) << b;
  }
  bias[1] = (int64_t{1} << 61);  // far from int64's end, and taken: the requantization saturates
  EXPECT_TRUE(lstm_16x8_params_ok(good, biases));
}

TEST(LstmTest, StateCarriesAcrossCallsLikeOneLongerSequence) {
  Random rng(5);
  Buffers buf;
  LstmParams p = RandomParams(rng, buf);
  p.time_major = true;
  p.time_steps = 6;
  const auto input = rng.Int8s(size_t(6) * p.batch_size * p.input_size);
  const size_t states = size_t(p.batch_size) * p.hidden_size;
  std::vector<int8_t> hidden(states);
  std::vector<int16_t> cell(states);
  lstm_reset_state(p, hidden.data(), cell.data());
  const std::vector<int8_t> whole = RunKernel(p, input, hidden, cell);
  // Six single steps from a reset state give the same outputs.
  LstmParams one = p;
  one.time_steps = 1;
  lstm_reset_state(one, hidden.data(), cell.data());
  std::vector<int8_t> stepped;
  for (int t = 0; t < 6; ++t) {
    const std::vector<int8_t> x(input.begin() + t * p.batch_size * p.input_size,
                                input.begin() + (t + 1) * p.batch_size * p.input_size);
    const std::vector<int8_t> y = RunKernel(one, x, hidden, cell);
    stepped.insert(stepped.end(), y.begin(), y.end());
  }
  EXPECT_EQ(stepped, whole);
}

TEST(LstmTest, RefusesWhatItCannotRun) {
  Random rng(9);
  Buffers buf;
  const LstmParams good = RandomParams(rng, buf);
  ASSERT_TRUE(lstm_params_ok(good));
  LstmParams p = good;
  p.hidden_size = 0;
  EXPECT_FALSE(lstm_params_ok(p));
  p = good;
  p.cell_scale_power = 3;  // the cell's tanh would shift by 15
  EXPECT_FALSE(lstm_params_ok(p));
  for (int32_t power : {INT32_MAX - 11, INT32_MIN}) {  // the shift is formed in 64 bits (UBSan)
    p.cell_scale_power = power;
    EXPECT_FALSE(lstm_params_ok(p)) << power;
  }
  p = good;
  p.cell_clip = 40000;
  EXPECT_FALSE(lstm_params_ok(p));
  p = good;
  p.gates[kLstmOutputGate].hidden_weights = nullptr;
  EXPECT_FALSE(lstm_params_ok(p));
  p = good;
  p.input_offset = 200;
  EXPECT_FALSE(lstm_params_ok(p));
  EXPECT_EQ(lstm_scratch_bytes(good), size_t(8) * good.hidden_size);
}

}  // namespace
}  // namespace mote::kernels
