// dsp CONV_2D: 16-bit dual multiply-accumulates (SMLAD), two output pixels by two output channels
// per inner loop so that each loaded word feeds four of them.
//  - 1x1 (no padding): the input pixels are the columns; each word of four int8 inputs is widened
//    with the zero point added (SXTAB16, bytes 0/2 and 1/3), each word of weights likewise
//    (SXTB16), and the pairs line up without a reordering. No scratch.
//  - otherwise im2col: two columns of (x + input_offset) as int16 (0 for padding), stored with
//    each group of four elements in the order 0, 2, 1, 3, the order SXTB16 leaves the weights in,
//    so the inner loop loads two column words per weight word.
// Requantization: dsp/requantize.h.

#include <stddef.h>
#include <stdint.h>

#include <type_traits>

#include "dsp/instance_tables.h"
#include "dsp/intrinsics.h"
#include "dsp/kernels.h"
#include "dsp/requantize.h"
#include "portable/row_window.h"
#include "portable/window.h"

namespace mote {
namespace kernels {
namespace dsp {
namespace {

using internal::bias_or_zero;

// Four sums of a 2x2 block: a[0] = x0.w0, a[1] = x0.w1, a[2] = x1.w0, a[3] = x1.w1, over n int8
// inputs with the zero point `offset2` (in both int16 lanes) added.
inline void dot_2x2_int8(const int8_t* x0, const int8_t* x1, const int8_t* w0, const int8_t* w1,
                         int32_t n, uint32_t offset2, int16_t offset, int32_t* a) {
  int32_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3];
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t xa = load4(x0 + i), xb = load4(x1 + i);
    const uint32_t wa = load4(w0 + i), wb = load4(w1 + i);
    const uint32_t x0e = sxtab16(offset2, xa), x0o = sxtab16_ror8(offset2, xa);
    const uint32_t x1e = sxtab16(offset2, xb), x1o = sxtab16_ror8(offset2, xb);
    const uint32_t w0e = sxtb16(wa), w0o = sxtb16_ror8(wa);
    const uint32_t w1e = sxtb16(wb), w1o = sxtb16_ror8(wb);
    s0 = smlad(x0e, w0e, smlad(x0o, w0o, s0));
    s1 = smlad(x0e, w1e, smlad(x0o, w1o, s1));
    s2 = smlad(x1e, w0e, smlad(x1o, w0o, s2));
    s3 = smlad(x1e, w1e, smlad(x1o, w1o, s3));
  }
  for (; i < n; ++i) {
    const int32_t v0 = x0[i] + offset, v1 = x1[i] + offset;
    s0 += v0 * w0[i];
    s1 += v0 * w1[i];
    s2 += v1 * w0[i];
    s3 += v1 * w1[i];
  }
  store_sums(a, s0, s1, s2, s3);
}

// dot_2x2_int8 for the common case of pixel 1 and row 1 at the same distance `ci` from pixel 0
// and row 0 (1x1 stride 1: neighbouring pixels are ci apart, as filter rows are). On Arm the
// groups of eight inputs go through the inline assembly below: gcc 12 spills two registers of
// this loop (25 instructions per 16 multiply-accumulates), the assembly needs 43 per 32.
inline void dot_2x2_int8_adjacent(const int8_t* x, const int8_t* w, int32_t ci, int32_t n,
                                  uint32_t offset2, int16_t offset, int32_t* a) {
#if defined(__ARM_FEATURE_DSP)
  const int32_t n8 = n & ~7;
  if (n8 > 0) {
    int32_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3];
    const int8_t* const w_end = w + n8;  // in memory: the 14 registers hold everything else
    uint32_t t0, t1, t2, t3, t4, t5;
    // Per group of four: the two filter words widened into bytes 0/2 and 1/3 (t2, t1 for row 0;
    // t3, t0 for row 1), then each pixel's word (pixel 1 at x + ci first, so that pixel 0's load
    // can post-increment x) widened with the zero point (t5, t4) into four SMLADs.
#define MOTE_DSP_MAC_2X2_GROUP                  \
  "ldr     %[t0], [%[w], %[ci]]\n\t"            \
  "ldr     %[t1], [%[w]], #4\n\t"               \
  "sxtb16  %[t2], %[t1]\n\t"                    \
  "sxtb16  %[t1], %[t1], ror #8\n\t"            \
  "sxtb16  %[t3], %[t0]\n\t"                    \
  "sxtb16  %[t0], %[t0], ror #8\n\t"            \
  "ldr     %[t4], [%[x], %[ci]]\n\t"            \
  "sxtab16 %[t5], %[off], %[t4]\n\t"            \
  "sxtab16 %[t4], %[off], %[t4], ror #8\n\t"    \
  "smlad   %[s2], %[t5], %[t2], %[s2]\n\t"      \
  "smlad   %[s3], %[t5], %[t3], %[s3]\n\t"      \
  "smlad   %[s2], %[t4], %[t1], %[s2]\n\t"      \
  "smlad   %[s3], %[t4], %[t0], %[s3]\n\t"      \
  "ldr     %[t4], [%[x]], #4\n\t"               \
  "sxtab16 %[t5], %[off], %[t4]\n\t"            \
  "sxtab16 %[t4], %[off], %[t4], ror #8\n\t"    \
  "smlad   %[s0], %[t5], %[t2], %[s0]\n\t"      \
  "smlad   %[s1], %[t5], %[t3], %[s1]\n\t"      \
  "smlad   %[s0], %[t4], %[t1], %[s0]\n\t"      \
  "smlad   %[s1], %[t4], %[t0], %[s1]\n\t"
    __asm__ volatile(
        "1:\n\t"
        MOTE_DSP_MAC_2X2_GROUP
        MOTE_DSP_MAC_2X2_GROUP
        "ldr     %[t0], %[end]\n\t"
        "cmp     %[w], %[t0]\n\t"
        "bne     1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x), [w] "+r"(w),
          [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5)
        : [ci] "r"(ci), [off] "r"(offset2), [end] "m"(w_end)
        : "cc", "memory");
#undef MOTE_DSP_MAC_2X2_GROUP
    store_sums(a, s0, s1, s2, s3);
    // A depth of a multiple of eight (most layers) has no tail: about 15 instructions a block
    // went to finding that out in the loop below.
    if (n8 == n) return;
    n -= n8;
  }
#endif
  dot_2x2_int8(x, x + ci, w, w + ci, n, offset2, offset, a);
}

// sum (x[i] + offset) * w[i] for one input and one filter row.
inline int32_t dot_1x1_int8(const int8_t* x, const int8_t* w, int32_t n, uint32_t offset2,
                            int16_t offset, int32_t acc) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t xa = load4(x + i), wa = load4(w + i);
    acc = smlad(sxtab16(offset2, xa), sxtb16(wa), acc);
    acc = smlad(sxtab16_ror8(offset2, xa), sxtb16_ror8(wa), acc);
  }
  for (; i < n; ++i) acc += (x[i] + offset) * w[i];
  return acc;
}

