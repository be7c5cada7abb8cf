// mve FULLY_CONNECTED with int16 activations (16x8) or packed int4 weights: one input row against
// four filter rows at a time. 16x8: wide_16x8.h's driver on mve/wide_dot.h (TFLite's
// requantization, with int32 sums and one high multiply where they fit); int4: the dot products
// below (the inputs deinterleaved, the nibbles used in place as 16 w), blocks of four outputs
// requantized as a vector (mve/requantize.h), and
// sum (x + io)(w + fo) = sum x w + io sum w + fo sum x + n io fo, sum w from the dot products'
// loop, sum x once per input row. No scratch.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/kernels.h"
#include "mve/requantize.h"
#include "mve/wide_dot.h"
#include "wide_16x8.h"

namespace mote {
namespace kernels {
namespace mve {

void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int64_t* bias, int16_t* output) {
  wide_16x8::fully_connected<wide::Dot16x8>(params, input, filter, bias, output);
}

void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int32_t* bias, int16_t* output) {
  wide_16x8::fully_connected<wide::Dot16x8>(params, input, filter, bias, output);
}

namespace {

// int4 dot products on the packed bytes themselves, 32 elements per step: the inputs
// deinterleaved by VLD2 (even elements, odd elements), each byte's nibbles taken in place as
// sixteen times the element: the low nibble by VSHL #4, the high one by VAND 0xF0 (both exact
// in int8). A row starting at an odd nibble pairs its even elements with the high nibbles of its
// bytes and its odd ones with the low nibbles of the bytes one on. The sums (of x w and of w) are
// 16 times the true ones: exact while |sum x w| < 2^27, so for depths of at most kMaxDepthX16
// (|sum x w| <= 128 * 8 * 2^16 = 2^26); deeper layers run wide::dot_int4.
constexpr int32_t kMaxDepthX16 = 1 << 16;

// The last count < 32 inputs of a row deinterleaved (gathers, lanes past them zero), loaded once
// per input row for every filter row.
struct TailX16 {
  mve_pred16_t even;  // the first ceil(count / 2) lanes
  mve_pred16_t odd;   // the first count / 2
  int8x16_t xe, xo;
};

inline TailX16 tail_x16(const int8_t* x, uint32_t count) {
  TailX16 t;
  t.even = vctp8q((count + 1) / 2);
  t.odd = vctp8q(count / 2);
  const uint8x16_t two = vidupq_n_u8(0, 2);
  t.xe = vldrbq_gather_offset_z_s8(x, two, t.even);
  t.xo = vldrbq_gather_offset_z_s8(x + 1, two, t.odd);
  return t;
}

// 16 times the elements of one step: even ones in *we, odd ones in *wo. p: the bytes of the even
// elements; p1 = p + 1: an odd start's odd ones (a pointer of its own, so that each load
// post-increments). Sixteen bytes on.
template <bool kOdd>
inline void weights_x16_next(const uint8_t*& p, const uint8_t*& p1, uint8x16_t high,
                             int8x16_t* we, int8x16_t* wo) {
  if (kOdd) {
    *we = vreinterpretq_s8_u8(vandq_u8(vldrbq_u8(p), high));
    *wo = vreinterpretq_s8_u8(vshlq_n_u8(vldrbq_u8(p1), 4));
    p1 += 16;
  } else {
    const uint8x16_t b = vldrbq_u8(p);
    *we = vreinterpretq_s8_u8(vshlq_n_u8(b, 4));
    *wo = vreinterpretq_s8_u8(vandq_u8(b, high));
  }
  p += 16;
}

// The tail's: loads predicated to the bytes that hold the row's elements (an even start's last
// byte may still hold one past it, in *wo's lane t.odd, which sums leave out).
template <bool kOdd>
inline void weights_x16_tail(const uint8_t* p, const uint8_t* p1, uint8x16_t high,
                             const TailX16& t, int8x16_t* we, int8x16_t* wo) {
  if (kOdd) {
    *we = vreinterpretq_s8_u8(vandq_u8(vldrbq_z_u8(p, t.even), high));
    *wo = vreinterpretq_s8_u8(vshlq_n_u8(vldrbq_z_u8(p1, t.odd), 4));
  } else {
    const uint8x16_t b = vldrbq_z_u8(p, t.even);
    *we = vreinterpretq_s8_u8(vshlq_n_u8(b, 4));
    *wo = vreinterpretq_s8_u8(vandq_u8(b, high));
  }
}

// *a = 16 sum x w and *f = 16 sum w (modulo 2^32) for R = 1 or 2 rows, starting at nibble pos
// (even) and, the second, pos + stride (odd when kOdd1). Sums in scalars: gcc keeps arrays of
// them in memory inside the loop.
template <int R, bool kOdd1>
__attribute__((always_inline)) inline void dot_x16(const int8_t* x, int32_t steps,
                                                   const TailX16* tail, const uint8_t* packed,
                                                   size_t pos, size_t stride, int32_t* a,
                                                   int32_t* f) {
  const uint8x16_t high = vdupq_n_u8(0xF0);
  int32_t a0 = 0, f0 = 0, a1 = 0, f1 = 0;
  const uint8_t* w0 = packed + (pos >> 1);
  const uint8_t* w1 = packed + ((pos + stride) >> 1);
  const uint8_t* w1_1 = w1 + 1;
  // Kept apart from w1 (else gcc derives it again in the loop, two instructions a step).
  if (kOdd1) asm("" : "+r"(w1_1));
  const uint8_t* unused = w0;
  for (int32_t i = 0; i < steps; ++i) {
    const int8x16x2_t xv = vld2q_s8(x);
    x += 32;
    int8x16_t we, wo;
    weights_x16_next<false>(w0, unused, high, &we, &wo);
    a0 = vmladavaq_s8(vmladavaq_s8(a0, xv.val[0], we), xv.val[1], wo);
    f0 = vaddvaq_s8(vaddvaq_s8(f0, we), wo);
    if (R > 1) {
      weights_x16_next<kOdd1>(w1, w1_1, high, &we, &wo);
      a1 = vmladavaq_s8(vmladavaq_s8(a1, xv.val[0], we), xv.val[1], wo);
      f1 = vaddvaq_s8(vaddvaq_s8(f1, we), wo);
    }
  }
  if (tail != nullptr) {
    const TailX16 t = *tail;
    int8x16_t we, wo;
    weights_x16_tail<false>(w0, w0, high, t, &we, &wo);
    a0 = vmladavaq_s8(vmladavaq_s8(a0, t.xe, we), t.xo, wo);
    f0 = vaddvaq_p_s8(vaddvaq_s8(f0, we), wo, t.odd);
    if (R > 1) {
      weights_x16_tail<kOdd1>(w1, w1_1, high, t, &we, &wo);
      a1 = vmladavaq_s8(vmladavaq_s8(a1, t.xe, we), t.xo, wo);
      f1 = vaddvaq_p_s8(vaddvaq_s8(f1, we), wo, t.odd);
    }
  }
  a[0] = a0;
  f[0] = f0;
  if (R > 1) {
    a[1] = a1;
    f[1] = f1;
  }
}

// One input row's outputs. Blocks of four rows start at a multiple of four, so at an even nibble,
// as do the last rows' (a pair, then one): only the second row of a pair starts odd, when the
// depth is odd (kOddDepth).
template <bool kOddDepth, typename Finish4, typename Finish1>
void fully_connected_int4_x16(const int8_t* x, int32_t n, int32_t od, const uint8_t* filter,
                              Finish4 finish4, Finish1 finish1) {
  const int32_t steps = n / 32;
  TailX16 tail_data;
  const TailX16* tail = nullptr;
  if (n % 32 != 0) {
    tail_data = tail_x16(x + steps * 32, static_cast<uint32_t>(n % 32));
    tail = &tail_data;
  }
  const size_t stride = static_cast<size_t>(n);
  int32_t o = 0;
  for (; o + 4 <= od; o += 4) {
    int32_t a[4], f[4];
    const size_t pos = static_cast<size_t>(o) * stride;
    dot_x16<2, kOddDepth>(x, steps, tail, filter, pos, stride, a, f);
    dot_x16<2, kOddDepth>(x, steps, tail, filter, pos + 2 * stride, stride, a + 2, f + 2);
    finish4(a, f, o);
  }
  if (o + 2 <= od) {
    int32_t a[2], f[2];
    dot_x16<2, kOddDepth>(x, steps, tail, filter, static_cast<size_t>(o) * stride, stride, a, f);
    finish1(a[0], f[0], o);
    finish1(a[1], f[1], o + 1);
    o += 2;
  }
  if (o < od) {
    int32_t a[1], f[1];
    dot_x16<1, false>(x, steps, tail, filter, static_cast<size_t>(o) * stride, stride, a, f);
    finish1(a[0], f[0], o);
  }
}

}  // namespace

void fully_connected_int4(const FullyConnectedParams& params, const int8_t* input,
                          const uint8_t* filter, const int32_t* bias, int8_t* output) {
  const FullyConnectedParams p = params;
  const int32_t n = p.input_depth, od = p.output_depth;
  const uint32_t io = static_cast<uint32_t>(p.input_offset);
  const uint32_t fo = static_cast<uint32_t>(p.filter_offset);
  const OutputStage stage = make_output_stage(p.output_offset, p.act_min, p.act_max);
  const int32x4_t tensor_multiplier = vdupq_n_s32(p.output_multiplier[0]);
  const Shifts tensor_shifts = split_shifts(vdupq_n_s32(p.output_shift[0]));
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* x = input + static_cast<ptrdiff_t>(b) * n;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * od;
    // fo sum x + n io fo, one per input row (modulo 2^32, as the sums).
    const uint32_t row_term = fo == 0 ? 0u
                                      : fo * static_cast<uint32_t>(wide::row_sum(x, n)) +
                                            static_cast<uint32_t>(n) * io * fo;
    // Four outputs as a vector (mve/requantize.h: portable's results bit for bit) from the dot
    // products and the filter rows' sums.
    const auto four = [&](int32x4_t dot, int32x4_t sums, int32_t o) {
      int32x4_t acc =
          vaddq_n_s32(vmlaq_n_s32(dot, sums, p.input_offset), static_cast<int32_t>(row_term));
      if (bias != nullptr) acc = vaddq_s32(acc, vldrwq_s32(bias + o));
      const int32x4_t v = p.per_channel ? stage.apply(acc, vldrwq_s32(p.output_multiplier + o),
                                                      split_shifts(vldrwq_s32(p.output_shift + o)))
                                        : stage.apply(acc, tensor_multiplier, tensor_shifts);
      vstrbq_s32(out + o, v);
    };
    const auto one = [&](int32_t dot, int32_t sum, int32_t o) {
      uint32_t acc = static_cast<uint32_t>(dot) + io * static_cast<uint32_t>(sum) + row_term;
      if (bias != nullptr) acc += static_cast<uint32_t>(bias[o]);
      out[o] = wide_16x8::finish_fully_connected<int32_t, int8_t>(p, static_cast<int32_t>(acc), o,
                                                                  p.output_offset);
    };
    if (n > kMaxDepthX16) {
      int32_t o = 0;
      for (; o + 4 <= od; o += 4) {
        int32_t a[4] = {}, ws[4] = {};
        wide::dot_int4<4>(x, n, filter, static_cast<size_t>(o) * static_cast<size_t>(n),
                          static_cast<size_t>(n), a, ws);
        four(vldrwq_s32(a), vldrwq_s32(ws), o);
      }
      for (; o < od; ++o) {
        int32_t a[1] = {}, ws[1] = {};
        wide::dot_int4<1>(x, n, filter, static_cast<size_t>(o) * static_cast<size_t>(n),
                          static_cast<size_t>(n), a, ws);
        one(a[0], ws[0], o);
      }
      continue;
    }
    // The x16 sums back to the true ones.
    const auto four_x16 = [&](const int32_t* a, const int32_t* f, int32_t o) {
      four(vshrq_n_s32(vldrwq_s32(a), 4), vshrq_n_s32(vldrwq_s32(f), 4), o);
    };
    const auto one_x16 = [&](int32_t a, int32_t f, int32_t o) { one(a >> 4, f >> 4, o); };
    if ((n & 1) != 0) {
      fully_connected_int4_x16<true>(x, n, od, filter, four_x16, one_x16);
    } else {
      fully_connected_int4_x16<false>(x, n, od, filter, four_x16, one_x16);
    }
  }
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
