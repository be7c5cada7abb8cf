#include "mote/kernels/conv.h"

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

struct ConvCase {
  ConvParams params;
  std::vector<int8_t> input, filter;
  std::vector<int32_t> bias;  // empty: no bias
  std::vector<int32_t> multiplier, shift;
  bool has_bias = true;
  const int32_t* bias_ptr() const { return has_bias ? bias.data() : nullptr; }
  size_t output_size() const {
    const ConvShape& s = params.shape;
    return static_cast<size_t>(s.batches) * s.output_h * s.output_w * s.output_c;
  }
};

// Obviously-correct CONV_2D: every output, every tap, skip taps outside the input.
std::vector<int8_t> ReferenceConv(const ConvCase& c) {
  const ConvShape& s = c.params.shape;
  const int32_t groups = s.input_c / s.filter_c;
  const int32_t co_per_group = s.output_c / groups;
  std::vector<int8_t> out(c.output_size());
  for (int32_t b = 0; b < s.batches; ++b)
    for (int32_t y = 0; y < s.output_h; ++y)
      for (int32_t x = 0; x < s.output_w; ++x)
        for (int32_t o = 0; o < s.output_c; ++o) {
          int64_t acc = c.has_bias ? c.bias[o] : 0;
          const int32_t g = o / co_per_group;
          for (int32_t ky = 0; ky < s.filter_h; ++ky)
            for (int32_t kx = 0; kx < s.filter_w; ++kx)
              for (int32_t ic = 0; ic < s.filter_c; ++ic) {
                const int32_t iy = y * s.stride_h - s.pad_h + ky * s.dilation_h;
                const int32_t ix = x * s.stride_w - s.pad_w + kx * s.dilation_w;
                if (iy < 0 || iy >= s.input_h || ix < 0 || ix >= s.input_w) continue;
                const int32_t xv =
                    c.input[((b * s.input_h + iy) * s.input_w + ix) * s.input_c + g * s.filter_c + ic];
                const int32_t wv = c.filter[((o * s.filter_h + ky) * s.filter_w + kx) * s.filter_c + ic];
                acc += (xv + c.params.input_offset) * wv;
              }
          out[((b * s.output_h + y) * s.output_w + x) * s.output_c + o] =
              RequantizeRef(acc, c.multiplier[o], c.shift[o], c.params.output_offset,
                            c.params.act_min, c.params.act_max);
        }
  return out;
}

// Runs conv2d with `scratch_size` bytes of scratch (misaligned by `misalign`), guard bytes around
// scratch and output, and returns the output.
std::vector<int8_t> RunConv(ConvCase& c, size_t scratch_size, size_t misalign, const std::string& what) {
  c.params.output_multiplier = c.multiplier.data();
  c.params.output_shift = c.shift.data();
  Guarded scratch(scratch_size, 0x77, misalign);
  Guarded output(c.output_size(), 0x11);
  conv2d(c.params, c.input.data(), c.filter.data(), c.bias_ptr(), output.data(), scratch.scratch());
  EXPECT_TRUE(scratch.Intact()) << "scratch guard overwritten: " << what;
  EXPECT_TRUE(output.Intact()) << "output guard overwritten: " << what;
  return output.contents();
}

// Checks conv2d against the reference for no scratch, each extension's exact scratch size
// (aligned and misaligned), and a generous scratch.
void CheckAllScratchSizes(ConvCase& c, const std::string& label) {
  const std::vector<int8_t> want = ReferenceConv(c);
  EXPECT_EQ(RunConv(c, 0, 0, "none"), want) << label << " scratch none";
  for (Extension e : kAllExtensions) {
    const size_t bytes = conv_scratch_bytes(c.params.shape, e);
    EXPECT_EQ(RunConv(c, bytes, 0, to_string(e)), want) << label << " scratch " << to_string(e);
    EXPECT_EQ(RunConv(c, bytes, 1, to_string(e)), want) << label << " misaligned " << to_string(e);
  }
  // Around the kernel's own thresholds: one int16 column (2K bytes) and two (4K bytes).
  const size_t col = 2u * c.params.shape.filter_h * c.params.shape.filter_w * c.params.shape.filter_c;
  for (size_t size : {col - 1, col, 2 * col - 1, 2 * col, 2 * col + 64}) {
    EXPECT_EQ(RunConv(c, size, 0, "sized"), want) << label << " scratch " << size;
  }
}

