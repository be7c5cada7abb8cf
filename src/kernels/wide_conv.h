#pragma once
// The CONV_2D driver of the dsp and mve 16x8 and int4 kernels, without scratch: an output pixel's
// window is, row by row, one run of contiguous input elements (the taps of a filter row inside
// the input, all their channels: NHWC; one run per tap with a dilation in x), and the filter's
// matching elements are contiguous too. So each output channel is a sum of dot products over
// those runs, and a variant's dot products of R filter rows at a time (dsp/wide_dot.h,
// mve/wide_dot.h) run on them (16x8's inputs need no widening, int4's weights unpack as they
// load); padding taps are skipped, as in the portable kernel. The blocks of pixels of the int4
// kernels read each window as one column instead: in place where it is one run of the whole
// depth (window_in_place), else gathered (gather), padding taps given a value that adds nothing.
// Internal to src/kernels/; embeddable C++17.
//
// A Policy gives the variant's arithmetic:
//   using Acc (the sums), Input, Output, Filter (a pointer to the filter's storage);
//   Acc pixel_term(const Input* input, const Run* runs, int32_t count): a term every output
//     channel of the pixel adds (dsp int4's -8 sum (x + io)), or 0;
//   template <int R> void dot(const Input* x, int32_t n, Filter filter, size_t pos,
//                             size_t stride, Acc* a): a[r] += the run against filter elements
//     pos + r * stride ...;
//   Output finish(Acc acc, int32_t channel): bias, requantization, offset, clamp;
//   void finish4(const Acc* a, int32_t channel, Output* out): the same of four channels.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mote/kernels/conv.h"

