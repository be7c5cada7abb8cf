// Every reference value of shared/design/FACTS.md section 1 (CMSIS-NN's buffer sizes), plus the
// dispatch edges that decide which formula applies.

#include "mote/kernels/cmsis_nn_scratch.h"

#include <gtest/gtest.h>

#include <string>

namespace mote::kernels::cmsis_nn {
namespace {

constexpr Extension kScalar = Extension::kScalar;
constexpr Extension kDsp = Extension::kDsp;
constexpr Extension kMve = Extension::kMve;

// n,h,w,ci / co,kh,kw,cf / ho,wo / stride / pad, dilation 1.
ConvShape Conv(int32_t h, int32_t w, int32_t ci, int32_t co, int32_t kh, int32_t kw, int32_t cf,
               int32_t ho, int32_t wo, int32_t sh, int32_t sw, int32_t ph, int32_t pw) {
  return ConvShape{1, h, w, ci, kh, kw, cf, ho, wo, co, sh, sw, ph, pw, 1, 1};
}

DepthwiseShape Depthwise(int32_t h, int32_t w, int32_t ci, int32_t mult, int32_t k, int32_t pad,
                         int32_t stride) {
  const int32_t out = (h + 2 * pad - k) / stride + 1;
  return DepthwiseShape{1, h, w, ci, k, k, out, out, ci * mult, stride, stride, pad, pad, 1, 1};
}

void ExpectConv(const ConvShape& s, size_t scalar, size_t dsp, size_t mve) {
  EXPECT_EQ(cmsis_nn::conv_scratch_bytes(s, kScalar), scalar);
  EXPECT_EQ(cmsis_nn::conv_scratch_bytes(s, kDsp), dsp);
  EXPECT_EQ(cmsis_nn::conv_scratch_bytes(s, kMve), mve);
}

TEST(ConvScratch, FactsTable) {
  // in 1x32x32x3, filter 16x3x3x3, pad 1, stride 1.
  ExpectConv(Conv(32, 32, 3, 16, 3, 3, 3, 32, 32, 1, 1, 1, 1), 112, 112, 128);
  // in 1x32x32x16, filter 32x3x3x16, pad 1, stride 2.
  ExpectConv(Conv(32, 32, 16, 32, 3, 3, 16, 16, 16, 2, 2, 1, 1), 576, 576, 576);
  // 1x1 in 1x16x16x32, filter 64x1x1x32, stride 1 or 2.
  ExpectConv(Conv(16, 16, 32, 64, 1, 1, 32, 16, 16, 1, 1, 0, 0), 0, 0, 0);
  ExpectConv(Conv(16, 16, 32, 64, 1, 1, 32, 8, 8, 2, 2, 0, 0), 0, 0, 0);
  // 1xN in 1x1x49x10, filter 64x1x10x10, SAME, stride 2 (Wo 25, pw 4).
  ExpectConv(Conv(1, 49, 10, 64, 1, 10, 10, 1, 25, 1, 2, 0, 4), 400, 400, 140);
  // 1xN in 1x1x32x8, filter 16x1x3x8, pad 1, stride 1.
  ExpectConv(Conv(1, 32, 8, 16, 1, 3, 8, 1, 32, 1, 1, 0, 1), 96, 96, 32);
  // Keyword spotting's first layer: in 1x49x10x1, filter 64x10x4x1, pad (4,1), stride 2.
  ExpectConv(Conv(49, 10, 1, 64, 10, 4, 1, 25, 5, 2, 2, 4, 1), 160, 160, 192);
  // in 1x8x8x16, filter 8x3x3x16, no pad, stride 1 (MVE 576).
  EXPECT_EQ(cmsis_nn::conv_scratch_bytes(Conv(8, 8, 16, 8, 3, 3, 16, 6, 6, 1, 1, 0, 0), kMve), 576u);
}

TEST(ConvScratch, DispatchEdges) {
  // A 1x1 kernel with padding is not the 1x1 kernel: generic im2col, round_up(1*1*8, 4) = 8.
  ExpectConv(Conv(4, 4, 8, 4, 1, 1, 8, 6, 6, 1, 1, 1, 1), 32, 32, 64);
  // Dilation disqualifies 1x1 too.
  ConvShape dilated = Conv(4, 4, 8, 4, 1, 1, 8, 4, 4, 1, 1, 0, 0);
  dilated.dilation_h = 2;
  EXPECT_EQ(cmsis_nn::conv_scratch_bytes(dilated, kScalar), 32u);
  // Grouped 1x1 (Ci != Cf) uses the generic formula sized with Ci: round_up(8,4)*4 = 32; MVE 64.
  ExpectConv(Conv(4, 4, 8, 4, 1, 1, 4, 4, 4, 1, 1, 0, 0), 32, 32, 64);
  // Generic rounding: 3x3x5 = 45 -> 48 -> 192 bytes; MVE ceil(45/16) = 3 -> 192.
  ExpectConv(Conv(8, 8, 5, 4, 3, 3, 5, 8, 8, 1, 1, 1, 1), 192, 192, 192);
  // 1xN needs (stride_w * Ci) % 4 == 0: Ci 3 stride 1 is generic on MVE too (3*3 = 9 -> 64).
  ExpectConv(Conv(1, 16, 3, 4, 1, 3, 3, 1, 16, 1, 1, 0, 1), 48, 48, 64);
  // ... and Ci 2 stride 2 qualifies: Kw*Ci + pw*Ci = 6 + 2 = 8 versus (Kw-1)*Ci + pw*Ci = 6.
  ExpectConv(Conv(1, 16, 2, 4, 1, 3, 2, 1, 8, 1, 2, 0, 1), 32, 32, 8);
  // 1xN without padding: max(Kw*Ci, (Kw-1)*Ci) = Kw*Ci.
  EXPECT_EQ(cmsis_nn::conv_scratch_bytes(Conv(1, 16, 4, 4, 1, 3, 4, 1, 14, 1, 1, 0, 0), kMve), 12u);
  // 1xN with the odd total padding on the right: tp = 15*1+4-16 = 3, a = 1, R = 2, L = 1:
  // max(4*4 + 1*4, 3*4 + 2*4) = 20.
  EXPECT_EQ(cmsis_nn::conv_scratch_bytes(Conv(1, 16, 4, 4, 1, 4, 4, 1, 16, 1, 1, 0, 1), kMve), 20u);
  // 1xN whose split does not add up (output narrower than its padded parts) falls back to generic:
  // Wi 1, Kw 3, pw 1, Wo 1: R = 1, L = 1, 2 != 1 -> 4*16*ceil(12/16) = 64.
  EXPECT_EQ(cmsis_nn::conv_scratch_bytes(Conv(1, 1, 4, 4, 1, 3, 4, 1, 1, 1, 1, 0, 1), kMve), 64u);
  // Input height 2 is not 1xN.
  EXPECT_EQ(cmsis_nn::conv_scratch_bytes(Conv(2, 16, 4, 4, 1, 3, 4, 2, 14, 1, 1, 0, 0), kMve), 64u);
}

void ExpectDepthwise(const DepthwiseShape& s, size_t scalar, size_t dsp, size_t mve) {
  EXPECT_EQ(cmsis_nn::depthwise_conv_scratch_bytes(s, kScalar), scalar);
  EXPECT_EQ(cmsis_nn::depthwise_conv_scratch_bytes(s, kDsp), dsp);
  EXPECT_EQ(cmsis_nn::depthwise_conv_scratch_bytes(s, kMve), mve);
}

TEST(DepthwiseScratch, FactsTable) {
  ExpectDepthwise(Depthwise(16, 16, 32, 1, 3, 1, 1), 0, 0, 4464);
  ExpectDepthwise(Depthwise(16, 16, 32, 1, 5, 2, 1), 0, 1600, 12400);
  ExpectDepthwise(Depthwise(16, 16, 32, 2, 3, 1, 1), 0, 0, 0);
  ExpectDepthwise(Depthwise(16, 16, 1, 8, 3, 1, 1), 0, 0, 136);
}

TEST(DepthwiseScratch, DispatchEdges) {
  // 3x3 with padding 2 needs the DSP buffer: 32*9*2.
  ExpectDepthwise(Depthwise(16, 16, 32, 1, 3, 2, 1), 0, 576, 4464);
  // Batches, dilation: no optimized kernel, no buffer.
  DepthwiseShape batched = Depthwise(16, 16, 32, 1, 5, 2, 1);
  batched.batches = 2;
  ExpectDepthwise(batched, 0, 0, 0);
  DepthwiseShape dilated = Depthwise(16, 16, 32, 1, 5, 2, 1);
  dilated.dilation_w = 2;
  ExpectDepthwise(dilated, 0, 0, 0);
  // One input channel to one output channel is the ordinary Ci == Co case.
  ExpectDepthwise(Depthwise(16, 16, 1, 1, 3, 1, 1), 0, 0, 4464);
  // One input channel, 1x1 kernel, 8 outputs: the convolution is a 1x1 (0) plus the 8-byte filter.
  ExpectDepthwise(Depthwise(16, 16, 1, 8, 1, 0, 1), 0, 0, 8);
  // One input channel with batches still converts on MVE (the conversion has no batch test).
  DepthwiseShape one_in = Depthwise(16, 16, 1, 8, 3, 1, 1);
  one_in.batches = 3;
  ExpectDepthwise(one_in, 0, 0, 136);
}

TEST(FullyConnectedScratch, FactsTable) {
  EXPECT_EQ(cmsis_nn::fully_connected_buffer_bytes(10, kScalar), 0u);
  EXPECT_EQ(cmsis_nn::fully_connected_buffer_bytes(10, kDsp), 0u);
  EXPECT_EQ(cmsis_nn::fully_connected_buffer_bytes(10, kMve), 40u);
  EXPECT_EQ(cmsis_nn::fully_connected_buffer_bytes(1000, kScalar), 0u);
  EXPECT_EQ(cmsis_nn::fully_connected_buffer_bytes(1000, kDsp), 0u);
  EXPECT_EQ(cmsis_nn::fully_connected_buffer_bytes(1000, kMve), 4000u);
}

TEST(AveragePoolScratch, FactsTable) {
  EXPECT_EQ(cmsis_nn::average_pool_scratch_bytes(32, kScalar), 0u);
  EXPECT_EQ(cmsis_nn::average_pool_scratch_bytes(32, kDsp), 128u);
  EXPECT_EQ(cmsis_nn::average_pool_scratch_bytes(32, kMve), 0u);
}

TEST(TransposeConvScratch, FactsTable) {
  // in 1x8x8x32, filter 16x3x3x32, stride 2: reverse conv, 1152 + 4608 (scalar, DSP and MVE).
  const TransposeConvShape big{1, 8, 8, 32, 3, 3, 16, 16, 16, 2, 2, 1, 1};
  for (Extension e : {kScalar, kDsp, kMve}) {
    const TransposeConvScratch s = cmsis_nn::transpose_conv_scratch_bytes(big, e);
    EXPECT_EQ(s.first, 1152u) << to_string(e);
    EXPECT_EQ(s.second, 4608u) << to_string(e);
    EXPECT_EQ(s.total(), 5760u) << to_string(e);
  }
  // in 1x8x8x8, filter 16x3x3x8, stride 2: row buffer ((7*2 + 3) * 16) * 3 * 4 = 3264.
  const TransposeConvShape small{1, 8, 8, 8, 3, 3, 16, 16, 16, 2, 2, 1, 1};
  for (Extension e : {kScalar, kDsp, kMve}) {
    const TransposeConvScratch s = cmsis_nn::transpose_conv_scratch_bytes(small, e);
    EXPECT_EQ(s.first, 3264u) << to_string(e);
    EXPECT_EQ(s.second, 0u) << to_string(e);
  }
}

TEST(TransposeConvScratch, DispatchEdges) {
  // Stride 3 rules out the reverse conv even with many channels; the row width uses stride_h:
  // ((4-1)*3 + max(2, 1)) * 4 * max(2, 1) * 4 = 11*4*2*4 = 352.
  const TransposeConvShape wide{1, 4, 4, 32, 2, 2, 4, 12, 4, 1, 3, 0, 0};
  EXPECT_EQ(cmsis_nn::transpose_conv_scratch_bytes(wide, kScalar).total(), 352u);
  // stride_h larger than filter_w widens the row: ((4-1)*1 + max(2, 4)) * 4 * max(2, 4) * 4 = 448.
  const TransposeConvShape tall{1, 4, 4, 8, 2, 2, 16, 4, 4, 4, 1, 0, 0};
  EXPECT_EQ(cmsis_nn::transpose_conv_scratch_bytes(tall, kDsp).total(), 448u);
  // Exactly 16 input channels is not "efficient": row buffer.
  const TransposeConvShape c16{1, 8, 8, 16, 3, 3, 16, 16, 16, 2, 2, 1, 1};
  EXPECT_EQ(cmsis_nn::transpose_conv_scratch_bytes(c16, kMve).second, 0u);
  // Reverse conv on MVE sizes its im2col with the MVE formula: 5x5x17 = 425 -> 27*64 = 1728;
  // scalar round_up(425, 4)*4 = 1712.
  const TransposeConvShape odd{1, 4, 4, 17, 5, 5, 8, 8, 2, 2, 2, 2, 2};
  EXPECT_EQ(cmsis_nn::transpose_conv_scratch_bytes(odd, kMve).first, 1728u);
  EXPECT_EQ(cmsis_nn::transpose_conv_scratch_bytes(odd, kScalar).first, 1712u);
  EXPECT_EQ(cmsis_nn::transpose_conv_scratch_bytes(odd, kScalar).second, 17u * 25 * 2);
}

}  // namespace
}  // namespace mote::kernels::cmsis_nn
