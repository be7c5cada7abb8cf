// The 16x8 and int4-weight kernels against the int8 kernels on cases where both must agree:
// int4 weights unpacked into int8, and int16 inputs within the int8 range with an int32 bias.
// (The reference-vector sets check them against TFLite's own results.)

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/quantization.h"

namespace mote::kernels {
namespace {

// int4 values in [-8, 7], packed two per byte, low nibble first; an odd count leaves the last
// high nibble 0.
struct Int4Weights {
  std::vector<int8_t> values;
  std::vector<uint8_t> packed;
};
Int4Weights random_int4(size_t count, std::mt19937& rng) {
  Int4Weights w;
  std::uniform_int_distribution<int> value(-8, 7);
  w.packed.assign((count + 1) / 2, 0);
  for (size_t i = 0; i < count; ++i) {
    w.values.push_back(static_cast<int8_t>(value(rng)));
    w.packed[i / 2] |= static_cast<uint8_t>((w.values.back() & 15) << (i % 2 == 0 ? 0 : 4));
  }
  return w;
}

template <typename T>
std::vector<T> random_values(size_t count, int lo, int hi, std::mt19937& rng) {
  std::uniform_int_distribution<int> value(lo, hi);
  std::vector<T> v(count);
  for (T& x : v) x = static_cast<T>(value(rng));
  return v;
}

ConvShape conv_shape() {
  // 3x5 input, 3 channels, 2x3 filter, 5 outputs (odd weight count), stride 1, SAME-like padding.
  return {1, 3, 5, 3, 2, 3, 3, 3, 5, 5, 1, 1, 0, 1, 1, 1};
}

TEST(Int4Weights, ConvEqualsInt8ConvOnUnpackedWeights) {
  std::mt19937 rng(4);
  const ConvShape s = conv_shape();
  const Int4Weights w = random_int4(size_t{5} * 2 * 3 * 3, rng);
  const auto input = random_values<int8_t>(3 * 5 * 3, -128, 127, rng);
  const auto bias = random_values<int32_t>(5, -500, 500, rng);
  const std::vector<int32_t> multiplier(5, 1 << 30), shift(5, -3);
  ConvParams p{s, 7, -3, -128, 127, multiplier.data(), shift.data()};
  std::vector<int8_t> want(3 * 5 * 5), got(want.size());
  conv2d(p, input.data(), w.values.data(), bias.data(), want.data(), Scratch{nullptr, 0});
  conv2d_int4(p, input.data(), w.packed.data(), bias.data(), got.data());
  EXPECT_EQ(got, want);
}

TEST(Int4Weights, DepthwiseEqualsInt8DepthwiseOnUnpackedWeights) {
  std::mt19937 rng(5);
  const DepthwiseShape s{2, 4, 3, 3, 3, 3, 4, 3, 6, 1, 1, 1, 1, 1, 1};  // depth multiplier 2
  const Int4Weights w = random_int4(size_t{3} * 3 * 6, rng);
  const auto input = random_values<int8_t>(2 * 4 * 3 * 3, -128, 127, rng);
  const auto bias = random_values<int32_t>(6, -500, 500, rng);
  const std::vector<int32_t> multiplier(6, 1 << 30), shift(6, -2);
  DepthwiseConvParams p{s, -5, 4, -100, 120, multiplier.data(), shift.data()};
  std::vector<int8_t> want(2 * 4 * 3 * 6), got(want.size());
  depthwise_conv2d(p, input.data(), w.values.data(), bias.data(), want.data(), Scratch{nullptr, 0});
  depthwise_conv2d_int4(p, input.data(), w.packed.data(), bias.data(), got.data());
  EXPECT_EQ(got, want);
}

TEST(Int4Weights, FullyConnectedEqualsInt8FullyConnectedOnUnpackedWeights) {
  std::mt19937 rng(6);
  const Int4Weights w = random_int4(size_t{7} * 9, rng);
  const auto input = random_values<int8_t>(2 * 9, -128, 127, rng);
  const auto bias = random_values<int32_t>(7, -500, 500, rng);
  const int32_t multiplier = 1 << 30, shift = -4;
  FullyConnectedParams p{2, 9, 7, 3, 0, -2, -128, 127, &multiplier, &shift, false, nullptr};
  std::vector<int8_t> want(2 * 7), got(want.size());
  fully_connected(p, input.data(), w.values.data(), bias.data(), want.data());
  fully_connected_int4(p, input.data(), w.packed.data(), bias.data(), got.data());
  EXPECT_EQ(got, want);
}

TEST(Int16Activations, ConvWithInt32BiasEqualsInt8ConvOnInt8Values) {
  std::mt19937 rng(16);
  const ConvShape s = conv_shape();
  const auto input8 = random_values<int8_t>(3 * 5 * 3, -128, 127, rng);
  const std::vector<int16_t> input16(input8.begin(), input8.end());
  const auto filter = random_values<int8_t>(5 * 2 * 3 * 3, -127, 127, rng);
  const auto bias = random_values<int32_t>(5, -5000, 5000, rng);
  const std::vector<int32_t> multiplier(5, 1 << 30), shift(5, -6);
  ConvParams p{s, 0, 0, -128, 127, multiplier.data(), shift.data()};
  std::vector<int8_t> want(3 * 5 * 5);
  std::vector<int16_t> got(want.size());
  conv2d(p, input8.data(), filter.data(), bias.data(), want.data(), Scratch{nullptr, 0});
  conv2d_16x8(p, input16.data(), filter.data(), bias.data(), got.data());
  EXPECT_EQ(got, std::vector<int16_t>(want.begin(), want.end()));
}

// TFLite's 64-bit MultiplyByQuantizedMultiplier, worked by hand.
TEST(MultiplyByQuantizedMultiplier64, HandChecked) {
  // 0.5: the multiplier rounds to 16384 / 2^15; 1000 * 0.5 = 500 (500.5 rounds to 500 + 0.5 -> 500).
  EXPECT_EQ(multiply_by_quantized_multiplier_64(1000, 1 << 30, 0), 500);
  EXPECT_EQ(multiply_by_quantized_multiplier_64(1001, 1 << 30, 0), 501);    // 500.5 rounds up
  EXPECT_EQ(multiply_by_quantized_multiplier_64(-1001, 1 << 30, 0), -500);  // arithmetic shift
  EXPECT_EQ(multiply_by_quantized_multiplier_64(int64_t{3} << 40, 1 << 30, -20), 3 << 19);
  // Multipliers from 0x7FFF0000 use 0x7FFF, not 0x8000.
  EXPECT_EQ(multiply_by_quantized_multiplier_64(1 << 20, 0x7FFFFFFF, 0), 1048544);  // 2^20 * 0x7FFF / 2^15
  EXPECT_EQ(multiply_by_quantized_multiplier_64(int64_t{1} << 46, 0x7FFFFFFF, 7), INT32_MAX);
  EXPECT_EQ(multiply_by_quantized_multiplier_64(-(int64_t{1} << 46), 0x7FFFFFFF, 7), INT32_MIN);
}

// The one-multiply form equals the 64-bit one wherever it applies: the edges of x, multiplier and
// shift, ties, and random values.
TEST(MultiplyByQuantizedMultiplier64, RoundingHighMulWhereItApplies) {
  std::mt19937 rng(64);
  std::uniform_int_distribution<int32_t> any_x(INT32_MIN + 1, INT32_MAX);
  std::uniform_int_distribution<int32_t> any_multiplier(0, INT32_MAX);
  std::vector<int32_t> xs = {0,       1,          -1,    INT32_MAX, INT32_MIN + 1,
                             1 << 20, -(1 << 20), 12345, -12345};
  std::vector<int32_t> multipliers = {0, 1, 1 << 30, 0x7FFEFFFF, 0x7FFF0000, 0x7FFF7FFF, INT32_MAX};
  for (int i = 0; i < 2000; ++i) {
    xs.push_back(any_x(rng));
    multipliers.push_back(any_multiplier(rng));
  }
  for (int32_t shift = -17; shift <= -1; ++shift) {
    for (size_t i = 0; i < xs.size(); ++i) {
      const int32_t multiplier = multipliers[i % multipliers.size()];
      ASSERT_TRUE(high_mul_takes_64(multiplier, shift));
      const int32_t m = high_mul_multiplier_64(multiplier, shift);
      ASSERT_EQ(rounding_high_mul(xs[i], m),
                multiply_by_quantized_multiplier_64(xs[i], multiplier, shift))
          << "x " << xs[i] << " multiplier " << multiplier << " shift " << shift;
    }
  }
  // Ties round up, as the 64-bit form's: multiplier 0x8000 reduces to 1 (2^-15), shift -1: 2^-16.
  const int32_t m = high_mul_multiplier_64(0x8000, -1);
  EXPECT_EQ(rounding_high_mul(0x8000, m), 1);
  EXPECT_EQ(rounding_high_mul(-0x8000, m), 0);
  EXPECT_EQ(rounding_high_mul(3 * 0x8000, m), 2);
  EXPECT_EQ(rounding_high_mul(-3 * 0x8000, m), -1);
  EXPECT_FALSE(high_mul_takes_64(1 << 30, 0));
  EXPECT_FALSE(high_mul_takes_64(1 << 30, -18));
  EXPECT_FALSE(high_mul_takes_64(-1, -5));
}

}  // namespace
}  // namespace mote::kernels
