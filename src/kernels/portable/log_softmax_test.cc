#include "mote/kernels/log_softmax.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fixed_point.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

std::vector<int8_t> SlowLogSoftmax(const LogSoftmaxParams& p, const std::vector<int8_t>& in) {
  std::vector<int8_t> out;
  for (int r = 0; r < p.rows; ++r) {
    const std::vector<int8_t> row = ops_testing::RefLogSoftmaxRow(
        in.data() + r * p.row_size, p.row_size, p.input_multiplier, p.input_left_shift,
        p.reverse_scaling_divisor, p.reverse_scaling_right_shift, p.diff_min);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

TEST(LogSoftmaxTest, PrepareMatchesTfLite) {
  // scale * 2^26 = 2^22 -> multiplier 2^30, left shift 23; reverse 2^8 / 2^30 = 2^-22 ->
  // divisor 2^30, right shift 21; diff_min = -floor(31 * 2^26 / 2^23) = -248.
  const LogSoftmaxParams p = prepare_log_softmax(3, 10, 1.0f / 16);
  EXPECT_EQ(p.rows, 3);
  EXPECT_EQ(p.row_size, 10);
  EXPECT_EQ(p.input_multiplier, 1 << 30);
  EXPECT_EQ(p.input_left_shift, 23);
  EXPECT_EQ(p.reverse_scaling_divisor, 1 << 30);
  EXPECT_EQ(p.reverse_scaling_right_shift, 21);
  EXPECT_EQ(p.diff_min, -248);
  EXPECT_TRUE(log_softmax_params_ok(p));
  // scale 0.1f (0.100000001490116): * 2^26 = 0.80000001192 * 2^23 -> 1717986944, shift 23;
  // reverse 2^8 / 1717986944 = 0.62499998545 * 2^-22 -> 1342177260, right shift 22.
  const LogSoftmaxParams q = prepare_log_softmax(1, 1, 0.1f);
  EXPECT_EQ(q.input_multiplier, 1717986944);
  EXPECT_EQ(q.input_left_shift, 23);
  EXPECT_EQ(q.reverse_scaling_divisor, 1342177260);
  EXPECT_EQ(q.reverse_scaling_right_shift, 22);
  // Scales below 2^-26 have no reverse scaling below one: refused.
  EXPECT_FALSE(log_softmax_params_ok(prepare_log_softmax(1, 4, 1e-8f)));
  EXPECT_FALSE(log_softmax_params_ok(prepare_log_softmax(1, 4, std::ldexp(1.0f, -26))));
  EXPECT_TRUE(log_softmax_params_ok(prepare_log_softmax(1, 4, std::ldexp(1.0f, -25))));
  // Large scales cap the multiplier (left shift 31, diff_min 0): still runnable.
  EXPECT_TRUE(log_softmax_params_ok(prepare_log_softmax(1, 4, 100.0f)));
}

TEST(LogSoftmaxTest, ParamsOkRefusesWhatWouldOverflow) {
  LogSoftmaxParams p = prepare_log_softmax(1, 4, 0.05f);
  ASSERT_TRUE(log_softmax_params_ok(p));
  auto with = [&](auto change) {
    LogSoftmaxParams q = p;
    change(q);
    return log_softmax_params_ok(q);
  };
  EXPECT_FALSE(with([](auto& q) { q.input_multiplier = -1; }));
  EXPECT_FALSE(with([](auto& q) { q.input_left_shift = 32; }));
  EXPECT_FALSE(with([](auto& q) { q.input_left_shift = -1; }));
  EXPECT_FALSE(with([](auto& q) { q.reverse_scaling_divisor = -5; }));
  EXPECT_FALSE(with([](auto& q) { q.reverse_scaling_right_shift = 32; }));
  EXPECT_FALSE(with([](auto& q) { q.reverse_scaling_right_shift = -1; }));
  EXPECT_FALSE(with([](auto& q) { q.diff_min = 1; }));
  EXPECT_FALSE(with([](auto& q) { q.diff_min = INT32_MIN; }));
  // 255 << 24 fits, and diff_min caps the differences that get shifted.
  EXPECT_TRUE(with([](auto& q) { q.input_left_shift = 23; q.diff_min = -255; }));
  EXPECT_FALSE(with([](auto& q) { q.input_left_shift = 24; q.diff_min = -255; }));
  EXPECT_TRUE(with([](auto& q) { q.input_left_shift = 24; q.diff_min = -127; }));
}

TEST(LogSoftmaxTest, HandCheckedRows) {
  // Four equal values: log(1/4) = -1.386 -> 127 + round(-1.386 * 16) = 127 - 22 = 105.
  // One value far above the rest (scale 1): log(1) = 0 -> 127; the others below diff_min -> -128.
  // Two values one unit of 0.5 apart: log(1 / (1 + e^-0.5)) = -0.474 -> 127 - 8 = 119, and
  // -0.974 -> 127 - 16 = 111.
  const LogSoftmaxParams p = prepare_log_softmax(1, 4, 1.0f);
  Guarded<int8_t> out(4);
  const std::vector<int8_t> uniform = {5, 5, 5, 5};
  log_softmax(p, uniform.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{105, 105, 105, 105}));
  const std::vector<int8_t> dominant = {-128, 127, -128, -128};
  log_softmax(p, dominant.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{-128, 127, -128, -128}));
  EXPECT_TRUE(out.intact());
  const LogSoftmaxParams half = prepare_log_softmax(1, 2, 0.5f);
  Guarded<int8_t> two(2);
  const std::vector<int8_t> pair = {7, 6};
  log_softmax(half, pair.data(), two.data());
  EXPECT_EQ(two.values(), (std::vector<int8_t>{119, 111}));
  EXPECT_TRUE(two.intact());
}

