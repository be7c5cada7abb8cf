#include "mote/kernels/softmax.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;
using ops_testing::RefDoublingHighMul;
using ops_testing::RefExpNegative;
using ops_testing::RefOneOverOnePlusX;
using ops_testing::RoundHalfAwayDivPot;

template <typename Out>
std::vector<Out> SlowSoftmax(const SoftmaxParams& p, const std::vector<int8_t>& in) {
  const int bits = sizeof(Out) * 8;
  const int64_t out_min = -(int64_t{1} << (bits - 1)), out_max = (int64_t{1} << (bits - 1)) - 1;
  std::vector<Out> out;
  for (int r = 0; r < p.rows; ++r) {
    const int8_t* row = in.data() + r * p.row_size;
    const int64_t max = *std::max_element(row, row + p.row_size);
    auto exp_of = [&](int64_t diff) {
      const int64_t scaled =
          RefDoublingHighMul(diff * (int64_t{1} << p.input_left_shift), p.input_multiplier);
      return RefExpNegative(scaled, 5);
    };
    int64_t sum = 0;
    for (int c = 0; c < p.row_size; ++c) {
      if (row[c] - max >= p.diff_min) sum += RoundHalfAwayDivPot(exp_of(row[c] - max), 12);
    }
    // sum = 1.m * 2^e with 12 integer bits; 1/sum = (1/1.m) * 2^-e.
    int leading = 0;
    while (((sum << leading) & (int64_t{1} << 31)) == 0) ++leading;
    const int num_bits_over_unit = 12 - leading;
    const int64_t scale = RefOneOverOnePlusX((sum << leading) - (int64_t{1} << 31));
    for (int c = 0; c < p.row_size; ++c) {
      int64_t v = out_min;
      if (row[c] - max >= p.diff_min) {
        const int64_t prob = RefDoublingHighMul(scale, exp_of(row[c] - max));
        v = ops_testing::Clamp(
            RoundHalfAwayDivPot(prob, num_bits_over_unit + 31 - bits) + out_min, out_min, out_max);
      }
      out.push_back(static_cast<Out>(v));
    }
  }
  return out;
}

TEST(SoftmaxTest, PrepareMatchesTfLite) {
  // beta * scale * 2^26 = 2^26 / 16 = 2^22 -> multiplier 2^30, left shift 23;
  // diff_min = -floor(31 * 2^26 / 2^23) = -248.
  const SoftmaxParams p = prepare_softmax(3, 10, 1.0f / 16, 1.0f);
  EXPECT_EQ(p.rows, 3);
  EXPECT_EQ(p.row_size, 10);
  EXPECT_EQ(p.input_multiplier, 1 << 30);
  EXPECT_EQ(p.input_left_shift, 23);
  EXPECT_EQ(p.diff_min, -248);
  // The vector set's parameters: input_mult 1077952640, left shift 19, diff_min -3968.
  const SoftmaxParams v = prepare_softmax(1, 1, 0.00392156886f, 1.0f);
  EXPECT_EQ(v.input_multiplier, 1077952640);
  EXPECT_EQ(v.input_left_shift, 19);
  EXPECT_EQ(v.diff_min, -3968);
}

TEST(SoftmaxTest, HandCheckedUniformAndDominantRows) {
  // Row 0: four equal values -> 1/4 each -> 64/256 -> 64 - 128 = -64.
  // Row 1: one value 127 far above -128 with scale 1: exp(-255) is 0 -> {127, -128, ...}.
  SoftmaxParams p = prepare_softmax(1, 4, 1.0f, 1.0f);
  const std::vector<int8_t> uniform = {5, 5, 5, 5};
  Guarded<int8_t> out(4);
  softmax(p, uniform.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-64, -64, -64, -64}));
  const std::vector<int8_t> dominant = {-128, 127, -128, -128};
  softmax(p, dominant.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-128, 127, -128, -128}));
  EXPECT_TRUE(out.intact());
  // int16: 1/4 -> 16384 - 32768 = -16384; the dominant value saturates at 32767.
  Guarded<int16_t> out16(4);
  softmax(p, uniform.data(), out16.data());
  EXPECT_EQ(out16.values(), (std::vector<int16_t>{-16384, -16384, -16384, -16384}));
  softmax(p, dominant.data(), out16.data());
  EXPECT_EQ(out16.values(), (std::vector<int16_t>{-32768, 32767, -32768, -32768}));
  EXPECT_TRUE(out16.intact());
}

TEST(SoftmaxTest, RandomizedMatchesInt64Rederivation) {
  Random rng(99);
  for (int iter = 0; iter < 300; ++iter) {
    // Rows past 32 elements take the kernel's table of exps by difference; a fifth are long.
    const int32_t rows = rng.Int(1, 4), row_size = iter % 5 == 0 ? rng.Int(33, 400) : rng.Int(1, 40);
    const float scale = rng.Scale(0.002f, 0.5f);
    const float beta = rng.Int(0, 3) == 0 ? rng.Float(0.5f, 2.0f) : 1.0f;
    const SoftmaxParams p = prepare_softmax(rows, row_size, scale, beta);
    const size_t n = static_cast<size_t>(rows) * row_size;
    const std::vector<int8_t> in = rng.Int8s(n, rng.Int(-128, 0), rng.Int(0, 127));
    Guarded<int8_t> out8(n);
    Guarded<int16_t> out16(n);
    softmax(p, in.data(), out8.data());
    softmax(p, in.data(), out16.data());
    ASSERT_EQ(out8.values(), SlowSoftmax<int8_t>(p, in)) << "iter " << iter;
    ASSERT_EQ(out16.values(), SlowSoftmax<int16_t>(p, in)) << "iter " << iter;
    ASSERT_TRUE(out8.intact());
    ASSERT_TRUE(out16.intact());
    // And both are close to the real softmax.
    for (int r = 0; r < rows; ++r) {
      const int8_t* row = in.data() + r * row_size;
      const double max = *std::max_element(row, row + row_size);
      double sum = 0;
      for (int c = 0; c < row_size; ++c) sum += std::exp(double{beta} * scale * (row[c] - max));
      for (int c = 0; c < row_size; ++c) {
        const double prob = std::exp(double{beta} * scale * (row[c] - max)) / sum;
        EXPECT_NEAR(out8[r * row_size + c], std::min(prob * 256 - 128, 127.0), 1.0);
        EXPECT_NEAR(out16[r * row_size + c], std::min(prob * 65536 - 32768, 32767.0), 2.0);
      }
    }
  }
}

}  // namespace
}  // namespace mote::kernels
