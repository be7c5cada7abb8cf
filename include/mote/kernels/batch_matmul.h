#pragma once
// int8 BATCH_MATMUL, bit exact with TFLite's reference BatchMatMul (int8, per-tensor):
//   out[..., r, c] = clamp(MBQM(sum_k (A[..., r, k] + lhs_offset) * (B[..., k, c] + rhs_offset),
//                               multiplier, shift) + output_offset, act_min, act_max)
// where A is the lhs (its last two dimensions swapped when adj_x) and B the rhs (swapped when
// adj_y). Operands of rank 2 to 5; their leading (batch) dimensions broadcast as TFLite's do
// (right-aligned; a dimension of 1 repeats). Either operand may be a constant (weights) or an
// activation: the kernel reads both in place, without transposing a copy, so it needs no
// scratch. Also TFLM's int16 form: int16 operands and output (zero points 0), int64 sums and the
// 64-bit requantization. Embeddable C++17.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

// The largest operand rank (TFLite's reference extends every shape to 5 dimensions).
inline constexpr int32_t kMaxBatchMatMulRank = 5;
// Batch dimensions: every rank up to 5 is read as 3 batch dimensions and a matrix.
inline constexpr int32_t kBatchMatMulBatchDims = kMaxBatchMatMulRank - 2;

struct BatchMatMulShape {
  int32_t batch[kBatchMatMulBatchDims];       // the output's batch dimensions (leading 1s)
  int32_t lhs_stride[kBatchMatMulBatchDims];  // lhs elements per step of batch[d]; 0: broadcast
  int32_t rhs_stride[kBatchMatMulBatchDims];
  int32_t rows;   // output rows: lhs rows (lhs columns when adj_x)
  int32_t cols;   // output columns: rhs columns (rhs rows when adj_y)
  int32_t depth;  // accumulation depth
  bool adj_x;     // lhs stored [depth, rows] instead of [rows, depth]
  bool adj_y;     // rhs stored [cols, depth] instead of [depth, cols]
};

struct BatchMatMulParams {
  BatchMatMulShape shape;
  int32_t lhs_offset;  // -lhs zero point
  int32_t rhs_offset;  // -rhs zero point
  int32_t output_offset;  // +output zero point
  int32_t output_multiplier;
  int32_t output_shift;  // positive = left shift
  int32_t act_min;       // TFLite: the output type's range (BATCH_MATMUL has no fused activation)
  int32_t act_max;
};

// Host- and device-callable, the one shape rule of compiler and runtime: the operands' shapes
// (ranks 2..5, all dimensions >= 1) and flags to the kernel's shape, and the output's shape
// (rank max(lhs_rank, rhs_rank), written to output_dims) into *output_rank. False when TFLite
// would refuse them: a rank outside 2..5, depths that differ, batch dimensions that neither
// match nor are 1, or more than INT32_MAX elements in an operand or the output.
bool prepare_batch_matmul_shape(const int32_t* lhs_dims, int32_t lhs_rank, const int32_t* rhs_dims,
                                int32_t rhs_rank, bool adj_x, bool adj_y, BatchMatMulShape* shape,
                                int32_t* output_dims, int32_t* output_rank);

// The largest |accumulator| the kernel can reach with these offsets (|x + offset| bounded for
// int8 x), and whether it and the requantization stay inside int32 (kAccLimit): the compiler's
// check and the runtime's load check ask this same question. `int16`: zero offsets, a clamp
// inside int16, and int64 sums (which no depth overflows).
int64_t batch_matmul_accumulator_bound(const BatchMatMulParams& params);
bool batch_matmul_fits(const BatchMatMulParams& params, bool int16 = false);

// lhs, rhs and output as the shape says (row-major). The output must not overlap an operand.
// Needs no scratch on any extension; stack use is bounded (a block of int32 sums).
void batch_matmul(const BatchMatMulParams& params, const int8_t* lhs, const int8_t* rhs,
                  int8_t* output);
void batch_matmul(const BatchMatMulParams& params, const int16_t* lhs, const int16_t* rhs,
                  int16_t* output);

}  // namespace kernels
}  // namespace mote
