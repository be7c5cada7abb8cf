#include "mote/kernels/mean.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "mote/kernels/quantization.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

// TFLite's int8 MEAN (reference_ops::QuantizedMeanOrSum, compute_sum false), from its
// definition: raw sums per output element, 1/count folded into the requantization multiplier.
std::vector<int8_t> SlowMean(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                             float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                             const std::vector<int8_t>& in) {
  const size_t rank = dims.size();
  std::vector<bool> reduced(rank, false);
  for (int32_t a : axes) reduced[static_cast<size_t>(a)] = true;
  int64_t count = 1, outputs = 1;
  for (size_t d = 0; d < rank; ++d) (reduced[d] ? count : outputs) *= dims[d];
  std::vector<int64_t> sums(static_cast<size_t>(outputs), 0);
  std::vector<int32_t> index(rank, 0);
  for (size_t flat = 0; flat < in.size(); ++flat) {
    int64_t o = 0;
    for (size_t d = 0; d < rank; ++d) {
      if (!reduced[d]) o = o * dims[d] + index[d];
    }
    sums[static_cast<size_t>(o)] += in[flat];
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  const QuantizedMultiplier m = quantize_multiplier(double{in_scale} / out_scale);
  int shift = 0;
  while ((int64_t{1} << (shift + 1)) <= count) ++shift;  // floor(log2(count))
  shift = std::min({shift, 32, 31 + static_cast<int>(m.shift)});
  const int32_t multiplier = static_cast<int32_t>((int64_t{m.multiplier} << shift) / count);
  std::vector<int8_t> out;
  for (int64_t sum : sums) {
    const int64_t v = ops_testing::RefMultiply(sum - in_zp * count, multiplier, m.shift - shift);
    out.push_back(static_cast<int8_t>(ops_testing::Clamp(v + out_zp, -128, 127)));
  }
  return out;
}

std::vector<int8_t> RunMean(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                            float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                            const std::vector<int8_t>& in, size_t outputs, bool* intact) {
  int64_t count = 1;
  for (int32_t a : axes) count *= dims[static_cast<size_t>(a)];
  const QuantizedMultiplier m = mean_requant(in_scale, out_scale, count);
  const MeanParams p =
      prepare_mean(static_cast<int32_t>(dims.size()), dims.data(),
                   static_cast<int32_t>(axes.size()), axes.data(), in_zp, out_zp, m.multiplier,
                   m.shift);
  Guarded<int8_t> out(outputs);
  mean(p, in.data(), out.data());
  *intact = out.intact();
  return out.values();
}

TEST(MeanTest, HandChecked) {
  bool intact = false;
  // 1x2x2x1 {1, 2, 3, 5}, same quantization (multiplier 2^30, shift 1): count 4 folds to
  // multiplier 2^30, shift -1; 11 * 2^30 / 2^31 = 5.5 rounds to 6, / 2 -> 3 (mean 2.75).
  EXPECT_EQ(RunMean({1, 2, 2, 1}, {1, 2}, 0.5f, 0, 0.5f, 0, {1, 2, 3, 5}, 1, &intact),
            (std::vector<int8_t>{3}));
  EXPECT_TRUE(intact);
  // Requantized: input scale 1 zp 2, output scale 0.5 zp -10, 2 channels over 1x2:
  // channel 0 {4, 6} -> real mean 3 -> 6 - 10 = -4; channel 1 {2, 3} -> 0.5 -> 1 - 10 = -9.
  EXPECT_EQ(RunMean({1, 1, 2, 2}, {1, 2}, 1.0f, 2, 0.5f, -10, {4, 2, 6, 3}, 2, &intact),
            (std::vector<int8_t>{-4, -9}));
  // The last axis of [2, 3]: {1, 2, 4} -> 7/3 = 2.33 -> 2; {-5, -6, -6} -> -17/3 = -5.67 -> -6.
  EXPECT_EQ(RunMean({2, 3}, {1}, 1.0f, 0, 1.0f, 0, {1, 2, 4, -5, -6, -6}, 2, &intact),
            (std::vector<int8_t>{2, -6}));
  // The first axis: columns of [2, 3].
  EXPECT_EQ(RunMean({2, 3}, {0}, 1.0f, 0, 1.0f, 0, {1, 2, 4, -5, -6, -6}, 3, &intact),
            (std::vector<int8_t>{-2, -2, -1}));
}

TEST(MeanTest, FoldsTheCountLikeTfLite) {
  // 7x7 window, scale ratio 0.02 / 0.03: QuantizeMultiplier gives 1431655765 * 2^-31 (shift 0);
  // floor(log2(49)) = 5, so the multiplier becomes (1431655765 << 5) / 49 = 934958866, shift -5.
  const QuantizedMultiplier q = quantize_multiplier(0.02 / 0.03);
  ASSERT_EQ(q.multiplier, 1431655765);
  ASSERT_EQ(q.shift, 0);
  const QuantizedMultiplier m = fold_mean_count(q, 49);
  EXPECT_EQ(m.multiplier, 934958866);
  EXPECT_EQ(m.shift, -5);
  // The shift is clamped at 31 + shift: a ratio of 2^-30 (shift -29) over 16 elements folds
  // only 2 of the 4 bits.
  const QuantizedMultiplier tiny = fold_mean_count({1 << 30, -29}, 16);
  EXPECT_EQ(tiny.shift, -31);
  EXPECT_EQ(tiny.multiplier, (int64_t{1} << 32) / 16);
}

TEST(MeanTest, RandomShapesAxesAndScalesMatchTfLite) {
  Random rng(31);
  for (int iter = 0; iter < 600; ++iter) {
    const int rank = rng.Int(1, kMaxMeanRank);
    std::vector<int32_t> dims;
    size_t total = 1;
    for (int d = 0; d < rank; ++d) {
      dims.push_back(rng.Int(1, rank > 4 ? 3 : 6));
      total *= static_cast<size_t>(dims.back());
    }
    std::vector<int32_t> axes;
    for (int d = 0; d < rank; ++d) {
      if (rng.Int(0, 2) == 0) axes.push_back(d);
    }
    std::shuffle(axes.begin(), axes.end(), std::mt19937(static_cast<uint32_t>(iter)));
    const float in_scale = rng.Scale(), out_scale = rng.Scale();
    const int32_t in_zp = rng.Int(-128, 127), out_zp = rng.Int(-128, 127);
    const std::vector<int8_t> in = rng.Int8s(total);
    const auto expected = SlowMean(dims, axes, in_scale, in_zp, out_scale, out_zp, in);
    bool intact = false;
    ASSERT_EQ(RunMean(dims, axes, in_scale, in_zp, out_scale, out_zp, in, expected.size(),
                      &intact),
              expected)
        << "iter " << iter;
    ASSERT_TRUE(intact);
  }
}

TEST(MeanTest, SevenBySevenOfManyChannelsMatchesTfLite) {
  // The field's case: a 7x7 global average of 1,280 channels with differing scales.
  Random rng(7);
  const std::vector<int32_t> dims = {1, 7, 7, 1280};
  const std::vector<int8_t> in = rng.Int8s(7 * 7 * 1280);
  for (const auto& [in_scale, in_zp, out_scale, out_zp] :
       {std::tuple{0.0235f, -128, 0.0113f, -128}, std::tuple{0.05f, 3, 0.021f, -7},
        std::tuple{0.1f, 0, 0.1f, 0}}) {
    const auto expected = SlowMean(dims, {1, 2}, in_scale, in_zp, out_scale, out_zp, in);
    bool intact = false;
    EXPECT_EQ(RunMean(dims, {2, 1}, in_scale, in_zp, out_scale, out_zp, in, 1280, &intact),
              expected);
    EXPECT_TRUE(intact);
  }
}

}  // namespace
}  // namespace mote::kernels
