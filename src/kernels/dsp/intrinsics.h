#pragma once
// The DSP-extension instructions the dsp kernels use (Armv7E-M / Armv8-M Mainline), one seam:
// on an Arm core with __ARM_FEATURE_DSP they are the instructions themselves (arm_acle.h, inline
// assembly where gcc 12 has no intrinsic for the rotated form); on the host they are the portable
// emulation in intrinsics_emulated.h, bit-exact to the Arm ARM, so the same kernels run in the
// host tests. Embeddable C++17, internal to src/kernels/dsp/.

#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#elif defined(__arm__) || defined(__thumb__)
#error "the dsp kernels need an Arm core with the DSP extension (__ARM_FEATURE_DSP)"
#else
#include "dsp/intrinsics_emulated.h"
#endif

namespace mote {
namespace kernels {
namespace dsp {

#if defined(__ARM_FEATURE_DSP)

// Two int16 lanes: lo = sext(x[7:0]), hi = sext(x[23:16]).
inline uint32_t sxtb16(uint32_t x) { return __sxtb16(x); }
// The same of x rotated right by 8: bytes 1 and 3.
inline uint32_t sxtb16_ror8(uint32_t x) {
  uint32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
}
// Lane-wise a + sxtb16(x) (16-bit wrap): the input zero point added while widening.
inline uint32_t sxtab16(uint32_t a, uint32_t x) { return __sxtab16(a, x); }
inline uint32_t sxtab16_ror8(uint32_t a, uint32_t x) {
  uint32_t r;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(x));
  return r;
}
// acc + lo(x)*lo(y) + hi(x)*hi(y), modulo 2^32.
inline int32_t smlad(uint32_t x, uint32_t y, int32_t acc) { return __smlad(x, y, acc); }
// acc + lo(x)*lo(y) and acc + hi(x)*hi(y), modulo 2^32.
inline int32_t smlabb(uint32_t x, uint32_t y, int32_t acc) {
  return __smlabb(static_cast<int32_t>(x), static_cast<int32_t>(y), acc);
}
inline int32_t smlatt(uint32_t x, uint32_t y, int32_t acc) {
  return __smlatt(static_cast<int32_t>(x), static_cast<int32_t>(y), acc);
}
// acc + hi(x)*lo(y) and acc + lo(x)*hi(y), modulo 2^32.
inline int32_t smlatb(uint32_t x, uint32_t y, int32_t acc) {
  return __smlatb(static_cast<int32_t>(x), static_cast<int32_t>(y), acc);
}
inline int32_t smlabt(uint32_t x, uint32_t y, int32_t acc) {
  return __smlabt(static_cast<int32_t>(x), static_cast<int32_t>(y), acc);
}
// Lane-wise x - y of the int16 lanes (16-bit wrap).
inline uint32_t ssub16(uint32_t x, uint32_t y) {
  return static_cast<uint32_t>(__ssub16(static_cast<int16x2_t>(x), static_cast<int16x2_t>(y)));
}
// x saturated to a signed `bits`-bit range.
template <int bits>
inline int32_t ssat(int32_t x) {
  return __ssat(x, bits);
}

// Lane-wise maximum and minimum of four signed bytes: SSUB8 sets the GE flag of each byte where
// a >= b, SEL takes that byte from its first operand where the flag is set. One asm block, so
// nothing can set the flags in between.
inline uint32_t max_s8x4(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("ssub8 %0, %1, %2\n\tsel %0, %1, %2" : "=&r"(r) : "r"(a), "r"(b) : "cc");
  return r;
}
inline uint32_t min_s8x4(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("ssub8 %0, %1, %2\n\tsel %0, %2, %1" : "=&r"(r) : "r"(a), "r"(b) : "cc");
  return r;
}

#else

using emulated::max_s8x4;
using emulated::min_s8x4;
using emulated::smlabb;
using emulated::smlad;
using emulated::smlabt;
using emulated::smlatb;
using emulated::smlatt;
using emulated::ssub16;
using emulated::ssat;
using emulated::sxtab16;
using emulated::sxtab16_ror8;
using emulated::sxtb16;
using emulated::sxtb16_ror8;

#endif

// Four bytes at any alignment (Armv7E-M's LDR takes unaligned addresses; memcpy becomes one LDR).
inline uint32_t load4(const void* p) {
  uint32_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

inline void store4(void* p, uint32_t v) { memcpy(p, &v, sizeof(v)); }

// Four accumulators (of a register-blocked loop) back into a[0..3].
inline void store_sums(int32_t* a, int32_t s0, int32_t s1, int32_t s2, int32_t s3) {
  a[0] = s0;
  a[1] = s1;
  a[2] = s2;
  a[3] = s3;
}

// PKHBT and PKHTB by 16: pkhbt gives the int16 lanes (lo, hi) = (a.lo, b.lo), pkhtb
// (b.hi, a.hi). gcc 12 compiles neither C form to the instruction (it emits two and three), so on
// an Arm core they are inline assembly; the host runs the C.
#if defined(__ARM_FEATURE_DSP)
inline uint32_t pkhbt(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
inline uint32_t pkhtb(uint32_t a, uint32_t b) {
  uint32_t r;
  __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
#else
inline uint32_t pkhbt(uint32_t a, uint32_t b) { return (a & 0xffffu) | (b << 16); }
inline uint32_t pkhtb(uint32_t a, uint32_t b) { return (a & 0xffff0000u) | (b >> 16); }
#endif
// The same in C everywhere: where the results feed several SMLADs of unpacked int4 weights, gcc
// schedules the C forms better than the instructions (dsp int4 dot products: 6-14 % fewer
// instructions under QEMU), though each takes two or three.
inline uint32_t pkhbt_in_c(uint32_t a, uint32_t b) { return (a & 0xffffu) | (b << 16); }
inline uint32_t pkhtb_in_c(uint32_t a, uint32_t b) { return (a & 0xffff0000u) | (b >> 16); }

// The int16 lane pair (lo, hi) as one word, the inverse of lane_lo/lane_hi. In C: gcc folds it
// where its operands are known (the kernels' offsets, weights packed once), which pkhbt's
// assembly would stop.
inline uint32_t pack16(int32_t lo, int32_t hi) {
  return (static_cast<uint32_t>(lo) & 0xffffu) | (static_cast<uint32_t>(hi) << 16);
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
