#include "mote/kernels/transpose_conv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conv_test_util.h"
#include "mote/kernels/quantization.h"

namespace mote::kernels {
namespace {

using testing::Guarded;
using testing::kAllExtensions;
using testing::RequantizeRef;
using testing::Rng;

struct TcCase {
  TransposeConvParams params;
  std::vector<int8_t> input, filter;
  std::vector<int32_t> bias, multiplier, shift;
  bool has_bias = true;
  size_t output_size() const {
    const TransposeConvShape& s = params.shape;
    return static_cast<size_t>(s.batches) * s.output_h * s.output_w * s.output_c;
  }
};

// TFLite's formulation: scatter every input pixel into an int32 buffer, then requantize.
std::vector<int8_t> ReferenceTransposeConv(const TcCase& c) {
  const TransposeConvShape& s = c.params.shape;
  std::vector<int64_t> acc(c.output_size(), 0);
  for (int32_t b = 0; b < s.batches; ++b)
    for (int32_t iy = 0; iy < s.input_h; ++iy)
      for (int32_t ix = 0; ix < s.input_w; ++ix)
        for (int32_t ky = 0; ky < s.filter_h; ++ky)
          for (int32_t kx = 0; kx < s.filter_w; ++kx) {
            const int32_t oy = iy * s.stride_h - s.pad_h + ky;
            const int32_t ox = ix * s.stride_w - s.pad_w + kx;
            if (oy < 0 || oy >= s.output_h || ox < 0 || ox >= s.output_w) continue;
            for (int32_t oc = 0; oc < s.output_c; ++oc)
              for (int32_t ic = 0; ic < s.input_c; ++ic) {
                const int32_t xv = c.input[((b * s.input_h + iy) * s.input_w + ix) * s.input_c + ic];
                const int32_t wv = c.filter[((oc * s.filter_h + ky) * s.filter_w + kx) * s.input_c + ic];
                acc[((b * s.output_h + oy) * s.output_w + ox) * s.output_c + oc] +=
                    (xv + c.params.input_offset) * wv;
              }
          }
  std::vector<int8_t> out(c.output_size());
  for (size_t i = 0; i < out.size(); ++i) {
    const int32_t oc = static_cast<int32_t>(i % s.output_c);
    out[i] = RequantizeRef(acc[i] + (c.has_bias ? c.bias[oc] : 0), c.multiplier[oc], c.shift[oc],
                           c.params.output_offset, c.params.act_min, c.params.act_max);
  }
  return out;
}

std::vector<int8_t> RunTransposeConv(TcCase& c, size_t scratch_size, const std::string& what) {
  c.params.output_multiplier = c.multiplier.data();
  c.params.output_shift = c.shift.data();
  Guarded scratch(scratch_size, 0x77);
  Guarded output(c.output_size(), 0x11);
  transpose_conv2d(c.params, c.input.data(), c.filter.data(), c.has_bias ? c.bias.data() : nullptr,
                   output.data(), scratch.scratch());
  EXPECT_TRUE(scratch.Intact()) << "scratch guard overwritten: " << what;
  EXPECT_TRUE(output.Intact()) << "output guard overwritten: " << what;
  return output.contents();
}

void CheckAllScratchSizes(TcCase& c, const std::string& label) {
  const std::vector<int8_t> want = ReferenceTransposeConv(c);
  EXPECT_EQ(RunTransposeConv(c, 0, "none"), want) << label << " scratch none";
  for (Extension e : kAllExtensions) {
    const size_t bytes = transpose_conv_scratch_bytes(c.params.shape, e).total();
    EXPECT_EQ(RunTransposeConv(c, bytes, to_string(e)), want) << label << " scratch " << to_string(e);
  }
}

TEST(TransposeConv2d, HandChecked) {
  TcCase c;
  // Input 1x2x2x1 = 1 2 / 3 4 (zero point 0), 2x2 filter [1 2; 3 4], stride 2, no padding:
  // each input pixel paints its own 2x2 block, x * filter.
  c.params.shape = TransposeConvShape{1, 2, 2, 1, 2, 2, 4, 4, 1, 2, 2, 0, 0};
  c.params.input_offset = 0;
  c.params.output_offset = -10;
  c.params.act_min = -128;
  c.params.act_max = 127;
  c.input = {1, 2, 3, 4};
  c.filter = {1, 2, 3, 4};
  c.bias = {1};
  c.multiplier = {1 << 30};
  c.shift = {1};
  const std::vector<int8_t> want = {1 + 1 - 10, 2 + 1 - 10, 2 + 1 - 10, 4 + 1 - 10,
                                    3 + 1 - 10, 4 + 1 - 10, 6 + 1 - 10, 8 + 1 - 10,
                                    3 + 1 - 10, 6 + 1 - 10, 4 + 1 - 10, 8 + 1 - 10,
                                    9 + 1 - 10, 12 + 1 - 10, 12 + 1 - 10, 16 + 1 - 10};
  EXPECT_EQ(ReferenceTransposeConv(c), want);
  CheckAllScratchSizes(c, "hand");
}

TEST(TransposeConv2d, HandCheckedOverlapAndPadding) {
  TcCase c;
  // 1x3 input 1 2 3 (offset -1: 0 1 2), 1x3 filter [1 1 1], stride 1, pad 1 -> output 1x3:
  // out[x] = sum of inputs within one step: 0+1, 0+1+2, 1+2.
  c.params.shape = TransposeConvShape{1, 1, 3, 1, 1, 3, 1, 3, 1, 1, 1, 0, 1};
  c.params.input_offset = -1;
  c.params.output_offset = 0;
  c.params.act_min = -128;
  c.params.act_max = 127;
  c.input = {1, 2, 3};
  c.filter = {1, 1, 1};
  c.has_bias = false;
  c.multiplier = {1 << 30};
  c.shift = {1};
  const std::vector<int8_t> want = {1, 3, 3};
  EXPECT_EQ(ReferenceTransposeConv(c), want);
  CheckAllScratchSizes(c, "overlap");
}

TEST(TransposeConv2d, RandomAgainstReference) {
  Rng rng(2468);
  for (int i = 0; i < 300; ++i) {
    TcCase c;
    TransposeConvShape& s = c.params.shape;
    s.batches = rng.Uniform(1, 2);
    s.input_h = rng.Uniform(1, 6);
    s.input_w = rng.Uniform(1, 6);
    s.input_c = rng.Chance(25) ? rng.Uniform(17, 40) : rng.Uniform(1, 9);
    s.output_c = rng.Uniform(1, 9);
    s.filter_h = rng.Uniform(1, 5);
    s.filter_w = rng.Uniform(1, 5);
    s.stride_h = rng.Uniform(1, 4);
    s.stride_w = rng.Uniform(1, 4);
    // TFLite: output = (in - 1) * stride + filter - total padding; padding may be SAME-like or 0.
    const int32_t full_h = (s.input_h - 1) * s.stride_h + s.filter_h;
    const int32_t full_w = (s.input_w - 1) * s.stride_w + s.filter_w;
    s.output_h = rng.Uniform(std::max(1, full_h - s.filter_h + 1), full_h);
    s.output_w = rng.Uniform(std::max(1, full_w - s.filter_w + 1), full_w);
    s.pad_h = std::max(0, (full_h - s.output_h) / 2);
    s.pad_w = std::max(0, (full_w - s.output_w) / 2);
    c.params.input_offset = rng.Uniform(-127, 128);
    c.params.output_offset = rng.Uniform(-128, 127);
    c.params.act_min = rng.Chance(30) ? rng.Uniform(-128, 0) : -128;
    c.params.act_max = rng.Chance(30) ? rng.Uniform(0, 127) : 127;
    c.input = rng.Int8s(static_cast<size_t>(s.batches) * s.input_h * s.input_w * s.input_c);
    c.filter = rng.Int8s(static_cast<size_t>(s.output_c) * s.filter_h * s.filter_w * s.input_c);
    c.has_bias = rng.Chance(75);
    c.bias = rng.Int32s(s.output_c, -30000, 30000);
    c.multiplier = rng.Multipliers(s.output_c);
    c.shift = rng.Shifts(s.output_c, -12, 0);
    CheckAllScratchSizes(c, "case " + std::to_string(i));
    if (HasFailure()) return;
  }
}

// 16x8: int16 input and output (zero points 0), int64 bias, the 64-bit requantization; the
// gather against TFLite's scatter into int64 sums.
TEST(TransposeConv2d16x8, RandomAgainstScatterReference) {
  Rng rng(1357);
  for (int i = 0; i < 200; ++i) {
    TransposeConvShape s{};
    s.batches = rng.Uniform(1, 2);
    s.input_h = rng.Uniform(1, 5);
    s.input_w = rng.Uniform(1, 5);
    s.input_c = rng.Uniform(1, 12);
    s.output_c = rng.Uniform(1, 6);
    s.filter_h = rng.Uniform(1, 4);
    s.filter_w = rng.Uniform(1, 4);
    s.stride_h = rng.Uniform(1, 3);
    s.stride_w = rng.Uniform(1, 3);
    const int32_t full_h = (s.input_h - 1) * s.stride_h + s.filter_h;
    const int32_t full_w = (s.input_w - 1) * s.stride_w + s.filter_w;
    s.output_h = rng.Uniform(std::max(1, full_h - s.filter_h + 1), full_h);
    s.output_w = rng.Uniform(std::max(1, full_w - s.filter_w + 1), full_w);
    s.pad_h = std::max(0, (full_h - s.output_h) / 2);
    s.pad_w = std::max(0, (full_w - s.output_w) / 2);
    std::vector<int16_t> input(static_cast<size_t>(s.batches) * s.input_h * s.input_w * s.input_c);
    for (int16_t& v : input) v = static_cast<int16_t>(rng.Uniform(-32768, 32767));
    const std::vector<int8_t> filter =
        rng.Int8s(static_cast<size_t>(s.output_c) * s.filter_h * s.filter_w * s.input_c);
    std::vector<int64_t> bias(s.output_c);
    for (int64_t& v : bias) v = int64_t{rng.Uniform(-1 << 30, 1 << 30)} * 4;
    const bool has_bias = rng.Chance(75);
    const std::vector<int32_t> multiplier = rng.Multipliers(s.output_c);
    const std::vector<int32_t> shift = rng.Shifts(s.output_c, -20, -8);
    TransposeConvParams p{};
    p.shape = s;
    p.act_min = rng.Chance(30) ? rng.Uniform(-32768, 0) : -32768;
    p.act_max = rng.Chance(30) ? rng.Uniform(0, 32767) : 32767;
    p.output_multiplier = multiplier.data();
    p.output_shift = shift.data();

    const size_t out_size = static_cast<size_t>(s.batches) * s.output_h * s.output_w * s.output_c;
    std::vector<int64_t> acc(out_size, 0);
    for (int32_t b = 0; b < s.batches; ++b)
      for (int32_t iy = 0; iy < s.input_h; ++iy)
        for (int32_t ix = 0; ix < s.input_w; ++ix)
          for (int32_t ky = 0; ky < s.filter_h; ++ky)
            for (int32_t kx = 0; kx < s.filter_w; ++kx) {
              const int32_t oy = iy * s.stride_h - s.pad_h + ky;
              const int32_t ox = ix * s.stride_w - s.pad_w + kx;
              if (oy < 0 || oy >= s.output_h || ox < 0 || ox >= s.output_w) continue;
              for (int32_t oc = 0; oc < s.output_c; ++oc)
                for (int32_t ic = 0; ic < s.input_c; ++ic) {
                  acc[((b * s.output_h + oy) * s.output_w + ox) * s.output_c + oc] +=
                      int64_t{input[((b * s.input_h + iy) * s.input_w + ix) * s.input_c + ic]} *
                      filter[((oc * s.filter_h + ky) * s.filter_w + kx) * s.input_c + ic];
                }
            }
    std::vector<int16_t> want(out_size);
    for (size_t k = 0; k < out_size; ++k) {
      const int32_t oc = static_cast<int32_t>(k % s.output_c);
      const int32_t v = multiply_by_quantized_multiplier_64(acc[k] + (has_bias ? bias[oc] : 0),
                                                            multiplier[oc], shift[oc]);
      want[k] = static_cast<int16_t>(std::clamp(v, p.act_min, p.act_max));
    }
    std::vector<int16_t> got(out_size, 0x1111);
    transpose_conv2d_16x8(p, input.data(), filter.data(), has_bias ? bias.data() : nullptr,
                          got.data());
    ASSERT_EQ(got, want) << "case " << i;
  }
}

}  // namespace
}  // namespace mote::kernels
