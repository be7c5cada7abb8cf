// The overlap rules' closed forms (overlap.cc) against the walks they replace: one step per
// output pixel (or block of pixels) from the last, tracking the lowest input byte any later
// pixel reads. The compiler plans with these leads and the loader checks plans with them, so
// they must agree exactly, on every geometry: random shapes with padding, strides, dilations,
// batches, and windows that fall in the padding.
#include "mote/kernels/overlap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kernels/portable/conv_internal.h"
#include "kernels/portable/conv_test_util.h"

namespace mote::kernels::internal {
namespace {

constexpr int64_t kNoRead = INT64_MAX;

int64_t window_start(const WindowGeometry& g, int64_t q) {
  const int64_t per_image = int64_t{g.output_h} * g.output_w;
  const int64_t b = q / per_image;
  const int32_t y = static_cast<int32_t>((q % per_image) / g.output_w);
  const int32_t x = static_cast<int32_t>(q % g.output_w);
  const int32_t iy0 = y * g.stride_h - g.pad_h;
  const int32_t ix0 = x * g.stride_w - g.pad_w;
  const int32_t ky = first_inside(iy0, g.dilation_h, g.filter_h);
  const int32_t kx = first_inside(ix0, g.dilation_w, g.filter_w);
  if (ky >= end_inside(iy0, g.dilation_h, g.filter_h, g.input_h) ||
      kx >= end_inside(ix0, g.dilation_w, g.filter_w, g.input_w)) {
    return kNoRead;
  }
  return ((b * g.input_h + iy0 + int64_t{ky} * g.dilation_h) * g.input_w + ix0 +
          int64_t{kx} * g.dilation_w) * g.input_c;
}

OverlapRule finish(int64_t lead, int64_t input_bytes) {
  return {true, std::max(lead, -input_bytes)};
}

int64_t input_bytes(const WindowGeometry& g) {
  return int64_t{g.batches} * g.input_h * g.input_w * g.input_c;
}

OverlapRule raster_walk(const WindowGeometry& g) {
  const int64_t co = g.output_c, m = g.output_c / g.input_c;
  int64_t lead = INT64_MIN, later = kNoRead;
  for (int64_t q = int64_t{g.batches} * g.output_h * g.output_w - 1; q >= 0; --q) {
    const int64_t start = window_start(g, q);
    if (later != kNoRead) lead = std::max(lead, (q + 1) * co - later);
    if (start != kNoRead && co >= 2) {
      lead = std::max(lead, q * co + co - 1 - (start + (co - 1) / m));
    }
    later = std::min(later, start);
  }
  return finish(lead, input_bytes(g));
}

OverlapRule group_walk(const WindowGeometry& g, const PixelGroups& groups, int32_t block) {
  const int64_t co = g.output_c;
  int64_t lead = INT64_MIN, later = kNoRead;
  for (int64_t row = int64_t{g.batches} * g.output_h - 1; row >= 0; --row) {
    for (int32_t x = g.output_w - 1; x >= 0;) {
      int32_t x0 = x;
      if (x >= groups.first && x <= groups.last) {
        x0 = groups.first + (x - groups.first) / groups.size * groups.size;
      }
      const int64_t q0 = row * g.output_w + x0, n = x - x0 + 1;
      int64_t start = kNoRead;
      for (int64_t k = 0; k < n; ++k) start = std::min(start, window_start(g, q0 + k));
      if (later != kNoRead) lead = std::max(lead, (q0 + n) * co - later);
      if (start != kNoRead && co > block) lead = std::max(lead, (q0 + n - 1) * co - start);
      later = std::min(later, start);
      x = x0 - 1;
    }
  }
  return finish(lead, input_bytes(g));
}

OverlapRule pointwise_walk(const ConvShape& s, int32_t block, int32_t tail) {
  const int64_t ci = s.input_c, co = s.output_c;
  const int64_t pixels = int64_t{s.output_h} * s.output_w;
  const int64_t image = int64_t{s.input_h} * s.input_w * ci;
  int64_t lead = INT64_MIN;
  for (int64_t b = 0; b < s.batches; ++b) {
    for (int64_t p = 0; p < pixels; p += block) {
      const int64_t n = std::min<int64_t>(block, pixels - p);
      const int64_t y = p / s.output_w, x = p % s.output_w;
      const int64_t first_read = b * image + (y * s.stride_h * s.input_w + x * s.stride_w) * ci;
      lead = std::max(lead, (b * pixels + p + n) * co - tail - first_read);
    }
  }
  return finish(lead, int64_t{s.batches} * image);
}

WindowGeometry geometry(const ConvShape& s) {
  return {s.batches,  s.input_h,  s.input_w,  s.input_c,  s.output_h,   s.output_w,
          s.input_c,  s.filter_h, s.filter_w, s.stride_h, s.stride_w,   s.pad_h,
          s.pad_w,    s.dilation_h, s.dilation_w};
}

OverlapRule im2col_walk(const ConvShape& s, int32_t block) {
  const WindowGeometry g = geometry(s);
  const int64_t co = s.output_c, per_image = int64_t{s.output_h} * s.output_w;
  int64_t lead = INT64_MIN, later = kNoRead;
  for (int64_t b = s.batches - 1; b >= 0; --b) {
    for (int64_t p = (per_image - 1) / block * block; p >= 0; p -= block) {
      const int64_t n = std::min<int64_t>(block, per_image - p);
      if (later != kNoRead) lead = std::max(lead, (b * per_image + p + n) * co - later);
      for (int64_t k = 0; k < n; ++k) later = std::min(later, window_start(g, b * per_image + p + k));
    }
  }
  return finish(lead, int64_t{s.batches} * s.input_h * s.input_w * s.input_c);
}

// A window geometry whose output size is anything from 1 to a few more rows than the input
// gives (so that some windows lie wholly in the padding).
WindowGeometry random_geometry(testing::Rng& rng, int32_t multiplier) {
  WindowGeometry g{};
  g.batches = rng.Chance(80) ? 1 : rng.Uniform(2, 3);
  g.input_h = rng.Uniform(1, 12);
  g.input_w = rng.Uniform(1, 12);
  g.input_c = rng.Uniform(1, 9);
  g.output_c = g.input_c * multiplier;
  g.filter_h = rng.Uniform(1, 5);
  g.filter_w = rng.Uniform(1, 5);
  g.stride_h = rng.Uniform(1, 3);
  g.stride_w = rng.Uniform(1, 3);
  g.dilation_h = rng.Chance(70) ? 1 : rng.Uniform(2, 3);
  g.dilation_w = rng.Chance(70) ? 1 : rng.Uniform(2, 3);
  g.pad_h = rng.Uniform(0, 4);
  g.pad_w = rng.Uniform(0, 4);
  g.output_h = rng.Uniform(1, g.input_h + 3);
  g.output_w = rng.Uniform(1, g.input_w + 3);
  return g;
}

std::string describe(const WindowGeometry& g) {
  return "b" + std::to_string(g.batches) + " in " + std::to_string(g.input_h) + "x" +
         std::to_string(g.input_w) + "x" + std::to_string(g.input_c) + " out " +
         std::to_string(g.output_h) + "x" + std::to_string(g.output_w) + "x" +
         std::to_string(g.output_c) + " filter " + std::to_string(g.filter_h) + "x" +
         std::to_string(g.filter_w) + " stride " + std::to_string(g.stride_h) + "," +
         std::to_string(g.stride_w) + " pad " + std::to_string(g.pad_h) + "," +
         std::to_string(g.pad_w) + " dilation " + std::to_string(g.dilation_h) + "," +
         std::to_string(g.dilation_w);
}

void expect_same(const OverlapRule& closed, const OverlapRule& walk, const std::string& what) {
  EXPECT_EQ(closed.allowed, walk.allowed) << what;
  EXPECT_EQ(closed.lead, walk.lead) << what;
  EXPECT_EQ(closed.backward, walk.backward) << what;
  EXPECT_EQ(closed.exact, walk.exact) << what;
}

constexpr int kShapes = 20000;

TEST(OverlapClosedForm, RasterEqualsTheWalk) {
  testing::Rng rng(11);
  for (int i = 0; i < kShapes; ++i) {
    const WindowGeometry g = random_geometry(rng, rng.Chance(70) ? 1 : rng.Uniform(2, 3));
    expect_same(window_raster_overlap(g), raster_walk(g), describe(g));
    if (HasFailure()) return;
  }
}

TEST(OverlapClosedForm, GroupsEqualTheWalk) {
  testing::Rng rng(12);
  for (int i = 0; i < kShapes; ++i) {
    const WindowGeometry g = random_geometry(rng, 1);
    // Groups over a range of columns (as the mve depthwise kernel writes them), all of them, or
    // none; channel blocks below, at and above the channel count.
    PixelGroups groups{rng.Uniform(0, g.output_w), 0, rng.Uniform(1, 5)};
    groups.last = groups.first == g.output_w || rng.Chance(20)
                      ? groups.first - 1
                      : rng.Uniform(groups.first, g.output_w - 1);
    const int32_t block = rng.Uniform(1, 6);
    expect_same(window_group_overlap(g, groups, block), group_walk(g, groups, block),
                describe(g) + " groups " + std::to_string(groups.first) + ".." +
                    std::to_string(groups.last) + " by " + std::to_string(groups.size) +
                    " block " + std::to_string(block));
    if (HasFailure()) return;
  }
}

ConvShape conv_of(const WindowGeometry& g, int32_t output_c) {
  return {g.batches,  g.input_h,  g.input_w,  g.input_c,  g.filter_h,   g.filter_w,
          g.input_c,  g.output_h, g.output_w, output_c,   g.stride_h,   g.stride_w,
          g.pad_h,    g.pad_w,    g.dilation_h, g.dilation_w};
}

TEST(OverlapClosedForm, Im2colBlocksEqualTheWalk) {
  testing::Rng rng(13);
  for (int i = 0; i < kShapes; ++i) {
    const ConvShape s = conv_of(random_geometry(rng, 1), rng.Uniform(1, 12));
    const int32_t block = rng.Uniform(1, 6);
    expect_same(im2col_block_overlap(s, block), im2col_walk(s, block),
                describe(geometry(s)) + " output_c " + std::to_string(s.output_c) + " block " +
                    std::to_string(block));
    if (HasFailure()) return;
  }
}

TEST(OverlapClosedForm, PointwiseBlocksEqualTheWalk) {
  testing::Rng rng(14);
  for (int i = 0; i < kShapes; ++i) {
    WindowGeometry g = random_geometry(rng, 1);
    g.filter_h = g.filter_w = 1;
    g.pad_h = g.pad_w = 0;
    g.output_h = (g.input_h - 1) / g.stride_h + 1;
    g.output_w = (g.input_w - 1) / g.stride_w + 1;
    const ConvShape s = conv_of(g, rng.Uniform(1, 12));
    const int32_t block = rng.Uniform(1, 6), tail = rng.Uniform(0, 3);
    expect_same(pointwise_block_overlap(s, block, tail), pointwise_walk(s, block, tail),
                describe(g) + " output_c " + std::to_string(s.output_c) + " block " +
                    std::to_string(block) + " tail " + std::to_string(tail));
    if (HasFailure()) return;
  }
}

// The shapes of the shared models' layers, larger than the random ones.
TEST(OverlapClosedForm, ModelLayersEqualTheWalk) {
  // visual wake words' first layers, keyword spotting's first convolution and a depthwise layer.
  const ConvShape convs[] = {
      {1, 96, 96, 3, 3, 3, 3, 48, 48, 8, 2, 2, 0, 0, 1, 1},
      {1, 48, 48, 8, 1, 1, 8, 48, 48, 16, 1, 1, 0, 0, 1, 1},
      {1, 49, 10, 1, 10, 4, 1, 25, 5, 64, 2, 2, 4, 1, 1, 1},
      {2, 20, 17, 5, 3, 3, 5, 10, 9, 7, 2, 2, 1, 1, 1, 1},
  };
  for (const ConvShape& s : convs) {
    for (int32_t block : {2, 4}) {
      const std::string what = describe(geometry(s)) + " block " + std::to_string(block);
      expect_same(im2col_block_overlap(s, block), im2col_walk(s, block), what);
      expect_same(pointwise_block_overlap(s, block, 1), pointwise_walk(s, block, 1), what);
    }
  }
  const WindowGeometry depthwise[] = {
      {1, 48, 48, 16, 24, 24, 16, 3, 3, 2, 2, 0, 0, 1, 1},
      {1, 25, 5, 64, 25, 5, 64, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 96, 96, 8, 96, 96, 8, 3, 3, 1, 1, 1, 1, 1, 1},
  };
  for (const WindowGeometry& g : depthwise) {
    expect_same(window_raster_overlap(g), raster_walk(g), describe(g));
    expect_same(window_group_overlap(g, {0, g.output_w - 1, 3}, 4),
                group_walk(g, {0, g.output_w - 1, 3}, 4), describe(g));
    expect_same(window_group_overlap(g, {1, g.output_w - 2, 4}, 4),
                group_walk(g, {1, g.output_w - 2, 4}, 4), describe(g));
  }
}

}  // namespace
}  // namespace mote::kernels::internal
