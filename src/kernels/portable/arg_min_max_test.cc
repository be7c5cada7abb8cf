// ARG_MAX and ARG_MIN (mote/kernels/arg_min_max.h): hand-checked values, ties, and random
// shapes and axes against a slow reference written from TFLite's definition.
#include "mote/kernels/arg_min_max.h"

#include <gtest/gtest.h>

#include <vector>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;
using I = std::vector<int32_t>;

// TFLite's reference ArgMinMax: for every position of the other dimensions, start at index 0
// and move to index i only when cmp(value[i], best) holds (std::greater for ARG_MAX, std::less
// for ARG_MIN): strict, so the first of equal extremes wins. Walks the full index space.
I SlowArg(const std::vector<int32_t>& dims, int32_t axis, bool arg_min,
          const std::vector<int8_t>& in) {
  const size_t rank = dims.size();
  std::vector<int32_t> out_dims;
  for (size_t d = 0; d < rank; ++d) {
    if (static_cast<int32_t>(d) != axis) out_dims.push_back(dims[d]);
  }
  const size_t outputs = ops_testing::Product(out_dims);
  I out(outputs);
  std::vector<int32_t> index(out_dims.size(), 0);
  for (size_t o = 0; o < outputs; ++o) {
    int best = 0, best_index = 0;
    for (int32_t a = 0; a < dims[static_cast<size_t>(axis)]; ++a) {
      size_t flat = 0;
      for (size_t d = 0, e = 0; d < rank; ++d) {
        const int32_t i = static_cast<int32_t>(d) == axis ? a : index[e++];
        flat = flat * static_cast<size_t>(dims[d]) + static_cast<size_t>(i);
      }
      const int v = in[flat];
      if (a == 0 || (arg_min ? v < best : v > best)) {
        best = v;
        best_index = a;
      }
    }
    out[o] = best_index;
    for (size_t d = out_dims.size(); d-- > 0;) {
      if (++index[d] < out_dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

I RunArg(const std::vector<int32_t>& dims, int32_t axis, bool arg_min,
         const std::vector<int8_t>& in, bool* intact) {
  const ArgMinMaxParams p =
      prepare_arg_min_max(static_cast<int32_t>(dims.size()), dims.data(), axis, arg_min);
  Guarded<int32_t> out(static_cast<size_t>(p.outer) * static_cast<size_t>(p.inner));
  arg_min_max(p, in.data(), out.data());
  *intact = out.intact();
  return out.values();
}

TEST(ArgMinMaxTest, HandCheckedWithTies) {
  bool intact = false;
  // Rows {1, 5, 5, 2} and {-3, -3, -9, -3}: the largest of row 0 is 5 at 1 and 2 (first: 1),
  // of row 1 -3 at 0, 1 and 3 (0); the smallest 1 at 0 and -9 at 2.
  const std::vector<int8_t> in = {1, 5, 5, 2, -3, -3, -9, -3};
  EXPECT_EQ(RunArg({2, 4}, 1, false, in, &intact), (I{1, 0}));
  EXPECT_TRUE(intact);
  EXPECT_EQ(RunArg({2, 4}, 1, true, in, &intact), (I{0, 2}));
  // Along the first axis: columns (1, -3), (5, -3), (5, -9), (2, -3).
  EXPECT_EQ(RunArg({2, 4}, 0, false, in, &intact), (I{0, 0, 0, 0}));
  EXPECT_EQ(RunArg({2, 4}, 0, true, in, &intact), (I{1, 1, 1, 1}));
  // Equal columns keep index 0; a later strictly larger value moves it.
  EXPECT_EQ(RunArg({2, 2}, 0, false, {7, 7, 7, 8}, &intact), (I{0, 1}));
  EXPECT_EQ(RunArg({2, 2}, 0, true, {7, 7, 7, 8}, &intact), (I{0, 0}));
  // A classifier's [1, 5] logits; all equal -128 gives 0 for both.
  EXPECT_EQ(RunArg({1, 5}, 1, false, {-20, 3, 90, 89, 90}, &intact), I{2});
  EXPECT_EQ(RunArg({1, 5}, 1, true, {-128, -128, -128, -128, -128}, &intact), I{0});
  // The middle axis of [2, 3, 2].
  EXPECT_EQ(RunArg({2, 3, 2}, 1, false, {0, 9, 4, 9, 4, 1, -1, -2, -1, -3, 5, -2}, &intact),
            (I{1, 0, 2, 0}));
  EXPECT_TRUE(intact);
}

TEST(ArgMinMaxTest, RandomShapesAndAxesMatchTfLite) {
  Random rng(53);
  for (int iter = 0; iter < 800; ++iter) {
    const int rank = rng.Int(1, 5);
    std::vector<int32_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(rng.Int(1, 6));
    const int32_t axis = rng.Int(0, rank - 1);
    const bool arg_min = rng.Int(0, 1) == 1;
    // A narrow range often, so that extremes tie.
    const int32_t lo = rng.Int(-128, 127);
    const std::vector<int8_t> in =
        rng.Int8s(ops_testing::Product(dims), lo, std::min(127, lo + rng.Int(0, 255)));
    bool intact = false;
    ASSERT_EQ(RunArg(dims, axis, arg_min, in, &intact), SlowArg(dims, axis, arg_min, in))
        << "iter " << iter;
    ASSERT_TRUE(intact);
  }
}

}  // namespace
}  // namespace mote::kernels
