#include "mote/kernels/batch_matmul.h"

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

// |x + offset| for every int8 x.
int64_t max_centred(int32_t offset) {
  const int64_t lo = -128 + int64_t{offset}, hi = 127 + int64_t{offset};
  const int64_t a = lo < 0 ? -lo : lo, b = hi < 0 ? -hi : hi;
  return a > b ? a : b;
}

inline int8_t requantize(const BatchMatMulParams& p, int32_t acc) {
  int32_t v = multiply_by_quantized_multiplier(acc, p.output_multiplier, p.output_shift);
  v += p.output_offset;
  v = v < p.act_min ? p.act_min : v;
  v = v > p.act_max ? p.act_max : v;
  return static_cast<int8_t>(v);
}

// Output columns summed at once when the rhs is read along its rows (a bounded stack block).
constexpr int32_t kColumnBlock = 32;

// One matrix product: a [rows, depth] (or [depth, rows] with adj_x) times b [depth, cols] (or
// [cols, depth] with adj_y) into out [rows, cols].
void matmul(const BatchMatMulParams& p, const int8_t* a, const int8_t* b, int8_t* out) {
  const BatchMatMulShape& s = p.shape;
  const int32_t rows = s.rows, cols = s.cols, depth = s.depth;
  const int32_t lo = p.lhs_offset, ro = p.rhs_offset;
  if (!s.adj_x && s.adj_y) {
    // Both operands run along the depth: one dot product per output.
    for (int32_t r = 0; r < rows; ++r) {
      const int8_t* a_row = a + static_cast<size_t>(r) * depth;
      for (int32_t c = 0; c < cols; ++c) {
        const int8_t* b_row = b + static_cast<size_t>(c) * depth;
        int32_t acc = 0;
        for (int32_t k = 0; k < depth; ++k) acc += (a_row[k] + lo) * (b_row[k] + ro);
        out[static_cast<size_t>(r) * cols + c] = requantize(p, acc);
      }
    }
    return;
  }
  // Element strides: A(r, k) = a[r * a_r + k * a_k], B(k, c) = b[k * b_k + c * b_c].
  const size_t a_r = s.adj_x ? 1 : static_cast<size_t>(depth);
  const size_t a_k = s.adj_x ? static_cast<size_t>(rows) : 1;
  const size_t b_k = s.adj_y ? 1 : static_cast<size_t>(cols);
  const size_t b_c = s.adj_y ? static_cast<size_t>(depth) : 1;
  int32_t acc[kColumnBlock];
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t c0 = 0; c0 < cols; c0 += kColumnBlock) {
      const int32_t n = cols - c0 < kColumnBlock ? cols - c0 : kColumnBlock;
      for (int32_t j = 0; j < n; ++j) acc[j] = 0;
      for (int32_t k = 0; k < depth; ++k) {
        const int32_t av = a[r * a_r + k * a_k] + lo;
        const int8_t* bk = b + k * b_k + static_cast<size_t>(c0) * b_c;
        for (int32_t j = 0; j < n; ++j) acc[j] += av * (bk[j * b_c] + ro);
      }
      int8_t* o = out + static_cast<size_t>(r) * cols + c0;
      for (int32_t j = 0; j < n; ++j) o[j] = requantize(p, acc[j]);
    }
  }
}

// The int16 form (TFLM's BatchMatMul<int16_t, int64_t>): one int64 dot product per output, the
// 64-bit requantization, zero offsets (batch_matmul_fits).
void matmul16(const BatchMatMulParams& p, const int16_t* a, const int16_t* b, int16_t* out) {
  const BatchMatMulShape& s = p.shape;
  // Element strides: A(r, k) = a[r * a_r + k * a_k], B(k, c) = b[k * b_k + c * b_c].
  const size_t a_r = s.adj_x ? 1 : static_cast<size_t>(s.depth);
  const size_t a_k = s.adj_x ? static_cast<size_t>(s.rows) : 1;
  const size_t b_k = s.adj_y ? 1 : static_cast<size_t>(s.cols);
  const size_t b_c = s.adj_y ? static_cast<size_t>(s.depth) : 1;
  for (int32_t r = 0; r < s.rows; ++r) {
    for (int32_t c = 0; c < s.cols; ++c) {
      int64_t acc = 0;
      for (int32_t k = 0; k < s.depth; ++k) {
        acc += int64_t{a[r * a_r + k * a_k]} * b[k * b_k + c * b_c];
      }
      int32_t v = multiply_by_quantized_multiplier_64(acc, p.output_multiplier, p.output_shift);
      v = v < p.act_min ? p.act_min : (v > p.act_max ? p.act_max : v);
      out[static_cast<size_t>(r) * s.cols + c] = static_cast<int16_t>(v);
    }
  }
}

}  // namespace

