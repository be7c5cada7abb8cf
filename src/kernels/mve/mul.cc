// mve MUL of same-shape inputs, or of one input against a per-channel or scalar operand
// (broadcast_rows.h: row by row, a scalar held): eight elements per step. The inputs are loaded
// widened to int16 lanes (VLDRB.S16) and centred there (|x + offset| <= 255); VMULLB/VMULLT form
// the int32 products of the even and odd lanes, each four requantized as mve/requantize.h's vector
// step (bit for bit TFLite's MultiplyByQuantizedMultiplier, as portable), offset and clamped;
// VMOVNB/VMOVNT put them back in lane order as int16 and one narrowing store (VSTRB.16) writes the
// eight bytes. The two truncations (int32 -> int16 -> int8) keep the low byte, as portable's cast
// does. The last step is predicated (VCTP16). Elements i..i+7 are read before they are written, so
// the output may be either input (in place) or start anywhere before them.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include <utility>

#include "broadcast_rows.h"
#include "mote/kernels/broadcast.h"
#include "mote/kernels/mul.h"
#include "mve/kernels.h"
#include "mve/requantize.h"

namespace mote {
namespace kernels {
namespace mve {
namespace {

// kLeft: the shift may be positive (requantize_n's general step); else the caller knows
// shift < 0. kScalar: b is one element, for every a.
template <bool kLeft, bool kScalar>
void mul_elements(const MulParams& p, int32_t n, const int8_t* a, const int8_t* b,
                  int8_t* out) {
  // Portable clamps to the activation range as given, then narrows (no intersection with int8).
  const OutputStage stage{p.output_offset, p.act_min, p.act_max};
  const int16_t o1 = static_cast<int16_t>(p.input1_offset);
  const int16_t o2 = static_cast<int16_t>(p.input2_offset);
  const auto step = [&](int16x8_t x1, int16x8_t x2) {
    x1 = vaddq_n_s16(x1, o1);
    x2 = vaddq_n_s16(x2, o2);
    const int32x4_t even = stage.apply_n<kLeft>(vmullbq_int_s16(x1, x2), p.output_multiplier,
                                                p.output_shift);
    const int32x4_t odd = stage.apply_n<kLeft>(vmulltq_int_s16(x1, x2), p.output_multiplier,
                                               p.output_shift);
    return vmovntq_s32(vmovnbq_s32(vuninitializedq_s16(), even), odd);
  };
  if (kScalar) {
    const int16x8_t v2 = vdupq_n_s16(*b);
    for (int32_t i = n >> 3; i > 0; --i, a += 8, out += 8) {
      vstrbq_s16(out, step(vldrbq_s16(a), v2));
    }
    if ((n & 7) != 0) {
      const mve_pred16_t lanes = vctp16q(static_cast<uint32_t>(n & 7));
      vstrbq_p_s16(out, step(vldrbq_z_s16(a, lanes), v2), lanes);
    }
    return;
  }
  for (int32_t i = n >> 3; i > 0; --i, a += 8, b += 8, out += 8) {
    vstrbq_s16(out, step(vldrbq_s16(a), vldrbq_s16(b)));
  }
  if ((n & 7) != 0) {
    const mve_pred16_t lanes = vctp16q(static_cast<uint32_t>(n & 7));
    vstrbq_p_s16(out, step(vldrbq_z_s16(a, lanes), vldrbq_z_s16(b, lanes)), lanes);
  }
}

// The rows of broadcast_rows: `full` row by row against the repeated run `run`.
template <bool kLeft>
void mul_rows(const MulParams& p, const BroadcastRows& r, const int8_t* full, const int8_t* run,
              int8_t* out) {
  for_each_row(r, full, run, out,
               [&](auto scalar, size_t n, const int8_t* a, const int8_t* b, int8_t* o) {
                 mul_elements<kLeft, decltype(scalar)::value>(p, static_cast<int32_t>(n), a, b, o);
               });
}

}  // namespace

void mul(const MulParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  // Offsets outside [-255, 255] would not stay in int16 lanes (a converter never gives them).
  if (!mul_handles(shape) || params.input1_offset < -255 || params.input1_offset > 255 ||
      params.input2_offset < -255 || params.input2_offset > 255) {
    portable_mul(params, shape, input1, input2, output);
    return;
  }
  const BroadcastRows r = broadcast_rows(shape);
  MulParams p = params;  // a local copy: output stores (int8) could alias params
  const int8_t* full = input1;
  const int8_t* run = input2;
  if (r.swapped) {
    // The product of the two centred inputs does not depend on their order.
    std::swap(p.input1_offset, p.input2_offset);
    std::swap(full, run);
  }
  if (p.output_shift < 0) {
    mul_rows<false>(p, r, full, run, output);
  } else {
    mul_rows<true>(p, r, full, run, output);
  }
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