namespace mote {
namespace kernels {
namespace wide_conv {

// Runs of one pixel's window: one per filter row, or per tap with a dilation in x.
inline constexpr int32_t kMaxRuns = 32;

struct Run {
  size_t input;   // its first element in the input
  int32_t n;      // elements
  size_t filter;  // its first element in an output channel's filter
};

// Not grouped, a valid geometry, at most kMaxRuns runs per pixel.
inline bool handles(const ConvShape& s) {
  if (s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 || s.dilation_w <= 0 ||
      s.filter_h <= 0 || s.filter_w <= 0 || s.filter_c <= 0 || s.filter_c != s.input_c ||
      s.output_c <= 0) {
    return false;
  }
  return static_cast<int64_t>(s.filter_h) * (s.dilation_w == 1 ? 1 : s.filter_w) <= kMaxRuns;
}

// The runs of output pixel (oy, ox) of image b; their count.
inline int32_t runs_of(const ConvShape& s, int32_t b, int32_t oy, int32_t ox, Run* runs) {
  const int32_t c = s.input_c;
  const int32_t ix0 = ox * s.stride_w - s.pad_w;
  int32_t count = 0;
  for (int32_t ky = 0; ky < s.filter_h; ++ky) {
    const int32_t iy = oy * s.stride_h - s.pad_h + ky * s.dilation_h;
    if (iy < 0 || iy >= s.input_h) continue;
    const size_t row = (static_cast<size_t>(b) * s.input_h + iy) * s.input_w;
    if (s.dilation_w == 1) {
      const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
      const int32_t kx1 = s.input_w - ix0 < s.filter_w ? s.input_w - ix0 : s.filter_w;
      if (kx0 >= kx1) continue;
      runs[count++] = {(row + static_cast<size_t>(ix0 + kx0)) * c, (kx1 - kx0) * c,
                       (static_cast<size_t>(ky) * s.filter_w + kx0) * c};
    } else {
      for (int32_t kx = 0; kx < s.filter_w; ++kx) {
        const int32_t ix = ix0 + kx * s.dilation_w;
        if (ix < 0 || ix >= s.input_w) continue;
        runs[count++] = {(row + static_cast<size_t>(ix)) * c, c,
                         (static_cast<size_t>(ky) * s.filter_w + kx) * c};
      }
    }
  }
  return count;
}

// Output pixel (b, oy, ox)'s window where it is one run of the whole depth in the input (one
// filter row, not clipped: a 1x1 convolution's pixel), else null.
template <typename T>
inline const T* window_in_place(const ConvShape& s, const T* input, int32_t b, int32_t oy,
                                int32_t ox) {
  const int32_t iy = oy * s.stride_h - s.pad_h, ix = ox * s.stride_w - s.pad_w;
  if (s.filter_h != 1 || (s.filter_w != 1 && s.dilation_w != 1) || iy < 0 ||
      iy >= s.input_h || ix < 0 || ix + s.filter_w > s.input_w) {
    return nullptr;
  }
  return input + ((static_cast<size_t>(b) * s.input_h + iy) * s.input_w + ix) * s.input_c;
}

// Element copies for gather: the C library's, or a variant's own (Bytes::copy, Bytes::fill).
struct LibraryBytes {
  template <typename T>
  static void copy(T* to, const T* from, int32_t n) {
    memcpy(to, from, static_cast<size_t>(n) * sizeof(T));
  }
  template <typename T>
  static void fill(T* to, T value, int32_t n) {
    for (int32_t i = 0; i < n; ++i) to[i] = value;
  }
};

// Pixel (b, oy, ox)'s window into `column` in the filter's order, the zero point at padding taps.
template <typename Bytes = LibraryBytes, typename T>
inline void gather(const ConvShape& s, const T* input, int32_t b, int32_t oy, int32_t ox, T pad,
                   T* column) {
  const int32_t c = s.input_c;
  const int32_t ix0 = ox * s.stride_w - s.pad_w;
  if (s.dilation_w != 1) {
    Run runs[kMaxRuns];
    const int32_t count = runs_of(s, b, oy, ox, runs);
    const int32_t depth = s.filter_h * s.filter_w * c;
    if (count * c < depth) Bytes::fill(column, pad, depth);
    for (int32_t j = 0; j < count; ++j) {
      Bytes::copy(column + runs[j].filter, input + runs[j].input, runs[j].n);
    }
    return;
  }
  // Filter taps kx0 <= kx < kx1 fall inside the input, the same for every filter row.
  const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
  const int32_t kx1 = s.input_w - ix0 < s.filter_w ? s.input_w - ix0 : s.filter_w;
  const int32_t row = s.filter_w * c;
  for (int32_t ky = 0; ky < s.filter_h; ++ky, column += row) {
    const int32_t iy = oy * s.stride_h - s.pad_h + ky * s.dilation_h;
    if (iy < 0 || iy >= s.input_h || kx0 >= kx1) {
      Bytes::fill(column, pad, row);
      continue;
    }
    if (kx0 > 0) Bytes::fill(column, pad, kx0 * c);
    const size_t at = ((static_cast<size_t>(b) * s.input_h + iy) * s.input_w + ix0 + kx0) * c;
    Bytes::copy(column + kx0 * c, input + at, (kx1 - kx0) * c);
    if (kx1 < s.filter_w) Bytes::fill(column + kx1 * c, pad, (s.filter_w - kx1) * c);
  }
}

// One output pixel of runs `runs`: its channels four at a time, then the last ones.
template <typename Policy>
__attribute__((always_inline)) inline void pixel(const ConvShape& s, const Policy& policy, const typename Policy::Input* input,
           typename Policy::Filter filter, const Run* runs, int32_t count,
           typename Policy::Output* out) {
  using Acc = typename Policy::Acc;
  const size_t per_channel = static_cast<size_t>(s.filter_h) * s.filter_w * s.filter_c;
  const Acc term = policy.pixel_term(input, runs, count);
  int32_t oc = 0;
  for (; oc + 4 <= s.output_c; oc += 4) {
    Acc a[4] = {term, term, term, term};
    for (int32_t k = 0; k < count; ++k) {
      policy.template dot<4>(input + runs[k].input, runs[k].n, filter,
                             oc * per_channel + runs[k].filter, per_channel, a);
    }
    policy.finish4(a, oc, out + oc);
  }
  for (; oc < s.output_c; ++oc) {
    Acc a[1] = {term};
    for (int32_t k = 0; k < count; ++k) {
      policy.template dot<1>(input + runs[k].input, runs[k].n, filter,
                             oc * per_channel + runs[k].filter, per_channel, a);
    }
    out[oc] = policy.finish(a[0], oc);
  }
}

// Output pixels in raster order, one at a time.
template <typename Policy>
void run(const ConvShape& s, const Policy& policy, const typename Policy::Input* input,
         typename Policy::Filter filter, typename Policy::Output* output) {
  Run runs[kMaxRuns];
  typename Policy::Output* out = output;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t oy = 0; oy < s.output_h; ++oy) {
      for (int32_t ox = 0; ox < s.output_w; ++ox, out += s.output_c) {
        pixel(s, policy, input, filter, runs, runs_of(s, b, oy, ox, runs), out);
      }
    }
  }
}

}  // namespace wide_conv
}  // namespace kernels
}  // namespace mote