ConvCase HandCase() {
  ConvCase c;
  // Input 1x3x3x1 = 1..9 with zero point 1, so (x + offset) = 0..8.
  c.params.shape = ConvShape{1, 3, 3, 1, 2, 2, 1, 2, 2, 2, 1, 1, 0, 0, 1, 1};
  c.params.input_offset = -1;
  c.params.output_offset = -5;
  c.params.act_min = -128;
  c.params.act_max = 15;
  c.input = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  c.filter = {2, 0, 0, -1,   // channel 0: 2*x[y][x] - x[y+1][x+1]
              1, 1, 1, 1};   // channel 1: sum of the 2x2 window
  c.bias = {10, -2};
  c.multiplier = {1 << 30, 1 << 30};  // 0.5 and 1.0
  c.shift = {0, 1};
  return c;
}

TEST(Conv2d, HandChecked) {
  ConvCase c = HandCase();
  // Channel 0 sums -4 -3 -1 0, + 10 = 6 7 9 10, * 0.5 rounds to 3 4 5 5, - 5 = -2 -1 0 0.
  // Channel 1 sums 8 12 20 24, - 2 = 6 10 18 22, - 5 = 1 5 13 17, clamped at 15.
  const std::vector<int8_t> want = {-2, 1, -1, 5, 0, 13, 0, 15};
  EXPECT_EQ(ReferenceConv(c), want);
  CheckAllScratchSizes(c, "hand");
}

