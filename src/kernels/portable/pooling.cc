#include "mote/kernels/pooling.h"

#include "pool_internal.h"

namespace mote {
namespace kernels {
namespace {

using internal::average_of;
using internal::fill_empty_average;
using internal::for_each_window;
using internal::max32;
using internal::min32;

// TFLite's ComputeOutSize and ComputePaddingWithOffset (dilation 1).
void pool_geometry(int32_t in, int32_t filter, int32_t stride, bool same, int32_t* out,
                   int32_t* pad) {
  *out = same ? (in + stride - 1) / stride : (in + stride - filter) / stride;
  const int32_t total = (*out - 1) * stride + filter - in;
  *pad = total > 0 ? total / 2 : 0;
}

}  // namespace

PoolParams prepare_pool(int32_t batches, int32_t input_h, int32_t input_w, int32_t channels,
                        int32_t filter_h, int32_t filter_w, int32_t stride_h, int32_t stride_w,
                        bool same_padding, int32_t act_min, int32_t act_max) {
  PoolParams p{};
  p.batches = batches;
  p.input_h = input_h;
  p.input_w = input_w;
  p.channels = channels;
  p.filter_h = filter_h;
  p.filter_w = filter_w;
  p.stride_h = stride_h;
  p.stride_w = stride_w;
  pool_geometry(input_h, filter_h, stride_h, same_padding, &p.output_h, &p.pad_h);
  pool_geometry(input_w, filter_w, stride_w, same_padding, &p.output_w, &p.pad_w);
  p.act_min = act_min;
  p.act_max = act_max;
  return p;
}

void portable_average_pool(const PoolParams& p, const int8_t* input, int8_t* output,
                           Scratch scratch) {
  (void)scratch;
  const int32_t row = p.input_w * p.channels;
  const int32_t image = p.input_h * row;
  for_each_window(p, output, [&](int32_t b, int32_t fy0, int32_t fy1, int32_t fx0, int32_t fx1,
                                 int32_t in_y0, int32_t in_x0, int8_t* out) {
    const int32_t count = (fy1 - fy0) * (fx1 - fx0);
    const int8_t* base = input + b * image + (in_y0 + fy0) * row + (in_x0 + fx0) * p.channels;
    for (int32_t c = 0; c < p.channels; ++c) {
      int32_t sum = 0;
      const int8_t* src_row = base + c;
      for (int32_t fy = fy0; fy < fy1; ++fy, src_row += row) {
        const int8_t* src = src_row;
        for (int32_t fx = fx0; fx < fx1; ++fx, src += p.channels) sum += *src;
      }
      out[c] = average_of(sum, count, p);
    }
  }, [&](int8_t* out) { fill_empty_average(p, out); });
}

void portable_max_pool(const PoolParams& p, const int8_t* input, int8_t* output) {
  const int32_t row = p.input_w * p.channels;
  const int32_t image = p.input_h * row;
  for_each_window(p, output, [&](int32_t b, int32_t fy0, int32_t fy1, int32_t fx0, int32_t fx1,
                                 int32_t in_y0, int32_t in_x0, int8_t* out) {
    const int8_t* base = input + b * image + (in_y0 + fy0) * row + (in_x0 + fx0) * p.channels;
    for (int32_t c = 0; c < p.channels; ++c) {
      int32_t best = -128;
      const int8_t* src_row = base + c;
      for (int32_t fy = fy0; fy < fy1; ++fy, src_row += row) {
        const int8_t* src = src_row;
        for (int32_t fx = fx0; fx < fx1; ++fx, src += p.channels) best = max32(best, *src);
      }
      best = max32(best, p.act_min);
      best = min32(best, p.act_max);
      out[c] = static_cast<int8_t>(best);
    }
  }, [&](int8_t* out) {
    const int8_t value = static_cast<int8_t>(min32(max32(-128, p.act_min), p.act_max));
    for (int32_t c = 0; c < p.channels; ++c) out[c] = value;
  });
}

}  // namespace kernels
}  // namespace mote
