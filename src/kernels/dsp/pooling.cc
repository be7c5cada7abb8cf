// dsp AVERAGE_POOL_2D: four channels at a time, each input word added into the int16 lanes of
// two sums (SXTAB16, bytes 0/2 and 1/3), exact for windows of up to 256 elements (|sum| <= 32768).
// The rounding and clamp are portable's (portable/pool_internal.h). MAX_POOL_2D: four channels
// a word, the lane-wise maximum over the window, then the clamp lane-wise too.

#include <stddef.h>
#include <stdint.h>

#include "dsp/intrinsics.h"
#include "dsp/kernels.h"
#include "portable/pool_internal.h"

namespace mote {
namespace kernels {
namespace dsp {

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
  const int32_t c4 = p.channels & ~3;
  internal::for_each_window(p, output, [&](int32_t b, int32_t fy0, int32_t fy1, int32_t fx0,
                                           int32_t fx1, int32_t in_y0, int32_t in_x0, int8_t* out) {
    const int32_t count = (fy1 - fy0) * (fx1 - fx0);
    const int8_t* base = input + static_cast<ptrdiff_t>(b) * image +
                         static_cast<ptrdiff_t>(in_y0 + fy0) * row + (in_x0 + fx0) * p.channels;
    const int32_t taps = fx1 - fx0;
    int32_t c = 0;
    for (; c < c4; c += 4) {
      uint32_t even = 0, odd = 0;  // channels c, c + 2 and c + 1, c + 3
      const int8_t* src_row = base + c;
      for (int32_t fy = fy0; fy < fy1; ++fy, src_row += row) {
        const int8_t* src = src_row;
        for (int32_t t = 0; t < taps; ++t, src += p.channels) {
          const uint32_t v = load4(src);
          even = sxtab16(even, v);
          odd = sxtab16_ror8(odd, v);
        }
      }
      out[c] = internal::average_of(static_cast<int16_t>(even & 0xffffu), count, p);
      out[c + 1] = internal::average_of(static_cast<int16_t>(odd & 0xffffu), count, p);
      out[c + 2] = internal::average_of(static_cast<int16_t>(even >> 16), count, p);
      out[c + 3] = internal::average_of(static_cast<int16_t>(odd >> 16), count, p);
    }
    for (; c < p.channels; ++c) {
      int32_t sum = 0;
      const int8_t* src_row = base + c;
      for (int32_t fy = fy0; fy < fy1; ++fy, src_row += row) {
        for (int32_t t = 0; t < taps; ++t) sum += src_row[t * p.channels];
      }
      out[c] = internal::average_of(sum, count, p);
    }
  }, [&](int8_t* out) { internal::fill_empty_average(p, out); });
  return true;
}

void global_average_pool_accumulate(const PoolParams& params, const int8_t* input,
                                    RowRing input_ring, int32_t y_begin, int32_t y_end,
                                    int32_t* sums) {
  const PoolParams p = params;  // a local copy: the sums (int32) could alias params
  if (!internal::accumulate_call_ok(p, sums, input_ring, y_begin, y_end)) return;
  const int32_t channels = p.channels;
  const int32_t c4 = channels & ~3;
  const ptrdiff_t row_bytes = static_cast<ptrdiff_t>(p.input_w) * channels;
  if (y_begin == 0) {
    for (int32_t c = 0; c < channels; ++c) sums[c] = 0;
  }
  for (int32_t y = y_begin; y < y_end; ++y) {
    const int8_t* row =
        input + static_cast<ptrdiff_t>(input_ring.slot(y)) * row_bytes;
    // Up to 256 pixels' int8 values in an int16 lane (|sum| <= 32768), then into the int32 sums
    // (integer adds: portable's sums in another order).
    for (int32_t x0 = 0; x0 < p.input_w; x0 += 256) {
      const int32_t x1 = p.input_w - x0 > 256 ? x0 + 256 : p.input_w;
      const int8_t* first = row + static_cast<ptrdiff_t>(x0) * channels;
      int32_t c = 0;
      for (; c < c4; c += 4) {
        uint32_t even = 0, odd = 0;  // channels c, c + 2 and c + 1, c + 3
        const int8_t* src = first + c;
        for (int32_t x = x0; x < x1; ++x, src += channels) {
          const uint32_t v = load4(src);
          even = sxtab16(even, v);
          odd = sxtab16_ror8(odd, v);
        }
        sums[c] += static_cast<int16_t>(even & 0xffffu);
        sums[c + 1] += static_cast<int16_t>(odd & 0xffffu);
        sums[c + 2] += static_cast<int16_t>(even >> 16);
        sums[c + 3] += static_cast<int16_t>(odd >> 16);
      }
      for (; c < channels; ++c) {
        const int8_t* src = first + c;
        int32_t sum = 0;
        for (int32_t x = x0; x < x1; ++x, src += channels) sum += *src;
        sums[c] += sum;
      }
    }
  }
}

void max_pool(const PoolParams& params, const int8_t* input, int8_t* output) {
  const PoolParams p = params;  // a local copy: output stores (int8) could alias params
  const int32_t lo = p.act_min < -128 ? -128 : p.act_min;
  const int32_t hi = p.act_max > 127 ? 127 : p.act_max;
  const uint32_t lo4 = static_cast<uint8_t>(lo) * 0x01010101u;
  const uint32_t hi4 = static_cast<uint8_t>(hi) * 0x01010101u;
  const int32_t row = p.input_w * p.channels;
  const int32_t image = p.input_h * row;
  const int32_t c4 = p.channels & ~3;
  internal::for_each_window(p, output, [&](int32_t b, int32_t fy0, int32_t fy1, int32_t fx0,
                                           int32_t fx1, int32_t in_y0, int32_t in_x0, int8_t* out) {
    const int8_t* base = input + static_cast<ptrdiff_t>(b) * image +
                         static_cast<ptrdiff_t>(in_y0 + fy0) * row + (in_x0 + fx0) * p.channels;
    const int32_t taps = fx1 - fx0;
    int32_t c = 0;
    for (; c < c4; c += 4) {
      uint32_t best = 0x80808080u;  // -128 in every lane
      const int8_t* src_row = base + c;
      for (int32_t fy = fy0; fy < fy1; ++fy, src_row += row) {
        const int8_t* src = src_row;
        for (int32_t t = 0; t < taps; ++t, src += p.channels) best = max_s8x4(best, load4(src));
      }
      store4(out + c, min_s8x4(max_s8x4(best, lo4), hi4));
    }
    for (; c < p.channels; ++c) {
      int32_t best = -128;
      const int8_t* src_row = base + c;
      for (int32_t fy = fy0; fy < fy1; ++fy, src_row += row) {
        for (int32_t t = 0; t < taps; ++t) {
          const int32_t v = src_row[t * p.channels];
          best = v > best ? v : best;
        }
      }
      best = best < lo ? lo : best;
      out[c] = static_cast<int8_t>(best > hi ? hi : best);
    }
  }, [&](int8_t* out) {
    const int32_t value = -128 < lo ? lo : -128;
    for (int32_t c = 0; c < p.channels; ++c) out[c] = static_cast<int8_t>(value > hi ? hi : value);
  });
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
