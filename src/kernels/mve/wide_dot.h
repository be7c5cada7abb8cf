#pragma once
// The dot products of the mve 16x8 and int4 kernels: one run of inputs against R filter rows at a
// time (R = 4 in the blocks, 1 for the last rows), each input vector loaded once for the R rows.
// Armv8.1-M MVE only; embeddable C++17, internal to src/kernels/mve/.
//
// 16x8: eight int16 inputs against eight int8 weights widened as they load (VLDRB.S16), into
// VMLALDAVA (int64 sums, exact) or VMLADAVA (int32 sums modulo 2^32, TFLite's int32 form); the
// depth tail predicated.
// int4: the weights stay packed. Sixteen at a time, in order (nibbles16: one widening load of
// eight bytes, VSHL and VSLI to put each nibble at the top of its own byte, VSHR.S8 by 4; a row
// starting at an odd nibble reads the eight bytes and the eight one byte on), against sixteen
// int8 inputs loaded once for the R rows; the depth tail predicated. (VLD2's deinterleaving, as
// CMSIS-NN uses, gcc 12 assembles with a post-increment it does not have.) The sums of the weights
// come from the same loop (VADDVA) for the input offset's term.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/requantize.h"

namespace mote {
namespace kernels {
namespace mve {
namespace wide {

inline int32_t add_wrap(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// s[r] += sum_{i < n} x[i] * w[r * stride + i]: int64 exactly, int32 modulo 2^32.
template <int R>
inline void dot_16x8(const int16_t* x, int32_t n, const int8_t* w, ptrdiff_t stride, int64_t* s) {
  int64_t a[R];
  for (int r = 0; r < R; ++r) a[r] = s[r];
  const int32_t full = n & ~7;
  for (int32_t i = 0; i < full; i += 8) {
    const int16x8_t xv = vldrhq_s16(x + i);
    for (int r = 0; r < R; ++r) a[r] = vmlaldavaq_s16(a[r], xv, vldrbq_s16(w + r * stride + i));
  }
  if (full < n) {
    const mve_pred16_t p = vctp16q(static_cast<uint32_t>(n - full));
    const int16x8_t xv = vldrhq_z_s16(x + full, p);
    for (int r = 0; r < R; ++r) {
      a[r] = vmlaldavaq_s16(a[r], xv, vldrbq_z_s16(w + r * stride + full, p));
    }
  }
  for (int r = 0; r < R; ++r) s[r] = a[r];
}

template <int R>
inline void dot_16x8(const int16_t* x, int32_t n, const int8_t* w, ptrdiff_t stride, int32_t* s) {
  int32_t a[R];
  for (int r = 0; r < R; ++r) a[r] = s[r];
  const int32_t full = n & ~7;
  for (int32_t i = 0; i < full; i += 8) {
    const int16x8_t xv = vldrhq_s16(x + i);
    for (int r = 0; r < R; ++r) a[r] = vmladavaq_s16(a[r], xv, vldrbq_s16(w + r * stride + i));
  }
  if (full < n) {
    const mve_pred16_t p = vctp16q(static_cast<uint32_t>(n - full));
    const int16x8_t xv = vldrhq_z_s16(x + full, p);
    for (int r = 0; r < R; ++r) {
      a[r] = vmladavaq_s16(a[r], xv, vldrbq_z_s16(w + r * stride + full, p));
    }
  }
  for (int r = 0; r < R; ++r) s[r] = a[r];
}

// The dot products above as wide_16x8.h's Dot, and its four outputs of int32 sums
// (mve/requantize.h's store_high_mul4).
struct Dot16x8 {
  template <int R, typename Acc>
  static void rows(const int16_t* x, int32_t n, const int8_t* w, ptrdiff_t stride, Acc* a) {
    dot_16x8<R>(x, n, w, stride, a);
  }
  static void high_mul4(const int32_t* a, const int64_t* bias, const int32_t* multiplier,
                        const int32_t* shift, int32_t act_min, int32_t act_max, int16_t* out) {
    store_high_mul4(vldrwq_s32(a), bias, multiplier, shift, act_min, act_max, vctp32q(4), out);
  }
};

// Sixteen int4 elements from nibble `pos` of a packed tensor as int8 lanes in order, for a
// position of parity kOdd: the eight bytes that hold them widened to 16-bit lanes, each lane's
// low byte given the even element in its top four bits and its high byte the odd one (VSLI), then
// an arithmetic shift of every byte by 4. `bytes` predicates the loads (the bytes that hold the
// elements wanted: lanes past them zero).
template <bool kOdd>
inline int8x16_t nibbles16(const uint8_t* packed, size_t pos, mve_pred16_t even_bytes,
                           mve_pred16_t odd_bytes) {
  const uint8_t* p = packed + (pos >> 1);
  uint16x8_t lanes;
  if (kOdd) {
    // Element pos + 2k is the high nibble of byte k, pos + 2k + 1 the low nibble of byte k + 1.
    lanes = vsliq_n_u16(vldrbq_z_u16(p, even_bytes), vldrbq_z_u16(p + 1, odd_bytes), 12);
  } else {
    const uint16x8_t b = vldrbq_z_u16(p, even_bytes);
    lanes = vsliq_n_u16(vshlq_n_u16(b, 4), b, 8);
  }
  return vshrq_n_s8(vreinterpretq_s8_u16(lanes), 4);
}

// nibbles16 of a whole block, unpredicated, from the byte that holds its first element.
template <bool kOdd>
inline int8x16_t nibbles16_at(const uint8_t* p) {
  uint16x8_t lanes;
  if (kOdd) {
    lanes = vsliq_n_u16(vldrbq_u16(p), vldrbq_u16(p + 1), 12);
  } else {
    const uint16x8_t b = vldrbq_u16(p);
    lanes = vsliq_n_u16(vshlq_n_u16(b, 4), b, 8);
  }
  return vshrq_n_s8(vreinterpretq_s8_u16(lanes), 4);
}

// a[r] += sum x[i] w_r[i] and ws[r] += sum w_r[i], w_r the int4 elements from nibble pos + r *
// stride; row r starts at an odd nibble when kOdd0 != (kAlternate and r is odd). Modulo 2^32.
template <int R, bool kOdd0, bool kAlternate>
inline void dot_int4_rows(const int8_t* x, int32_t n, const uint8_t* packed, size_t pos,
                          size_t stride, int32_t* s, int32_t* ws) {
  int32_t a[R], f[R];
  for (int r = 0; r < R; ++r) {
    a[r] = s[r];
    f[r] = ws[r];
  }
  // Each row's bytes from a pointer of its own, eight bytes on per block.
  const uint8_t* rows[R];
  for (int r = 0; r < R; ++r) rows[r] = packed + ((pos + static_cast<size_t>(r) * stride) >> 1);
  const int32_t full = n & ~15;
  for (int32_t i = 0; i < full; i += 16) {
    const int8x16_t xv = vldrbq_s8(x + i);
    for (int r = 0; r < R; ++r) {
      const int8x16_t w = kOdd0 != (kAlternate && (r & 1) != 0) ? nibbles16_at<true>(rows[r])
                                                                 : nibbles16_at<false>(rows[r]);
      rows[r] += 8;
      a[r] = vmladavaq_s8(a[r], xv, w);
      f[r] = vaddvaq_s8(f[r], w);
    }
  }
  if (full < n) {
    const uint32_t count = static_cast<uint32_t>(n - full);
    const mve_pred16_t p = vctp8q(count);
    // Even elements in bytes k < ceil(count / 2); an odd start's odd ones in count / 2 bytes.
    const mve_pred16_t even_bytes = vctp16q((count + 1) / 2), odd_bytes = vctp16q(count / 2);
    const int8x16_t xv = vldrbq_z_s8(x + full, p);
    for (int r = 0; r < R; ++r) {
      const size_t at = pos + static_cast<size_t>(r) * stride + static_cast<size_t>(full);
      const int8x16_t w = kOdd0 != (kAlternate && (r & 1) != 0)
                              ? nibbles16<true>(packed, at, even_bytes, odd_bytes)
                              : nibbles16<false>(packed, at, even_bytes, odd_bytes);
      // An even start's last byte may hold one element past the row: not counted.
      a[r] = vmladavaq_p_s8(a[r], xv, w, p);
      f[r] = vaddvaq_p_s8(f[r], w, p);
    }
  }
  for (int r = 0; r < R; ++r) {
    s[r] = a[r];
    ws[r] = f[r];
  }
}

template <int R>
inline void dot_int4(const int8_t* x, int32_t n, const uint8_t* packed, size_t pos, size_t stride,
                     int32_t* s, int32_t* ws) {
  if constexpr (R > 2) {
    // Two rows at a time: four rows' pointers and sums do not fit the core registers; the
    // inputs, loaded again, cost one load per sixteen.
    dot_int4<2>(x, n, packed, pos, stride, s, ws);
    dot_int4<R - 2>(x, n, packed, pos + 2 * stride, stride, s + 2, ws + 2);
    return;
  }
  const bool odd = (pos & 1) != 0, alternate = R > 1 && (stride & 1) != 0;
  if (odd) {
    if (alternate) {
      dot_int4_rows<R, true, true>(x, n, packed, pos, stride, s, ws);
    } else {
      dot_int4_rows<R, true, false>(x, n, packed, pos, stride, s, ws);
    }
  } else if (alternate) {
    dot_int4_rows<R, false, true>(x, n, packed, pos, stride, s, ws);
  } else {
    dot_int4_rows<R, false, false>(x, n, packed, pos, stride, s, ws);
  }
}

// sum_{i < n} x[i].
inline int32_t row_sum(const int8_t* x, int32_t n) {
  int32_t sum = 0;
  for (int32_t i = 0; i < n; i += 16) {
    sum = vaddvaq_s8(sum, vldrbq_z_s8(x + i, vctp8q(static_cast<uint32_t>(n - i))));
  }
  return sum;
}

}  // namespace wide
}  // namespace mve
}  // namespace kernels
}  // namespace mote
