// dsp FULLY_CONNECTED: one input row against four filter rows at a time with SMLAD. With the
// compile-time kernel sums (what the compiler emits) the loop is sum x * w: each word of four
// inputs is widened once (SXTB16, bytes 0/2 and 1/3) and feeds the four rows. Without them the
// zero point is added while widening (SXTAB16). A weight zero point adds fo * sum(x) per row,
// as in the portable kernel. No scratch.

#include <stddef.h>
#include <stdint.h>

#include "dsp/intrinsics.h"
#include "dsp/kernels.h"
#include "dsp/requantize.h"

namespace mote {
namespace kernels {
namespace dsp {
namespace {

// a[k] += sum_i x'[i] * w_k[i] for four rows w_k = w + k * n, x' = x + offset.
inline void dot_1x4(const int8_t* x, const int8_t* w, int32_t n, uint32_t offset2, int16_t offset,
                    int32_t* a) {
  const int8_t* w1 = w + n;
  const int8_t* w2 = w1 + n;
  const int8_t* w3 = w2 + n;
  int32_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3];
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t xv = load4(x + i);
    const uint32_t xe = sxtab16(offset2, xv), xo = sxtab16_ror8(offset2, xv);
    uint32_t v = load4(w + i);
    s0 = smlad(xe, sxtb16(v), smlad(xo, sxtb16_ror8(v), s0));
    v = load4(w1 + i);
    s1 = smlad(xe, sxtb16(v), smlad(xo, sxtb16_ror8(v), s1));
    v = load4(w2 + i);
    s2 = smlad(xe, sxtb16(v), smlad(xo, sxtb16_ror8(v), s2));
    v = load4(w3 + i);
    s3 = smlad(xe, sxtb16(v), smlad(xo, sxtb16_ror8(v), s3));
  }
  for (; i < n; ++i) {
    const int32_t xi = x[i] + offset;
    s0 += xi * w[i];
    s1 += xi * w1[i];
    s2 += xi * w2[i];
    s3 += xi * w3[i];
  }
  store_sums(a, s0, s1, s2, s3);
}

inline int32_t dot_1x1(const int8_t* x, const int8_t* w, int32_t n, uint32_t offset2, int16_t offset,
                       int32_t acc) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t xv = load4(x + i), v = load4(w + i);
    acc = smlad(sxtab16(offset2, xv), sxtb16(v), acc);
    acc = smlad(sxtab16_ror8(offset2, xv), sxtb16_ror8(v), acc);
  }
  for (; i < n; ++i) acc += (x[i] + offset) * w[i];
  return acc;
}

// dot_1x4 with the groups of eight inputs in inline assembly on Arm (49 instructions per 32
// multiply-accumulates; gcc 12's loop spills). Rows 0 and 2 are addressed by pointer, 1 and 3 at
// n past them.
inline void dot_1x4_rows(const int8_t* x, const int8_t* w, int32_t n, uint32_t offset2,
                         int16_t offset, int32_t* a) {
#if defined(__ARM_FEATURE_DSP)
  const int32_t n8 = n & ~7;
  if (n8 > 0) {
    int32_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3];
    const int8_t* w2 = w + 2 * n;
    const int8_t* const x_end = x + n8;
    const int8_t* const w0 = w;
    uint32_t t0, t1, t2, t3;
    // Per group of four: the input word widened with the zero point (t0 bytes 0/2, t1 bytes 1/3),
    // then each row's word widened (t3, t2) into two SMLADs.
#define MOTE_DSP_FC_ROW(acc, ptr, addr)           \
  "ldr     %[t2], " addr "\n\t"                   \
  "sxtb16  %[t3], %[t2]\n\t"                      \
  "sxtb16  %[t2], %[t2], ror #8\n\t"              \
  "smlad   %[" acc "], %[t0], %[t3], %[" acc "]\n\t" \
  "smlad   %[" acc "], %[t1], %[t2], %[" acc "]\n\t"
#define MOTE_DSP_FC_GROUP                          \
  "ldr     %[t1], [%[x]], #4\n\t"                  \
  "sxtab16 %[t0], %[off], %[t1]\n\t"               \
  "sxtab16 %[t1], %[off], %[t1], ror #8\n\t"       \
  MOTE_DSP_FC_ROW("s1", "w", "[%[w], %[n]]")       \
  MOTE_DSP_FC_ROW("s0", "w", "[%[w]], #4")         \
  MOTE_DSP_FC_ROW("s3", "w2", "[%[w2], %[n]]")     \
  MOTE_DSP_FC_ROW("s2", "w2", "[%[w2]], #4")
    __asm__ volatile(
        "1:\n\t"
        MOTE_DSP_FC_GROUP
        MOTE_DSP_FC_GROUP
        "ldr     %[t0], %[end]\n\t"
        "cmp     %[x], %[t0]\n\t"
        "bne     1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x), [w] "+r"(w),
          [w2] "+r"(w2), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
        : [n] "r"(n), [off] "r"(offset2), [end] "m"(x_end)
        : "cc", "memory");
#undef MOTE_DSP_FC_GROUP
#undef MOTE_DSP_FC_ROW
    store_sums(a, s0, s1, s2, s3);
    // The rest of each row (x has moved n8 along).
    for (int32_t k = 0; k < 4 && n8 < n; ++k) {
      a[k] = dot_1x1(x, w0 + k * n + n8, n - n8, offset2, offset, a[k]);
    }
    return;
  }
