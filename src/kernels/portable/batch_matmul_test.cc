#include "mote/kernels/batch_matmul.h"

#include <gtest/gtest.h>

#include <vector>

#include "mote/kernels/quantization.h"
#include "ops_test_util.h"

namespace mote::kernels {
namespace {

using ops_testing::Clamp;
using ops_testing::Guarded;
using ops_testing::Random;
using ops_testing::RefMultiply;

struct Operand {
  std::vector<int32_t> dims;
  std::vector<int8_t> values;
};

// TFLite's BatchMatMul from its definition: both shapes right-aligned to 5 dimensions, each
// output index unravelled, each operand's batch index the output's with size-1 dimensions at 0,
// the adjoint flags read as a swap of the stored matrix's indices.
std::vector<int8_t> SlowBatchMatMul(const BatchMatMulParams& p, const Operand& lhs,
                                    const Operand& rhs, bool adj_x, bool adj_y) {
  std::vector<int32_t> l(5, 1), r(5, 1);
  for (size_t i = 0; i < lhs.dims.size(); ++i) l[5 - lhs.dims.size() + i] = lhs.dims[i];
  for (size_t i = 0; i < rhs.dims.size(); ++i) r[5 - rhs.dims.size() + i] = rhs.dims[i];
  const int rows = adj_x ? l[4] : l[3], depth = adj_x ? l[3] : l[4];
  const int cols = adj_y ? r[3] : r[4];
  std::vector<int8_t> out;
  std::vector<int32_t> batch(3);
  for (int d = 0; d < 3; ++d) batch[d] = std::max(l[d], r[d]);
  for (int b0 = 0; b0 < batch[0]; ++b0)
    for (int b1 = 0; b1 < batch[1]; ++b1)
      for (int b2 = 0; b2 < batch[2]; ++b2)
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j) {
            const int lb[3] = {l[0] == 1 ? 0 : b0, l[1] == 1 ? 0 : b1, l[2] == 1 ? 0 : b2};
            const int rb[3] = {r[0] == 1 ? 0 : b0, r[1] == 1 ? 0 : b1, r[2] == 1 ? 0 : b2};
            const size_t lbase = ((size_t(lb[0]) * l[1] + lb[1]) * l[2] + lb[2]) * l[3] * l[4];
            const size_t rbase = ((size_t(rb[0]) * r[1] + rb[1]) * r[2] + rb[2]) * r[3] * r[4];
            int64_t acc = 0;
            for (int k = 0; k < depth; ++k) {
              const int64_t a = lhs.values[lbase + (adj_x ? size_t(k) * l[4] + i
                                                          : size_t(i) * l[4] + k)];
              const int64_t b = rhs.values[rbase + (adj_y ? size_t(j) * r[4] + k
                                                          : size_t(k) * r[4] + j)];
              acc += (a + p.lhs_offset) * (b + p.rhs_offset);
            }
            out.push_back(static_cast<int8_t>(
                Clamp(RefMultiply(acc, p.output_multiplier, p.output_shift) + p.output_offset,
                      p.act_min, p.act_max)));
          }
  return out;
}

BatchMatMulParams Params(const Operand& lhs, const Operand& rhs, bool adj_x, bool adj_y,
                         std::vector<int32_t>* out_dims) {
  BatchMatMulParams p{};
  int32_t dims[kMaxBatchMatMulRank], rank = 0;
  EXPECT_TRUE(prepare_batch_matmul_shape(lhs.dims.data(), static_cast<int32_t>(lhs.dims.size()),
                                         rhs.dims.data(), static_cast<int32_t>(rhs.dims.size()),
                                         adj_x, adj_y, &p.shape, dims, &rank));
  out_dims->assign(dims, dims + rank);
  p.act_min = -128;
  p.act_max = 127;
  return p;
}

std::vector<int8_t> RunKernel(const BatchMatMulParams& p, const Operand& lhs, const Operand& rhs,
                        size_t count) {
  Guarded<int8_t> out(count);
  batch_matmul(p, lhs.values.data(), rhs.values.data(), out.data());
  EXPECT_TRUE(out.intact());
  return out.values();
}

TEST(BatchMatMulTest, HandChecked) {
  // [2,3] x [3,2] with zero points lhs 1 and rhs -1, multiplier 0.5, output zero point 3:
  // A - 1 = [[0,1,2],[3,4,5]], B + 1 = [[1,2],[3,4],[5,6]], A'B' = [[13,16],[40,52]],
  // halved (ties away from zero for the shift... 6.5 rounds up to 7) plus 3.
  const Operand lhs{{2, 3}, {1, 2, 3, 4, 5, 6}};
  const Operand rhs{{3, 2}, {0, 1, 2, 3, 4, 5}};
  std::vector<int32_t> dims;
  BatchMatMulParams p = Params(lhs, rhs, false, false, &dims);
  p.lhs_offset = -1;
  p.rhs_offset = 1;
  p.output_offset = 3;
  p.output_multiplier = 1 << 30;
  p.output_shift = 0;
  EXPECT_EQ(dims, (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(RunKernel(p, lhs, rhs, 4), (std::vector<int8_t>{10, 11, 23, 29}));
  // The same product from transposed storage, both flags set.
  const Operand lhs_t{{3, 2}, {1, 4, 2, 5, 3, 6}};
  const Operand rhs_t{{2, 3}, {0, 2, 4, 1, 3, 5}};
  BatchMatMulParams q = Params(lhs_t, rhs_t, true, true, &dims);
  q.lhs_offset = -1;
  q.rhs_offset = 1;
  q.output_offset = 3;
  q.output_multiplier = 1 << 30;
  q.output_shift = 0;
  EXPECT_EQ(RunKernel(q, lhs_t, rhs_t, 4), (std::vector<int8_t>{10, 11, 23, 29}));
  // Clamped to the activation range.
  p.act_min = 11;
  p.act_max = 25;
  EXPECT_EQ(RunKernel(p, lhs, rhs, 4), (std::vector<int8_t>{11, 11, 23, 25}));
}

TEST(BatchMatMulTest, BroadcastsBatchDimensionsAsTflite) {
  // lhs [2,1,1,2] (two 1x2 rows), rhs [3,2,1] (three 2x1 columns): output [2,3,1,1].
  const Operand lhs{{2, 1, 1, 2}, {1, 2, 3, 4}};
  const Operand rhs{{3, 2, 1}, {1, 0, 0, 1, 1, 1}};
  std::vector<int32_t> dims;
  BatchMatMulParams p = Params(lhs, rhs, false, false, &dims);
  p.output_multiplier = 1 << 30;
  p.output_shift = 1;  // x1
  EXPECT_EQ(dims, (std::vector<int32_t>{2, 3, 1, 1}));
  EXPECT_EQ(RunKernel(p, lhs, rhs, 6), (std::vector<int8_t>{1, 2, 3, 3, 4, 7}));
}

TEST(BatchMatMulTest, RefusesWhatTfliteRefuses) {
  BatchMatMulShape s;
  int32_t dims[5], rank;
  const int32_t a[] = {2, 3, 4}, b[] = {3, 4, 5}, c[] = {3, 5}, d[] = {4}, e[] = {5, 4};
  EXPECT_FALSE(prepare_batch_matmul_shape(a, 3, b, 3, false, false, &s, dims, &rank))
      << "batch 2 against 3";
  EXPECT_FALSE(prepare_batch_matmul_shape(a, 3, c, 2, false, false, &s, dims, &rank))
      << "depth 4 against 3";
  EXPECT_TRUE(prepare_batch_matmul_shape(a, 3, e, 2, false, true, &s, dims, &rank));
  EXPECT_EQ(rank, 3);
  EXPECT_EQ(dims[2], 5);
  EXPECT_FALSE(prepare_batch_matmul_shape(a, 3, d, 1, false, false, &s, dims, &rank)) << "rank 1";
  const int32_t six[] = {1, 1, 1, 1, 3, 4};
  EXPECT_FALSE(prepare_batch_matmul_shape(six, 6, c, 2, false, false, &s, dims, &rank));
  BatchMatMulParams p{};
  p.shape.depth = 40000;  // 40000 * 255 * 255 > 2^31
  p.lhs_offset = 128;
  p.rhs_offset = 128;
  p.output_multiplier = 1 << 30;
  p.act_min = -128;
  p.act_max = 127;
  EXPECT_FALSE(batch_matmul_fits(p));
  p.shape.depth = 30000;
  EXPECT_TRUE(batch_matmul_fits(p));
}

TEST(BatchMatMulTest, RandomizedAgainstSlowReference) {
  Random rng(31);
  for (int trial = 0; trial < 300; ++trial) {
    const bool adj_x = rng.Int(0, 1), adj_y = rng.Int(0, 1);
    const int rows = rng.Int(1, 9), depth = rng.Int(1, 40), cols = rng.Int(1, 70);
    const int lrank = rng.Int(2, 5), rrank = rng.Int(2, 5);
    const int rank = std::max(lrank, rrank);
    std::vector<int32_t> batch(rank - 2);
    for (auto& x : batch) x = rng.Int(1, 3);
    Operand lhs, rhs;
    for (int i = rank - lrank; i < rank - 2; ++i) lhs.dims.push_back(rng.Int(0, 2) ? batch[i] : 1);
    for (int i = rank - rrank; i < rank - 2; ++i) rhs.dims.push_back(rng.Int(0, 2) ? batch[i] : 1);
    lhs.dims.push_back(adj_x ? depth : rows);
    lhs.dims.push_back(adj_x ? rows : depth);
    rhs.dims.push_back(adj_y ? cols : depth);
    rhs.dims.push_back(adj_y ? depth : cols);
    lhs.values = rng.Int8s(ops_testing::Product(lhs.dims));
    rhs.values = rng.Int8s(ops_testing::Product(rhs.dims));
    std::vector<int32_t> dims;
    BatchMatMulParams p = Params(lhs, rhs, adj_x, adj_y, &dims);
    p.lhs_offset = rng.Int(-127, 128);
    p.rhs_offset = rng.Int(-127, 128);
    p.output_offset = rng.Int(-128, 127);
    const QuantizedMultiplier m = quantize_multiplier(rng.Scale(1e-5f, 2e-3f));
    p.output_multiplier = m.multiplier;
    p.output_shift = m.shift;
    p.act_min = rng.Int(-128, -50);
    p.act_max = rng.Int(50, 127);
    ASSERT_TRUE(batch_matmul_fits(p));
    const std::vector<int8_t> want = SlowBatchMatMul(p, lhs, rhs, adj_x, adj_y);
    ASSERT_EQ(ops_testing::Product(dims), want.size());
    ASSERT_EQ(RunKernel(p, lhs, rhs, want.size()), want)
        << "trial " << trial << " adj_x " << adj_x << " adj_y " << adj_y;
  }
}

}  // namespace
}  // namespace mote::kernels
