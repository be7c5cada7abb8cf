// SUM and REDUCE_MAX (mote/kernels/mean.h): hand-checked values and random shapes, axes and
// scales against slow references written from TFLite's definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "mote/kernels/mean.h"
#include "mote/kernels/quantization.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

// The output index of every input element and the count per output, for `axes` of `dims`.
std::vector<size_t> OutputOf(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                             size_t* outputs, int64_t* count) {
  const size_t rank = dims.size();
  std::vector<bool> reduced(rank, false);
  for (int32_t a : axes) reduced[static_cast<size_t>(a)] = true;
  *count = 1;
  *outputs = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      *count *= dims[d];
    } else {
      *outputs *= static_cast<size_t>(dims[d]);
    }
  }
  std::vector<size_t> of;
  std::vector<int32_t> index(rank, 0);
  for (size_t flat = 0, n = ops_testing::Product(dims); flat < n; ++flat) {
    size_t o = 0;
    for (size_t d = 0; d < rank; ++d) {
      if (!reduced[d]) o = o * static_cast<size_t>(dims[d]) + static_cast<size_t>(index[d]);
    }
    of.push_back(o);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return of;
}

// TFLite's int8 SUM (reference_ops::QuantizedMeanOrSum with compute_sum): raw int32 sums,
// centred on the input zero point, MultiplyByQuantizedMultiplier by QuantizeMultiplier(input
// scale / output scale), plus the output zero point, clamped.
std::vector<int8_t> SlowSum(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                            float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                            const std::vector<int8_t>& in) {
  size_t outputs = 0;
  int64_t count = 0;
  const std::vector<size_t> of = OutputOf(dims, axes, &outputs, &count);
  std::vector<int64_t> sums(outputs, 0);
  for (size_t i = 0; i < in.size(); ++i) sums[of[i]] += in[i];
  const QuantizedMultiplier m = quantize_multiplier(double{in_scale} / out_scale);
  std::vector<int8_t> out;
  for (int64_t sum : sums) {
    const int64_t v = ops_testing::RefMultiply(sum - in_zp * count, m.multiplier, m.shift);
    out.push_back(static_cast<int8_t>(ops_testing::Clamp(v + out_zp, -128, 127)));
  }
  return out;
}

// TFLite's REDUCE_MAX: the reducer max(in, current) from the lowest int8.
std::vector<int8_t> SlowMax(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                            const std::vector<int8_t>& in) {
  size_t outputs = 0;
  int64_t count = 0;
  const std::vector<size_t> of = OutputOf(dims, axes, &outputs, &count);
  std::vector<int8_t> out(outputs, -128);
  for (size_t i = 0; i < in.size(); ++i) out[of[i]] = std::max(out[of[i]], in[i]);
  return out;
}

MeanParams Params(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                  int32_t in_zp, int32_t out_zp, QuantizedMultiplier m) {
  return prepare_mean(static_cast<int32_t>(dims.size()), dims.data(),
                      static_cast<int32_t>(axes.size()), axes.data(), in_zp, out_zp, m.multiplier,
                      m.shift);
}

std::vector<int8_t> RunSum(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                           float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                           const std::vector<int8_t>& in, size_t outputs, bool* intact) {
  Guarded<int8_t> out(outputs);
  mean(Params(dims, axes, in_zp, out_zp, sum_requant(in_scale, out_scale)), in.data(), out.data());
  *intact = out.intact();
  return out.values();
}

std::vector<int8_t> RunMax(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                           const std::vector<int8_t>& in, size_t outputs, bool* intact) {
  Guarded<int8_t> out(outputs);
  reduce_max(Params(dims, axes, 0, 0, {0, 0}), in.data(), out.data());
  *intact = out.intact();
  return out.values();
}

using V = std::vector<int8_t>;