TEST(LogSoftmaxTest, RandomizedMatchesInt64Rederivation) {
  Random rng(17);
  for (int iter = 0; iter < 400; ++iter) {
    const int32_t rows = rng.Int(1, 4);
    const int32_t row_size = iter % 7 == 0 ? rng.Int(100, 4095) : rng.Int(1, 64);
    // Scales across the range: from differences that barely matter to ones that saturate.
    const float scale = iter % 11 == 0 ? rng.Scale(1e-7f, 1e-3f) : rng.Scale(0.002f, 2.0f);
    const LogSoftmaxParams p = prepare_log_softmax(rows, row_size, scale);
    ASSERT_TRUE(log_softmax_params_ok(p)) << "scale " << scale;
    const size_t n = static_cast<size_t>(rows) * row_size;
    const std::vector<int8_t> in = rng.Int8s(n, rng.Int(-128, 0), rng.Int(0, 127));
    Guarded<int8_t> out(n);
    log_softmax(p, in.data(), out.data());
    ASSERT_EQ(out.values(), SlowLogSoftmax(p, in)) << "iter " << iter << " scale " << scale;
    ASSERT_TRUE(out.intact());
    // And close to the real log-softmax, in steps of 1/16 from 127 (clamped at -128).
    for (int r = 0; r < rows; ++r) {
      const int8_t* row = in.data() + r * row_size;
      const double max = *std::max_element(row, row + row_size);
      double sum = 0;
      for (int c = 0; c < row_size; ++c) sum += std::exp(double{scale} * (row[c] - max));
      for (int c = 0; c < row_size; ++c) {
        const double log_prob = double{scale} * (row[c] - max) - std::log(sum);
        const double want = std::max(std::min(127.0 + 16.0 * log_prob, 127.0), -128.0);
        ASSERT_NEAR(out[r * row_size + c], want, 1.0)
            << "iter " << iter << " row " << r << " column " << c << " scale " << scale;
      }
    }
  }
}

TEST(LogSoftmaxTest, RunsInPlace) {
  Random rng(5);
  const LogSoftmaxParams p = prepare_log_softmax(3, 20, 0.07f);
  std::vector<int8_t> data = rng.Int8s(60);
  const std::vector<int8_t> want = SlowLogSoftmax(p, data);
  log_softmax(p, data.data(), data.data());
  EXPECT_EQ(data, want);
}

}  // namespace
}  // namespace mote::kernels
