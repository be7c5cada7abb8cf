// mve pooling. AVERAGE_POOL_2D for windows of at most 256 elements: eight channels at a time in
// int16 lanes (VLDRB widening loads, |sum| <= 128 * 256 fits), the last block predicated; the
// division, with portable's rounding and clamp (portable/pool_internal.h), per channel from the
// eight sums. MAX_POOL_2D: sixteen channels per VMAX.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/kernels.h"
#include "portable/pool_internal.h"

namespace mote {
namespace kernels {
namespace mve {

void average_pool(const PoolParams& params, const int8_t* input, int8_t* output, Scratch scratch) {
  if (!average_pool_no_fallback(params, input, output)) {
    portable_average_pool(params, input, output, scratch);
  }
}

bool average_pool_no_fallback(const PoolParams& params, const int8_t* input, int8_t* output) {
  const PoolParams p = params;  // a local copy: output stores (int8) could alias params
  if (!average_pool_handles(p)) return false;
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
  return true;
}

void max_pool(const PoolParams& params, const int8_t* input, int8_t* output) {
  const PoolParams p = params;  // a local copy: output stores (int8) could alias params
  // The clamp is done in int8 lanes: exact for a range inside int8 (what converters write).
  if (p.act_min < -128 || p.act_max > 127 || p.act_min > p.act_max) {
    portable_max_pool(params, input, output);
    return;
  }
  const int32_t row = p.input_w * p.channels;
  const int32_t image = p.input_h * row;
  const int8x16_t lo = vdupq_n_s8(static_cast<int8_t>(p.act_min));
  const int8x16_t hi = vdupq_n_s8(static_cast<int8_t>(p.act_max));
  internal::for_each_window(p, output, [&](int32_t b, int32_t fy0, int32_t fy1, int32_t fx0,
                                           int32_t fx1, int32_t in_y0, int32_t in_x0, int8_t* out) {
    const int8_t* base = input + static_cast<ptrdiff_t>(b) * image +
                         static_cast<ptrdiff_t>(in_y0 + fy0) * row + (in_x0 + fx0) * p.channels;
    const int32_t taps = fx1 - fx0;
    // Whole blocks of 16 unpredicated, the last predicated (lanes past it are not stored).
    for (int32_t c = 0; c < p.channels; c += 16) {
      const bool whole = c + 16 <= p.channels;
      const mve_pred16_t lanes = vctp8q(static_cast<uint32_t>(p.channels - c));
      int8x16_t best = vdupq_n_s8(-128);
      const int8_t* src_row = base + c;
      for (int32_t fy = fy0; fy < fy1; ++fy, src_row += row) {
        const int8_t* src = src_row;
        for (int32_t t = 0; t < taps; ++t, src += p.channels) {
          best = vmaxq_s8(best, whole ? vldrbq_s8(src) : vldrbq_z_s8(src, lanes));
        }
      }
      best = vminq_s8(vmaxq_s8(best, lo), hi);
      if (whole) {
        vstrbq_s8(out + c, best);
      } else {
        vstrbq_p_s8(out + c, best, lanes);
      }
    }
  }, [&](int8_t* out) {
    const int8_t value = static_cast<int8_t>(p.act_min > -128 ? p.act_min : -128);
    for (int32_t c = 0; c < p.channels; ++c) out[c] = value;
  });
}

namespace {
template <bool kTail>
struct Tail {
  static constexpr bool kValue = kTail;
};
}  // namespace

void global_average_pool_accumulate(const PoolParams& params, const int8_t* input,
                                    RowRing input_ring, int32_t y_begin, int32_t y_end,
                                    int32_t* sums) {
  const PoolParams p = params;  // a local copy: the sums (int32) could alias params
  if (!internal::accumulate_call_ok(p, sums, input_ring, y_begin, y_end)) return;
  const int32_t channels = p.channels;
  const int32_t width = p.input_w;
  const ptrdiff_t row_bytes = static_cast<ptrdiff_t>(width) * channels;
  // Row by row (a stage's calls add one row each), each block of four channels' sums loaded,
  // the row's pixels added, stored (integer adds: the same sums as portable's in any order).
  // Whole blocks load unpredicated (gcc 12 puts a VPST before every predicated load), the last
  // one predicated.
  for (int32_t y = y_begin; y < y_end; ++y) {
    const int8_t* row =
        input + static_cast<ptrdiff_t>(input_ring.slot(y)) * row_bytes;
    const auto block = [&](int32_t c, auto tail) {
      constexpr bool kTail = decltype(tail)::kValue;
      const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(channels - c));
      int32x4_t acc = vdupq_n_s32(0);
      if (y != 0) acc = kTail ? vldrwq_z_s32(sums + c, lanes) : vldrwq_s32(sums + c);
      const int8_t* src = row + c;
      for (int32_t x = 0; x < width; ++x, src += channels) {
        acc = vaddq_s32(acc, kTail ? vldrbq_z_s32(src, lanes) : vldrbq_s32(src));
      }
      if (kTail) {
        vstrwq_p_s32(sums + c, acc, lanes);
      } else {
        vstrwq_s32(sums + c, acc);
      }
    };
    int32_t c = 0;
    for (; c + 4 <= channels; c += 4) block(c, Tail<false>{});
    if (c < channels) block(c, Tail<true>{});
  }
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