// The same over reordered int16 columns (groups of four as 0, 2, 1, 3; the tail in order).
inline void dot_2x2_col(const int16_t* c0, const int16_t* c1, const int8_t* w0, const int8_t* w1,
                        int32_t n, int32_t* a) {
  int32_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3];
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t wa = load4(w0 + i), wb = load4(w1 + i);
    const uint32_t w0e = sxtb16(wa), w0o = sxtb16_ror8(wa);
    const uint32_t w1e = sxtb16(wb), w1o = sxtb16_ror8(wb);
    const uint32_t c0e = load4(c0 + i), c0o = load4(c0 + i + 2);
    const uint32_t c1e = load4(c1 + i), c1o = load4(c1 + i + 2);
    s0 = smlad(c0e, w0e, smlad(c0o, w0o, s0));
    s1 = smlad(c0e, w1e, smlad(c0o, w1o, s1));
    s2 = smlad(c1e, w0e, smlad(c1o, w0o, s2));
    s3 = smlad(c1e, w1e, smlad(c1o, w1o, s3));
  }
  for (; i < n; ++i) {
    s0 += c0[i] * w0[i];
    s1 += c0[i] * w1[i];
    s2 += c1[i] * w0[i];
    s3 += c1[i] * w1[i];
  }
  store_sums(a, s0, s1, s2, s3);
}

// dot_2x2_col with row 1 n bytes after row 0 (filter rows are consecutive). On Arm the groups of
// eight go through inline assembly (38 instructions per 32 multiply-accumulates; gcc 12's loop
// spills, 24 per 16).
inline void dot_2x2_col_rows(const int16_t* c0, const int16_t* c1, const int8_t* w, int32_t n,
                             int32_t* a) {
#if defined(__ARM_FEATURE_DSP)
  const int32_t n8 = n & ~7;
  if (n8 > 0) {
    int32_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3];
    const int8_t* const w_end = w + n8;
    uint32_t t0, t1, t2, t3, t4;
    // Per group of four: both filter words widened (t2, t1 row 0 bytes 0/2 and 1/3; t3, t0 row 1),
    // then each column's odd word (elements 1, 3) and even word (0, 2) into two SMLADs each.
#define MOTE_DSP_MAC_2X2_COL_GROUP            \
  "ldr     %[t0], [%[w], %[n]]\n\t"           \
  "ldr     %[t1], [%[w]], #4\n\t"             \
  "sxtb16  %[t2], %[t1]\n\t"                  \
  "sxtb16  %[t1], %[t1], ror #8\n\t"          \
  "sxtb16  %[t3], %[t0]\n\t"                  \
  "sxtb16  %[t0], %[t0], ror #8\n\t"          \
  "ldr     %[t4], [%[c1], #4]\n\t"            \
  "smlad   %[s2], %[t4], %[t1], %[s2]\n\t"    \
  "smlad   %[s3], %[t4], %[t0], %[s3]\n\t"    \
  "ldr     %[t4], [%[c1]], #8\n\t"            \
  "smlad   %[s2], %[t4], %[t2], %[s2]\n\t"    \
  "smlad   %[s3], %[t4], %[t3], %[s3]\n\t"    \
  "ldr     %[t4], [%[c0], #4]\n\t"            \
  "smlad   %[s0], %[t4], %[t1], %[s0]\n\t"    \
  "smlad   %[s1], %[t4], %[t0], %[s1]\n\t"    \
  "ldr     %[t4], [%[c0]], #8\n\t"            \
  "smlad   %[s0], %[t4], %[t2], %[s0]\n\t"    \
  "smlad   %[s1], %[t4], %[t3], %[s1]\n\t"
    __asm__ volatile(
        "1:\n\t"
        MOTE_DSP_MAC_2X2_COL_GROUP
        MOTE_DSP_MAC_2X2_COL_GROUP
        "cmp     %[w], %[end]\n\t"
        "bne     1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [c0] "+r"(c0), [c1] "+r"(c1),
          [w] "+r"(w), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
          [t4] "=&r"(t4)
        : [n] "r"(n), [end] "r"(w_end)
        : "cc", "memory");
#undef MOTE_DSP_MAC_2X2_COL_GROUP
    store_sums(a, s0, s1, s2, s3);
    dot_2x2_col(c0, c1, w, w + n, n - n8, a);
    return;
  }
