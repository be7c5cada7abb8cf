// RESIZE_BILINEAR (mote/kernels/resize_bilinear.h): hand-checked values for each option and
// random shapes against a slow reference written from TFLite's ResizeBilinearInteger.
#include "mote/kernels/resize_bilinear.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;
using V = std::vector<int8_t>;

// TFLite's ResizeBilinearInteger, from its definition, in int64: 10-bit scales rounded to
// nearest (align_corners: (in - 1) / (out - 1)), source positions with the half-pixel offset,
// neighbours floor and ceil clamped, the four products summed and divided by 2^20 with a
// half-away-from-zero rounding (TFLite without TFLITE_SINGLE_ROUNDING), or half to even (ONNX's).
V SlowResize(int32_t n, int32_t ih, int32_t iw, int32_t c, int32_t oh, int32_t ow, bool align,
             bool half, const V& in, bool to_even = false) {
  auto scale = [&](int64_t i, int64_t o) {
    if (align && o > 1) return (1024 * (i - 1) + (o - 1) / 2) / (o - 1);
    return (1024 * i + o / 2) / o;
  };
  struct Src {
    int64_t pos, lo, hi;
  };
  auto source = [&](int64_t o, int64_t s, int64_t size) {
    const int64_t pos = half ? o * s + s / 2 - 512 : o * s;
    return Src{pos, std::max<int64_t>(pos / 1024, 0),
               std::min<int64_t>((pos + 1023) / 1024, size - 1)};
  };
  const int64_t sh = scale(ih, oh), sw = scale(iw, ow);
  auto at = [&](int64_t b, int64_t y, int64_t x, int64_t ch) {
    return static_cast<int64_t>(in[static_cast<size_t>(((b * ih + y) * iw + x) * c + ch)]);
  };
  V out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y) {
      const Src sy = source(y, sh, ih);
      for (int64_t x = 0; x < ow; ++x) {
        const Src sx = source(x, sw, iw);
        for (int64_t ch = 0; ch < c; ++ch) {
          const int64_t dy = sy.pos - 1024 * sy.lo, dx = sx.pos - 1024 * sx.lo;
          const int64_t v = at(b, sy.lo, sx.lo, ch) * (1024 - dy) * (1024 - dx) +
                            at(b, sy.hi, sx.lo, ch) * dy * (1024 - dx) +
                            at(b, sy.lo, sx.hi, ch) * (1024 - dy) * dx +
                            at(b, sy.hi, sx.hi, ch) * dy * dx;
          int64_t r = v > 0 ? (v + (1 << 19)) / (1 << 20) : (v - (1 << 19)) / (1 << 20);
          const bool tie = (v % (1 << 20) + (1 << 20)) % (1 << 20) == (1 << 19);
          if (to_even && tie && r % 2 != 0) r += v > 0 ? -1 : 1;  // away from zero was odd
          out.push_back(static_cast<int8_t>(r));
        }
      }
    }
  return out;
}

V RunResize(int32_t n, int32_t ih, int32_t iw, int32_t c, int32_t oh, int32_t ow, bool align,
            bool half, const V& in, bool* intact, bool to_even = false) {
  const ResizeBilinearParams p =
      prepare_resize_bilinear(n, ih, iw, c, oh, ow, align, half, to_even);
  Guarded<int8_t> out(static_cast<size_t>(n) * oh * ow * c);
  resize_bilinear(p, in.data(), out.data());
  *intact = out.intact();
  return out.values();
}

TEST(ResizeBilinearTest, HandCheckedRow) {
  bool intact = false;
  // 1x2 {0, 100} -> 1x4. Scale (2048 + 2) / 4 = 512: sources 0, 512, 1024, 1536 (the last two
  // clamp to pixel 1): 0, 50, 100, 100.
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, false, false, {0, 100}, &intact), (V{0, 50, 100, 100}));
  EXPECT_TRUE(intact);
  // Half-pixel centres: sources -256 (pixel 0 alone), 256, 768, 1280: 0, 25, 75, 100.
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, false, true, {0, 100}, &intact), (V{0, 25, 75, 100}));
  // Align corners: scale (1024 + 1) / 3 = 341: 100 * 341 / 1024 = 33.3, 66.6, 99.9.
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, true, false, {0, 100}, &intact), (V{0, 33, 67, 100}));
  // Halves round away from zero: 12.5 -> 13, -12.5 -> -13.
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, false, false, {0, 25}, &intact), (V{0, 13, 25, 25}));
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, false, false, {0, -25}, &intact), (V{0, -13, -25, -25}));
  EXPECT_TRUE(intact);
}

