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
#include "rows_test_util.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/depthwise_conv.h"
#include "mote/kernels/pooling.h"

namespace mote::kernels {
namespace {

using testing::Guarded;
using testing::kSentinel;
using testing::PickPadding;
using testing::RandomRanges;
using testing::Rng;
using testing::RowOp;
using testing::StreamAll;

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

// ---- conv2d_rows ----

TEST(Conv2dRows, RandomShapesStreamedEqualWholeTensor) {
  Rng rng(1501);
  for (int i = 0; i < 120; ++i) {
    ConvShape s{};
    s.batches = 1;
    s.input_h = rng.Uniform(1, 14);
    s.input_w = rng.Uniform(1, 9);
    const int32_t groups = rng.Chance(20) ? rng.Uniform(2, 3) : 1;
    s.filter_c = rng.Uniform(1, 5);
    s.input_c = s.filter_c * groups;
    s.output_c = groups * rng.Uniform(1, 5);
    const int kind = rng.Uniform(0, 5);
    s.filter_h = kind == 0 ? 1 : kind == 1 ? 5 : kind == 2 ? rng.Uniform(1, 4) : 3;
    s.filter_w = kind == 0 ? 1 : kind == 1 ? 5 : kind == 2 ? rng.Uniform(1, 4) : 3;
    s.stride_h = rng.Uniform(1, 2);
    s.stride_w = rng.Uniform(1, 2);
    s.dilation_h = rng.Chance(25) ? 2 : 1;
    s.dilation_w = rng.Chance(25) ? 2 : 1;
    PickPadding(rng, s.input_h, s.filter_h, s.stride_h, s.dilation_h, &s.pad_h, &s.output_h);
    PickPadding(rng, s.input_w, s.filter_w, s.stride_w, s.dilation_w, &s.pad_w, &s.output_w);
    if (s.output_h < 1 || s.output_w < 1) continue;
    const std::vector<int8_t> input = rng.Int8s(static_cast<size_t>(s.input_h) * s.input_w * s.input_c);
    const std::vector<int8_t> filter =
        rng.Int8s(static_cast<size_t>(s.output_c) * s.filter_h * s.filter_w * s.filter_c);
    const std::vector<int32_t> bias = rng.Int32s(s.output_c, -5000, 5000);
    const std::vector<int32_t> mult = rng.Multipliers(s.output_c);
    const std::vector<int32_t> shift = rng.Shifts(s.output_c, -9, -5);
    ConvParams p{};
    p.shape = s;
    p.input_offset = rng.Uniform(-127, 128);
    p.output_offset = rng.Uniform(-20, 20);
    p.act_min = -128;
    p.act_max = 127;
    p.output_multiplier = mult.data();
    p.output_shift = shift.data();
    // Every path: pointwise or two columns, one column, none (direct).
    const size_t two = portable_conv_scratch_bytes(s);
    const size_t col = static_cast<size_t>(s.filter_h) * s.filter_w * s.filter_c * 2;
    for (const size_t scratch_bytes : {two, col, size_t{0}}) {
      std::vector<int8_t> scratch_mem(scratch_bytes + 1);
      const Scratch scratch{scratch_bytes == 0 ? nullptr : scratch_mem.data(), scratch_bytes};
      std::vector<int8_t> want(static_cast<size_t>(s.output_h) * s.output_w * s.output_c);
      conv2d(p, input.data(), filter.data(), bias.data(), want.data(), scratch);
      const RowOp op{s.input_h, s.output_h,
                     static_cast<size_t>(s.input_w) * s.input_c,
                     static_cast<size_t>(s.output_w) * s.output_c,
                     s.filter_h, s.stride_h, s.pad_h, s.dilation_h,
                     [&](const int8_t* in, RowRing ir, int8_t* out, RowRing orr, int32_t b, int32_t e) {
                       conv2d_rows(p, in, ir, filter.data(), bias.data(), out, orr, b, e, scratch);
                     }};
      StreamAll(op, input, want, rng,
                "conv case " + std::to_string(i) + " scratch " + std::to_string(scratch_bytes));
      if (HasFatalFailure()) return;
    }
  }
}

// ---- depthwise_conv2d_rows ----

TEST(DepthwiseConv2dRows, RandomShapesStreamedEqualWholeTensor) {
  Rng rng(1502);
  for (int i = 0; i < 150; ++i) {
    DepthwiseShape s{};
    s.batches = 1;
    s.input_h = rng.Uniform(1, 14);
    s.input_w = rng.Uniform(1, 9);
    s.input_c = rng.Chance(30) ? rng.Uniform(16, 40) : rng.Uniform(1, 9);
    const int32_t m = rng.Chance(30) ? rng.Uniform(2, 3) : 1;
    s.output_c = s.input_c * m;
    const int kind = rng.Uniform(0, 4);
    s.filter_h = kind == 0 ? 5 : kind == 1 ? rng.Uniform(1, 4) : 3;
    s.filter_w = kind == 0 ? 5 : kind == 1 ? rng.Uniform(1, 4) : 3;
    s.stride_h = rng.Uniform(1, 2);
    s.stride_w = rng.Uniform(1, 2);
    s.dilation_h = rng.Chance(25) ? rng.Uniform(2, 3) : 1;
    s.dilation_w = rng.Chance(25) ? 2 : 1;
    PickPadding(rng, s.input_h, s.filter_h, s.stride_h, s.dilation_h, &s.pad_h, &s.output_h);
    PickPadding(rng, s.input_w, s.filter_w, s.stride_w, s.dilation_w, &s.pad_w, &s.output_w);
    if (s.output_h < 1 || s.output_w < 1) continue;
    const std::vector<int8_t> input = rng.Int8s(static_cast<size_t>(s.input_h) * s.input_w * s.input_c);
    const std::vector<int8_t> filter =
        rng.Int8s(static_cast<size_t>(s.filter_h) * s.filter_w * s.output_c);
    const std::vector<int32_t> bias = rng.Int32s(s.output_c, -5000, 5000);
    const std::vector<int32_t> mult = rng.Multipliers(s.output_c);
    const std::vector<int32_t> shift = rng.Shifts(s.output_c, -8, -4);
    DepthwiseConvParams p{};
    p.shape = s;
    p.input_offset = rng.Uniform(-127, 128);
    p.output_offset = rng.Uniform(-20, 20);
    p.act_min = rng.Chance(30) ? 0 : -128;
    p.act_max = 127;
    p.output_multiplier = mult.data();
    p.output_shift = shift.data();
    std::vector<int8_t> want(static_cast<size_t>(s.output_h) * s.output_w * s.output_c);
    depthwise_conv2d(p, input.data(), filter.data(), bias.data(), want.data(), Scratch{nullptr, 0});
    const RowOp op{s.input_h, s.output_h,
                   static_cast<size_t>(s.input_w) * s.input_c,
                   static_cast<size_t>(s.output_w) * s.output_c,
                   s.filter_h, s.stride_h, s.pad_h, s.dilation_h,
                   [&](const int8_t* in, RowRing ir, int8_t* out, RowRing orr, int32_t b, int32_t e) {
                     depthwise_conv2d_rows(p, in, ir, filter.data(), bias.data(), out, orr, b, e,
                                           Scratch{nullptr, 0});
                   }};
    StreamAll(op, input, want, rng, "depthwise case " + std::to_string(i));
    if (HasFatalFailure()) return;
  }
}

// ---- average_pool_rows, max_pool_rows ----

TEST(PoolRows, RandomShapesStreamedEqualWholeTensor) {
  Rng rng(1503);
  for (int i = 0; i < 150; ++i) {
    const int32_t h = rng.Uniform(1, 14), w = rng.Uniform(1, 9), c = rng.Uniform(1, 11);
    const int32_t fh = rng.Uniform(1, 5), fw = rng.Uniform(1, 5);
    const int32_t sh = rng.Uniform(1, 3), sw = rng.Uniform(1, 3);
    const bool same = rng.Chance(50) || h < fh || w < fw;
    const int32_t act_min = rng.Chance(30) ? rng.Uniform(-128, 0) : -128;
    const int32_t act_max = rng.Chance(30) ? rng.Uniform(0, 127) : 127;
    const PoolParams p = prepare_pool(1, h, w, c, fh, fw, sh, sw, same, act_min, act_max);
    if (p.output_h < 1 || p.output_w < 1) continue;
    const std::vector<int8_t> input = rng.Int8s(static_cast<size_t>(h) * w * c);
    const size_t out_bytes = static_cast<size_t>(p.output_h) * p.output_w * c;
    std::vector<int8_t> want_avg(out_bytes), want_max(out_bytes);
    average_pool(p, input.data(), want_avg.data(), Scratch{nullptr, 0});
    max_pool(p, input.data(), want_max.data());
    RowOp op{h, p.output_h, static_cast<size_t>(w) * c, static_cast<size_t>(p.output_w) * c,
             fh, sh, p.pad_h, 1,
             [&](const int8_t* in, RowRing ir, int8_t* out, RowRing orr, int32_t b, int32_t e) {
               average_pool_rows(p, in, ir, out, orr, b, e, Scratch{nullptr, 0});
             }};
    StreamAll(op, input, want_avg, rng, "average pool case " + std::to_string(i));
    if (HasFatalFailure()) return;
    op.call = [&](const int8_t* in, RowRing ir, int8_t* out, RowRing orr, int32_t b, int32_t e) {
      max_pool_rows(p, in, ir, out, orr, b, e);
    };
    StreamAll(op, input, want_max, rng, "max pool case " + std::to_string(i));
    if (HasFatalFailure()) return;
  }
}

// ---- the streamed global average pool ----

TEST(GlobalAveragePoolRows, StreamedEqualsAveragePool) {
  Rng rng(1504);
  for (int i = 0; i < 200; ++i) {
    const int32_t h = rng.Uniform(1, 20), w = rng.Uniform(1, 20), c = rng.Uniform(1, 40);
    const int32_t act_min = rng.Chance(30) ? rng.Uniform(-128, 0) : -128;
    const int32_t act_max = rng.Chance(30) ? rng.Uniform(0, 127) : 127;
    const PoolParams p = prepare_pool(1, h, w, c, h, w, 1, 1, false, act_min, act_max);
    ASSERT_TRUE(global_average_pool_streams(p));
    // Inputs leaning one way, so that sums are large and rounding of both signs is exercised.
    std::vector<int8_t> input = rng.Int8s(static_cast<size_t>(h) * w * c);
    const int lean = rng.Uniform(-1, 1);
    for (auto& v : input) v = static_cast<int8_t>(std::clamp(v + lean * 100, -128, 127));
    std::vector<int8_t> want(c);
    average_pool(p, input.data(), want.data(), Scratch{nullptr, 0});
    const auto ranges = RandomRanges(rng, h);
    int32_t ring = 0;
    for (const auto& [b, e] : ranges) ring = std::max(ring, e - b);
    if (rng.Chance(30)) ring = 0;  // the whole map
    const size_t row_bytes = static_cast<size_t>(w) * c;
    Guarded in(static_cast<size_t>(ring > 0 ? ring : h) * row_bytes);
    std::vector<int32_t> sums(c, 0x12345678);  // never cleared by the caller
    for (const auto& [b, e] : ranges) {
      std::fill(in.data(), in.data() + in.size(), static_cast<int8_t>(rng.Uniform(-128, 127)));
      for (int32_t r = b; r < e; ++r) {
        std::copy_n(input.begin() + r * row_bytes, row_bytes,
                    in.data() + (ring > 0 ? r % ring : r) * row_bytes);
      }
      global_average_pool_accumulate(p, in.data(), RowRing{ring}, b, e, sums.data());
    }
    Guarded out(static_cast<size_t>(c));
    global_average_pool_finish(p, sums.data(), out.data());
    ASSERT_EQ(out.contents(), want) << "case " << i << " " << h << "x" << w << "x" << c;
    ASSERT_TRUE(out.Intact());
  }
}

TEST(GlobalAveragePoolRows, RefusesOtherPools) {
  std::vector<int32_t> sums(4, 7);
  const std::vector<int8_t> input(64, 1);
  PoolParams p = prepare_pool(1, 4, 4, 4, 3, 3, 1, 1, false, -128, 127);  // not global
  EXPECT_FALSE(global_average_pool_streams(p));
  global_average_pool_accumulate(p, input.data(), RowRing{0}, 0, 4, sums.data());
  EXPECT_EQ(sums, std::vector<int32_t>(4, 7));
  p = prepare_pool(2, 2, 2, 4, 2, 2, 1, 1, false, -128, 127);  // two batches
  EXPECT_FALSE(global_average_pool_streams(p));
  p = prepare_pool(1, 4, 2, 2, 4, 2, 1, 1, false, -128, 127);
  EXPECT_TRUE(global_average_pool_streams(p));
  // A ring smaller than the range, and a range past the input.
  global_average_pool_accumulate(p, input.data(), RowRing{2}, 0, 3, sums.data());
  global_average_pool_accumulate(p, input.data(), RowRing{0}, 2, 5, sums.data());
  EXPECT_EQ(sums, std::vector<int32_t>(4, 7));
}

// ---- refusals ----

TEST(RowCalls, RefuseWithoutWriting) {
  Rng rng(1505);
  DepthwiseShape s{1, 8, 4, 2, 3, 3, 8, 4, 2, 1, 1, 1, 1, 1, 1};
  const std::vector<int8_t> input = rng.Int8s(8 * 4 * 2), filter = rng.Int8s(9 * 2);
  const std::vector<int32_t> mult = rng.Multipliers(2), shift = rng.Shifts(2, -8, -4);
  DepthwiseConvParams p{s, 0, 0, -128, 127, mult.data(), shift.data()};
  Guarded out(8 * 4 * 2, kSentinel);
  const auto refused = [&](const DepthwiseConvParams& params, RowRing ir, RowRing orr, int32_t b,
                           int32_t e) {
    depthwise_conv2d_rows(params, input.data(), ir, filter.data(), nullptr, out.data(), orr, b, e,
                          Scratch{nullptr, 0});
    const auto c = out.contents();
    return out.Intact() && std::all_of(c.begin(), c.end(), [](int8_t v) { return v == kSentinel; });
  };
  EXPECT_TRUE(refused(p, RowRing{0}, RowRing{0}, 3, 3)) << "empty range";
  EXPECT_TRUE(refused(p, RowRing{0}, RowRing{0}, -1, 2)) << "negative start";
  EXPECT_TRUE(refused(p, RowRing{0}, RowRing{0}, 6, 9)) << "past the output";
  EXPECT_TRUE(refused(p, RowRing{0}, RowRing{2}, 0, 3)) << "output ring smaller than the range";
  EXPECT_TRUE(refused(p, RowRing{3}, RowRing{0}, 2, 4)) << "input ring smaller than the window";
  DepthwiseConvParams two = p;
  two.shape.batches = 2;
  EXPECT_TRUE(refused(two, RowRing{0}, RowRing{0}, 0, 1)) << "two batches";
  DepthwiseConvParams tall = p;  // 17 filter rows: too many to look up, ring or whole map
  tall.shape.filter_h = kMaxRowWindowRows + 1;
  tall.shape.pad_h = 8;
  const std::vector<int8_t> tall_filter = rng.Int8s(static_cast<size_t>(17) * 3 * 2);
  depthwise_conv2d_rows(tall, input.data(), RowRing{8}, tall_filter.data(), nullptr, out.data(),
                        RowRing{0}, 0, 1, Scratch{nullptr, 0});
  auto c = out.contents();
  EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](int8_t v) { return v == kSentinel; }));
  depthwise_conv2d_rows(tall, input.data(), RowRing{0}, tall_filter.data(), nullptr, out.data(),
                        RowRing{0}, 0, 1, Scratch{nullptr, 0});
  c = out.contents();
  EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](int8_t v) { return v == kSentinel; }));
  // 16 rows are fine.
  tall.shape.filter_h = kMaxRowWindowRows;
  depthwise_conv2d_rows(tall, input.data(), RowRing{8}, tall_filter.data(), nullptr, out.data(),
                        RowRing{0}, 0, 1, Scratch{nullptr, 0});
  c = out.contents();
  EXPECT_FALSE(std::all_of(c.begin(), c.begin() + 8, [](int8_t v) { return v == kSentinel; }));
  // Conv and pool refuse likewise.
  ConvShape cs{1, 8, 4, 2, 3, 3, 2, 8, 4, 2, 1, 1, 1, 1, 1, 1};
  const std::vector<int8_t> conv_filter = rng.Int8s(2 * 9 * 2);
  ConvParams cp{};
  cp.shape = cs;
  cp.act_min = -128;
  cp.act_max = 127;
  cp.output_multiplier = mult.data();
  cp.output_shift = shift.data();
  Guarded out2(8 * 4 * 2, kSentinel);
  conv2d_rows(cp, input.data(), RowRing{2}, conv_filter.data(), nullptr, out2.data(), RowRing{0},
              1, 2, Scratch{nullptr, 0});
  c = out2.contents();
  EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](int8_t v) { return v == kSentinel; }));
  const PoolParams pp = prepare_pool(1, 8, 4, 2, 3, 3, 1, 1, true, -128, 127);
  max_pool_rows(pp, input.data(), RowRing{0}, out2.data(), RowRing{1}, 0, 2);
  average_pool_rows(pp, input.data(), RowRing{2}, out2.data(), RowRing{0}, 3, 4,
                    Scratch{nullptr, 0});
  c = out2.contents();
  EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](int8_t v) { return v == kSentinel; }));
}

}  // namespace
}  // namespace mote::kernels
