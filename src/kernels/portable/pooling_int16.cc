// AVERAGE_POOL_2D and MAX_POOL_2D on int16 tensors (16x8 models), TFLite's reference int16 pools.

#include "mote/kernels/pooling.h"
#include "portable/pool_internal.h"

namespace mote {
namespace kernels {
namespace {

using internal::max32;
using internal::min32;

// Calls reduce(window's first element, rows, columns) for every output pixel and channel, with
// the window cut to the input; writes clamp(result).
template <typename Reduce>
void pool16(const PoolParams& params, const int16_t* input, int16_t* output, Reduce reduce) {
  const PoolParams p = params;  // a local copy: output stores could alias params
  if (p.stride_h <= 0 || p.stride_w <= 0 || p.channels <= 0) return;
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const int32_t y0 = max32(0, oy * p.stride_h - p.pad_h);
      const int32_t y1 = min32(p.input_h, oy * p.stride_h - p.pad_h + p.filter_h);
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const int32_t x0 = max32(0, ox * p.stride_w - p.pad_w);
        const int32_t x1 = min32(p.input_w, ox * p.stride_w - p.pad_w + p.filter_w);
        for (int32_t c = 0; c < p.channels; ++c) {
          const int16_t* first =
              input + ((static_cast<size_t>(b) * p.input_h + y0) * p.input_w + x0) * p.channels + c;
          const int32_t v = reduce(first, max32(0, y1 - y0), max32(0, x1 - x0));
          *output++ = static_cast<int16_t>(min32(max32(v, p.act_min), p.act_max));
        }
      }
    }
  }
}

}  // namespace

void average_pool(const PoolParams& params, const int16_t* input, int16_t* output) {
  const size_t row_step = static_cast<size_t>(params.input_w) * params.channels;
  const size_t step = static_cast<size_t>(params.channels);
  pool16(params, input, output, [&](const int16_t* first, int32_t rows, int32_t cols) {
    const int32_t count = rows * cols;
    if (count == 0) return int32_t{0};
    int32_t sum = 0;
    for (int32_t y = 0; y < rows; ++y) {
      for (int32_t x = 0; x < cols; ++x) sum += first[y * row_step + x * step];
    }
    return sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
  });
}

void max_pool(const PoolParams& params, const int16_t* input, int16_t* output) {
  const size_t row_step = static_cast<size_t>(params.input_w) * params.channels;
  const size_t step = static_cast<size_t>(params.channels);
  pool16(params, input, output, [&](const int16_t* first, int32_t rows, int32_t cols) {
    int32_t best = -32768;
    for (int32_t y = 0; y < rows; ++y) {
      for (int32_t x = 0; x < cols; ++x) best = max32(best, first[y * row_step + x * step]);
    }
    return best;
  });
}

}  // namespace kernels
}  // namespace mote
