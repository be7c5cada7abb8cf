#include "mote/kernels/svdf.h"

#include <gtest/gtest.h>

#include <vector>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Clamp;
using ops_testing::Random;
using ops_testing::RefMultiply;

// TFLM's integer SVDF from its definition, one time step, written per filter: each filter's
// memory is its own row of T values, the oldest dropped and the newest appended (the flat
// one-element shift of the reference does exactly that, the newest slot being overwritten).
// Sums in int64, wrapped to int32 where the reference's int32 sums would wrap.
template <typename T>
std::vector<int8_t> SlowSvdfStep(const SvdfParams& p, const std::vector<int8_t>& x,
                                 const std::vector<int8_t>& wf, const std::vector<T>& wt,
                                 const std::vector<int32_t>& bias,
                                 std::vector<std::vector<std::vector<int64_t>>>& memory) {
  const int64_t lo = sizeof(T) == 2 ? -32768 : -128, hi = sizeof(T) == 2 ? 32767 : 127;
  const int32_t units = p.filters / p.rank;
  auto wrap = [](int64_t v) { return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v))); };
  std::vector<int8_t> out(static_cast<size_t>(p.batches * units));
  for (int32_t b = 0; b < p.batches; ++b) {
    std::vector<int64_t> filter_sum(static_cast<size_t>(p.filters));
    for (int32_t f = 0; f < p.filters; ++f) {
      int64_t dot = 0;
      for (int32_t i = 0; i < p.input_size; ++i) {
        dot += int64_t{wf[static_cast<size_t>(f * p.input_size + i)]} *
               (x[static_cast<size_t>(b * p.input_size + i)] - p.input_zero_point);
      }
      const int64_t v = Clamp(RefMultiply(dot, p.feature_multiplier, p.feature_shift) +
                                  p.state_zero_point, lo, hi);
      auto& row = memory[static_cast<size_t>(b)][static_cast<size_t>(f)];
      row.erase(row.begin());
      row.push_back(v);
      int64_t s = 0;
      for (int32_t t = 0; t < p.memory; ++t) {
        s += int64_t{wt[static_cast<size_t>(f * p.memory + t)]} *
             (row[static_cast<size_t>(t)] - p.state_zero_point);
      }
      filter_sum[static_cast<size_t>(f)] = wrap(s);
    }
    for (int32_t u = 0; u < units; ++u) {
      int64_t acc = bias.empty() ? 0 : bias[static_cast<size_t>(u)];
      for (int32_t r = 0; r < p.rank; ++r) acc += filter_sum[static_cast<size_t>(u * p.rank + r)];
      out[static_cast<size_t>(b * units + u)] = static_cast<int8_t>(
          Clamp(RefMultiply(wrap(acc), p.time_multiplier, p.time_shift) + p.output_zero_point,
                -128, 127));
    }
  }
  return out;
}

TEST(SvdfTest, HandCheckedTwoSteps) {
  // B 1, I 2, F 2 (rank 1: 2 units), T 2. Feature requant 0.5, time requant 0.25.
  SvdfParams p{};
  p.batches = 1;
  p.input_size = 2;
  p.filters = 2;
  p.memory = 2;
  p.rank = 1;
  p.input_zero_point = 1;
  p.output_zero_point = -3;
  p.feature_multiplier = 1 << 30;  // 0.5
  p.feature_shift = 0;
  p.time_multiplier = 1 << 30;  // 0.25
  p.time_shift = -1;
  const std::vector<int8_t> wf = {1, 2, 3, -1};
  const std::vector<int16_t> wt = {2, 3, 1, -2};
  const std::vector<int32_t> bias = {10, 0};
  std::vector<int16_t> state(4, 0);
  std::vector<int32_t> scratch(svdf_scratch_bytes(1, 2, 1) / 4);
  ASSERT_EQ(scratch.size(), 4u);
  std::vector<int8_t> out(2);

  // Step 1: x - zp = [2, -2]; dots -2 and 8, halved: -1 and 4 become the newest state values.
  // Time sums 3 * -1 = -3 and -2 * 4 = -8; with bias 7 and -8; a quarter of them rounds (double
  // rounding) to 2 and -2; plus the zero point -3.
  const std::vector<int8_t> x1 = {3, -1};
  svdf(p, x1.data(), wf.data(), wt.data(), bias.data(), state.data(), out.data(), scratch.data());
  EXPECT_EQ(state, (std::vector<int16_t>{0, -1, 0, 4}));
  EXPECT_EQ(out, (std::vector<int8_t>{-1, -5}));

  // Step 2: x - zp = 0, so both newest values are 0; the memories are [-1, 0] and [4, 0]: sums
  // -2 + 10 = 8 and 4, a quarter: 2 and 1.
  const std::vector<int8_t> x2 = {1, 1};
  svdf(p, x2.data(), wf.data(), wt.data(), bias.data(), state.data(), out.data(), scratch.data());
  EXPECT_EQ(state, (std::vector<int16_t>{-1, 0, 4, 0}));
  EXPECT_EQ(out, (std::vector<int8_t>{-1, -2}));

  // Without a bias the first unit loses its 10.
  std::vector<int16_t> fresh(4, 0);
  svdf(p, x1.data(), wf.data(), wt.data(), nullptr, fresh.data(), out.data(), scratch.data());
  // -3 / 2 -> -1 (the doubling high multiply), then -1 / 2 -> -1 (ties away from zero); - 3.
  EXPECT_EQ(out[0], -4);
}

