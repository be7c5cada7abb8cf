// mve ADD of same-shape inputs, or of one input against a per-channel or scalar operand
// (broadcast_rows.h: row by row, a scalar held): four elements per step in int32 lanes (VLDRB
// widening loads), TFLite's three MultiplyByQuantizedMultiplier steps as mve/requantize.h's vector
// step, whole steps unpredicated and the last one predicated (VCTP32). (x + offset) << left_shift
// is one VMLAS: x * 2^left + (offset << left). A scalar operand's scaled value is loop-invariant.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include <utility>

#include "broadcast_rows.h"
#include "mote/kernels/broadcast.h"
#include "mve/kernels.h"
#include "mve/requantize.h"

namespace mote {
namespace kernels {
namespace mve {
namespace {

// kRightShifts: every shift < 0 (what prepare_add gives int8 inputs), so the scalar step without
// the left shift applies; otherwise the general one. kScalar: b is one element, for every a.
template <bool kRightShifts, bool kScalar>
void add_elements(const AddParams& p, int32_t n, const int8_t* a, const int8_t* b,
                  int8_t* out) {
  const int32x4_t scale = vdupq_n_s32(int32_t{1} << p.left_shift);
  const int32_t base1 = p.input1_offset * (int32_t{1} << p.left_shift);
  const int32_t base2 = p.input2_offset * (int32_t{1} << p.left_shift);
  // Portable clamps to the activation range as given, then narrows (no intersection with int8).
  const OutputStage stage{p.output_offset, p.act_min, p.act_max};
  const auto step = [&](int32x4_t v1, int32x4_t v2) {
    const int32x4_t x1 = vmlasq_n_s32(v1, scale, base1);
    const int32x4_t x2 = vmlasq_n_s32(v2, scale, base2);
    const int32x4_t sum =
        vaddq_s32(requantize_n<!kRightShifts>(x1, p.input1_multiplier, p.input1_shift),
                  requantize_n<!kRightShifts>(x2, p.input2_multiplier, p.input2_shift));
    return stage.apply_n<!kRightShifts>(sum, p.output_multiplier, p.output_shift);
  };
  if (kScalar) {
    const int32x4_t v2 = vdupq_n_s32(*b);
    for (int32_t i = n >> 2; i > 0; --i, a += 4, out += 4) {
      vstrbq_s32(out, step(vldrbq_s32(a), v2));
    }
    if ((n & 3) != 0) {
      const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(n & 3));
      vstrbq_p_s32(out, step(vldrbq_z_s32(a, lanes), v2), lanes);
    }
    return;
  }
  for (int32_t i = n >> 2; i > 0; --i, a += 4, b += 4, out += 4) {
    vstrbq_s32(out, step(vldrbq_s32(a), vldrbq_s32(b)));
  }
  if ((n & 3) != 0) {
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(n & 3));
    vstrbq_p_s32(out, step(vldrbq_z_s32(a, lanes), vldrbq_z_s32(b, lanes)), lanes);
  }
}

// The rows of broadcast_rows: `full` row by row against the repeated run `run`.
template <bool kRightShifts>
void add_rows(const AddParams& p, const BroadcastRows& r, const int8_t* full, const int8_t* run,
              int8_t* out) {
  for_each_row(r, full, run, out,
               [&](auto scalar, size_t n, const int8_t* a, const int8_t* b, int8_t* o) {
                 add_elements<kRightShifts, decltype(scalar)::value>(p, static_cast<int32_t>(n),
                                                                     a, b, o);
               });
}

}  // namespace

void add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  if (!add_handles(shape)) {
    portable_add(params, shape, input1, input2, output);
    return;
  }
  const BroadcastRows r = broadcast_rows(shape);
  AddParams p = params;  // a local copy: output stores (int8) could alias params
  const int8_t* full = input1;
  const int8_t* run = input2;
  if (r.swapped) {
    // The sum of the two scaled inputs does not depend on their order.
    std::swap(p.input1_offset, p.input2_offset);
    std::swap(p.input1_multiplier, p.input2_multiplier);
    std::swap(p.input1_shift, p.input2_shift);
    std::swap(full, run);
  }
  if (p.input1_shift < 0 && p.input2_shift < 0 && p.output_shift < 0) {
    add_rows<true>(p, r, full, run, output);
  } else {
    add_rows<false>(p, r, full, run, output);
  }
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
