#pragma once
// The requantization step of the mve kernels on four int32 lanes: TFLite's
// MultiplyByQuantizedMultiplier with per-lane multiplier and shift, bit for bit what portable's
// internal::requantize_fast computes (portable/conv_internal.h) for every input:
//   x = acc << max(shift, 0)                       VSHL: wraps like portable's uint32 shift;
//   h = (x*m + 2^30) >> 31, saturated               VQRDMULH is exactly this, saturating only
//                                                    INT32_MIN * INT32_MIN, as portable;
//   (h + 2^(e-1) - [h < 0]) >> e, e = -min(shift, 0)  VRSHL by -e rounds half up (exact, in
//                                                    wider precision); the -1 for a negative h
//                                                    comes from the sign of h & (-e), which is
//                                                    set only when e > 0 and h < 0. h is never
//                                                    INT32_MIN (|x*m| < 2^62 otherwise), so the
//                                                    saturating add never saturates.
// Then + output offset, clamp, and the caller narrows to int8. Armv8.1-M MVE only (the kernels
// of src/kernels/mve/); embeddable C++17.

#include <arm_mve.h>
#include <stdint.h>

namespace mote {
namespace kernels {
namespace mve {

// Shift split into the left amount (>= 0) and the signed right amount (<= 0), per lane.
struct Shifts {
  int32x4_t left;
  int32x4_t right;
};

inline Shifts split_shifts(int32x4_t shift) {
  const int32x4_t zero = vdupq_n_s32(0);
  return Shifts{vmaxq_s32(shift, zero), vminq_s32(shift, zero)};
}

inline int32x4_t requantize(int32x4_t acc, int32x4_t multiplier, Shifts s) {
  const int32x4_t x = vshlq_s32(acc, s.left);
  int32x4_t h = vqrdmulhq_s32(x, multiplier);
  const int32x4_t fixup = vshrq_n_s32(vandq_s32(h, s.right), 31);
  h = vqaddq_s32(h, fixup);
  return vrshlq_s32(h, s.right);
}

// The same step with one multiplier and shift for all four lanes, in scalar registers (no vector
// constants: VSHL, VQRDMULH and VRSHL by a general register). kLeft: whether the shift may be
// positive (false: the caller knows shift < 0). The -1 for a negative h is (h >> 31) times
// [shift < 0], the same as requantize()'s h & (-e).
template <bool kLeft = true>
inline int32x4_t requantize_n(int32x4_t acc, int32_t multiplier, int32_t shift) {
  if (!kLeft) {
    const int32x4_t h = vqrdmulhq_n_s32(acc, multiplier);
    return vrshlq_n_s32(vaddq_s32(h, vshrq_n_s32(h, 31)), shift);
  }
  const int32_t right = shift > 0 ? 0 : shift;
  acc = vshlq_r_s32(acc, shift > 0 ? shift : 0);
  int32x4_t h = vqrdmulhq_n_s32(acc, multiplier);
  h = vaddq_s32(h, vmulq_n_s32(vshrq_n_s32(h, 31), right < 0 ? 1 : 0));
  return vrshlq_n_s32(h, right);
}

// Output quantization of one operator, as portable's internal::Requantizer.
struct OutputStage {
  int32_t output_offset;
  int32_t act_min;  // already within [-128, 127]
  int32_t act_max;

  int32x4_t apply(int32x4_t acc, int32x4_t multiplier, Shifts s) const {
    int32x4_t v = vaddq_n_s32(requantize(acc, multiplier, s), output_offset);
    v = vmaxq_s32(v, vdupq_n_s32(act_min));
    return vminq_s32(v, vdupq_n_s32(act_max));
  }
  template <bool kLeft = true>
  int32x4_t apply_n(int32x4_t acc, int32_t multiplier, int32_t shift) const {
    int32x4_t v = vaddq_n_s32(requantize_n<kLeft>(acc, multiplier, shift), output_offset);
    v = vmaxq_s32(v, vdupq_n_s32(act_min));
    return vminq_s32(v, vdupq_n_s32(act_max));
  }
};

inline OutputStage make_output_stage(int32_t output_offset, int32_t act_min, int32_t act_max) {
  return OutputStage{output_offset, act_min < -128 ? -128 : act_min, act_max > 127 ? 127 : act_max};
}

// Four int16 outputs of a 16x8 layer whose int64 sums fit int32 (wide_16x8.h's sums_fit_int32),
// lanes below p: the biases' low words added (bias may be null), quantization.h's
// rounding_high_mul by VRMULH with each channel's high_mul_multiplier_64, clamped, stored.
inline void store_high_mul4(int32x4_t acc, const int64_t* bias, const int32_t* multiplier,
                            const int32_t* shift, int32_t act_min, int32_t act_max,
                            mve_pred16_t p, int16_t* out) {
  const uint32x4_t rounded =
      vshrq_n_u32(vreinterpretq_u32_s32(vaddq_n_s32(vldrwq_z_s32(multiplier, p), 1 << 15)), 16);
  const int32x4_t reduced = vminq_s32(vreinterpretq_s32_u32(rounded), vdupq_n_s32(0x7FFF));
  const int32x4_t m = vshlq_s32(reduced, vaddq_n_s32(vldrwq_z_s32(shift, p), 17));
  if (bias != nullptr) {
    const int32_t* words = reinterpret_cast<const int32_t*>(bias);
    acc = vaddq_s32(acc, vldrwq_gather_shifted_offset_z_s32(words, vidupq_n_u32(0, 2), p));
  }
  int32x4_t v = vrmulhq_s32(acc, m);
  v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(act_min)), vdupq_n_s32(act_max));
  vstrhq_p_s32(out, v, p);
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
