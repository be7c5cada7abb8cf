#include "mote/kernels/resize_nearest_neighbor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

std::vector<int32_t> Indices(int32_t in, int32_t out, bool align, bool half) {
  std::vector<int32_t> v;
  for (int32_t i = 0; i < out; ++i) v.push_back(nearest_neighbor_index(i, in, out, align, half));
  return v;
}

TEST(ResizeNearestNeighborTest, HandCheckedIndexRule) {
  using V = std::vector<int32_t>;
  // Upscale 2 -> 4: x/2 floored; with half-pixel centres (x+0.5)/2 floored; align corners
  // round(x/3).
  EXPECT_EQ(Indices(2, 4, false, false), (V{0, 0, 1, 1}));
  EXPECT_EQ(Indices(2, 4, false, true), (V{0, 0, 1, 1}));
  EXPECT_EQ(Indices(2, 4, true, false), (V{0, 0, 1, 1}));
  // Downscale 4 -> 2: 2x; half-pixel (x+0.5)*2 = 1, 3; align corners 3x = 0, 3.
  EXPECT_EQ(Indices(4, 2, false, false), (V{0, 2}));
  EXPECT_EQ(Indices(4, 2, false, true), (V{1, 3}));
  EXPECT_EQ(Indices(4, 2, true, false), (V{0, 3}));
  // 3 -> 5: 0.6x floored = 0, 0, 1, 1, 2; align corners round(0.5x) = 0, 1, 1, 2, 2 (halves up).
  EXPECT_EQ(Indices(3, 5, false, false), (V{0, 0, 1, 1, 2}));
  EXPECT_EQ(Indices(3, 5, true, false), (V{0, 1, 1, 2, 2}));
  // A single output with align corners uses in/out as the scale.
  EXPECT_EQ(Indices(5, 1, true, false), (V{0}));
}

TEST(ResizeNearestNeighborTest, HandCheckedUpscale) {
  // [1,2,2,1] -> [1,4,4,1]: every pixel becomes a 2x2 block.
  const std::vector<int8_t> in = {1, 2, 3, 4};
  const ResizeNearestNeighborParams p =
      prepare_resize_nearest_neighbor(1, 2, 2, 1, 4, 4, false, false);
  EXPECT_EQ(p.output_h, 4);
  EXPECT_EQ(p.channels, 1);
  Guarded<int8_t> out(16);
  resize_nearest_neighbor(p, in.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  EXPECT_TRUE(out.intact());
}

TEST(ResizeNearestNeighborTest, RandomizedMatchesSlowReference) {
  Random rng(29);
  for (int iter = 0; iter < 300; ++iter) {
    ResizeNearestNeighborParams p{};
    p.batches = rng.Int(1, 2);
    p.input_h = rng.Int(1, 7);
    p.input_w = rng.Int(1, 7);
    p.channels = rng.Int(1, 5);
    p.output_h = rng.Int(1, 12);
    p.output_w = rng.Int(1, 12);
    p.align_corners = rng.Int(0, 1) == 1;
    p.half_pixel_centers = rng.Int(0, 1) == 1;
    const std::vector<int8_t> in =
        rng.Int8s(static_cast<size_t>(p.batches) * p.input_h * p.input_w * p.channels);
    // Slow: TFLite's index rule for each element.
    auto index = [&](int32_t o, int32_t in_size, int32_t out_size) {
      const float scale = (p.align_corners && out_size > 1)
                              ? (in_size - 1) / static_cast<float>(out_size - 1)
                              : in_size / static_cast<float>(out_size);
      const float pos = (o + (p.half_pixel_centers ? 0.5f : 0.0f)) * scale;
      int32_t i = p.align_corners ? static_cast<int32_t>(std::round(pos))
                                  : static_cast<int32_t>(std::floor(pos));
      i = std::min(i, in_size - 1);
      return p.half_pixel_centers ? std::max(i, 0) : i;
    };
    std::vector<int8_t> expected;
    for (int b = 0; b < p.batches; ++b)
      for (int y = 0; y < p.output_h; ++y)
        for (int x = 0; x < p.output_w; ++x)
          for (int c = 0; c < p.channels; ++c) {
            const int32_t iy = index(y, p.input_h, p.output_h);
            const int32_t ix = index(x, p.input_w, p.output_w);
            expected.push_back(in[((b * p.input_h + iy) * p.input_w + ix) * p.channels + c]);
          }
    Guarded<int8_t> out(expected.size());
    resize_nearest_neighbor(p, in.data(), out.data());
    ASSERT_EQ(out.values(), expected) << "iter " << iter;
    ASSERT_TRUE(out.intact());
  }
}

}  // namespace
}  // namespace mote::kernels
