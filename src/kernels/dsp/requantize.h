#pragma once
// The requantization step of the dsp kernels: TFLite's
// rounding_divide_by_pot(saturating_rounding_doubling_high_mul(acc, m), -shift) for shift < 0
// (nearly every channel of a real model), in one 64-bit multiply-accumulate and one shift:
//   out = (acc*m + 2^30 + 2^(30+r) - [acc < 0]*2^31) >> (31 + r),   r = -shift in [2, 31].
// Why it is exact: floor(floor(p / 2^31) + c) / 2^r) = floor((p + c*2^31) / 2^(31+r)) for an
// integer c, and TFLite's two roundings are c = 2^(r-1) - [high < 0] with high the doubling high
// product. For m >= 0, high < 0 and acc < 0 differ only where high = 0, where the -1 changes
// nothing for r >= 1. m = INT32_MIN (the one saturating case) is negative, so never reaches here.
// On Armv7E-M about 9 instructions instead of about 30. Channels with shift > -2 (rare: a real
// multiplier of 1/4 or more) take the portable formula. Kernels check m >= 0 for every channel
// before using this (the runtime's load check guarantees it) and otherwise run the portable kernel.
// Embeddable C++17, internal to src/kernels/dsp/.

#include <stdint.h>

#include "portable/conv_internal.h"

namespace mote {
namespace kernels {
namespace dsp {

inline int32_t requantize(int32_t acc, int32_t multiplier, int32_t shift) {
  if (__builtin_expect(shift > -2, 0)) return internal::requantize_fast(acc, multiplier, shift);
  const int32_t r = -shift;
  // 2^30 + 2^(30+r) as two words (high word 2^(r-2)), less 2^31 for a negative acc.
  const uint64_t k = (static_cast<uint64_t>(uint32_t{1} << (r - 2)) << 32) | (uint32_t{1} << 30);
  const int64_t p = static_cast<int64_t>(k) - static_cast<int64_t>(static_cast<uint32_t>(acc) & 0x80000000u) +
                    int64_t{acc} * multiplier;
  // p >> (31 + r) as the high word shifted by r - 1 (floor divisions compose).
  return static_cast<int32_t>(static_cast<uint64_t>(p) >> 32) >> (r - 1);
}

// Output quantization of one operator, as portable's internal::Requantizer, with the dsp step.
struct Requantizer {
  const int32_t* multiplier;
  const int32_t* shift;
  int32_t output_offset;
  int32_t act_min;  // already within [-128, 127]
  int32_t act_max;

  int8_t operator()(int32_t acc, int32_t channel) const {
    int32_t v = requantize(acc, multiplier[channel], shift[channel]) + output_offset;
    v = v < act_min ? act_min : v;
    v = v > act_max ? act_max : v;
    return static_cast<int8_t>(v);
  }
};

inline Requantizer make_requantizer(const int32_t* multiplier, const int32_t* shift,
                                    int32_t output_offset, int32_t act_min, int32_t act_max) {
  return Requantizer{multiplier, shift, output_offset, act_min < -128 ? -128 : act_min,
                     act_max > 127 ? 127 : act_max};
}

// Whether every one of `count` multipliers is >= 0, the condition of requantize().
inline bool multipliers_non_negative(const int32_t* multiplier, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    if (multiplier[i] < 0) return false;
  }
  return true;
}

// The same without a branch per channel: their sign bits ORed together four at a time, one test
// at the end. For the row kernels, which a row-streamed stage calls on every few rows: the loop
// above costs about seven instructions a channel on each call, this one under three. (The
// whole-tensor kernels keep that loop: in their functions this one changes how gcc allocates
// the registers of their pixel loops, and costs more than it saves.)
inline bool multipliers_non_negative_by_signs(const int32_t* multiplier, int32_t count) {
  uint32_t signs = 0;
  int32_t i = 0;
  for (; i + 4 <= count; i += 4) {
    signs |= static_cast<uint32_t>(multiplier[i]) | static_cast<uint32_t>(multiplier[i + 1]) |
             static_cast<uint32_t>(multiplier[i + 2]) | static_cast<uint32_t>(multiplier[i + 3]);
  }
  for (; i < count; ++i) signs |= static_cast<uint32_t>(multiplier[i]);
  return (signs >> 31) == 0;
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
