#pragma once
// The dot products of the dsp 16x8 and int4 kernels: one run of inputs against R filter rows at
// a time (R = 4 in the blocks, 1 for the last rows), each input word prepared once for the R rows.
// Embeddable C++17, internal to src/kernels/dsp/.
//
// 16x8: the inputs are int16 already, two per word; PKHBT/PKHTB pair (x0, x2) and (x1, x3) so that
// a filter word widened by SXTB16 (w0, w2) and SXTB16 ror 8 (w1, w3) meets them in two SMLADs.
// The sums are int32 modulo 2^32 (what TFLite's int32 form computes); the int64 form adds runs of
// at most kChunk16x8 inputs into int64, each run exact in int32 (|x w| <= 2^22, 511 of them fit).
//
// int4: the weights stay packed (two per byte, low nibble first, over the whole tensor). A word
// holds eight; XOR 0x88888888 turns each into u = w + 8 in [0, 15], and AND 0x000f000f of the word
// shifted by 0, 4, 8, 12 gives the int16 lanes (u0, u4), (u1, u5), (u2, u6), (u3, u7): five
// instructions for eight weights, no sign extension. The inputs (with their offset, SXTAB16) are
// paired to match once per eight. The caller subtracts 8 * sum (x + offset), shared by every row.
// A row that starts at an odd nibble reads its words shifted by four bits (one more byte).

#include <stddef.h>
#include <stdint.h>

#include "dsp/intrinsics.h"
#include "wide_16x8.h"

