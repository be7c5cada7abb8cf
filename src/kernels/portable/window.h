#pragma once
// The input window of each output pixel of the convolution-family kernels (conv, depthwise;
// portable and dsp): where the window starts in the input and which filter taps fall inside it.
// ConvShape and DepthwiseShape name these fields alike. Embeddable C++17, header only, internal
// to src/kernels.

#include <stddef.h>
#include <stdint.h>

#include "conv_internal.h"
#include "mote/kernels/conv.h"
#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {
namespace internal {

struct PixelWindow {
  int32_t iy0, ix0;          // input position of tap (0, 0); negative inside the padding
  int32_t ky_begin, ky_end;  // filter rows whose input row is inside the input
  int32_t kx_begin, kx_end;  // filter columns likewise
};

template <typename Shape>
inline void window_rows(const Shape& s, int32_t y, PixelWindow& w) {
  w.iy0 = y * s.stride_h - s.pad_h;
  w.ky_begin = first_inside(w.iy0, s.dilation_h, s.filter_h);
  w.ky_end = end_inside(w.iy0, s.dilation_h, s.filter_h, s.input_h);
}

template <typename Shape>
inline void window_columns(const Shape& s, int32_t x, PixelWindow& w) {
  w.ix0 = x * s.stride_w - s.pad_w;
  w.kx_begin = first_inside(w.ix0, s.dilation_w, s.filter_w);
  w.kx_end = end_inside(w.ix0, s.dilation_w, s.filter_w, s.input_w);
}

// The window of output pixel (y, x).
template <typename Shape>
inline PixelWindow pixel_window(const Shape& s, int32_t y, int32_t x) {
  PixelWindow w;
  window_rows(s, y, w);
  window_columns(s, x, w);
  return w;
}

// The input pixel of output pixel p of a 1x1 convolution without padding (batch start `in`).
template <typename Shape>
inline const int8_t* pointwise_input(const Shape& s, const int8_t* in, int32_t p) {
  const int32_t y = p / s.output_w;
  const int32_t x = p - y * s.output_w;
  return in + (static_cast<ptrdiff_t>(y) * s.stride_h * s.input_w + x * s.stride_w) * s.input_c;
}

// The order of a pointwise convolution's pixels: forward, one chunk of all of them; backward
// (ConvParams::backward_chunk > 0), chunks from the last to the first, each forward inside:
// [0, split) in chunks of kBackwardFirstChunk, then chunks of `chunk` from split.
// for (c = first(); c >= 0; c = before(c)) runs pixels [c, end(c)).
struct PixelChunks {
  int32_t pixels;
  int32_t chunk;  // <= 0: forward
  int32_t split;  // a multiple of kBackwardFirstChunk
  int32_t size(int32_t begin) const { return begin < split ? kBackwardFirstChunk : chunk; }
  int32_t first() const {
    if (chunk <= 0 || pixels <= 0) return 0;
    if (pixels > split) return split + (pixels - 1 - split) / chunk * chunk;
    return (pixels - 1) / kBackwardFirstChunk * kBackwardFirstChunk;
  }
  int32_t before(int32_t begin) const {
    if (chunk <= 0 || begin <= 0) return -1;
    return begin > split ? begin - chunk : begin - kBackwardFirstChunk;
  }
  int32_t end(int32_t begin) const {
    return chunk > 0 && pixels - begin > size(begin) ? begin + size(begin) : pixels;
  }
};

// A column (a map one pixel wide, a filter one wide, 1-D audio windows along the height) is the
// same bytes as a row of its height, written and read in the same order: the whole-map dsp and
// mve kernels run it as that row, whose pixels share loads (dsp: one loop over the taps, not one
// per filter row). Any other shape is returned as it is.
inline DepthwiseShape depthwise_column_as_row(const DepthwiseShape& s) {
  if (s.input_w != 1 || s.output_w != 1 || s.filter_w != 1 || s.pad_w != 0 || s.input_h <= 1) {
    return s;
  }
  DepthwiseShape row = s;
  row.input_h = row.output_h = row.filter_h = 1;
  row.stride_h = row.dilation_h = 1;
  row.pad_h = 0;
  row.input_w = s.input_h;
  row.output_w = s.output_h;
  row.filter_w = s.filter_h;
  row.stride_w = s.stride_h;
  row.pad_w = s.pad_h;
  row.dilation_w = s.dilation_h;
  return row;
}

}  // namespace internal
}  // namespace kernels
}  // namespace mote
