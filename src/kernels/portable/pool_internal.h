#pragma once
// The window walk, the average's rounding and the streamed pool's call check shared by the pooling
// kernels (portable, dsp, mve).
// Embeddable C++17, header only, internal to src/kernels.

#include <stdint.h>

#include "mote/kernels/pooling.h"

namespace mote {
namespace kernels {
namespace internal {

inline int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }

// Whether a streamed global average pool's accumulate call runs (portable and mve alike): a pool
// that streams, sums to add to, a range of input rows inside the input, an input ring holding it.
inline bool accumulate_call_ok(const PoolParams& p, const int32_t* sums, RowRing input_ring,
                               int32_t y_begin, int32_t y_end) {
  return global_average_pool_streams(p) && sums != nullptr && y_begin >= 0 && y_end <= p.input_h &&
         y_begin < y_end && (input_ring.rows <= 0 || y_end - y_begin <= input_ring.rows);
}
inline int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }

// Calls body(batch, filter_y_start, filter_y_end, filter_x_start, filter_x_end, in_y0, in_x0, out)
// for every output pixel whose window overlaps the input, empty(out) for the others; `out` points
// at the pixel's first channel.
template <typename Body, typename Empty>
inline void for_each_window(const PoolParams& p, int8_t* output, const Body& body, const Empty& empty) {
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const int32_t in_y0 = oy * p.stride_h - p.pad_h;
      const int32_t fy0 = max32(0, -in_y0);
      const int32_t fy1 = min32(p.filter_h, p.input_h - in_y0);
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const int32_t in_x0 = ox * p.stride_w - p.pad_w;
        const int32_t fx0 = max32(0, -in_x0);
        const int32_t fx1 = min32(p.filter_w, p.input_w - in_x0);
        if (fy1 > fy0 && fx1 > fx0) {
          body(b, fy0, fy1, fx0, fx1, in_y0, in_x0, output);
        } else {
          empty(output);
        }
        output += p.channels;
      }
    }
  }
}

// The mean of `count` elements summing to `sum`, rounded half away from zero, then clamped.
inline int8_t average_of(int32_t sum, int32_t count, const PoolParams& p) {
  int32_t avg = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
  avg = max32(avg, p.act_min);
  avg = min32(avg, p.act_max);
  return static_cast<int8_t>(avg);
}

// A window with no in-bounds element: clamp(0) in every channel.
inline void fill_empty_average(const PoolParams& p, int8_t* out) {
  const int8_t value = static_cast<int8_t>(min32(max32(0, p.act_min), p.act_max));
  for (int32_t c = 0; c < p.channels; ++c) out[c] = value;
}

}  // namespace internal
}  // namespace kernels
}  // namespace mote