#endif
  dot_2x2_col(c0, c1, w, w + n, n, a);
}

inline int32_t dot_1x1_col(const int16_t* c, const int8_t* w, int32_t n, int32_t acc) {
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t wa = load4(w + i);
    acc = smlad(load4(c + i), sxtb16(wa), acc);
    acc = smlad(load4(c + i + 2), sxtb16_ror8(wa), acc);
  }
  for (; i < n; ++i) acc += c[i] * w[i];
  return acc;
}

// Two sums of one filter row: a[0] = c0.w, a[1] = c1.w (an odd last channel of a pair of pixels:
// each weight word widened once for both columns).
inline void dot_2x1_col(const int16_t* c0, const int16_t* c1, const int8_t* w, int32_t n,
                        int32_t* a) {
  int32_t s0 = a[0], s1 = a[1];
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t wa = load4(w + i);
    const uint32_t we = sxtb16(wa), wo = sxtb16_ror8(wa);
    s0 = smlad(load4(c0 + i + 2), wo, smlad(load4(c0 + i), we, s0));
    s1 = smlad(load4(c1 + i + 2), wo, smlad(load4(c1 + i), we, s1));
  }
  for (; i < n; ++i) {
    s0 += c0[i] * w[i];
    s1 += c1[i] * w[i];
  }
  a[0] = s0;
  a[1] = s1;
}

// Four sums of one pixel (a lone pixel's channels four at a time): a[k] = x.w_k, filter row k
// k * ci bytes after row 0, over n inputs. On Arm the groups of eight go through inline assembly
// (49 instructions per 32 multiply-accumulates, where two channels at a time took 56: the pixel's
// words are widened once for four channels); the rest in C.
inline void dot_1x4_int8(const int8_t* x, const int8_t* w, int32_t ci, int32_t n,
                         uint32_t offset2, int16_t offset, int32_t* a) {
  int32_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3];
#if defined(__ARM_FEATURE_DSP)
  const int32_t n8 = n & ~7;
  if (n8 >= 16) {
    const int8_t* w2 = w + 2 * static_cast<ptrdiff_t>(ci);  // rows 2 and 3
    const int8_t* const w_end = w + n8;  // in memory: the registers hold everything else
    uint32_t t, te, xe, xo;
    // Per group of four: the pixel's word widened with the zero point (xe bytes 0/2, xo 1/3),
    // then each filter row's word widened (te, t) into two SMLADs of its channel.
#define MOTE_DSP_MAC_1X4_ROW(addr, sum)         \
  "ldr     %[t], " addr "\n\t"                  \
  "sxtb16  %[te], %[t]\n\t"                     \
  "sxtb16  %[t], %[t], ror #8\n\t"              \
  "smlad   %[" sum "], %[xe], %[te], %[" sum "]\n\t" \
  "smlad   %[" sum "], %[xo], %[t], %[" sum "]\n\t"
#define MOTE_DSP_MAC_1X4_GROUP                  \
  "ldr     %[t], [%[x]], #4\n\t"                \
  "sxtab16 %[xe], %[off], %[t]\n\t"             \
  "sxtab16 %[xo], %[off], %[t], ror #8\n\t"     \
  MOTE_DSP_MAC_1X4_ROW("[%[w], %[ci]]", "s1")   \
  MOTE_DSP_MAC_1X4_ROW("[%[w2], %[ci]]", "s3")  \
  MOTE_DSP_MAC_1X4_ROW("[%[w2]], #4", "s2")     \
  MOTE_DSP_MAC_1X4_ROW("[%[w]], #4", "s0")
    __asm__ volatile(
        "1:\n\t"
        MOTE_DSP_MAC_1X4_GROUP
        MOTE_DSP_MAC_1X4_GROUP
        "ldr     %[t], %[end]\n\t"
        "cmp     %[w], %[t]\n\t"
        "bne     1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x), [w] "+r"(w),
          [w2] "+r"(w2), [t] "=&r"(t), [te] "=&r"(te), [xe] "=&r"(xe), [xo] "=&r"(xo)
        : [ci] "r"(ci), [off] "r"(offset2), [end] "m"(w_end)
        : "cc", "memory");
#undef MOTE_DSP_MAC_1X4_GROUP
#undef MOTE_DSP_MAC_1X4_ROW
    n -= n8;
  }