TEST(Conv2d, HandCheckedPaddingContributesNothing) {
  ConvCase c;
  // 3x3 ones over the same 0..8 values with pad 1: border outputs sum only in-bounds taps.
  c.params.shape = ConvShape{1, 3, 3, 1, 3, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  c.params.input_offset = -1;
  c.params.output_offset = 0;
  c.params.act_min = -128;
  c.params.act_max = 127;
  c.input = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  c.filter = std::vector<int8_t>(9, 1);
  c.has_bias = false;
  c.multiplier = {1 << 30};
  c.shift = {1};
  const std::vector<int8_t> want = {8, 15, 12, 21, 36, 27, 20, 33, 24};
  EXPECT_EQ(ReferenceConv(c), want);
  CheckAllScratchSizes(c, "padded");
}

ConvCase RandomCase(Rng& rng, int kind) {
  ConvCase c;
  ConvShape& s = c.params.shape;
  s.batches = rng.Uniform(1, 2);
  const int32_t groups = kind == 3 ? rng.Uniform(2, 3) : 1;
  s.filter_c = rng.Uniform(1, 7);
  s.input_c = s.filter_c * groups;
  s.output_c = groups * rng.Uniform(1, 6);
  s.filter_h = rng.Uniform(1, 4);
  s.filter_w = rng.Uniform(1, 4);
  s.stride_h = rng.Uniform(1, 3);
  s.stride_w = rng.Uniform(1, 3);
  s.dilation_h = rng.Chance(25) ? rng.Uniform(2, 3) : 1;
  s.dilation_w = rng.Chance(25) ? rng.Uniform(2, 3) : 1;
  s.input_h = rng.Uniform(1, 9);
  s.input_w = rng.Uniform(1, 9);
  if (kind == 1) {  // 1x1 without padding (the pointwise path)
    s.filter_h = s.filter_w = 1;
  }
  if (kind == 2) {  // 1xN: one input row, one filter row
    s.input_h = 1;
    s.filter_h = 1;
    s.dilation_w = 1;
    s.input_w = rng.Uniform(1, 20);
    s.input_c = s.filter_c = 4 * rng.Uniform(1, 3);
  }
  const int32_t eff_h = (s.filter_h - 1) * s.dilation_h + 1;
  const int32_t eff_w = (s.filter_w - 1) * s.dilation_w + 1;
  s.pad_h = kind == 1 ? 0 : rng.Uniform(0, eff_h - 1);
  s.pad_w = kind == 1 ? 0 : rng.Uniform(0, eff_w - 1);
  int32_t pad_bottom = kind == 1 ? 0 : rng.Uniform(0, eff_h - 1);
  int32_t pad_right = kind == 1 ? 0 : rng.Uniform(0, eff_w - 1);
  if (s.input_h + s.pad_h + pad_bottom < eff_h) pad_bottom = eff_h - s.input_h - s.pad_h;
  if (s.input_w + s.pad_w + pad_right < eff_w) pad_right = eff_w - s.input_w - s.pad_w;
  s.output_h = (s.input_h + s.pad_h + pad_bottom - eff_h) / s.stride_h + 1;
  s.output_w = (s.input_w + s.pad_w + pad_right - eff_w) / s.stride_w + 1;

  c.params.input_offset = rng.Chance(20) ? 128 : rng.Uniform(-127, 128);
  c.params.output_offset = rng.Uniform(-128, 127);
  c.params.act_min = rng.Chance(30) ? rng.Uniform(-128, 0) : -128;
  c.params.act_max = rng.Chance(30) ? rng.Uniform(0, 127) : 127;
  c.input = rng.Int8s(static_cast<size_t>(s.batches) * s.input_h * s.input_w * s.input_c);
  c.filter = rng.Int8s(static_cast<size_t>(s.output_c) * s.filter_h * s.filter_w * s.filter_c);
  c.has_bias = rng.Chance(75);
  c.bias = rng.Int32s(s.output_c, -30000, 30000);
  c.multiplier = rng.Multipliers(s.output_c);
  c.shift = rng.Shifts(s.output_c, -12, 1);
  return c;
}

TEST(Conv2d, RandomAgainstReference) {
  Rng rng(1234);
  for (int i = 0; i < 400; ++i) {
    const int kind = i % 4;  // 0 generic, 1 pointwise, 2 1xN, 3 grouped
    ConvCase c = RandomCase(rng, kind);
    const ConvShape& s = c.params.shape;
    CheckAllScratchSizes(c, "case " + std::to_string(i) + " kind " + std::to_string(kind) + " in " +
                                std::to_string(s.input_h) + "x" + std::to_string(s.input_w) + "x" +
                                std::to_string(s.input_c) + " filter " + std::to_string(s.output_c) +
                                "x" + std::to_string(s.filter_h) + "x" + std::to_string(s.filter_w) +
                                "x" + std::to_string(s.filter_c));
    if (HasFailure()) return;
  }
}

TEST(Conv2d, LongColumnsAndManyChannels) {
  // Wider layers than the random cases: vectorised loop bodies plus their remainders.
  Rng rng(99);
  for (int32_t ci : {1, 3, 16, 17, 33}) {
    ConvCase c;
    c.params.shape = ConvShape{1, 7, 6, ci, 3, 3, ci, 4, 3, 9, 2, 2, 1, 1, 1, 1};
    c.params.input_offset = rng.Uniform(-128, 128);
    c.params.output_offset = rng.Uniform(-20, 20);
    c.params.act_min = -128;
    c.params.act_max = 127;
    c.input = rng.Int8s(7 * 6 * ci);
    c.filter = rng.Int8s(9 * 9 * ci);
    c.bias = rng.Int32s(9, -1000, 1000);
    c.multiplier = rng.Multipliers(9);
    c.shift = rng.Shifts(9, -14, -8);
    CheckAllScratchSizes(c, "ci " + std::to_string(ci));
    ConvCase p = c;  // pointwise over the same input
    p.params.shape = ConvShape{1, 7, 6, ci, 1, 1, ci, 7, 6, 9, 1, 1, 0, 0, 1, 1};
    p.filter.resize(9 * ci);
    CheckAllScratchSizes(p, "pointwise ci " + std::to_string(ci));
  }
}

}  // namespace
}  // namespace mote::kernels
