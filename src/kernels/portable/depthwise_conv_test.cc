#include "mote/kernels/depthwise_conv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conv_test_util.h"

namespace mote::kernels {
namespace {

using testing::Guarded;
using testing::kAllExtensions;
using testing::RequantizeRef;
using testing::Rng;

struct DwCase {
  DepthwiseConvParams params;
  std::vector<int8_t> input, filter;
  std::vector<int32_t> bias, multiplier, shift;
  bool has_bias = true;
  size_t output_size() const {
    const DepthwiseShape& s = params.shape;
    return static_cast<size_t>(s.batches) * s.output_h * s.output_w * s.output_c;
  }
};

std::vector<int8_t> ReferenceDepthwise(const DwCase& c) {
  const DepthwiseShape& s = c.params.shape;
  const int32_t mult = s.output_c / s.input_c;
  std::vector<int8_t> out(c.output_size());
  for (int32_t b = 0; b < s.batches; ++b)
    for (int32_t y = 0; y < s.output_h; ++y)
      for (int32_t x = 0; x < s.output_w; ++x)
        for (int32_t ic = 0; ic < s.input_c; ++ic)
          for (int32_t m = 0; m < mult; ++m) {
            const int32_t oc = ic * mult + m;
            int64_t acc = c.has_bias ? c.bias[oc] : 0;
            for (int32_t ky = 0; ky < s.filter_h; ++ky)
              for (int32_t kx = 0; kx < s.filter_w; ++kx) {
                const int32_t iy = y * s.stride_h - s.pad_h + ky * s.dilation_h;
                const int32_t ix = x * s.stride_w - s.pad_w + kx * s.dilation_w;
                if (iy < 0 || iy >= s.input_h || ix < 0 || ix >= s.input_w) continue;
                const int32_t xv = c.input[((b * s.input_h + iy) * s.input_w + ix) * s.input_c + ic];
                const int32_t wv = c.filter[(ky * s.filter_w + kx) * s.output_c + oc];
                acc += (xv + c.params.input_offset) * wv;
              }
            out[((b * s.output_h + y) * s.output_w + x) * s.output_c + oc] =
                RequantizeRef(acc, c.multiplier[oc], c.shift[oc], c.params.output_offset,
                              c.params.act_min, c.params.act_max);
          }
  return out;
}

std::vector<int8_t> RunDepthwise(DwCase& c, size_t scratch_size, const std::string& what) {
  c.params.output_multiplier = c.multiplier.data();
  c.params.output_shift = c.shift.data();
  Guarded scratch(scratch_size, 0x77);
  Guarded output(c.output_size(), 0x11);
  depthwise_conv2d(c.params, c.input.data(), c.filter.data(), c.has_bias ? c.bias.data() : nullptr,
                   output.data(), scratch.scratch());
  EXPECT_TRUE(scratch.Intact()) << "scratch guard overwritten: " << what;
  EXPECT_TRUE(output.Intact()) << "output guard overwritten: " << what;
  return output.contents();
}

void CheckAllScratchSizes(DwCase& c, const std::string& label) {
  const std::vector<int8_t> want = ReferenceDepthwise(c);
  EXPECT_EQ(RunDepthwise(c, 0, "none"), want) << label << " scratch none";
  for (Extension e : kAllExtensions) {
    const size_t bytes = depthwise_conv_scratch_bytes(c.params.shape, e);
    EXPECT_EQ(RunDepthwise(c, bytes, to_string(e)), want) << label << " scratch " << to_string(e);
  }
}

TEST(DepthwiseConv2d, HandChecked) {
  DwCase c;
  // Input 1x2x3x2: channel 0 = 1..6, channel 1 = 10, 20, ..., 60; zero point 0.
  // Depth multiplier 2, 2x2 filter, stride 1, no padding -> output 1x1x2x4.
  c.params.shape = DepthwiseShape{1, 2, 3, 2, 2, 2, 1, 2, 4, 1, 1, 0, 0, 1, 1};
  c.params.input_offset = 0;
  c.params.output_offset = 3;
  c.params.act_min = -128;
  c.params.act_max = 127;
  c.input = {1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60};
  // filter[ky][kx][oc]: oc0 = channel 0 * [1 1; 1 1], oc1 = channel 0 * [1 0; 0 0],
  // oc2 = channel 1 * [0 0; 0 1] / .., oc3 = channel 1 * [1 -1; -1 1].
  c.filter = {1, 1, 0, 1,    // (0,0)
              1, 0, 0, -1,   // (0,1)
              1, 0, 0, -1,   // (1,0)
              1, 0, 1, 1};   // (1,1)
  c.bias = {0, 100, -50, 7};
  c.multiplier = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
  c.shift = {1, 1, 0, 1};  // x1, x1, x0.5, x1
  // Window at x=0: ch0 {1,2,4,5}, ch1 {10,20,40,50}; at x=1: ch0 {2,3,5,6}, ch1 {20,30,50,60}.
  // oc0: 12, 16. oc1: 1+100 = 101, 2+100 = 102. oc2: (50-50)*0.5 = 0, (60-50)*0.5 = 5.
  // oc3: 10-20-40+50+7 = 7, 20-30-50+60+7 = 7. Then +3.
  const std::vector<int8_t> want = {15, 104, 3, 10, 19, 105, 8, 10};
  EXPECT_EQ(ReferenceDepthwise(c), want);
  CheckAllScratchSizes(c, "hand");
}

DwCase RandomCase(Rng& rng, int kind) {
  DwCase c;
  DepthwiseShape& s = c.params.shape;
  s.batches = rng.Uniform(1, 2);
  s.input_c = kind == 2 ? rng.Uniform(60, 140) : rng.Uniform(1, 9);
  const int32_t mult = kind == 1 ? rng.Uniform(2, 9) : 1;
  if (kind == 3) s.input_c = 1;
  s.output_c = s.input_c * (kind == 3 ? rng.Uniform(2, 70) : mult);
  s.filter_h = rng.Uniform(1, 4);
  s.filter_w = rng.Uniform(1, 4);
  s.stride_h = rng.Uniform(1, 3);
  s.stride_w = rng.Uniform(1, 3);
  s.dilation_h = rng.Chance(25) ? rng.Uniform(2, 3) : 1;
  s.dilation_w = rng.Chance(25) ? rng.Uniform(2, 3) : 1;
  s.input_h = rng.Uniform(1, 8);
  s.input_w = rng.Uniform(1, 8);
  const int32_t eff_h = (s.filter_h - 1) * s.dilation_h + 1;
  const int32_t eff_w = (s.filter_w - 1) * s.dilation_w + 1;
  s.pad_h = rng.Uniform(0, eff_h - 1);
  s.pad_w = rng.Uniform(0, eff_w - 1);
  int32_t pad_bottom = rng.Uniform(0, eff_h - 1);
  int32_t pad_right = rng.Uniform(0, eff_w - 1);
  if (s.input_h + s.pad_h + pad_bottom < eff_h) pad_bottom = eff_h - s.input_h - s.pad_h;
  if (s.input_w + s.pad_w + pad_right < eff_w) pad_right = eff_w - s.input_w - s.pad_w;
  s.output_h = (s.input_h + s.pad_h + pad_bottom - eff_h) / s.stride_h + 1;
  s.output_w = (s.input_w + s.pad_w + pad_right - eff_w) / s.stride_w + 1;
  c.params.input_offset = rng.Chance(20) ? 128 : rng.Uniform(-127, 128);
  c.params.output_offset = rng.Uniform(-128, 127);
  c.params.act_min = rng.Chance(30) ? rng.Uniform(-128, 0) : -128;
  c.params.act_max = rng.Chance(30) ? rng.Uniform(0, 127) : 127;
  c.input = rng.Int8s(static_cast<size_t>(s.batches) * s.input_h * s.input_w * s.input_c);
  c.filter = rng.Int8s(static_cast<size_t>(s.filter_h) * s.filter_w * s.output_c);
  c.has_bias = rng.Chance(75);
  c.bias = rng.Int32s(s.output_c, -30000, 30000);
  c.multiplier = rng.Multipliers(s.output_c);
  c.shift = rng.Shifts(s.output_c, -11, 1);
  return c;
}

TEST(DepthwiseConv2d, RandomAgainstReference) {
  Rng rng(4321);
  for (int i = 0; i < 300; ++i) {
    const int kind = i % 4;  // 0 multiplier 1, 1 multiplier > 1, 2 many channels, 3 one input channel
    DwCase c = RandomCase(rng, kind);
    CheckAllScratchSizes(c, "case " + std::to_string(i) + " kind " + std::to_string(kind));
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace mote::kernels
