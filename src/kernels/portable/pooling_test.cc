#include "mote/kernels/pooling.h"

#include <gtest/gtest.h>

#include <cmath>

#include "mote/kernels/scratch.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

// Straight from the definition: every output pixel looks at its whole window.
std::vector<int8_t> SlowPool(const PoolParams& p, const std::vector<int8_t>& in, bool average) {
  std::vector<int8_t> out;
  for (int b = 0; b < p.batches; ++b)
    for (int oy = 0; oy < p.output_h; ++oy)
      for (int ox = 0; ox < p.output_w; ++ox)
        for (int c = 0; c < p.channels; ++c) {
          int64_t sum = 0, count = 0, best = -128;
          for (int fy = 0; fy < p.filter_h; ++fy)
            for (int fx = 0; fx < p.filter_w; ++fx) {
              const int y = oy * p.stride_h - p.pad_h + fy;
              const int x = ox * p.stride_w - p.pad_w + fx;
              if (y < 0 || y >= p.input_h || x < 0 || x >= p.input_w) continue;
              const int v = in[((b * p.input_h + y) * p.input_w + x) * p.channels + c];
              sum += v;
              ++count;
              best = std::max<int64_t>(best, v);
            }
          const int64_t value =
              average ? std::lround(static_cast<double>(sum) / static_cast<double>(count)) : best;
          out.push_back(static_cast<int8_t>(ops_testing::Clamp(value, p.act_min, p.act_max)));
        }
  return out;
}

// Scratch as the plan gives it for each extension (FACTS.md: average pool DSP = channels * 4).
size_t PlannedScratch(int32_t channels, Extension extension) {
  return extension == Extension::kDsp ? static_cast<size_t>(channels) * 4 : 0;
}

TEST(PoolingTest, PrepareComputesTfLiteSameAndValidGeometry) {
  // SAME: out = ceil(in / stride); total padding = (out-1)*stride + filter - in, top gets half.
  PoolParams p = prepare_pool(1, 12, 22, 20, 5, 6, 5, 9, true, -128, 127);
  EXPECT_EQ(p.output_h, 3);  // ceil(12/5)
  EXPECT_EQ(p.output_w, 3);  // ceil(22/9)
  EXPECT_EQ(p.pad_h, 1);     // (2*5 + 5 - 12) / 2 = 3 / 2
  EXPECT_EQ(p.pad_w, 1);     // (2*9 + 6 - 22) / 2 = 2 / 2
  // VALID: out = (in - filter) / stride + 1, no padding.
  p = prepare_pool(1, 5, 9, 3, 5, 9, 2, 1, false, -128, 127);
  EXPECT_EQ(p.output_h, 1);
  EXPECT_EQ(p.output_w, 1);
  EXPECT_EQ(p.pad_h, 0);
  EXPECT_EQ(p.pad_w, 0);
}

TEST(PoolingTest, HandCheckedAverageRoundsHalfAwayFromZero) {
  // 1x2x2x2 input, 2x2 window over everything: channel 0 sums 1+2+3+4 = 10 -> 2.5 -> 3,
  // channel 1 sums -1-2-3-4 = -10 -> -2.5 -> -3.
  const std::vector<int8_t> in = {1, -1, 2, -2, 3, -3, 4, -4};
  const PoolParams p = prepare_pool(1, 2, 2, 2, 2, 2, 1, 1, false, -128, 127);
  Guarded<int8_t> out(2);
  average_pool(p, in.data(), out.data(), Scratch{nullptr, 0});
  EXPECT_EQ(out.values(), (std::vector<int8_t>{3, -3}));
  EXPECT_TRUE(out.intact());
}

TEST(PoolingTest, HandCheckedAverageSkipsPaddingAndClamps) {
  // 1x1x3x1 input {10, 20, 60}, window 1x3, SAME, stride 1: pad_w = 1.
  // Outputs: (10+20)/2 = 15, (10+20+60)/3 = 30, (20+60)/2 = 40, then clamped to [-128, 35].
  const std::vector<int8_t> in = {10, 20, 60};
  const PoolParams p = prepare_pool(1, 1, 3, 1, 1, 3, 1, 1, true, -128, 35);
  ASSERT_EQ(p.pad_w, 1);
  Guarded<int8_t> out(3);
  average_pool(p, in.data(), out.data(), Scratch{nullptr, 0});
  EXPECT_EQ(out.values(), (std::vector<int8_t>{15, 30, 35}));
}

TEST(PoolingTest, HandCheckedMax) {
  // 1x2x2x1 {-5, 7, 3, -128}, window 2x2 stride 2 -> 7; with act_max 5 -> 5.
  const std::vector<int8_t> in = {-5, 7, 3, -128};
  PoolParams p = prepare_pool(1, 2, 2, 1, 2, 2, 2, 2, false, -128, 127);
  Guarded<int8_t> out(1);
  max_pool(p, in.data(), out.data());
  EXPECT_EQ(out[0], 7);
  p.act_max = 5;
  max_pool(p, in.data(), out.data());
  EXPECT_EQ(out[0], 5);
  EXPECT_TRUE(out.intact());
}

TEST(PoolingTest, RandomizedMatchesSlowReferenceWithGuardedOutputAndScratch) {
  Random rng(1234);
  for (int iter = 0; iter < 300; ++iter) {
    const int32_t batches = rng.Int(1, 2), h = rng.Int(1, 9), w = rng.Int(1, 9), c = rng.Int(1, 9);
    const int32_t fh = rng.Int(1, 4), fw = rng.Int(1, 4), sh = rng.Int(1, 3), sw = rng.Int(1, 3);
    const bool same = rng.Int(0, 1) == 1;
    if (!same && (fh > h || fw > w)) continue;
    int32_t act_min = rng.Int(-128, 0), act_max = rng.Int(0, 127);
    if (rng.Int(0, 1)) act_min = -128, act_max = 127;
    const PoolParams p = prepare_pool(batches, h, w, c, fh, fw, sh, sw, same, act_min, act_max);
    const std::vector<int8_t> in = rng.Int8s(static_cast<size_t>(batches) * h * w * c);
    const size_t out_size = static_cast<size_t>(batches) * p.output_h * p.output_w * c;
    for (bool average : {true, false}) {
      const std::vector<int8_t> expected = SlowPool(p, in, average);
      for (Extension ext : {Extension::kScalar, Extension::kDsp, Extension::kMve}) {
        Guarded<int8_t> out(out_size);
        Guarded<int8_t> scratch(PlannedScratch(c, ext));
        if (average) {
          average_pool(p, in.data(), out.data(), Scratch{scratch.data(), scratch.size()});
        } else {
          max_pool(p, in.data(), out.data());
        }
        ASSERT_EQ(out.values(), expected) << "iter " << iter << " average " << average;
        ASSERT_TRUE(out.intact());
        ASSERT_TRUE(scratch.intact());
        if (!average) break;
      }
    }
  }
}

}  // namespace
}  // namespace mote::kernels