namespace mote {
namespace kernels {
namespace dsp {
namespace wide {

// a + b modulo 2^32 (the sums of the int32 forms wrap as the instructions do).
inline int32_t add_wrap(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// s[r] += sum_{i < n} x[i] * w[r * stride + i], modulo 2^32.
template <int R>
inline void dot_16x8(const int16_t* x, int32_t n, const int8_t* w, ptrdiff_t stride, int32_t* s) {
  int32_t a[R];
  for (int r = 0; r < R; ++r) a[r] = s[r];
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t x01 = load4(x + i), x23 = load4(x + i + 2);
    const uint32_t xe = pkhbt(x01, x23), xo = pkhtb(x23, x01);  // (x0, x2), (x1, x3)
    for (int r = 0; r < R; ++r) {
      const uint32_t v = load4(w + r * stride + i);
      a[r] = smlad(xe, sxtb16(v), smlad(xo, sxtb16_ror8(v), a[r]));
    }
  }
  for (; i < n; ++i) {
    for (int r = 0; r < R; ++r) a[r] = add_wrap(a[r], x[i] * w[r * stride + i]);
  }
  for (int r = 0; r < R; ++r) s[r] = a[r];
}

inline constexpr int32_t kChunk16x8 = 256;

// The same summed exactly into int64.
template <int R>
inline void dot_16x8(const int16_t* x, int32_t n, const int8_t* w, ptrdiff_t stride, int64_t* s) {
  for (int32_t at = 0; at < n; at += kChunk16x8) {
    int32_t a[R] = {};
    dot_16x8<R>(x + at, n - at < kChunk16x8 ? n - at : kChunk16x8, w + at, stride, a);
    for (int r = 0; r < R; ++r) s[r] += a[r];
  }
}

// The dot products above as wide_16x8.h's Dot, and its four outputs of int32 sums (one by one:
// quantization.h's rounding high multiply is one SMLAL).
struct Dot16x8 {
  template <int R, typename Acc>
  static void rows(const int16_t* x, int32_t n, const int8_t* w, ptrdiff_t stride, Acc* a) {
    dot_16x8<R>(x, n, w, stride, a);
  }
  static void high_mul4(const int32_t* a, const int64_t* bias, const int32_t* multiplier,
                        const int32_t* shift, int32_t act_min, int32_t act_max, int16_t* out) {
    for (int r = 0; r < 4; ++r) {
      out[r] = wide_16x8::finish_high_mul(a[r], bias, r, multiplier[r], shift[r], act_min, act_max);
    }
  }
};

// Eight packed int4 values from nibble `pos` (nibble k of the word is element pos + k), for a
// position of parity kOdd. Reads only bytes that hold one of the eight.
template <bool kOdd>
inline uint32_t nibbles8(const uint8_t* packed, size_t pos) {
  const uint8_t* p = packed + (pos >> 1);
  if (!kOdd) return load4(p);
  return (load4(p) >> 4) | (static_cast<uint32_t>(p[4]) << 28);
}

// Element `pos` of a packed int4 tensor plus 8, in [0, 15].
inline int32_t nibble_u(const uint8_t* packed, size_t pos) {
  const uint32_t byte = packed[pos >> 1];
  return static_cast<int32_t>(((pos & 1) != 0 ? byte >> 4 : byte & 15u) ^ 8u);
}

// s[r] += sum_{i < n} (x[i] + offset) * (w[pos + r * stride + i] + 8), modulo 2^32, w the packed
// int4 elements. Row r starts at an odd nibble when kOdd0 != (kAlternate and r is odd).
template <int R, bool kOdd0, bool kAlternate>
inline void dot_int4_rows(const int8_t* x, int32_t n, const uint8_t* packed, size_t pos,
                          size_t stride, uint32_t offset2, int32_t offset, int32_t* s) {
  constexpr uint32_t kLanes = 0x000f000fu;
  int32_t a[R];
  for (int r = 0; r < R; ++r) a[r] = s[r];
  int32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint32_t lo = load4(x + i), hi = load4(x + i + 4);
    const uint32_t x02 = sxtab16(offset2, lo), x13 = sxtab16_ror8(offset2, lo);
    const uint32_t x46 = sxtab16(offset2, hi), x57 = sxtab16_ror8(offset2, hi);
    const uint32_t x04 = pkhbt_in_c(x02, x46), x26 = pkhtb_in_c(x46, x02);
    const uint32_t x15 = pkhbt_in_c(x13, x57), x37 = pkhtb_in_c(x57, x13);
    for (int r = 0; r < R; ++r) {
      const bool odd = kOdd0 != (kAlternate && (r & 1) != 0);
      const size_t at = pos + static_cast<size_t>(r) * stride + static_cast<size_t>(i);
      const uint32_t v =
          (odd ? nibbles8<true>(packed, at) : nibbles8<false>(packed, at)) ^ 0x88888888u;
      int32_t t = smlad(x04, v & kLanes, a[r]);
      t = smlad(x15, (v >> 4) & kLanes, t);
      t = smlad(x26, (v >> 8) & kLanes, t);
      a[r] = smlad(x37, (v >> 12) & kLanes, t);
    }
  }
  for (; i < n; ++i) {
    const int32_t xi = x[i] + offset;
    for (int r = 0; r < R; ++r) {
      a[r] = add_wrap(a[r], xi * nibble_u(packed, pos + static_cast<size_t>(r) * stride +
                                                      static_cast<size_t>(i)));
    }
  }
  for (int r = 0; r < R; ++r) s[r] = a[r];
}

// dot_int4_rows for rows starting at pos, pos + stride, ...: the parities picked once.
template <int R>
inline void dot_int4(const int8_t* x, int32_t n, const uint8_t* packed, size_t pos, size_t stride,
                     uint32_t offset2, int32_t offset, int32_t* s) {
  const bool odd = (pos & 1) != 0, alternate = R > 1 && (stride & 1) != 0;
  if (odd) {
    if (alternate) {
      dot_int4_rows<R, true, true>(x, n, packed, pos, stride, offset2, offset, s);
    } else {
      dot_int4_rows<R, true, false>(x, n, packed, pos, stride, offset2, offset, s);
    }
  } else if (alternate) {
    dot_int4_rows<R, false, true>(x, n, packed, pos, stride, offset2, offset, s);
  } else {
    dot_int4_rows<R, false, false>(x, n, packed, pos, stride, offset2, offset, s);
  }
}

// sum_{i < n} (x[i] + offset), modulo 2^32.
inline int32_t sum_with_offset(const int8_t* x, int32_t n, int32_t offset) {
  int32_t sum = 0;
  for (int32_t i = 0; i < n; ++i) sum = add_wrap(sum, x[i]);
  return add_wrap(sum,
                  static_cast<int32_t>(static_cast<uint32_t>(n) * static_cast<uint32_t>(offset)));
}

}  // namespace wide
}  // namespace dsp
}  // namespace kernels
}  // namespace mote