TEST(ResizeBilinearTest, HalfToEvenRoundsTiesToEven) {
  bool intact = false;
  // 1x2 {0, 25} -> 1x4: sources 0, 512, 1024, 1536; 12.5 -> 12 (even), -12.5 -> -12.
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, false, false, {0, 25}, &intact, true), (V{0, 12, 25, 25}));
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, false, false, {0, -25}, &intact, true),
            (V{0, -12, -25, -25}));
  // 13.5 -> 14 and -13.5 -> -14 (even); 2.5 -> 2, -2.5 -> -2; non-ties as before (75 / 4).
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, false, false, {0, 27}, &intact, true), (V{0, 14, 27, 27}));
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, false, false, {0, -27}, &intact, true),
            (V{0, -14, -27, -27}));
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, false, true, {0, 10}, &intact, true), (V{0, 2, 8, 10}));
  EXPECT_EQ(RunResize(1, 1, 2, 1, 1, 4, false, true, {0, -10}, &intact, true),
            (V{0, -2, -8, -10}));
  EXPECT_TRUE(intact);
}

TEST(ResizeBilinearTest, HandChecked2x2) {
  bool intact = false;
  // 2x2 {0, 40; 80, 120} -> 3x3 with align corners: scale (1024 + 1) / 2 = 512 each way, so
  // the centre is the mean of the four (60) and the edges the means of their pairs.
  EXPECT_EQ(RunResize(1, 2, 2, 1, 3, 3, true, false, {0, 40, 80, 120}, &intact),
            (V{0, 20, 40, 40, 60, 80, 80, 100, 120}));
  // Two channels move independently; the second is the negation of the first.
  EXPECT_EQ(RunResize(1, 2, 2, 2, 3, 3, true, false, {0, 0, 40, -40, 80, -80, 120, -120}, &intact),
            (V{0, 0, 20, -20, 40, -40, 40, -40, 60, -60, 80, -80, 80, -80, 100, -100, 120, -120}));
  // Downscale 4 -> 2 with half-pixel centres: scale 2048, sources 512 and 2560, each halfway
  // between two pixels: (10 + 20) / 2 = 15 and (30 + 41) / 2 = 35.5 -> 36.
  EXPECT_EQ(RunResize(1, 1, 4, 1, 1, 2, false, true, {10, 20, 30, 41}, &intact), (V{15, 36}));
  EXPECT_TRUE(intact);
}

TEST(ResizeBilinearTest, RandomShapesAndOptionsMatchTfLite) {
  Random rng(61);
  for (int iter = 0; iter < 500; ++iter) {
    const int32_t n = rng.Int(1, 2), ih = rng.Int(1, 7), iw = rng.Int(1, 7), c = rng.Int(1, 5);
    const int32_t oh = rng.Int(1, 15), ow = rng.Int(1, 15);
    const int option = rng.Int(0, 2);  // none, align corners, half-pixel centres
    const bool to_even = rng.Int(0, 1) == 1;
    const V in = rng.Int8s(static_cast<size_t>(n) * ih * iw * c);
    bool intact = false;
    ASSERT_EQ(RunResize(n, ih, iw, c, oh, ow, option == 1, option == 2, in, &intact, to_even),
              SlowResize(n, ih, iw, c, oh, ow, option == 1, option == 2, in, to_even))
        << "iter " << iter << " " << ih << "x" << iw << " -> " << oh << "x" << ow << " option "
        << option << " half to even " << to_even;
    ASSERT_TRUE(intact);
  }
}

TEST(ResizeBilinearTest, LargeUpscalesMatchTfLite) {
  Random rng(67);
  const V in = rng.Int8s(3 * 5 * 2);
  for (const bool half : {false, true}) {
    bool intact = false;
    EXPECT_EQ(RunResize(1, 3, 5, 2, 40, 33, false, half, in, &intact),
              SlowResize(1, 3, 5, 2, 40, 33, false, half, in));
    EXPECT_TRUE(intact);
  }
}

}  // namespace
}  // namespace mote::kernels
