#include "mote/kernels/mean.h"

#include <gtest/gtest.h>

#include <cmath>

#include "mote/kernels/quantization.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

// TFLite's reference_integer_ops::Mean, from its definition.
std::vector<int8_t> SlowMeanTfLite(int b, int h, int w, int c, float in_scale, int32_t in_zp,
                                   float out_scale, int32_t out_zp, const std::vector<int8_t>& in) {
  const QuantizedMultiplier m = quantize_multiplier(double{in_scale} / out_scale);
  std::vector<int8_t> out;
  for (int n = 0; n < b; ++n)
    for (int ch = 0; ch < c; ++ch) {
      int64_t acc = 0;
      for (int i = 0; i < h * w; ++i) acc += in[(n * h * w + i) * c + ch] - in_zp;
      const int64_t scaled = ops_testing::RefMultiply(acc, m.multiplier, m.shift);
      const int64_t avg = std::lround(static_cast<double>(scaled) / (h * w));
      out.push_back(static_cast<int8_t>(ops_testing::Clamp(avg + out_zp, -128, 127)));
    }
  return out;
}

// TFLM's QuantizedMeanOrSum: the multiplier absorbs 1/count at Eval time.
std::vector<int8_t> SlowMeanTflm(int b, int h, int w, int c, float in_scale, int32_t in_zp,
                                 float out_scale, int32_t out_zp, const std::vector<int8_t>& in) {
  const QuantizedMultiplier m = quantize_multiplier(double{in_scale} / out_scale);
  const int64_t count = int64_t{h} * w;
  int shift = 0;
  while ((int64_t{2} << shift) <= count) ++shift;  // floor(log2(count))
  shift = std::min({shift, 32, 31 + static_cast<int>(m.shift)});
  const int32_t multiplier = static_cast<int32_t>((int64_t{m.multiplier} << shift) / count);
  std::vector<int8_t> out;
  for (int n = 0; n < b; ++n)
    for (int ch = 0; ch < c; ++ch) {
      int64_t sum = 0;
      for (int i = 0; i < h * w; ++i) sum += in[(n * h * w + i) * c + ch];
      const int64_t v = ops_testing::RefMultiply(sum - in_zp * count, multiplier, m.shift - shift);
      out.push_back(static_cast<int8_t>(ops_testing::Clamp(v + out_zp, -128, 127)));
    }
  return out;
}

TEST(MeanTest, HandChecked) {
  // 1x2x2x1 {1, 2, 3, 5}, same quantization: mean 11/4 = 2.75 -> 3 with both formulas.
  const std::vector<int8_t> in = {1, 2, 3, 5};
  for (MeanFormula f : {MeanFormula::kTfLite, MeanFormula::kTflm}) {
    const MeanParams p = prepare_mean(1, 2, 2, 1, 0.5f, 0, 0.5f, 0, f);
    Guarded<int8_t> out(1);
    mean(p, in.data(), out.data());
    EXPECT_EQ(out[0], 3);
    EXPECT_TRUE(out.intact());
  }
  // Requantized: input scale 1 zp 2, output scale 0.5 zp -10, 2 channels over 1x2:
  // channel 0 {4, 6} -> real mean 3 -> 6 - 10 = -4; channel 1 {2, 3} -> 0.5 -> 1 - 10 = -9.
  const std::vector<int8_t> in2 = {4, 2, 6, 3};
  for (MeanFormula f : {MeanFormula::kTfLite, MeanFormula::kTflm}) {
    const MeanParams p = prepare_mean(1, 1, 2, 2, 1.0f, 2, 0.5f, -10, f);
    Guarded<int8_t> out(2);
    mean(p, in2.data(), out.data());
    EXPECT_EQ(out.values(), (std::vector<int8_t>{-4, -9}));
  }
}

TEST(MeanTest, FormulasDifferAsInTheirInterpreters) {
  // Both formulas agree with their references on many random cases, and they do disagree on
  // some (which is why the compiler must pick one).
  Random rng(31);
  int differences = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int b = rng.Int(1, 2), h = rng.Int(1, 7), w = rng.Int(1, 7), c = rng.Int(1, 5);
    const float in_scale = rng.Scale(), out_scale = rng.Scale();
    const int32_t in_zp = rng.Int(-128, 127), out_zp = rng.Int(-128, 127);
    const std::vector<int8_t> in = rng.Int8s(static_cast<size_t>(b) * h * w * c);
    const auto ref_tflite = SlowMeanTfLite(b, h, w, c, in_scale, in_zp, out_scale, out_zp, in);
    const auto ref_tflm = SlowMeanTflm(b, h, w, c, in_scale, in_zp, out_scale, out_zp, in);
    Guarded<int8_t> a(ref_tflite.size()), t(ref_tflm.size());
    mean(prepare_mean(b, h, w, c, in_scale, in_zp, out_scale, out_zp, MeanFormula::kTfLite),
         in.data(), a.data());
    mean(prepare_mean(b, h, w, c, in_scale, in_zp, out_scale, out_zp, MeanFormula::kTflm),
         in.data(), t.data());
    ASSERT_EQ(a.values(), ref_tflite) << "iter " << iter;
    ASSERT_EQ(t.values(), ref_tflm) << "iter " << iter;
    ASSERT_TRUE(a.intact());
    ASSERT_TRUE(t.intact());
    for (size_t i = 0; i < ref_tflite.size(); ++i) {
      differences += ref_tflite[i] != ref_tflm[i];
      EXPECT_LE(std::abs(ref_tflite[i] - ref_tflm[i]), 1);
    }
  }
  EXPECT_GT(differences, 0);
}

}  // namespace
}  // namespace mote::kernels
