// Row calls (mote/kernels/rows.h): conv2d_rows, depthwise_conv2d_rows, average_pool_rows,
// max_pool_rows and the streamed global average pool against the whole-tensor kernels, with the
// input and output held in rings the way a row-streamed stage holds them.

#include "mote/kernels/rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "conv_test_util.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/pooling.h"

namespace mote::kernels {
namespace {

using testing::Guarded;
using testing::Rng;

// ---- window_input_rows ----

// Every input row inside [0, input_h) under some tap of output rows [y_begin, y_end), brute force.
RowRange BruteRows(int32_t input_h, int32_t filter_h, int32_t stride, int32_t pad, int32_t dilation,
                   int32_t y_begin, int32_t y_end) {
  int32_t first = INT32_MAX, last = -1;
  for (int32_t y = y_begin; y < y_end; ++y) {
    for (int32_t k = 0; k < filter_h; ++k) {
      const int32_t iy = y * stride - pad + k * dilation;
      if (iy < 0 || iy >= input_h) continue;
      first = std::min(first, iy);
      last = std::max(last, iy);
    }
  }
  return last < 0 ? RowRange{0, 0} : RowRange{first, last + 1};
}

TEST(WindowInputRows, HandChecked) {
  // 3x3, stride 1, SAME (pad 1) on 8 rows: output row 0 reads rows 0..1, rows 2..4 read 1..5.
  RowRange r = window_input_rows(8, 3, 1, 1, 1, 0, 1);
  EXPECT_EQ(r.first, 0);
  EXPECT_EQ(r.end, 2);
  r = window_input_rows(8, 3, 1, 1, 1, 2, 5);
  EXPECT_EQ(r.first, 1);
  EXPECT_EQ(r.end, 6);
  EXPECT_EQ(r.count(), 5);
  // Last output row of SAME: clamped to the input.
  r = window_input_rows(8, 3, 1, 1, 1, 7, 8);
  EXPECT_EQ(r.first, 6);
  EXPECT_EQ(r.end, 8);
  // 3x3, stride 2, VALID on 9 rows: output row 1 reads rows 2..4, rows 0..3 read 0..8.
  r = window_input_rows(9, 3, 2, 0, 1, 1, 2);
  EXPECT_EQ(r.first, 2);
  EXPECT_EQ(r.end, 5);
  r = window_input_rows(9, 3, 2, 0, 1, 0, 4);
  EXPECT_EQ(r.first, 0);
  EXPECT_EQ(r.end, 9);
  // Dilation 2, pad 2: output row 0's taps are rows -2, 0, 2; row 1's -1, 1, 3.
  r = window_input_rows(10, 3, 1, 2, 2, 0, 1);
  EXPECT_EQ(r.first, 0);
  EXPECT_EQ(r.end, 3);
  r = window_input_rows(10, 3, 1, 2, 2, 1, 2);
  EXPECT_EQ(r.first, 1);
  EXPECT_EQ(r.end, 4);
  // A later output row may read an earlier row than an earlier one (dilation inside the padding):
  // taps of row 0 are -2, 1; of row 1, -1, 2; of row 2, 0, 3.
  r = window_input_rows(10, 2, 1, 2, 3, 0, 3);
  EXPECT_EQ(r.first, 0);
  EXPECT_EQ(r.end, 4);
  // Nothing inside, and nonsense.
  EXPECT_EQ(window_input_rows(4, 1, 1, 2, 1, 0, 2).count(), 0);
  EXPECT_EQ(window_input_rows(4, 3, 0, 0, 1, 0, 2).count(), 0);
  EXPECT_EQ(window_input_rows(4, 3, 1, 0, 1, 2, 2).count(), 0);
}

TEST(WindowInputRows, MatchesBruteForce) {
  Rng rng(15);
  for (int i = 0; i < 3000; ++i) {
    const int32_t input_h = rng.Uniform(1, 30), filter_h = rng.Uniform(1, 7);
    const int32_t stride = rng.Uniform(1, 3), dilation = rng.Uniform(1, 4);
    const int32_t pad = rng.Uniform(0, (filter_h - 1) * dilation + 1);
    const int32_t output_h = rng.Uniform(1, 30);
    const int32_t y_begin = rng.Uniform(0, output_h - 1);
    const int32_t y_end = rng.Uniform(y_begin + 1, output_h);
    const RowRange want = BruteRows(input_h, filter_h, stride, pad, dilation, y_begin, y_end);
    const RowRange got = window_input_rows(input_h, filter_h, stride, pad, dilation, y_begin, y_end);
    ASSERT_EQ(got.first, want.first) << i;
    ASSERT_EQ(got.end, want.end) << i;
  }
}

}  // namespace
}  // namespace mote::kernels