bool prepare_batch_matmul_shape(const int32_t* lhs_dims, int32_t lhs_rank, const int32_t* rhs_dims,
                                int32_t rhs_rank, bool adj_x, bool adj_y, BatchMatMulShape* shape,
                                int32_t* output_dims, int32_t* output_rank) {
  if (lhs_rank < 2 || lhs_rank > kMaxBatchMatMulRank || rhs_rank < 2 ||
      rhs_rank > kMaxBatchMatMulRank) {
    return false;
  }
  // Both shapes extended to 5 dimensions with leading 1s.
  int32_t l[kMaxBatchMatMulRank], r[kMaxBatchMatMulRank];
  for (int32_t i = 0; i < kMaxBatchMatMulRank; ++i) {
    const int32_t li = i - (kMaxBatchMatMulRank - lhs_rank);
    const int32_t ri = i - (kMaxBatchMatMulRank - rhs_rank);
    l[i] = li >= 0 ? lhs_dims[li] : 1;
    r[i] = ri >= 0 ? rhs_dims[ri] : 1;
    if (l[i] < 1 || r[i] < 1) return false;
  }
  const int32_t last = kMaxBatchMatMulRank - 1;
  BatchMatMulShape s{};
  s.adj_x = adj_x;
  s.adj_y = adj_y;
  s.rows = adj_x ? l[last] : l[last - 1];
  s.depth = adj_x ? l[last - 1] : l[last];
  const int32_t rhs_depth = adj_y ? r[last] : r[last - 1];
  s.cols = adj_y ? r[last - 1] : r[last];
  if (rhs_depth != s.depth) return false;
  int64_t lhs_count = int64_t{l[last - 1]} * l[last];
  int64_t rhs_count = int64_t{r[last - 1]} * r[last];
  int64_t out_count = int64_t{s.rows} * s.cols;
  for (int32_t d = kBatchMatMulBatchDims - 1; d >= 0; --d) {
    if (l[d] != r[d] && l[d] != 1 && r[d] != 1) return false;
    s.batch[d] = l[d] == 1 ? r[d] : l[d];
    s.lhs_stride[d] = l[d] == 1 ? 0 : static_cast<int32_t>(lhs_count);
    s.rhs_stride[d] = r[d] == 1 ? 0 : static_cast<int32_t>(rhs_count);
    lhs_count *= l[d];
    rhs_count *= r[d];
    out_count *= s.batch[d];
    if (lhs_count > INT32_MAX || rhs_count > INT32_MAX || out_count > INT32_MAX) return false;
  }
  const int32_t rank = lhs_rank > rhs_rank ? lhs_rank : rhs_rank;
  for (int32_t i = 0; i < rank - 2; ++i) {
    output_dims[i] = s.batch[kBatchMatMulBatchDims - (rank - 2) + i];
  }
  output_dims[rank - 2] = s.rows;
  output_dims[rank - 1] = s.cols;
  *output_rank = rank;
  *shape = s;
  return true;
}

int64_t batch_matmul_accumulator_bound(const BatchMatMulParams& p) {
  return int64_t{p.shape.depth} * max_centred(p.lhs_offset) * max_centred(p.rhs_offset);
}

bool batch_matmul_fits(const BatchMatMulParams& p, bool int16) {
  if (int16) {
    return p.lhs_offset == 0 && p.rhs_offset == 0 && p.output_offset == 0 &&
           p.act_min <= p.act_max && p.act_min >= -32768 && p.act_max <= 32767;
  }
  if (p.lhs_offset < -127 || p.lhs_offset > 128 || p.rhs_offset < -127 || p.rhs_offset > 128) {
    return false;
  }
  if (p.output_offset < -128 || p.output_offset > 127 || p.act_min > p.act_max ||
      p.act_min < -128 || p.act_max > 127) {
    return false;
  }
  return requant_fits(batch_matmul_accumulator_bound(p), p.output_multiplier, p.output_shift);
}

void batch_matmul(const BatchMatMulParams& p, const int8_t* lhs, const int8_t* rhs,
                  int8_t* output) {
  const BatchMatMulShape& s = p.shape;
  const size_t matrix = static_cast<size_t>(s.rows) * static_cast<size_t>(s.cols);
  for (int32_t b0 = 0; b0 < s.batch[0]; ++b0) {
    for (int32_t b1 = 0; b1 < s.batch[1]; ++b1) {
      for (int32_t b2 = 0; b2 < s.batch[2]; ++b2) {
        const size_t lhs_at = static_cast<size_t>(b0) * s.lhs_stride[0] +
                              static_cast<size_t>(b1) * s.lhs_stride[1] +
                              static_cast<size_t>(b2) * s.lhs_stride[2];
        const size_t rhs_at = static_cast<size_t>(b0) * s.rhs_stride[0] +
                              static_cast<size_t>(b1) * s.rhs_stride[1] +
                              static_cast<size_t>(b2) * s.rhs_stride[2];
        matmul(p, lhs + lhs_at, rhs + rhs_at, output);
        output += matrix;
      }
    }
  }
}

void batch_matmul(const BatchMatMulParams& p, const int16_t* lhs, const int16_t* rhs,
                  int16_t* output) {
  // The output's matrices in order, each batch index split into its three dimensions (the int8
  // loops above are kept apart: sharing them cost the int8 kernel registers in its inner loop).
  const BatchMatMulShape& s = p.shape;
  const int32_t count = s.batch[0] * s.batch[1] * s.batch[2];
  for (int32_t n = 0; n < count; ++n) {
    const size_t b[3] = {static_cast<size_t>(n / (s.batch[1] * s.batch[2])),
                         static_cast<size_t>(n / s.batch[2] % s.batch[1]),
                         static_cast<size_t>(n % s.batch[2])};
    matmul16(p, lhs + b[0] * s.lhs_stride[0] + b[1] * s.lhs_stride[1] + b[2] * s.lhs_stride[2],
             rhs + b[0] * s.rhs_stride[0] + b[1] * s.rhs_stride[1] + b[2] * s.rhs_stride[2],
             output + static_cast<size_t>(n) * s.rows * s.cols);
  }
}

}  // namespace kernels
}  // namespace mote
