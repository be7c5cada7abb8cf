// dsp::depthwise_conv2d_rows (on the emulated instructions here) streamed in row ranges through
// rings against the portable whole-tensor kernel, bit for bit; and depthwise_conv2d_rows of the
// dsp library runs it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dsp/kernels.h"
#include "mote/kernels/depthwise_conv.h"
#include "portable/rows_test_util.h"

namespace mote::kernels {
namespace {

using testing::PickPadding;
using testing::Rng;
using testing::RowOp;
using testing::StreamAll;

void StreamRandomDepthwise(
    uint32_t seed, int cases,
    void (*rows_kernel)(const DepthwiseConvParams&, const int8_t*, RowRing, const int8_t*,
                        const int32_t*, int8_t*, RowRing, int32_t, int32_t, Scratch)) {
  Rng rng(seed);
  for (int i = 0; i < cases; ++i) {
    DepthwiseShape s{};
    s.batches = 1;
    s.input_h = rng.Uniform(1, 14);
    s.input_w = rng.Uniform(1, 9);
    s.input_c = rng.Chance(30) ? rng.Uniform(16, 40) : rng.Uniform(1, 9);
    const int32_t m = rng.Chance(30) ? rng.Uniform(2, 5) : 1;
    s.output_c = s.input_c * m;
    const int kind = rng.Uniform(0, 4);
    s.filter_h = kind == 0 ? 5 : kind == 1 ? rng.Uniform(1, 4) : 3;
    s.filter_w = kind == 0 ? 5 : kind == 1 ? rng.Uniform(1, 4) : 3;
    s.stride_h = rng.Uniform(1, 2);
    s.stride_w = rng.Uniform(1, 2);
    s.dilation_h = rng.Chance(25) ? rng.Uniform(2, 3) : 1;
    s.dilation_w = rng.Chance(25) ? 2 : 1;
    if (rng.Chance(20)) {  // one input channel (the general multiplier path here)
      s.input_c = 1;
      s.output_c = rng.Uniform(2, 12);
      s.filter_w = rng.Uniform(1, 10);
      s.dilation_w = 1;
      s.input_w = rng.Uniform(1, 16);
    }
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
    portable_depthwise_conv2d(p, input.data(), filter.data(), bias.data(), want.data(),
                              Scratch{nullptr, 0});
    // The planned scratch, then guard bytes the kernel must not touch.
    const size_t planned = dsp::depthwise_conv_scratch_bytes(s);
    std::vector<int8_t> scratch(planned + 16, 0x5a);
    const RowOp op{s.input_h, s.output_h,
                   static_cast<size_t>(s.input_w) * s.input_c,
                   static_cast<size_t>(s.output_w) * s.output_c,
                   s.filter_h, s.stride_h, s.pad_h, s.dilation_h,
                   [&](const int8_t* in, RowRing ir, int8_t* out, RowRing orr, int32_t b, int32_t e) {
                     rows_kernel(p, in, ir, filter.data(), bias.data(), out, orr, b, e,
                                 Scratch{scratch.data(), planned});
                   }};
    StreamAll(op, input, want, rng, "dsp depthwise case " + std::to_string(i));
    EXPECT_EQ(std::vector<int8_t>(scratch.begin() + planned, scratch.end()),
              std::vector<int8_t>(16, 0x5a));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(DspDepthwiseRows, StreamedEqualPortableWholeTensor) {
  StreamRandomDepthwise(1511, 200, &dsp::depthwise_conv2d_rows);
}

TEST(DspDepthwiseRows, TheDspLibraryRunsThem) {
  StreamRandomDepthwise(1512, 40, &depthwise_conv2d_rows);
}

}  // namespace
}  // namespace mote::kernels
