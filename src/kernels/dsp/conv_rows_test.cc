// dsp::conv2d_rows (on the emulated instructions here) streamed in row ranges through rings against
// the portable whole-tensor kernel, bit for bit, on both dsp paths (1x1 and im2col) and the shapes
// it hands to portable; its refusals; and conv2d_rows of the dsp library runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dsp/kernels.h"
#include "mote/kernels/conv.h"
#include "portable/rows_test_util.h"

namespace mote::kernels {
namespace {

using testing::Guarded;
using testing::kSentinel;
using testing::PickPadding;
using testing::Rng;
using testing::RowOp;
using testing::StreamAll;

using ConvRowsKernel = void (*)(const ConvParams&, const int8_t*, RowRing, const int8_t*,
                                const int32_t*, int8_t*, RowRing, int32_t, int32_t, Scratch);

// The filter shapes of the models' streamed stages and a few others: 1x1 strides 1 and 2, 3x3
// strides 1 and 2, keyword spotting's 10x4 stride 2, random sizes, 5x5.
ConvShape RandomShape(Rng& rng) {
  ConvShape s{};
  s.batches = 1;
  const int kind = rng.Uniform(0, 5);
  s.input_h = rng.Uniform(1, 14);
  s.input_w = rng.Uniform(1, 11);
  // Channel counts around the assembly's thresholds (1x1: 32; im2col: groups of eight), not
  // always multiples of four.
  s.input_c = rng.Chance(40) ? rng.Uniform(28, 40) : rng.Uniform(1, 9);
  s.output_c = rng.Uniform(1, 7);
  s.stride_h = rng.Uniform(1, 2);
  s.stride_w = rng.Uniform(1, 2);
  s.dilation_h = s.dilation_w = 1;
  if (kind == 0) {
    s.filter_h = s.filter_w = 1;
  } else if (kind == 1) {
    s.filter_h = s.filter_w = 3;
  } else if (kind == 2) {  // keyword spotting's first layer: 10x4, stride 2, one channel
    s.filter_h = 10;
    s.filter_w = 4;
    s.stride_h = s.stride_w = 2;
    s.input_h = rng.Uniform(10, 30);
    s.input_w = rng.Uniform(4, 11);
    s.input_c = rng.Uniform(1, 2);
  } else if (kind == 3) {
    s.filter_h = rng.Uniform(1, 4);
    s.filter_w = rng.Uniform(1, 4);
    s.dilation_h = rng.Chance(25) ? 2 : 1;
    s.dilation_w = rng.Chance(25) ? 2 : 1;
  } else {
    s.filter_h = s.filter_w = 5;
  }
  s.filter_c = s.input_c;
  PickPadding(rng, s.input_h, s.filter_h, s.stride_h, s.dilation_h, &s.pad_h, &s.output_h);
  PickPadding(rng, s.input_w, s.filter_w, s.stride_w, s.dilation_w, &s.pad_w, &s.output_w);
  return s;
}

void StreamRandomConv(uint32_t seed, int cases, ConvRowsKernel rows_kernel) {
  Rng rng(seed);
  for (int i = 0; i < cases; ++i) {
    ConvShape s = RandomShape(rng);
    const bool grouped = rng.Chance(10) && s.input_c % 2 == 0;
    if (grouped) s.filter_c = s.input_c / 2, s.output_c = 2 * rng.Uniform(1, 3);
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
    p.act_min = rng.Chance(30) ? 0 : -128;
    p.act_max = 127;
    p.output_multiplier = mult.data();
    p.output_shift = shift.data();
    const size_t scratch_bytes = dsp::conv_scratch_bytes(s);
    std::vector<int16_t> scratch_mem(scratch_bytes / 2 + 1);  // 2-byte aligned
    const Scratch scratch{reinterpret_cast<int8_t*>(scratch_mem.data()), scratch_bytes};
    std::vector<int8_t> want(static_cast<size_t>(s.output_h) * s.output_w * s.output_c);
    portable_conv2d(p, input.data(), filter.data(), bias.data(), want.data(), scratch);
    const RowOp op{s.input_h, s.output_h,
                   static_cast<size_t>(s.input_w) * s.input_c,
                   static_cast<size_t>(s.output_w) * s.output_c,
                   s.filter_h, s.stride_h, s.pad_h, s.dilation_h,
                   [&](const int8_t* in, RowRing ir, int8_t* out, RowRing orr, int32_t b, int32_t e) {
                     rows_kernel(p, in, ir, filter.data(), bias.data(), out, orr, b, e, scratch);
                   }};
    StreamAll(op, input, want, rng, "dsp conv case " + std::to_string(i));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(DspConvRows, StreamedEqualPortableWholeTensor) {
  StreamRandomConv(1521, 300, &dsp::conv2d_rows);
}

TEST(DspConvRows, TheDspLibraryRunsThem) { StreamRandomConv(1522, 40, &conv2d_rows); }

// Keyword spotting's first layer at its size (49x10x1, 10x4 stride 2, SAME: 25x5x64), one output
// row per call through the smallest ring: most windows wrap past the ring's last slot.
TEST(DspConvRows, KeywordSpottingFirstLayer) {
  Rng rng(1523);
  ConvShape s{1, 49, 10, 1, 10, 4, 1, 25, 5, 64, 2, 2, 4, 1, 1, 1};
  const std::vector<int8_t> input = rng.Int8s(49 * 10);
  const std::vector<int8_t> filter = rng.Int8s(64 * 40);
  const std::vector<int32_t> bias = rng.Int32s(64, -5000, 5000);
  const std::vector<int32_t> mult = rng.Multipliers(64), shift = rng.Shifts(64, -9, -5);
  ConvParams p{s, 83, -10, -128, 127, mult.data(), shift.data()};
  std::vector<int16_t> scratch_mem(dsp::conv_scratch_bytes(s) / 2);
  const Scratch scratch{reinterpret_cast<int8_t*>(scratch_mem.data()), scratch_mem.size() * 2};
  std::vector<int8_t> want(25 * 5 * 64);
  portable_conv2d(p, input.data(), filter.data(), bias.data(), want.data(), scratch);
  const RowOp op{49, 25, 10, 5 * 64, 10, 2, 4, 1,
                 [&](const int8_t* in, RowRing ir, int8_t* out, RowRing orr, int32_t b, int32_t e) {
                   dsp::conv2d_rows(p, in, ir, filter.data(), bias.data(), out, orr, b, e, scratch);
                 }};
  std::vector<std::pair<int32_t, int32_t>> ranges;
  for (int32_t y = 0; y < 25; ++y) ranges.push_back({y, y + 1});
  testing::Stream(op, input, want, ranges, 10, 1, rng, "kws 10-row ring");
  testing::Stream(op, input, want, ranges, 11, 2, rng, "kws 11-row ring");
}

// A filter taller than the row table (kMaxRowWindowRows) goes to portable, whole tensor too (an
// audio model's 1-D convolution over time, say): the im2col path would write past its table.
TEST(DspConvRows, TallFiltersRunPortable) {
  Rng rng(1525);
  constexpr int32_t kTall = kMaxRowWindowRows + 4;
  ConvShape s{1, 30, 3, 4, kTall, 2, 4, 11, 2, 5, 1, 1, 0, 0, 1, 1};
  EXPECT_FALSE(dsp::conv_handles(s));
  const std::vector<int8_t> input = rng.Int8s(30 * 3 * 4);
  const std::vector<int8_t> filter = rng.Int8s(5 * kTall * 2 * 4);
  const std::vector<int32_t> bias = rng.Int32s(5, -5000, 5000);
  const std::vector<int32_t> mult = rng.Multipliers(5), shift = rng.Shifts(5, -9, -5);
  const ConvParams p{s, 7, -3, -128, 127, mult.data(), shift.data()};
  std::vector<int16_t> scratch_mem(dsp::conv_scratch_bytes(s) / 2 + 1);
  const Scratch scratch{reinterpret_cast<int8_t*>(scratch_mem.data()), scratch_mem.size() * 2};
  std::vector<int8_t> want(11 * 2 * 5), got(11 * 2 * 5, kSentinel);
  portable_conv2d(p, input.data(), filter.data(), bias.data(), want.data(), scratch);
  dsp::conv2d(p, input.data(), filter.data(), bias.data(), got.data(), scratch);
  EXPECT_EQ(got, want);
}

// Where portable refuses, the dsp kernel writes nothing either, on its own paths (enough scratch).
TEST(DspConvRows, RefuseWithoutWriting) {
  Rng rng(1524);
  const std::vector<int8_t> input = rng.Int8s(8 * 4 * 2), filter = rng.Int8s(2 * 9 * 2);
  const std::vector<int32_t> mult = rng.Multipliers(2), shift = rng.Shifts(2, -8, -4);
  std::vector<int16_t> scratch_mem(64);
  const Scratch scratch{reinterpret_cast<int8_t*>(scratch_mem.data()), 128};
  for (const int32_t k : {3, 1}) {
    ConvShape s{1, 8, 4, 2, k, k, 2, 8, 4, 2, 1, 1, k / 2, k / 2, 1, 1};
    ConvParams p{s, 0, 0, -128, 127, mult.data(), shift.data()};
    Guarded out(8 * 4 * 2, kSentinel);
    const auto refused = [&](const ConvParams& params, RowRing ir, RowRing orr, int32_t b,
                             int32_t e) {
      dsp::conv2d_rows(params, input.data(), ir, filter.data(), nullptr, out.data(), orr, b, e,
                       scratch);
      const auto c = out.contents();
      return out.Intact() &&
             std::all_of(c.begin(), c.end(), [](int8_t v) { return v == kSentinel; });
    };
    const std::string label = "filter " + std::to_string(k);
    EXPECT_TRUE(refused(p, RowRing{0}, RowRing{0}, 3, 3)) << label << ": empty range";
    EXPECT_TRUE(refused(p, RowRing{0}, RowRing{0}, -1, 2)) << label << ": negative start";
    EXPECT_TRUE(refused(p, RowRing{0}, RowRing{0}, 6, 9)) << label << ": past the output";
    EXPECT_TRUE(refused(p, RowRing{0}, RowRing{2}, 0, 3)) << label << ": small output ring";
    if (k == 3) {
      EXPECT_TRUE(refused(p, RowRing{3}, RowRing{0}, 2, 4)) << label << ": small input ring";
    }
    ConvParams two = p;
    two.shape.batches = 2;
    EXPECT_TRUE(refused(two, RowRing{0}, RowRing{0}, 0, 1)) << label << ": two batches";
    EXPECT_FALSE(refused(p, RowRing{0}, RowRing{0}, 0, 1)) << label << ": a good call writes";
  }
}

}  // namespace
}  // namespace mote::kernels
