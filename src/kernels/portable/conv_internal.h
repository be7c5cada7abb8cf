#pragma once
// Inner loops shared by the convolution-family kernels (conv, depthwise, fully connected,
// transpose conv). Embeddable C++17, header only, internal to src/kernels/portable.
//
// The dot products compute sum((x + offset) * w) with the offset added to the int8 input in
// 16 bits. Written this way gcc vectorises the products as 16x16->32 multiply-accumulates
// (pmaddwd on x86), about half the instructions of int8*int8 products, which it knows fit in 16
// bits and widens afterwards; and the offset needs no precomputed filter sums.

#include <stdint.h>

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace internal {

// multiply_by_quantized_multiplier(acc, multiplier, shift), bit for bit, in fewer instructions:
// - SaturatingRoundingDoublingHighMul(x, m) is (x*m + 2^30) >> 31 (the arithmetic shift rounds the
//   way TFLite's nudge-then-truncate does); it only overflows for INT32_MIN * INT32_MIN, where
//   TFLite saturates to INT32_MAX.
// - RoundingDivideByPOT(h, e), round half away from zero, is (h + 2^(e-1) - [h < 0]) >> e for e > 0
//   (h >> 63 is -1 exactly when h < 0).
// Valid for shift in [-31, 31], which is what TFLite produces.
inline int32_t requantize_fast(int32_t acc, int32_t multiplier, int32_t shift) {
  int32_t right = -shift;
  if (shift > 0) {  // real multipliers above 1 are rare
    acc = static_cast<int32_t>(static_cast<uint32_t>(acc) << shift);
    right = 0;
  }
  int64_t high = (static_cast<int64_t>(acc) * multiplier + (int64_t{1} << 30)) >> 31;
  high = high > INT32_MAX ? INT32_MAX : high;
  const int64_t mask = -static_cast<int64_t>(right > 0);  // no rounding term when not shifting
  return static_cast<int32_t>((high + ((int64_t{1} << right) >> 1) + ((high >> 63) & mask)) >> right);
}

// Output quantization of one operator: per-channel multiplier/shift, output zero point and the
// clamp range (already intersected with int8).
struct Requantizer {
  const int32_t* multiplier;
  const int32_t* shift;
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;

  int8_t operator()(int32_t acc, int32_t channel) const {
    int32_t v = requantize_fast(acc, multiplier[channel], shift[channel]);
    v += output_offset;
    v = v < act_min ? act_min : v;
    v = v > act_max ? act_max : v;
    return static_cast<int8_t>(v);
  }
};

inline Requantizer make_requantizer(const int32_t* multiplier, const int32_t* shift,
                                    int32_t output_offset, int32_t act_min, int32_t act_max) {
  if (act_min < -128) act_min = -128;
  if (act_max > 127) act_max = 127;
  return Requantizer{multiplier, shift, output_offset, act_min, act_max};
}

// x as the int16 value (x + offset); |x + offset| <= 255 for every int8 x and offset in [-255, 255].
template <bool kOffset, typename T>
inline int16_t widen(T x, int16_t offset) {
  return kOffset ? static_cast<int16_t>(x + offset) : static_cast<int16_t>(x);
}

// sum((x[i] + offset) * w[i]), i < n.
template <bool kOffset, typename T>
inline int32_t dot_1x1(const T* x, const int8_t* w, int32_t n, int16_t offset) {
  int32_t a = 0;
  for (int32_t i = 0; i < n; ++i) a += widen<kOffset>(x[i], offset) * w[i];
  return a;
}

// One input vector against two filter rows.
template <bool kOffset, typename T>
inline void dot_1x2(const T* x, const int8_t* w0, const int8_t* w1, int32_t n, int16_t offset,
                    int32_t* a0, int32_t* a1) {
  int32_t s0 = 0, s1 = 0;
  for (int32_t i = 0; i < n; ++i) {
    const int16_t v = widen<kOffset>(x[i], offset);
    s0 += v * w0[i];
    s1 += v * w1[i];
  }
  *a0 += s0;
  *a1 += s1;
}

// One input vector against four filter rows.
template <bool kOffset, typename T>
inline void dot_1x4(const T* x, const int8_t* w0, const int8_t* w1, const int8_t* w2,
                    const int8_t* w3, int32_t n, int16_t offset, int32_t* a) {
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int32_t i = 0; i < n; ++i) {
    const int16_t v = widen<kOffset>(x[i], offset);
    s0 += v * w0[i];
    s1 += v * w1[i];
    s2 += v * w2[i];
    s3 += v * w3[i];
  }
  a[0] += s0;
  a[1] += s1;
  a[2] += s2;
  a[3] += s3;
}

// Two input vectors against one filter row.
template <bool kOffset, typename T>
inline void dot_2x1(const T* x0, const T* x1, const int8_t* w, int32_t n, int16_t offset,
                    int32_t* a0, int32_t* a1) {
  int32_t s0 = 0, s1 = 0;
  for (int32_t i = 0; i < n; ++i) {
    const int16_t f = w[i];
    s0 += widen<kOffset>(x0[i], offset) * f;
    s1 += widen<kOffset>(x1[i], offset) * f;
  }
  *a0 += s0;
  *a1 += s1;
}

// Two input vectors against two filter rows: a[0] = x0.w0, a[1] = x0.w1, a[2] = x1.w0, a[3] = x1.w1.
template <bool kOffset, typename T>
inline void dot_2x2(const T* x0, const T* x1, const int8_t* w0, const int8_t* w1, int32_t n,
                    int16_t offset, int32_t* a) {
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int32_t i = 0; i < n; ++i) {
    const int16_t v0 = widen<kOffset>(x0[i], offset);
    const int16_t v1 = widen<kOffset>(x1[i], offset);
    const int16_t f0 = w0[i];
    const int16_t f1 = w1[i];
    s0 += v0 * f0;
    s1 += v0 * f1;
    s2 += v1 * f0;
    s3 += v1 * f1;
  }
  a[0] += s0;
  a[1] += s1;
  a[2] += s2;
  a[3] += s3;
}

inline int32_t bias_or_zero(const int32_t* bias, int32_t channel) {
  return bias != nullptr ? bias[channel] : 0;
}

// Whether a convolution's channels form whole groups: input_c a multiple of filter_c (the
// groups), output_c a multiple of the groups (every one when not grouped).
inline bool whole_groups(int32_t input_c, int32_t filter_c, int32_t output_c) {
  if (filter_c == input_c) return true;  // not grouped (the cheap test first)
  if (filter_c <= 0 || input_c < filter_c || input_c % filter_c != 0) return false;
  return output_c % (input_c / filter_c) == 0;
}

inline int32_t min_i32(int32_t a, int32_t b) { return a < b ? a : b; }
inline int32_t max_i32(int32_t a, int32_t b) { return a > b ? a : b; }

// First k in [0, count) with start + k * step >= 0, for step > 0.
inline int32_t first_inside(int32_t start, int32_t step, int32_t count) {
  if (start >= 0) return 0;
  return min_i32(count, (-start + step - 1) / step);
}

// One past the last k in [0, count) with start + k * step < limit, for step > 0.
inline int32_t end_inside(int32_t start, int32_t step, int32_t count, int32_t limit) {
  if (start >= limit) return 0;
  return min_i32(count, (limit - start + step - 1) / step);
}

}  // namespace internal
}  // namespace kernels
}  // namespace mote