#endif
  const int8_t* const w1 = w + ci;
  const int8_t* const w2 = w + 2 * static_cast<ptrdiff_t>(ci);
  const int8_t* const w3 = w + 3 * static_cast<ptrdiff_t>(ci);
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t xa = load4(x + i);
    const uint32_t xe = sxtab16(offset2, xa), xo = sxtab16_ror8(offset2, xa);
    const uint32_t v0 = load4(w + i), v1 = load4(w1 + i), v2 = load4(w2 + i), v3 = load4(w3 + i);
    s0 = smlad(xe, sxtb16(v0), smlad(xo, sxtb16_ror8(v0), s0));
    s1 = smlad(xe, sxtb16(v1), smlad(xo, sxtb16_ror8(v1), s1));
    s2 = smlad(xe, sxtb16(v2), smlad(xo, sxtb16_ror8(v2), s2));
    s3 = smlad(xe, sxtb16(v3), smlad(xo, sxtb16_ror8(v3), s3));
  }
  for (; i < n; ++i) {
    const int32_t v = x[i] + offset;
    s0 += v * w[i];
    s1 += v * w1[i];
    s2 += v * w2[i];
    s3 += v * w3[i];
  }
  store_sums(a, s0, s1, s2, s3);
}

// Writes channels [0, co) of one or two pixels; `sums(o, a)` fills a[4] as dot_2x2_* does
// (starting from the biases it is given), `lone()` writes every channel of a lone pixel 0,
// `last(o, a)` one channel of both pixels (a[0] pixel 0, a[1] pixel 1, from the biases given).
template <typename Sums, typename Lone, typename Last>
inline void block_outputs(int32_t co, bool pair, const int32_t* bias, const Requantizer& rq,
                          int8_t* out0, int8_t* out1, Sums sums, Lone lone, Last last) {
  if (!pair) {
    lone();
    return;
  }
  int32_t o = 0;
  for (; o + 2 <= co; o += 2) {
    const int32_t b0 = bias_or_zero(bias, o), b1 = bias_or_zero(bias, o + 1);
    int32_t a[4] = {b0, b1, b0, b1};
    sums(o, a);
    out0[o] = rq(a[0], o);
    out0[o + 1] = rq(a[1], o + 1);
    out1[o] = rq(a[2], o);
    out1[o + 1] = rq(a[3], o + 1);
  }
  if (o < co) {
    int32_t a[2] = {bias_or_zero(bias, o), bias_or_zero(bias, o)};
    last(o, a);
    out0[o] = rq(a[0], o);
    out1[o] = rq(a[1], o);
  }
}

// Four sums of a lone pixel's reordered int16 column (im2col): a[k] = c.w_k, filter row k k * n
// bytes after row 0. On Arm the groups of eight go through inline assembly (46 instructions per
// 32 multiply-accumulates: each column word loaded once for four filter rows); the rest in C.
inline void dot_1x4_col(const int16_t* c, const int8_t* w, int32_t n, int32_t* a) {
  int32_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3];
  int32_t i = 0;
#if defined(__ARM_FEATURE_DSP)
  const int32_t n8 = n & ~7;
  if (n8 > 0) {
    const int16_t* cp = c;
    const int8_t* w0 = w;
    const int8_t* w2 = w + 2 * static_cast<ptrdiff_t>(n);  // rows 2 and 3
    const int8_t* const w_end = w + n8;
    uint32_t ce, co, t, te;
    // Per group of four: the column's even word (elements 0, 2 after the reordering) and odd
    // word (1, 3), then each filter row's word widened (te bytes 0/2, t bytes 1/3) into two SMLADs
    // of its channel.
#define MOTE_DSP_MAC_1X4_COL_ROW(addr, sum)     \
  "ldr     %[t], " addr "\n\t"                  \
  "sxtb16  %[te], %[t]\n\t"                     \
  "sxtb16  %[t], %[t], ror #8\n\t"              \
  "smlad   %[" sum "], %[ce], %[te], %[" sum "]\n\t" \
  "smlad   %[" sum "], %[co], %[t], %[" sum "]\n\t"
#define MOTE_DSP_MAC_1X4_COL_GROUP              \
  "ldr     %[co], [%[c], #4]\n\t"               \
  "ldr     %[ce], [%[c]], #8\n\t"               \
  MOTE_DSP_MAC_1X4_COL_ROW("[%[w], %[n]]", "s1")  \
  MOTE_DSP_MAC_1X4_COL_ROW("[%[w2], %[n]]", "s3") \
  MOTE_DSP_MAC_1X4_COL_ROW("[%[w2]], #4", "s2")   \
  MOTE_DSP_MAC_1X4_COL_ROW("[%[w]], #4", "s0")
    __asm__ volatile(
        "1:\n\t"
        MOTE_DSP_MAC_1X4_COL_GROUP
        MOTE_DSP_MAC_1X4_COL_GROUP
        "cmp     %[w], %[end]\n\t"
        "bne     1b\n\t"
        : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [c] "+r"(cp), [w] "+r"(w0),
          [w2] "+r"(w2), [ce] "=&r"(ce), [co] "=&r"(co), [t] "=&r"(t), [te] "=&r"(te)
        : [n] "r"(n), [end] "r"(w_end)
        : "cc", "memory");
#undef MOTE_DSP_MAC_1X4_COL_GROUP
#undef MOTE_DSP_MAC_1X4_COL_ROW
    i = n8;
  }
