#pragma once
// Portable definitions of the DSP instructions in intrinsics.h, bit-exact to the Arm Architecture
// Reference Manual (Armv7-M, A7.7: SXTB16, SXTAB16, SMLAD, SMLAxy, SSUB16, SSAT), for the host
// build of the dsp kernels and their tests. intrinsics.h includes it only where there is no DSP
// extension; an Arm build never compiles it. The Q flag (set by SMLAD/SMLAxy/SSAT on overflow) is
// not modelled: no kernel reads it.

#include <stdint.h>

namespace mote {
namespace kernels {
namespace dsp {
namespace emulated {

inline int32_t lane_lo(uint32_t x) { return static_cast<int16_t>(x & 0xffffu); }
inline int32_t lane_hi(uint32_t x) { return static_cast<int16_t>(x >> 16); }
inline int32_t byte_at(uint32_t x, int i) { return static_cast<int8_t>((x >> (8 * i)) & 0xffu); }
inline uint32_t lanes(int32_t lo, int32_t hi) {
  return (static_cast<uint32_t>(lo) & 0xffffu) | ((static_cast<uint32_t>(hi) & 0xffffu) << 16);
}
inline uint32_t ror8(uint32_t x) { return (x >> 8) | (x << 24); }
// The low 32 bits of a wider signed sum, as the instructions write it.
inline int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

inline uint32_t sxtb16(uint32_t x) { return lanes(byte_at(x, 0), byte_at(x, 2)); }
inline uint32_t sxtb16_ror8(uint32_t x) { return sxtb16(ror8(x)); }
inline uint32_t sxtab16(uint32_t a, uint32_t x) {
  return lanes(lane_lo(a) + byte_at(x, 0), lane_hi(a) + byte_at(x, 2));
}
inline uint32_t sxtab16_ror8(uint32_t a, uint32_t x) { return sxtab16(a, ror8(x)); }
inline int32_t smlad(uint32_t x, uint32_t y, int32_t acc) {
  return wrap32(int64_t{lane_lo(x)} * lane_lo(y) + int64_t{lane_hi(x)} * lane_hi(y) + acc);
}
inline int32_t smlabb(uint32_t x, uint32_t y, int32_t acc) {
  return wrap32(int64_t{lane_lo(x)} * lane_lo(y) + acc);
}
inline int32_t smlatt(uint32_t x, uint32_t y, int32_t acc) {
  return wrap32(int64_t{lane_hi(x)} * lane_hi(y) + acc);
}
inline int32_t smlatb(uint32_t x, uint32_t y, int32_t acc) {
  return wrap32(int64_t{lane_hi(x)} * lane_lo(y) + acc);
}
inline int32_t smlabt(uint32_t x, uint32_t y, int32_t acc) {
  return wrap32(int64_t{lane_lo(x)} * lane_hi(y) + acc);
}
inline uint32_t ssub16(uint32_t x, uint32_t y) {
  return lanes(lane_lo(x) - lane_lo(y), lane_hi(x) - lane_hi(y));
}
template <int bits>
inline int32_t ssat(int32_t x) {
  static_assert(bits >= 1 && bits <= 32, "SSAT saturates to 1..32 bits");
  const int64_t hi = (int64_t{1} << (bits - 1)) - 1;
  const int64_t lo = -(int64_t{1} << (bits - 1));
  return static_cast<int32_t>(x > hi ? hi : (x < lo ? lo : x));
}

// SSUB8 then SEL: the GE flag of byte i is set where a_i - b_i >= 0 (signed), and SEL takes
// byte i of its first operand where it is set, of its second otherwise.
inline uint32_t ssub8_sel(uint32_t a, uint32_t b, uint32_t first, uint32_t second) {
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const bool ge = byte_at(a, i) - byte_at(b, i) >= 0;
    r |= ((ge ? first : second) >> (8 * i) & 0xffu) << (8 * i);
  }
  return r;
}
inline uint32_t max_s8x4(uint32_t a, uint32_t b) { return ssub8_sel(a, b, a, b); }
inline uint32_t min_s8x4(uint32_t a, uint32_t b) { return ssub8_sel(a, b, b, a); }

}  // namespace emulated
}  // namespace dsp
}  // namespace kernels
}  // namespace mote
