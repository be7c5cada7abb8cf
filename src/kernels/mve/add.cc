// mve ADD without broadcasting: four elements per step in int32 lanes (VLDRB widening loads),
// TFLite's three MultiplyByQuantizedMultiplier steps as mve/requantize.h's vector step, whole
// steps unpredicated and the last one predicated (VCTP32). (x + offset) << left_shift is one
// VMLAS: x * 2^left + (offset << left).

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/broadcast.h"
#include "mve/kernels.h"
#include "mve/requantize.h"

namespace mote {
namespace kernels {
namespace mve {
namespace {

// kRightShifts: every shift < 0 (what prepare_add gives int8 inputs), so the scalar step without
// the left shift applies; otherwise the general one.
template <bool kRightShifts>
void add_elements(const AddParams& params, int32_t n, const int8_t* a, const int8_t* b,
                  int8_t* out) {
  const AddParams p = params;  // a local copy: output stores (int8) could alias params
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
  for (int32_t i = n >> 2; i > 0; --i, a += 4, b += 4, out += 4) {
    vstrbq_s32(out, step(vldrbq_s32(a), vldrbq_s32(b)));
  }
  if ((n & 3) != 0) {
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(n & 3));
    vstrbq_p_s32(out, step(vldrbq_z_s32(a, lanes), vldrbq_z_s32(b, lanes)), lanes);
  }
}

}  // namespace

void add(const AddParams& params, const BroadcastShape& shape, const int8_t* input1,
         const int8_t* input2, int8_t* output) {
  if (!add_handles(shape)) {
    portable_add(params, shape, input1, input2, output);
    return;
  }
  const int32_t n = static_cast<int32_t>(broadcast_output_size(shape));
  if (params.input1_shift < 0 && params.input2_shift < 0 && params.output_shift < 0) {
    add_elements<true>(params, n, input1, input2, output);
  } else {
    add_elements<false>(params, n, input1, input2, output);
  }
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