TEST(SumTest, HandChecked) {
  bool intact = false;
  // Same quantization (multiplier 2^30, shift 1: times 1): {1, 2, 3, 5} -> 11.
  EXPECT_EQ(RunSum({1, 2, 2, 1}, {1, 2}, 0.5f, 0, 0.5f, 0, {1, 2, 3, 5}, 1, &intact), V{11});
  EXPECT_TRUE(intact);
  // Output scale twice the input's: 11 * 0.5 = 5.5 rounds up to 6, and -5.5 up to -5 (the
  // rounding doubling high multiply adds 2^30 or 1 - 2^30, then truncates).
  EXPECT_EQ(RunSum({4}, {0}, 0.5f, 0, 1.0f, 0, {1, 2, 3, 5}, 1, &intact), V{6});
  EXPECT_EQ(RunSum({4}, {0}, 0.5f, 0, 1.0f, 0, {-1, -2, -3, -5}, 1, &intact), V{-5});
  // Zero points: input scale 1 zp 2, output scale 0.5 zp -10, channels over 1x2:
  // channel 0 {4, 6} -> (2 + 4) * 2 - 10 = 2; channel 1 {2, 3} -> (0 + 1) * 2 - 10 = -8.
  EXPECT_EQ(RunSum({1, 1, 2, 2}, {1, 2}, 1.0f, 2, 0.5f, -10, {4, 2, 6, 3}, 2, &intact),
            (V{2, -8}));
  // Saturation: 3 * 127 = 381 -> 127; 3 * -128 -> -128.
  EXPECT_EQ(RunSum({2, 3}, {1}, 1.0f, 0, 1.0f, 0, {127, 127, 127, -128, -128, -128}, 2, &intact),
            (V{127, -128}));
  // Not divided by the count (MEAN would give 1 and -3 here): 7 / 2 = 3.5 -> 4, -17 / 2 -> -8.
  EXPECT_EQ(RunSum({2, 3}, {1}, 1.0f, 0, 2.0f, 0, {1, 2, 4, -5, -6, -6}, 2, &intact),
            (V{4, -8}));
  EXPECT_TRUE(intact);
}

TEST(SumTest, RandomShapesAxesAndScalesMatchTfLite) {
  Random rng(41);
  for (int iter = 0; iter < 600; ++iter) {
    const int rank = rng.Int(1, kMaxMeanRank);
    std::vector<int32_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(rng.Int(1, rank > 4 ? 3 : 6));
    std::vector<int32_t> axes;
    for (int d = 0; d < rank; ++d) {
      if (rng.Int(0, 2) == 0) axes.push_back(d);
    }
    std::shuffle(axes.begin(), axes.end(), std::mt19937(static_cast<uint32_t>(iter)));
    // Output scales from a tenth of the input's to many times it: saturating and not.
    const float in_scale = rng.Scale(), out_scale = in_scale * rng.Float(0.1f, 40.0f);
    const int32_t in_zp = rng.Int(-128, 127), out_zp = rng.Int(-128, 127);
    const std::vector<int8_t> in = rng.Int8s(ops_testing::Product(dims));
    const V expected = SlowSum(dims, axes, in_scale, in_zp, out_scale, out_zp, in);
    bool intact = false;
    ASSERT_EQ(RunSum(dims, axes, in_scale, in_zp, out_scale, out_zp, in, expected.size(), &intact),
              expected)
        << "iter " << iter;
    ASSERT_TRUE(intact);
  }
}

TEST(ReduceMaxTest, HandChecked) {
  bool intact = false;
  const V in = {1, -2, 4, -5, -6, -7};
  EXPECT_EQ(RunMax({2, 3}, {1}, in, 2, &intact), (V{4, -5}));
  EXPECT_EQ(RunMax({2, 3}, {0}, in, 3, &intact), (V{1, -2, 4}));
  EXPECT_EQ(RunMax({2, 3}, {0, 1}, in, 1, &intact), V{4});
  EXPECT_EQ(RunMax({1, 2, 2, 1}, {1, 2}, {-128, -128, -128, -128}, 1, &intact), V{-128});
  // The spatial maximum per channel of 1x2x2x2: channel 0 {3, 9, -1, 0}, channel 1 {-3, -9, 1, 0}.
  EXPECT_EQ(RunMax({1, 2, 2, 2}, {1, 2}, {3, -3, 9, -9, -1, 1, 0, 0}, 2, &intact), (V{9, 1}));
  EXPECT_TRUE(intact);
}

TEST(ReduceMaxTest, RandomShapesAndAxesMatchTfLite) {
  Random rng(43);
  for (int iter = 0; iter < 600; ++iter) {
    const int rank = rng.Int(1, kMaxMeanRank);
    std::vector<int32_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(rng.Int(1, rank > 4 ? 3 : 6));
    std::vector<int32_t> axes;
    for (int d = 0; d < rank; ++d) {
      if (rng.Int(0, 2) == 0) axes.push_back(d);
    }
    // Narrow value ranges too, so that maxima repeat.
    const int32_t hi = rng.Int(-128, 127);
    const std::vector<int8_t> in = rng.Int8s(ops_testing::Product(dims), -128, hi);
    const V expected = SlowMax(dims, axes, in);
    bool intact = false;
    ASSERT_EQ(RunMax(dims, axes, in, expected.size(), &intact), expected) << "iter " << iter;
    ASSERT_TRUE(intact);
  }
}

}  // namespace
}  // namespace mote::kernels