#endif
  const int8_t* const w1 = w + n;
  const int8_t* const w2 = w + 2 * static_cast<ptrdiff_t>(n);
  const int8_t* const w3 = w + 3 * static_cast<ptrdiff_t>(n);
  for (; i + 4 <= n; i += 4) {
    const uint32_t ce = load4(c + i), co = load4(c + i + 2);
    const uint32_t v0 = load4(w + i), v1 = load4(w1 + i), v2 = load4(w2 + i), v3 = load4(w3 + i);
    s0 = smlad(ce, sxtb16(v0), smlad(co, sxtb16_ror8(v0), s0));
    s1 = smlad(ce, sxtb16(v1), smlad(co, sxtb16_ror8(v1), s1));
    s2 = smlad(ce, sxtb16(v2), smlad(co, sxtb16_ror8(v2), s2));
    s3 = smlad(ce, sxtb16(v3), smlad(co, sxtb16_ror8(v3), s3));
  }
  for (; i < n; ++i) {
    s0 += c[i] * w[i];
    s1 += c[i] * w1[i];
    s2 += c[i] * w2[i];
    s3 += c[i] * w3[i];
  }
  store_sums(a, s0, s1, s2, s3);
}

// Every channel of a lone pixel (an odd pixel count, or each row of an odd width in row calls):
// `x` its int8 inputs (1x1) or its reordered column (im2col), filter row o n bytes after row 0.
// Out of line, with its arguments by value: inlined, it costs the pairs' loop around it a
// register. Four channels at a time.
template <typename Input>
__attribute__((noinline)) void lone_pixel(const Input* x, const int8_t* filter, int32_t n,
                                          int32_t co, const int32_t* bias, Requantizer rq,
                                          int8_t* out, uint32_t offset2, int16_t offset) {
  int32_t o = 0;
  for (; o + 4 <= co; o += 4) {
    int32_t a[4] = {bias_or_zero(bias, o), bias_or_zero(bias, o + 1), bias_or_zero(bias, o + 2),
                    bias_or_zero(bias, o + 3)};
    const int8_t* w = filter + static_cast<ptrdiff_t>(o) * n;
    if constexpr (std::is_same<Input, int8_t>::value) {
      dot_1x4_int8(x, w, n, n, offset2, offset, a);
    } else {
      dot_1x4_col(x, w, n, a);
    }
    out[o] = rq(a[0], o);
    out[o + 1] = rq(a[1], o + 1);
    out[o + 2] = rq(a[2], o + 2);
    out[o + 3] = rq(a[3], o + 3);
  }
  for (; o < co; ++o) {  // the last channels, one at a time
    const int8_t* w = filter + static_cast<ptrdiff_t>(o) * n;
    int32_t acc = bias_or_zero(bias, o);
    if constexpr (std::is_same<Input, int8_t>::value) {
      acc = dot_1x1_int8(x, w, n, offset2, offset, acc);
    } else {
      acc = dot_1x1_col(x, w, n, acc);
    }
    out[o] = rq(acc, o);
  }
}

// `adjacent`: stride 1, so pixel p + 1 is ci after pixel p (the input is the output's size).
template <bool adjacent>
void conv_pointwise(const ConvShape& shape, const int8_t* input, const int8_t* filter,
                    const int32_t* bias, int8_t* output, int16_t offset, const Requantizer& rq_in) {
  // Local copies: output stores (int8) could alias what a reference reaches, and this may not be
  // inlined (it is called per chunk of a backward run too).
  const ConvShape s = shape;
  const Requantizer rq = rq_in;
  const int32_t ci = s.input_c;
  const int32_t co = s.output_c;
  const uint32_t offset2 = pack16(offset, offset);
  const int32_t pixels = s.output_h * s.output_w;
  for (int32_t b = 0; b < s.batches; ++b) {
    const int8_t* in_batch = input + static_cast<ptrdiff_t>(b) * s.input_h * s.input_w * ci;
    int8_t* out_batch = output + static_cast<ptrdiff_t>(b) * pixels * co;
    const auto pixel_ptr = [&](int32_t p) { return internal::pointwise_input(s, in_batch, p); };
    for (int32_t p = 0; p < pixels; p += 2) {
      const bool pair = p + 1 < pixels;
      const int8_t* x0 = pixel_ptr(p);
      const int8_t* x1 = pair ? pixel_ptr(p + 1) : x0;
      int8_t* out0 = out_batch + static_cast<ptrdiff_t>(p) * co;
      const auto row = [&](int32_t o) { return filter + static_cast<ptrdiff_t>(o) * ci; };
      block_outputs(
          co, pair, bias, rq, out0, out0 + co,
          [&](int32_t o, int32_t* a) {
            if (adjacent) {  // then x1 == x0 + ci
              dot_2x2_int8_adjacent(x0, row(o), ci, ci, offset2, offset, a);
            } else {
              dot_2x2_int8(x0, x1, row(o), row(o + 1), ci, offset2, offset, a);
            }
          },
          [&] { lone_pixel(x0, filter, ci, co, bias, rq, out0, offset2, offset); },
          [&](int32_t o, int32_t* a) {
            a[0] = dot_1x1_int8(x0, row(o), ci, offset2, offset, a[0]);
            a[1] = dot_1x1_int8(x1, row(o), ci, offset2, offset, a[1]);
          });
    }
  }
}