TEST(SvdfTest, StateSaturatesAtItsTypesRange) {
  SvdfParams p{};
  p.batches = 1;
  p.input_size = 1;
  p.filters = 1;
  p.memory = 1;
  p.rank = 1;
  p.feature_multiplier = 1 << 30;  // 2^30 * 2^(10 - 31) = 2^9
  p.feature_shift = 10;
  p.time_multiplier = 1 << 30;
  p.time_shift = -20;
  const std::vector<int8_t> x = {127}, wf = {127};
  std::vector<int32_t> scratch(2);
  int8_t out = 0;
  {
    const std::vector<int16_t> wt = {1};
    std::vector<int16_t> state = {0};
    svdf(p, x.data(), wf.data(), wt.data(), nullptr, state.data(), &out, scratch.data());
    EXPECT_EQ(state[0], 32767);  // 127 * 127 * 512 saturates the int16 state
  }
  {
    const std::vector<int8_t> wt = {1};
    std::vector<int8_t> state = {0};
    p.state_zero_point = -5;
    svdf(p, x.data(), wf.data(), wt.data(), nullptr, state.data(), &out, scratch.data());
    EXPECT_EQ(state[0], 127);  // clamped after the zero point is added, never wrapped
  }
}

template <typename T>
void RandomizedAgainstSlowReference(uint32_t seed) {
  Random rng(seed);
  for (int trial = 0; trial < 60; ++trial) {
    SvdfParams p{};
    p.batches = rng.Int(1, 3);
    p.input_size = rng.Int(1, 24);
    p.rank = rng.Int(1, 3);
    p.filters = p.rank * rng.Int(1, 6);
    p.memory = rng.Int(1, 8);
    p.input_zero_point = rng.Int(-128, 127);
    p.output_zero_point = rng.Int(-128, 127);
    p.state_zero_point = sizeof(T) == 2 ? 0 : rng.Int(-128, 127);
    p.feature_multiplier = rng.Int(1 << 30, INT32_MAX);
    p.feature_shift = rng.Int(sizeof(T) == 2 ? -10 : -16, sizeof(T) == 2 ? 2 : -6);
    p.time_multiplier = rng.Int(1 << 30, INT32_MAX);
    p.time_shift = rng.Int(sizeof(T) == 2 ? -24 : -14, sizeof(T) == 2 ? -10 : -2);
    const int32_t units = p.filters / p.rank;
    const auto wf = rng.Int8s(static_cast<size_t>(p.filters * p.input_size));
    std::vector<T> wt(static_cast<size_t>(p.filters * p.memory));
    for (T& w : wt) w = static_cast<T>(sizeof(T) == 2 ? rng.Int(-32768, 32767) : rng.Int(-128, 127));
    std::vector<int32_t> bias;
    if (rng.Int(0, 1) == 1) {
      for (int32_t u = 0; u < units; ++u) bias.push_back(rng.Int(-(1 << 20), 1 << 20));
    }
    // The initial state, as a reset leaves it: the zero point everywhere.
    std::vector<T> state(static_cast<size_t>(p.batches * p.filters * p.memory),
                         static_cast<T>(p.state_zero_point));
    std::vector<std::vector<std::vector<int64_t>>> memory(
        static_cast<size_t>(p.batches),
        std::vector<std::vector<int64_t>>(static_cast<size_t>(p.filters),
                                          std::vector<int64_t>(static_cast<size_t>(p.memory),
                                                               p.state_zero_point)));
    std::vector<int32_t> scratch(svdf_scratch_bytes(p.batches, p.filters, p.rank) / 4);
    std::vector<int8_t> out(static_cast<size_t>(p.batches * units));
    for (int step = 0; step < 6; ++step) {
      const auto x = rng.Int8s(static_cast<size_t>(p.batches * p.input_size));
      const auto want = SlowSvdfStep(p, x, wf, wt, bias, memory);
      svdf(p, x.data(), wf.data(), wt.data(), bias.empty() ? nullptr : bias.data(), state.data(),
           out.data(), scratch.data());
      ASSERT_EQ(out, want) << "trial " << trial << " step " << step;
      for (int32_t b = 0; b < p.batches; ++b) {
        for (int32_t f = 0; f < p.filters; ++f) {
          for (int32_t t = 0; t < p.memory; ++t) {
            ASSERT_EQ(state[static_cast<size_t>((b * p.filters + f) * p.memory + t)],
                      memory[static_cast<size_t>(b)][static_cast<size_t>(f)][static_cast<size_t>(t)])
                << "trial " << trial << " step " << step;
          }
        }
      }
    }
  }
}

TEST(SvdfTest, Int16StateMatchesSlowReference) { RandomizedAgainstSlowReference<int16_t>(16); }
TEST(SvdfTest, Int8StateMatchesSlowReference) { RandomizedAgainstSlowReference<int8_t>(8); }

TEST(SvdfTest, ScratchIsTheTwoInt32Buffers) {
  EXPECT_EQ(svdf_scratch_bytes(2, 24, 8), 4u * (2 * 24 + 2 * 3));
  EXPECT_EQ(svdf_scratch_bytes(1, 5, 1), 4u * (5 + 5));
}

}  // namespace
}  // namespace mote::kernels
