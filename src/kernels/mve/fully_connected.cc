// mve FULLY_CONNECTED: one input row by four filter rows per inner loop (VMLADAVA, 16 int8 lanes),
// so that each input load feeds four dot products; the four sums are requantized as one vector
// and stored as four bytes. sum (x + io)(w + fo) = sum x w + io sum w + fo sum x + n io fo: with
// the compiler's kernel sums (bias + io sum w + n io fo) only sum x w and fo sum x remain; without
// them the filter rows' sums come from the same loop (VADDVA). Depth tails are predicated.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/kernels.h"
#include "mve/requantize.h"

namespace mote {
namespace kernels {
namespace mve {
namespace {

// sum x[i], i < n.
inline int32_t row_sum(const int8_t* x, int32_t n) {
  int32_t sum = 0;
  for (int32_t i = 0; i < n; i += 16) {
    sum = vaddvaq_s8(sum, vldrbq_z_s8(x + i, vctp8q(static_cast<uint32_t>(n - i))));
  }
  return sum;
}

// a[k] = sum x[i] w_k[i] and ws[k] = sum w_k[i] (when kFilterSums) for four rows w_k = w + k n.
template <bool kFilterSums>
inline void dot_1x4(const int8_t* x, const int8_t* w, int32_t n, int32x4_t* dots,
                    int32x4_t* filter_sums) {
  const int8_t* w0 = w;
  const int8_t* w1 = w0 + n;
  const int8_t* w2 = w1 + n;
  const int8_t* w3 = w2 + n;
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const int32_t full = n & ~15;
  for (int32_t i = 0; i < full; i += 16) {
    const int8x16_t xv = vldrbq_s8(x + i);
    const int8x16_t v0 = vldrbq_s8(w0 + i), v1 = vldrbq_s8(w1 + i);
    const int8x16_t v2 = vldrbq_s8(w2 + i), v3 = vldrbq_s8(w3 + i);
    a0 = vmladavaq_s8(a0, xv, v0);
    a1 = vmladavaq_s8(a1, xv, v1);
    a2 = vmladavaq_s8(a2, xv, v2);
    a3 = vmladavaq_s8(a3, xv, v3);
    if (kFilterSums) {
      s0 = vaddvaq_s8(s0, v0);
      s1 = vaddvaq_s8(s1, v1);
      s2 = vaddvaq_s8(s2, v2);
      s3 = vaddvaq_s8(s3, v3);
    }
  }
  if (full < n) {
    // Zeroed lanes add nothing.
    const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - full));
    const int8x16_t xv = vldrbq_z_s8(x + full, p);
    const int8x16_t v0 = vldrbq_z_s8(w0 + full, p), v1 = vldrbq_z_s8(w1 + full, p);
    const int8x16_t v2 = vldrbq_z_s8(w2 + full, p), v3 = vldrbq_z_s8(w3 + full, p);
    a0 = vmladavaq_s8(a0, xv, v0);
    a1 = vmladavaq_s8(a1, xv, v1);
    a2 = vmladavaq_s8(a2, xv, v2);
    a3 = vmladavaq_s8(a3, xv, v3);
    if (kFilterSums) {
      s0 = vaddvaq_s8(s0, v0);
      s1 = vaddvaq_s8(s1, v1);
      s2 = vaddvaq_s8(s2, v2);
      s3 = vaddvaq_s8(s3, v3);
    }
  }
  int32x4_t d = vdupq_n_s32(a0);
  d = vsetq_lane_s32(a1, d, 1);
  d = vsetq_lane_s32(a2, d, 2);
  *dots = vsetq_lane_s32(a3, d, 3);
  if (kFilterSums) {
    int32x4_t f = vdupq_n_s32(s0);
    f = vsetq_lane_s32(s1, f, 1);
    f = vsetq_lane_s32(s2, f, 2);
    *filter_sums = vsetq_lane_s32(s3, f, 3);
  }
}

template <bool kFilterSums>
void fully_connected_rows(const FullyConnectedParams p, const int8_t* input, const int8_t* filter,
                          const int32_t* base, int8_t* output) {
  const int32_t n = p.input_depth;
  const int32_t od = p.output_depth;
  const int32_t io = p.input_offset;
  const int32_t fo = p.filter_offset;
  const OutputStage stage = make_output_stage(p.output_offset, p.act_min, p.act_max);
  // Per-tensor quantization: one multiplier and shift for every output.
  const int32x4_t tensor_multiplier = vdupq_n_s32(p.output_multiplier[0]);
  const Shifts tensor_shifts = split_shifts(vdupq_n_s32(p.output_shift[0]));
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* x = input + static_cast<ptrdiff_t>(b) * n;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * od;
    // Terms shared by every output of the row: fo sum x, and without kernel sums n io fo.
    int32_t row_term = 0;
    if (fo != 0) row_term = fo * row_sum(x, n) + (kFilterSums ? n * io * fo : 0);
    for (int32_t o = 0; o < od; o += 4) {
      const int32_t count = od - o < 4 ? od - o : 4;
      const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(count));
      int32x4_t dots, filter_sums = vdupq_n_s32(0);
      if (count == 4) {
        dot_1x4<kFilterSums>(x, filter + static_cast<ptrdiff_t>(o) * n, n, &dots, &filter_sums);
      } else {
        // The last one to three rows, one at a time; lanes past `count` are not stored.
        int32_t a[4] = {0, 0, 0, 0}, s[4] = {0, 0, 0, 0};
        for (int32_t k = 0; k < count; ++k) {
          const int8_t* w = filter + static_cast<ptrdiff_t>(o + k) * n;
          for (int32_t i = 0; i < n; i += 16) {
            const mve_pred16_t pr = vctp8q(static_cast<uint32_t>(n - i));
            const int8x16_t wv = vldrbq_z_s8(w + i, pr);
            a[k] = vmladavaq_s8(a[k], vldrbq_z_s8(x + i, pr), wv);
            if (kFilterSums) s[k] = vaddvaq_s8(s[k], wv);
          }
        }
        dots = vldrwq_s32(a);
        filter_sums = vldrwq_s32(s);
      }
      int32x4_t acc = vaddq_n_s32(dots, row_term);
      if (base != nullptr) acc = vaddq_m_s32(acc, acc, vldrwq_z_s32(base + o, lanes), lanes);
      if (kFilterSums) acc = vmlaq_n_s32(acc, filter_sums, io);
      int32x4_t v;
      if (p.per_channel) {
        v = stage.apply(acc, vldrwq_z_s32(p.output_multiplier + o, lanes),
                        split_shifts(vldrwq_z_s32(p.output_shift + o, lanes)));
      } else {
        v = stage.apply(acc, tensor_multiplier, tensor_shifts);
      }
      vstrbq_p_s32(out + o, v, lanes);
    }
  }
}

}  // namespace

void fully_connected(const FullyConnectedParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output) {
  if (params.kernel_sums != nullptr) {
    // sums[o] + sum x w + fo sum x.
    fully_connected_rows<false>(params, input, filter, params.kernel_sums, output);
  } else {
    // bias[o] + sum x w + io sum w + fo sum x + n io fo.
    fully_connected_rows<true>(params, input, filter, bias, output);
  }
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