// Column position of element k: groups of four below n4 are stored as 0, 2, 1, 3.
inline int32_t reordered(int32_t k, int32_t n4) {
  return k < n4 ? k ^ (((k ^ (k >> 1)) & 1) * 3) : k;
}

// Gathers (x + offset) of output pixel (y, x) into col[col_len], reordered; padding is 0. Its
// window's input rows come from `rows` (internal::RowTable: a whole map or a ring). kGrouped: the
// channels [c0, c0 + filter_c) of each tap.
template <bool kGrouped>
void im2col(const ConvShape& s, internal::RowTable& rows, int32_t y, int32_t x, int16_t offset,
            int32_t col_len, int16_t* col, int32_t c0) {
  const int32_t cf = s.filter_c;
  const int32_t n4 = col_len & ~3;
  const internal::PixelWindow pw = internal::pixel_window(s, y, x);
  const int32_t ix0 = pw.ix0;
  const int32_t ky_begin = pw.ky_begin, ky_end = pw.ky_end;
  const int32_t kx_begin = pw.kx_begin, kx_end = pw.kx_end;
  if (ky_begin != 0 || ky_end != s.filter_h || kx_begin != 0 || kx_end != s.filter_w) {
    for (int32_t i = 0; i < col_len; ++i) col[i] = 0;  // a window over the edge: padding
  }
  const internal::RowTable::Window window = rows.window(y, pw.iy0, s.dilation_h, ky_begin, ky_end);
  const uint32_t offset2 = pack16(offset, offset);
  // Runs of whole groups of four (every run starts at a multiple of 4 when cf is one) are widened
  // a word at a time; other channel counts go element by element.
  const bool words = (cf & 3) == 0;
  const bool contiguous = s.dilation_w == 1 && !kGrouped;
  for (int32_t ky = ky_begin; ky < ky_end; ++ky) {
    const int8_t* row = window.row(ky) + (kGrouped ? c0 : 0);
    const int32_t k_row = ky * s.filter_w * cf;
    const int32_t runs = contiguous ? 1 : kx_end - kx_begin;
    const int32_t run_len = contiguous ? (kx_end - kx_begin) * cf : cf;
    for (int32_t r = 0; r < runs; ++r) {
      const int32_t kx = kx_begin + r;
      const int8_t* src = row + static_cast<ptrdiff_t>(ix0 + kx * s.dilation_w) * s.input_c;
      const int32_t k0 = k_row + kx * cf;
      int16_t* dst = col + k0;
      if (words) {
        for (int32_t i = 0; i < run_len; i += 4) {
          const uint32_t v = load4(src + i);
          store4(dst + i, sxtab16(offset2, v));
          store4(dst + i + 2, sxtab16_ror8(offset2, v));
        }
      } else {
        for (int32_t i = 0; i < run_len; ++i) {
          col[reordered(k0 + i, n4)] = static_cast<int16_t>(src[i] + offset);
        }
      }
    }
  }
}

// Output rows [y_begin, y_end) of one image, the pixels in pairs (a pair may straddle two rows):
// the input rows through `rows`, the output rows through `out_rows` (whole maps or rings). The
// whole-tensor kernel runs it on each image's whole map.
void conv_im2col(const ConvShape& shape, internal::RowTable& rows, const int8_t* filter,
                 const int32_t* bias, const internal::OutputRows& out_rows, int32_t y_begin,
                 int32_t y_end, int16_t offset, int16_t* col0, int16_t* col1,
                 const Requantizer& rq_in) {
  // Local copies: output stores (int8) could alias what a reference reaches.
  const ConvShape s = shape;
  const Requantizer rq = rq_in;
  const internal::OutputRows out = out_rows;
  const int32_t n = s.filter_h * s.filter_w * s.filter_c;
  const int32_t co = s.output_c;
  const int32_t p_end = y_end * s.output_w;
  for (int32_t p = y_begin * s.output_w; p < p_end; p += 2) {
    const bool pair = p + 1 < p_end;
    const int32_t y0 = p / s.output_w, x0 = p - y0 * s.output_w;
    const int32_t y1 = (p + 1) / s.output_w, x1 = (p + 1) - y1 * s.output_w;
    im2col<false>(s, rows, y0, x0, offset, n, col0, 0);
    if (pair) im2col<false>(s, rows, y1, x1, offset, n, col1, 0);
    int8_t* out0 = out.row(y0) + static_cast<ptrdiff_t>(x0) * co;
    int8_t* out1 = pair ? out.row(y1) + static_cast<ptrdiff_t>(x1) * co : out0;
    const auto row = [&](int32_t o) { return filter + static_cast<ptrdiff_t>(o) * n; };
    block_outputs(
        co, pair, bias, rq, out0, out1,
        [&](int32_t o, int32_t* a) { dot_2x2_col_rows(col0, col1, row(o), n, a); },
        [&] { lone_pixel(col0, filter, n, co, bias, rq, out0, 0, 0); },
        [&](int32_t o, int32_t* a) { dot_2x1_col(col0, col1, row(o), n, a); });
  }
}

