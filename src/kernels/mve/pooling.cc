// mve AVERAGE_POOL_2D for windows of at most 256 elements: eight channels at a time in int16 lanes
// (VLDRB widening loads, |sum| <= 128 * 256 fits), the last block predicated; the division, with
// portable's rounding and clamp (portable/pool_internal.h), per channel from the eight sums.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/kernels.h"
#include "portable/pool_internal.h"

namespace mote {
namespace kernels {
namespace mve {

void average_pool(const PoolParams& params, const int8_t* input, int8_t* output, Scratch scratch) {
  const PoolParams p = params;  // a local copy: output stores (int8) could alias params
  if (!average_pool_handles(p)) {
    portable_average_pool(params, input, output, scratch);
    return;
  }
  const int32_t row = p.input_w * p.channels;
  const int32_t image = p.input_h * row;
  internal::for_each_window(p, output, [&](int32_t b, int32_t fy0, int32_t fy1, int32_t fx0,
                                           int32_t fx1, int32_t in_y0, int32_t in_x0, int8_t* out) {
    const int32_t count = (fy1 - fy0) * (fx1 - fx0);
    const int8_t* base = input + static_cast<ptrdiff_t>(b) * image +
                         static_cast<ptrdiff_t>(in_y0 + fy0) * row + (in_x0 + fx0) * p.channels;
    const int32_t taps = fx1 - fx0;
    for (int32_t c = 0; c < p.channels; c += 8) {
      const mve_pred16_t lanes = vctp16q(static_cast<uint32_t>(p.channels - c));
      int16x8_t sum = vdupq_n_s16(0);
      const int8_t* src_row = base + c;
      for (int32_t fy = fy0; fy < fy1; ++fy, src_row += row) {
        const int8_t* src = src_row;
        for (int32_t t = 0; t < taps; ++t, src += p.channels) {
          sum = vaddq_s16(sum, vldrbq_z_s16(src, lanes));
        }
      }
      int16_t sums[8];
      vst1q_s16(sums, sum);
      const int32_t n = p.channels - c < 8 ? p.channels - c : 8;
      for (int32_t k = 0; k < n; ++k) out[c + k] = internal::average_of(sums[k], count, p);
    }
  }, [&](int8_t* out) { internal::fill_empty_average(p, out); });
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
