#include "mote/kernels/transpose.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

// out[i0..in-1] = in[j] with j's coordinate perm[k] equal to i_k.
std::vector<int8_t> SlowTranspose(const std::vector<int32_t>& dims, const std::vector<int32_t>& perm,
                                  const std::vector<int8_t>& in) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int32_t> out_dims(rank);
  for (int i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
  std::vector<int8_t> out(in.size());
  for (size_t flat = 0; flat < in.size(); ++flat) {
    size_t rest = flat;
    std::vector<int32_t> o(rank), src(rank);
    for (int i = rank - 1; i >= 0; --i) {
      o[i] = static_cast<int32_t>(rest % out_dims[i]);
      rest /= out_dims[i];
    }
    for (int i = 0; i < rank; ++i) src[perm[i]] = o[i];
    size_t in_flat = 0;
    for (int i = 0; i < rank; ++i) in_flat = in_flat * dims[i] + src[i];
    out[flat] = in[in_flat];
  }
  return out;
}

TransposeParams Raw(const std::vector<int32_t>& dims, const std::vector<int32_t>& perm) {
  TransposeParams p{};
  p.rank = static_cast<int32_t>(dims.size());
  std::copy(dims.begin(), dims.end(), p.input_dims);
  std::copy(perm.begin(), perm.end(), p.perm);
  return p;
}

TEST(TransposeTest, HandCheckedMatrix) {
  // 2x3 -> 3x2.
  const std::vector<int8_t> in = {1, 2, 3, 4, 5, 6};
  Guarded<int8_t> out(6);
  transpose(Raw({2, 3}, {1, 0}), in.data(), out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(out.intact());
}

TEST(TransposeTest, PrepareDropsOnesAndMergesAdjacentDimensions) {
  // NHWC [1, 4, 5, 6] -> NCHW: H and W stay adjacent, N is 1: a 20x6 matrix transpose.
  const int32_t dims[4] = {1, 4, 5, 6}, perm[4] = {0, 3, 1, 2};
  const TransposeParams p = prepare_transpose(4, dims, perm);
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(p.input_dims[0], 20);
  EXPECT_EQ(p.input_dims[1], 6);
  EXPECT_EQ(p.perm[0], 1);
  EXPECT_EQ(p.perm[1], 0);
  // The identity collapses to one dimension.
  const int32_t id[3] = {0, 1, 2}, d3[3] = {2, 3, 4};
  const TransposeParams q = prepare_transpose(3, d3, id);
  EXPECT_EQ(q.rank, 1);
  EXPECT_EQ(q.input_dims[0], 24);
}

TEST(TransposeTest, RandomizedMatchesSlowReference) {
  Random rng(11);
  for (int iter = 0; iter < 400; ++iter) {
    const int rank = rng.Int(1, kMaxTransposeRank);
    std::vector<int32_t> dims(rank), perm(rank);
    for (auto& d : dims) d = rng.Int(0, 3) == 0 ? 1 : rng.Int(1, 4);
    std::iota(perm.begin(), perm.end(), 0);
    for (int i = rank - 1; i > 0; --i) std::swap(perm[i], perm[rng.Int(0, i)]);
    const std::vector<int8_t> in = rng.Int8s(ops_testing::Product(dims));
    const std::vector<int8_t> expected = SlowTranspose(dims, perm, in);
    Guarded<int8_t> raw(in.size()), simplified(in.size());
    transpose(Raw(dims, perm), in.data(), raw.data());
    transpose(prepare_transpose(rank, dims.data(), perm.data()), in.data(), simplified.data());
    ASSERT_EQ(raw.values(), expected) << "iter " << iter;
    ASSERT_EQ(simplified.values(), expected) << "iter " << iter;
    ASSERT_TRUE(raw.intact());
    ASSERT_TRUE(simplified.intact());
  }
}

}  // namespace
}  // namespace mote::kernels