#endif
  dot_1x4(x, w, n, offset2, offset, a);
}

}  // namespace

void fully_connected(const FullyConnectedParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output) {
  if (!fully_connected_no_fallback(params, input, filter, bias, output)) {
    portable_fully_connected(params, input, filter, bias, output);
  }
}

bool fully_connected_no_fallback(const FullyConnectedParams& params, const int8_t* input,
                                 const int8_t* filter, const int32_t* bias, int8_t* output) {
  const FullyConnectedParams p = params;  // a local copy: output stores (int8) could alias params
  const int32_t channels = p.per_channel ? p.output_depth : 1;
  if (p.input_depth <= 0 || !multipliers_non_negative(p.output_multiplier, channels)) return false;
  const Requantizer rq = make_requantizer(p.output_multiplier, p.output_shift, p.output_offset,
                                          p.act_min, p.act_max);
  const int32_t n = p.input_depth;
  const int32_t od = p.output_depth;
  // With kernel sums: sums[o] + sum x w + fo sum x. Without: bias[o] + sum (x + io) w
  // + fo (sum x + n io).
  const bool sums = p.kernel_sums != nullptr;
  const int32_t* base = sums ? p.kernel_sums : bias;
  const int16_t offset = sums ? 0 : static_cast<int16_t>(p.input_offset);
  const uint32_t offset2 = pack16(offset, offset);
  const int32_t fo = p.filter_offset;
  const int32_t row_const = sums ? 0 : fo * n * p.input_offset;
  const int32_t zero = 0;
  const auto channel = [&](int32_t o) { return p.per_channel ? o : zero; };
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* x = input + static_cast<ptrdiff_t>(b) * n;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * od;
    int32_t row_term = 0;
    if (fo != 0) {
      int32_t sum_x = 0;
      for (int32_t i = 0; i < n; ++i) sum_x += x[i];
      row_term = fo * sum_x + row_const;
    }
    int32_t o = 0;
    for (; o + 4 <= od; o += 4) {
      int32_t a[4];
      for (int32_t k = 0; k < 4; ++k) a[k] = (base ? base[o + k] : 0) + row_term;
      dot_1x4_rows(x, filter + static_cast<ptrdiff_t>(o) * n, n, offset2, offset, a);
      for (int32_t k = 0; k < 4; ++k) out[o + k] = rq(a[k], channel(o + k));
    }
    for (; o < od; ++o) {
      const int32_t a = dot_1x1(x, filter + static_cast<ptrdiff_t>(o) * n, n, offset2, offset,
                                (base ? base[o] : 0) + row_term);
      out[o] = rq(a, channel(o));
    }
  }
  return true;
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