// What conv2d and conv2d_rows (kRows) share: the shapes the dsp paths take (else portable runs).
template <bool kRows>
bool dsp_runs(const ConvParams& params, size_t needed, Scratch scratch) {
  const ConvShape& s = params.shape;
  // Outside what this kernel is for (or given less than it asks, or a negative multiplier, which
  // requantize() excludes): the portable kernel, which copes with anything. Columns need 2-byte
  // alignment; the plan aligns scratch at 16 bytes, but keep to the contract.
  return conv_handles(s) && s.stride_h > 0 && s.stride_w > 0 && s.dilation_h > 0 &&
         s.dilation_w > 0 && s.filter_c > 0 && scratch.size >= needed &&
         (kRows ? multipliers_non_negative_by_signs(params.output_multiplier, s.output_c)
                : multipliers_non_negative(params.output_multiplier, s.output_c)) &&
         (needed == 0 || (reinterpret_cast<uintptr_t>(scratch.data) & 1u) == 0);
}

}  // namespace

// conv_im2col for a grouped convolution: each pair group after group, the group's columns
// gathered, then its output channels. (Called through kConvInstances: an image without grouped
// convolutions links none of it.)
void conv_im2col_grouped(const ConvShape& shape, internal::RowTable& rows, const int8_t* filter,
                         const int32_t* bias, const internal::OutputRows& out_rows,
                         int32_t y_begin, int32_t y_end, int16_t offset, int16_t* col0,
                         int16_t* col1, const Requantizer& rq_in) {
  const ConvShape s = shape;  // local copies, as above
  const Requantizer rq = rq_in;
  const internal::OutputRows out = out_rows;
  const int32_t n = s.filter_h * s.filter_w * s.filter_c;
  const int32_t co = s.output_c;
  const int32_t groups = s.input_c / s.filter_c;
  const int32_t per_group = co / groups;
  const int32_t p_end = y_end * s.output_w;
  for (int32_t p = y_begin * s.output_w; p < p_end; p += 2) {
    const bool pair = p + 1 < p_end;
    const int32_t y0 = p / s.output_w, x0 = p - y0 * s.output_w;
    const int32_t y1 = (p + 1) / s.output_w, x1 = (p + 1) - y1 * s.output_w;
    for (int32_t g = 0; g < groups; ++g) {
      im2col<true>(s, rows, y0, x0, offset, n, col0, g * s.filter_c);
      if (pair) im2col<true>(s, rows, y1, x1, offset, n, col1, g * s.filter_c);
      // The group's output channels, filter rows, bias and requantization.
      const ptrdiff_t first = static_cast<ptrdiff_t>(g) * per_group;
      int8_t* out0 = out.row(y0) + static_cast<ptrdiff_t>(x0) * co + first;
      int8_t* out1 = pair ? out.row(y1) + static_cast<ptrdiff_t>(x1) * co + first : out0;
      const int8_t* gfilter = filter + first * n;
      const int32_t* gbias = bias != nullptr ? bias + first : nullptr;
      const Requantizer grq{rq.multiplier + first, rq.shift + first, rq.output_offset, rq.act_min,
                            rq.act_max};
      const auto row = [&](int32_t o) { return gfilter + static_cast<ptrdiff_t>(o) * n; };
      block_outputs(
          per_group, pair, gbias, grq, out0, out1,
          [&](int32_t o, int32_t* a) { dot_2x2_col_rows(col0, col1, row(o), n, a); },
          [&] { lone_pixel(col0, gfilter, n, per_group, gbias, grq, out0, 0, 0); },
          [&](int32_t o, int32_t* a) { dot_2x1_col(col0, col1, row(o), n, a); });
    }
  }
}

void conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter, const int32_t* bias,
            int8_t* output, Scratch scratch) {
  if (!conv2d_no_fallback(params, input, filter, bias, output, scratch)) {
    portable_conv2d(params, input, filter, bias, output, scratch);
  }
}

