#include "mote/kernels/concatenation.h"

#include <gtest/gtest.h>

#include <cmath>

#include "mote/kernels/quantization.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

TEST(ConcatenationTest, HandCheckedChannelAxis) {
  // [1,2,1,2] ++ [1,2,1,1] on axis 3 -> [1,2,1,3].
  const std::vector<int8_t> a = {1, 2, 3, 4}, b = {-1, -2};
  const int32_t da[4] = {1, 2, 1, 2}, db[4] = {1, 2, 1, 1}, dout[4] = {1, 2, 1, 3};
  const ConcatenationParams p = prepare_concatenation(2, 4, dout, 3);
  const ConcatenationInput in[2] = {prepare_concatenation_input(4, da, 3, 0.1f, 0, 0.1f, 0),
                                    prepare_concatenation_input(4, db, 3, 0.1f, 0, 0.1f, 0)};
  EXPECT_EQ(p.outer_size, 2);
  EXPECT_FALSE(in[0].requantize);
  EXPECT_EQ(in[0].copy_size, 2);
  EXPECT_EQ(in[1].copy_size, 1);
  const int8_t* inputs[2] = {a.data(), b.data()};
  Guarded<int8_t> out(6);
  concatenation(p, in, inputs, out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{1, 2, -1, 3, 4, -2}));
  EXPECT_TRUE(out.intact());
}

TEST(ConcatenationTest, HandCheckedRequantization) {
  // Second input has scale 0.2, zero point 10; output scale 0.1, zero point 0:
  // q_out = (q - 10) * 2: 11 -> 2, 9 -> -2, 127 -> 234 -> clamped 127.
  const std::vector<int8_t> a = {5}, b = {11, 9, 127};
  const int32_t da[1] = {1}, db[1] = {3}, dout[1] = {4};
  const ConcatenationParams p = prepare_concatenation(2, 1, dout, 0);
  const ConcatenationInput in[2] = {prepare_concatenation_input(1, da, 0, 0.1f, 0, 0.1f, 0),
                                    prepare_concatenation_input(1, db, 0, 0.2f, 10, 0.1f, 0)};
  EXPECT_TRUE(in[1].requantize);
  const int8_t* inputs[2] = {a.data(), b.data()};
  Guarded<int8_t> out(4);
  concatenation(p, in, inputs, out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{5, 2, -2, 127}));
  EXPECT_TRUE(out.intact());
}

TEST(ConcatenationTest, RandomizedMatchesSlowReference) {
  Random rng(21);
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = rng.Int(1, 5);
    const int axis = rng.Int(0, rank - 1);
    const int n = rng.Int(1, 4);
    std::vector<int32_t> base(rank);
    for (auto& d : base) d = rng.Int(1, 3);
    const float out_scale = rng.Scale();
    const int32_t out_zp = rng.Int(-128, 127);
    std::vector<std::vector<int32_t>> dims(n, base);
    std::vector<std::vector<int8_t>> data(n);
    std::vector<ConcatenationInput> params(n);
    std::vector<const int8_t*> ptrs(n);
    std::vector<float> scales(n);
    std::vector<int32_t> zps(n);
    std::vector<int32_t> out_dims = base;
    out_dims[axis] = 0;
    for (int i = 0; i < n; ++i) {
      dims[i][axis] = rng.Int(1, 3);
      out_dims[axis] += dims[i][axis];
      const bool same = rng.Int(0, 1) == 1;
      scales[i] = same ? out_scale : rng.Scale();
      zps[i] = same ? out_zp : rng.Int(-128, 127);
      data[i] = rng.Int8s(ops_testing::Product(dims[i]));
      ptrs[i] = data[i].data();
      params[i] = prepare_concatenation_input(rank, dims[i].data(), axis, scales[i], zps[i],
                                              out_scale, out_zp);
    }
    // Slow: walk the output, find which input and where each element comes from.
    std::vector<int8_t> expected;
    const size_t total = ops_testing::Product(out_dims);
    for (size_t flat = 0; flat < total; ++flat) {
      size_t rest = flat;
      std::vector<int32_t> idx(rank);
      for (int d = rank - 1; d >= 0; --d) {
        idx[d] = static_cast<int32_t>(rest % out_dims[d]);
        rest /= out_dims[d];
      }
      int which = 0;
      while (idx[axis] >= dims[which][axis]) idx[axis] -= dims[which++][axis];
      size_t in_flat = 0;
      for (int d = 0; d < rank; ++d) in_flat = in_flat * dims[which][d] + idx[d];
      const int8_t q = data[which][in_flat];
      if (scales[which] == out_scale && zps[which] == out_zp) {
        expected.push_back(q);
      } else {
        const QuantizedMultiplier m = quantize_multiplier(double{scales[which]} / out_scale);
        const int64_t v = ops_testing::RefMultiply(q - zps[which], m.multiplier, m.shift) + out_zp;
        expected.push_back(static_cast<int8_t>(ops_testing::Clamp(v, -128, 127)));
        // Requantization is within one step of the real value.
        const double ideal = std::clamp(
            std::round(double{scales[which]} * (q - zps[which]) / out_scale) + out_zp, -128.0, 127.0);
        EXPECT_LE(std::fabs(expected.back() - ideal), 1.0);
      }
    }
    const ConcatenationParams p = prepare_concatenation(n, rank, out_dims.data(), axis);
    Guarded<int8_t> out(total);
    concatenation(p, params.data(), ptrs.data(), out.data());
    ASSERT_EQ(out.values(), expected) << "iter " << iter;
    ASSERT_TRUE(out.intact());
  }
}

}  // namespace
}  // namespace mote::kernels
