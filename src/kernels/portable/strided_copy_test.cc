#include "mote/kernels/strided_copy.h"

#include <gtest/gtest.h>

#include <vector>

#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Guarded;
using ops_testing::Random;

// The definition, one grid index at a time, with flat offsets computed from the coordinates.
void SlowCopy(const StridedCopyParams& p, const int8_t* in, int8_t* out) {
  int64_t count = 1;
  for (int32_t d = 0; d < p.rank; ++d) count *= p.dims[d];
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat, in_off = 0, out_off = 0;
    for (int32_t d = p.rank - 1; d >= 0; --d) {
      const int64_t i = rest % p.dims[d];
      rest /= p.dims[d];
      in_off += i * p.input_strides[d];
      out_off += i * p.output_strides[d];
    }
    out[out_off] = in[in_off];
  }
}

StridedCopyParams Make(std::vector<int32_t> dims, std::vector<int32_t> in_strides,
                       std::vector<int32_t> out_strides) {
  StridedCopyParams p{};
  p.rank = static_cast<int32_t>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    p.dims[d] = dims[d];
    p.input_strides[d] = in_strides[d];
    p.output_strides[d] = out_strides[d];
  }
  return p;
}

TEST(StridedCopyTest, HandCheckedReversedColumns) {
  // A 2x4 matrix, columns 3, 1 (stride -2) of each row: [[3, 1], [7, 5]] from 1..8.
  const std::vector<int8_t> in = {0, 1, 2, 3, 4, 5, 6, 7};
  Guarded<int8_t> out(4);
  strided_copy(Make({2, 2}, {4, -2}, {2, 1}), in.data() + 3, out.data());
  EXPECT_EQ(out.values(), (std::vector<int8_t>{3, 1, 7, 5}));
  EXPECT_TRUE(out.intact());
}

TEST(StridedCopyTest, HandCheckedScatterIntoOutput) {
  // Two rows written to every other output row (PACK of one input along axis 0 of 2).
  const std::vector<int8_t> in = {1, 2, 3, 4, 5, 6};
  Guarded<int8_t> out(12);
  for (size_t i = 0; i < 12; ++i) out.data()[i] = 0;
  strided_copy(Make({2, 3}, {3, 1}, {6, 1}), in.data(), out.data() + 3);
  EXPECT_EQ(out.values(), (std::vector<int8_t>{0, 0, 0, 1, 2, 3, 0, 0, 0, 4, 5, 6}));
  EXPECT_TRUE(out.intact());
}

TEST(StridedCopyTest, SimplifyMergesContiguousRunsAndDropsOnes) {
  // A contiguous [1, 3, 4, 5] copy is one run of 60.
  const StridedCopyParams p = simplify_strided_copy(Make({1, 3, 4, 5}, {60, 20, 5, 1}, {60, 20, 5, 1}));
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.dims[0], 60);
  EXPECT_EQ(p.input_strides[0], 1);
  // A slice of the last axis keeps two dimensions: rows of 2 at input stride 5.
  const StridedCopyParams q = simplify_strided_copy(Make({3, 4, 2}, {20, 5, 1}, {8, 2, 1}));
  EXPECT_EQ(q.rank, 2);
  EXPECT_EQ(q.dims[0], 12);
  EXPECT_EQ(q.dims[1], 2);
  // All ones: one element.
  const StridedCopyParams r = simplify_strided_copy(Make({1, 1}, {7, 3}, {1, 1}));
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.dims[0], 1);
}

TEST(StridedCopyTest, Extent) {
  int64_t lo = 0, hi = 0;
  strided_copy_extent(Make({2, 3}, {-4, 2}, {3, 1}), true, &lo, &hi);
  EXPECT_EQ(lo, -4);
  EXPECT_EQ(hi, 4);
  strided_copy_extent(Make({2, 3}, {-4, 2}, {3, 1}), false, &lo, &hi);
  EXPECT_EQ(lo, 0);
  EXPECT_EQ(hi, 5);
}

// Random grids of up to 6 dimensions read at random (possibly negative) strides from a slice of
// a larger input, written to a random permutation of a packed output; raw and simplified params
// against the slow definition.
TEST(StridedCopyTest, RandomizedAgainstDefinition) {
  Random rng(1234);
  for (int trial = 0; trial < 400; ++trial) {
    const int32_t rank = rng.Int(1, kMaxStridedCopyRank);
    std::vector<int32_t> dims(rank), in_dims(rank), step(rank), first(rank);
    for (int32_t d = 0; d < rank; ++d) {
      dims[d] = rng.Int(1, 4);
      step[d] = rng.Int(1, 3) * (rng.Int(0, 1) == 0 ? 1 : -1);
      in_dims[d] = (dims[d] - 1) * (step[d] < 0 ? -step[d] : step[d]) + 1 + rng.Int(0, 2);
      first[d] = step[d] > 0 ? rng.Int(0, in_dims[d] - 1 - (dims[d] - 1) * step[d])
                             : rng.Int((dims[d] - 1) * -step[d], in_dims[d] - 1);
    }
    std::vector<int32_t> in_strides(rank), out_strides(rank);
    int64_t in_count = 1;
    for (int32_t d = rank - 1; d >= 0; --d) {
      in_strides[d] = static_cast<int32_t>(in_count) * step[d];
      in_count *= in_dims[d];
    }
    // Output strides: a packed layout in a random dimension order.
    std::vector<int32_t> order(rank);
    for (int32_t d = 0; d < rank; ++d) order[d] = d;
    for (int32_t d = rank - 1; d > 0; --d) std::swap(order[d], order[rng.Int(0, d)]);
    int64_t out_count = 1;
    for (int32_t k = rank - 1; k >= 0; --k) {
      out_strides[order[k]] = static_cast<int32_t>(out_count);
      out_count *= dims[order[k]];
    }
    int64_t base = 0, unit = 1;
    for (int32_t d = rank - 1; d >= 0; --d) {
      base += first[d] * unit;
      unit *= in_dims[d];
    }
    const std::vector<int8_t> in = rng.Int8s(static_cast<size_t>(in_count));
    const StridedCopyParams raw = Make(dims, in_strides, out_strides);
    std::vector<int8_t> expected(static_cast<size_t>(out_count), 0);
    SlowCopy(raw, in.data() + base, expected.data());
    for (const StridedCopyParams& p : {raw, simplify_strided_copy(raw)}) {
      Guarded<int8_t> out(static_cast<size_t>(out_count));
      strided_copy(p, in.data() + base, out.data());
      ASSERT_EQ(out.values(), expected) << "trial " << trial;
      ASSERT_TRUE(out.intact()) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace mote::kernels