bool conv2d_no_fallback(const ConvParams& params, const int8_t* input, const int8_t* filter,
                        const int32_t* bias, int8_t* output, Scratch scratch) {
  const ConvShape s = params.shape;  // a local copy: output stores (int8) could alias params
  const size_t needed = conv_scratch_bytes(s);
  if (!dsp_runs<false>(params, needed, scratch)) return false;
  const Requantizer rq = make_requantizer(params.output_multiplier, params.output_shift,
                                          params.output_offset, params.act_min, params.act_max);
  const int16_t offset = static_cast<int16_t>(params.input_offset);
  if (needed == 0) {  // portable_conv_scratch_bytes is 0 exactly on the 1x1 path
    // The assembly takes groups of eight channels (fewer: nothing to take).
    const bool adjacent = s.stride_h == 1 && s.stride_w == 1 && s.input_c >= 8;
    if (params.backward_chunk > 0 && s.batches == 1 && s.output_h == 1 && s.stride_w == 1) {
      // Backward (conv2d_backward: one row of pixels): the same loop on each chunk, from the
      // last to the first, its setup above done once.
      const internal::PixelChunks chunks{s.output_w, params.backward_chunk,
                                          params.backward_split};
      for (int32_t c = chunks.first(); c >= 0; c = chunks.before(c)) {
        ConvShape part = s;
        part.input_w = part.output_w = chunks.end(c) - c;
        const int8_t* in = input + static_cast<ptrdiff_t>(c) * s.input_c;
        int8_t* out = output + static_cast<ptrdiff_t>(c) * s.output_c;
        if (adjacent) {
          conv_pointwise<true>(part, in, filter, bias, out, offset, rq);
        } else {
          conv_pointwise<false>(part, in, filter, bias, out, offset, rq);
        }
      }
      return true;
    }
    if (adjacent) {
      conv_pointwise<true>(s, input, filter, bias, output, offset, rq);
    } else {
      conv_pointwise<false>(s, input, filter, bias, output, offset, rq);
    }
    return true;
  }
  int16_t* col0 = reinterpret_cast<int16_t*>(scratch.data);
  int16_t* col1 = col0 + s.filter_h * s.filter_w * s.filter_c;
  const ptrdiff_t in_image = static_cast<ptrdiff_t>(s.input_h) * s.input_w * s.input_c;
  const ptrdiff_t out_row = static_cast<ptrdiff_t>(s.output_w) * s.output_c;
  for (int32_t b = 0; b < s.batches; ++b) {
    internal::RowTable rows(input + b * in_image, static_cast<ptrdiff_t>(s.input_w) * s.input_c, 0);
    const internal::OutputRows out_rows{output + b * s.output_h * out_row, out_row, 0};
    if (s.filter_c != s.input_c) {
      kConvInstances.grouped(s, rows, filter, bias, out_rows, 0, s.output_h, offset, col0, col1,
                             rq);
    } else {
      conv_im2col(s, rows, filter, bias, out_rows, 0, s.output_h, offset, col0, col1, rq);
    }
  }
  return true;
}

// Row calls: the same two paths. 1x1: output row y is the pointwise loop on input row
// y * stride_h (pairs inside a row, so `adjacent` needs only stride_w 1). im2col: the loop above
// on the call's rows, through the rings.
void conv2d_rows(const ConvParams& params, const int8_t* input, RowRing input_ring,
                 const int8_t* filter, const int32_t* bias, int8_t* output, RowRing output_ring,
                 int32_t y_begin, int32_t y_end, Scratch scratch) {
  if (!conv2d_rows_no_fallback(params, input, input_ring, filter, bias, output, output_ring,
                               y_begin, y_end, scratch)) {
    portable_conv2d_rows(params, input, input_ring, filter, bias, output, output_ring, y_begin,
                         y_end, scratch);
  }
}

bool conv2d_rows_no_fallback(const ConvParams& params, const int8_t* input, RowRing input_ring,
                            const int8_t* filter, const int32_t* bias, int8_t* output,
                            RowRing output_ring, int32_t y_begin, int32_t y_end, Scratch scratch) {
  const ConvShape s = params.shape;  // a local copy: output stores (int8) could alias params
  const size_t needed = conv_scratch_bytes(s);
  if (!dsp_runs<true>(params, needed, scratch)) return false;
  if (!internal::row_call_ok(s.batches, s.input_h, s.output_h, s.filter_h, s.stride_h, s.pad_h,
                             s.dilation_h, input_ring, output_ring, y_begin, y_end)) {
    return true;
  }
  const Requantizer rq = make_requantizer(params.output_multiplier, params.output_shift,
                                          params.output_offset, params.act_min, params.act_max);
  const int16_t offset = static_cast<int16_t>(params.input_offset);
  const ptrdiff_t in_row = static_cast<ptrdiff_t>(s.input_w) * s.input_c;
  const internal::OutputRows out_rows{output, static_cast<ptrdiff_t>(s.output_w) * s.output_c,
                                      output_ring.rows};
  if (needed == 0) {
    ConvShape row = s;
    row.input_h = row.output_h = 1;
    const bool adjacent = s.stride_w == 1 && s.input_c >= 8;
    for (int32_t y = y_begin; y < y_end; ++y) {
      const int32_t iy = y * s.stride_h;
      const int8_t* in = input + input_ring.slot(iy) * in_row;
      if (adjacent) {
        conv_pointwise<true>(row, in, filter, bias, out_rows.row(y), offset, rq);
      } else {
        conv_pointwise<false>(row, in, filter, bias, out_rows.row(y), offset, rq);
      }
    }
    return true;
  }
  int16_t* col0 = reinterpret_cast<int16_t*>(scratch.data);
  int16_t* col1 = col0 + s.filter_h * s.filter_w * s.filter_c;
  internal::RowTable rows(input, in_row, input_ring.rows);
  if (s.filter_c != s.input_c) {
    kConvInstances.grouped(s, rows, filter, bias, out_rows, y_begin, y_end, offset, col0, col1,
                           rq);
  } else {
    conv_im2col(s, rows, filter, bias, out_rows, y_begin, y_end, offset, col0, col1, rq);
  }
  return true;
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
