// int8 DEPTHWISE_CONV_2D. NHWC keeps a pixel's channels contiguous in the input, the filter and
// the output, so the work is vectorised across channels: for each output pixel and block of
// channels, int32 sums live in a small stack array and each in-bounds tap adds one
// channel-parallel multiply-accumulate pass. No scratch is needed.

#include "mote/kernels/depthwise_conv.h"

#include <stddef.h>
#include <stdint.h>

#include "conv_internal.h"
#include "row_window.h"
#include "window.h"

namespace mote {
namespace kernels {
namespace {

// Output channels per block: 64 int32 sums = 256 bytes of stack.
constexpr int32_t kBlock = 64;

// acc[j] += (x[j] + offset) * w[j] for j < n (depth multiplier 1).
inline void tap_mult1(const int8_t* x, const int8_t* w, int32_t n, int16_t offset, int32_t* acc) {
  for (int32_t j = 0; j < n; ++j) acc[j] += static_cast<int16_t>(x[j] + offset) * w[j];
}

// Output channels [oc, oc + n) with depth multiplier m: output channel k reads input channel k / m.
inline void tap_multn(const int8_t* x, const int8_t* w, int32_t oc, int32_t n, int32_t m,
                      int16_t offset, int32_t* acc) {
  int32_t ic = oc / m;
  int32_t k = oc - ic * m;  // position within the multiplier group
  int32_t j = 0;
  while (j < n) {
    const int16_t v = static_cast<int16_t>(x[ic] + offset);
    const int32_t run = internal::min_i32(m - k, n - j);
    for (int32_t r = 0; r < run; ++r) acc[j + r] += v * w[j + r];
    j += run;
    ++ic;
    k = 0;
  }
}

// Depth multiplier 1, a fixed block of kLanes channels: the sums stay in registers across taps.
template <int kLanes>
inline void block_mult1(const int8_t* row0, ptrdiff_t row_stride, ptrdiff_t tap_stride,
                        const int8_t* w0, ptrdiff_t w_row_stride, ptrdiff_t w_tap_stride,
                        int32_t rows, int32_t taps, int16_t offset, int32_t* out_acc) {
  int32_t a[kLanes];
  for (int j = 0; j < kLanes; ++j) a[j] = out_acc[j];
  for (int32_t r = 0; r < rows; ++r) {
    const int8_t* px = row0 + r * row_stride;
    const int8_t* w = w0 + r * w_row_stride;
    for (int32_t t = 0; t < taps; ++t, px += tap_stride, w += w_tap_stride) {
      // Kept a loop so that it is vectorised across channels (fully unrolled, gcc would emit
      // kLanes scalar multiply-accumulates instead).
#pragma GCC unroll 1
      for (int j = 0; j < kLanes; ++j) a[j] += static_cast<int16_t>(px[j] + offset) * w[j];
    }
  }
  for (int j = 0; j < kLanes; ++j) out_acc[j] = a[j];
}

// block_mult1 for row calls: filter rows [ky_begin, ky_end) of a window whose rows are looked up
// in a RowTable, `col` bytes into each row.
template <int kLanes>
inline void block_mult1_rows(const internal::RowTable::Window& window, int32_t ky_begin, int32_t ky_end, ptrdiff_t col,
                             ptrdiff_t tap_stride, const int8_t* w0, ptrdiff_t w_row_stride,
                             ptrdiff_t w_tap_stride, int32_t taps, int16_t offset,
                             int32_t* out_acc) {
  int32_t a[kLanes];
  for (int j = 0; j < kLanes; ++j) a[j] = out_acc[j];
  for (int32_t ky = ky_begin; ky < ky_end; ++ky) {
    const int8_t* px = window.row(ky) + col;
    const int8_t* w = w0 + (ky - ky_begin) * w_row_stride;
    for (int32_t t = 0; t < taps; ++t, px += tap_stride, w += w_tap_stride) {
#pragma GCC unroll 1
      for (int j = 0; j < kLanes; ++j) a[j] += static_cast<int16_t>(px[j] + offset) * w[j];
    }
  }
  for (int j = 0; j < kLanes; ++j) out_acc[j] = a[j];
}

// Output rows [y_begin, y_end) of one image, as portable_depthwise_conv2d computes them, the input
// rows looked up once per output row. Kept apart from the whole-tensor loop so that its code (and
// instruction count) stays as it was.
void depthwise_rows(const DepthwiseConvParams& params, internal::RowTable& rows, const int8_t* filter,
                    const int32_t* bias, const internal::OutputRows& out_rows_in, int32_t y_begin,
                    int32_t y_end) {
  const DepthwiseShape s = params.shape;  // local copies: output stores (int8) could alias
  const internal::OutputRows out_rows = out_rows_in;
  const internal::Requantizer rq = internal::make_requantizer(
      params.output_multiplier, params.output_shift, params.output_offset, params.act_min,
      params.act_max);
  const int16_t offset = static_cast<int16_t>(params.input_offset);
  const int32_t ci = s.input_c;
  const int32_t co = s.output_c;
  const int32_t m = co / ci;
  int32_t acc[kBlock];
  internal::PixelWindow pw;
  for (int32_t y = y_begin; y < y_end; ++y) {
    internal::window_rows(s, y, pw);
    const internal::RowTable::Window window = rows.window(y, pw.iy0, s.dilation_h, pw.ky_begin, pw.ky_end);
    int8_t* out = out_rows.row(y);
    for (int32_t x = 0; x < s.output_w; ++x, out += co) {
      internal::window_columns(s, x, pw);
      const int32_t ix0 = pw.ix0;
      const int32_t ky_begin = pw.ky_begin, ky_end = pw.ky_end;
      const int32_t kx_begin = pw.kx_begin, kx_end = pw.kx_end;
      int32_t oc = 0;
      if (m == 1 && ky_begin < ky_end && kx_begin < kx_end) {
        const int32_t ix = ix0 + kx_begin * s.dilation_w;
        const ptrdiff_t col = static_cast<ptrdiff_t>(ix) * ci;
        const ptrdiff_t tap_stride = static_cast<ptrdiff_t>(s.dilation_w) * ci;
        const int8_t* w0 = filter + static_cast<ptrdiff_t>(ky_begin * s.filter_w + kx_begin) * co;
        const ptrdiff_t w_row_stride = static_cast<ptrdiff_t>(s.filter_w) * co;
        const int32_t taps = kx_end - kx_begin;
        for (; oc + 16 <= co; oc += 16) {
          for (int32_t j = 0; j < 16; ++j) acc[j] = internal::bias_or_zero(bias, oc + j);
          block_mult1_rows<16>(window, ky_begin, ky_end, col + oc, tap_stride, w0 + oc,
                               w_row_stride, co, taps, offset, acc);
          for (int32_t j = 0; j < 16; ++j) out[oc + j] = rq(acc[j], oc + j);
        }
        for (; oc + 8 <= co; oc += 8) {
          for (int32_t j = 0; j < 8; ++j) acc[j] = internal::bias_or_zero(bias, oc + j);
          block_mult1_rows<8>(window, ky_begin, ky_end, col + oc, tap_stride, w0 + oc,
                              w_row_stride, co, taps, offset, acc);
          for (int32_t j = 0; j < 8; ++j) out[oc + j] = rq(acc[j], oc + j);
        }
      }
      for (; oc < co; oc += kBlock) {
        const int32_t n = internal::min_i32(kBlock, co - oc);
        for (int32_t j = 0; j < n; ++j) acc[j] = internal::bias_or_zero(bias, oc + j);
        for (int32_t ky = ky_begin; ky < ky_end; ++ky) {
          const int8_t* row = window.row(ky);
          for (int32_t kx = kx_begin; kx < kx_end; ++kx) {
            const int8_t* px = row + static_cast<ptrdiff_t>(ix0 + kx * s.dilation_w) * ci;
            const int8_t* w = filter + static_cast<ptrdiff_t>(ky * s.filter_w + kx) * co + oc;
            if (m == 1) {
              tap_mult1(px + oc, w, n, offset, acc);
            } else {
              tap_multn(px, w, oc, n, m, offset, acc);
            }
          }
        }
        for (int32_t j = 0; j < n; ++j) out[oc + j] = rq(acc[j], oc + j);
      }
    }
  }
}

}  // namespace

void portable_depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch) {
  const DepthwiseShape s = params.shape;  // a local copy: output stores (int8) could alias params
  // Shapes are verified before a program runs; this only keeps nonsense away from divisions.
  if (s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 || s.dilation_w <= 0 || s.input_c <= 0 ||
      s.output_c < s.input_c) {
    return;
  }
  const internal::Requantizer rq = internal::make_requantizer(
      params.output_multiplier, params.output_shift, params.output_offset, params.act_min,
      params.act_max);
  const int16_t offset = static_cast<int16_t>(params.input_offset);
  const int32_t ci = s.input_c;
  const int32_t co = s.output_c;
  const int32_t m = co / ci;
  int32_t acc[kBlock];
  internal::PixelWindow pw;
  int8_t* out = output;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t y = 0; y < s.output_h; ++y) {
      internal::window_rows(s, y, pw);
      for (int32_t x = 0; x < s.output_w; ++x, out += co) {
        internal::window_columns(s, x, pw);
        const int32_t iy0 = pw.iy0, ix0 = pw.ix0;
        const int32_t ky_begin = pw.ky_begin, ky_end = pw.ky_end;
        const int32_t kx_begin = pw.kx_begin, kx_end = pw.kx_end;
        int32_t oc = 0;
        if (m == 1 && ky_begin < ky_end && kx_begin < kx_end) {
          // Register-blocked channels: 16 or 8 at a time, taps innermost.
          const int32_t iy = iy0 + ky_begin * s.dilation_h;
          const int32_t ix = ix0 + kx_begin * s.dilation_w;
          const int8_t* row0 = input + ((static_cast<ptrdiff_t>(b) * s.input_h + iy) * s.input_w + ix) * ci;
          const ptrdiff_t row_stride = static_cast<ptrdiff_t>(s.dilation_h) * s.input_w * ci;
          const ptrdiff_t tap_stride = static_cast<ptrdiff_t>(s.dilation_w) * ci;
          const int8_t* w0 = filter + static_cast<ptrdiff_t>(ky_begin * s.filter_w + kx_begin) * co;
          const ptrdiff_t w_row_stride = static_cast<ptrdiff_t>(s.filter_w) * co;
          const int32_t rows = ky_end - ky_begin;
          const int32_t taps = kx_end - kx_begin;
          for (; oc + 16 <= co; oc += 16) {
            for (int32_t j = 0; j < 16; ++j) acc[j] = internal::bias_or_zero(bias, oc + j);
            block_mult1<16>(row0 + oc, row_stride, tap_stride, w0 + oc, w_row_stride, co, rows, taps,
                            offset, acc);
            for (int32_t j = 0; j < 16; ++j) out[oc + j] = rq(acc[j], oc + j);
          }
          for (; oc + 8 <= co; oc += 8) {
            for (int32_t j = 0; j < 8; ++j) acc[j] = internal::bias_or_zero(bias, oc + j);
            block_mult1<8>(row0 + oc, row_stride, tap_stride, w0 + oc, w_row_stride, co, rows, taps,
                           offset, acc);
            for (int32_t j = 0; j < 8; ++j) out[oc + j] = rq(acc[j], oc + j);
          }
        }
        // Remaining channels (any depth multiplier): sums in a stack block, one pass per tap.
        for (; oc < co; oc += kBlock) {
          const int32_t n = internal::min_i32(kBlock, co - oc);
          for (int32_t j = 0; j < n; ++j) acc[j] = internal::bias_or_zero(bias, oc + j);
          for (int32_t ky = ky_begin; ky < ky_end; ++ky) {
            const int32_t iy = iy0 + ky * s.dilation_h;
            const int8_t* row = input + (static_cast<ptrdiff_t>(b) * s.input_h + iy) * s.input_w * ci;
            for (int32_t kx = kx_begin; kx < kx_end; ++kx) {
              const int8_t* px = row + static_cast<ptrdiff_t>(ix0 + kx * s.dilation_w) * ci;
              const int8_t* w = filter + static_cast<ptrdiff_t>(ky * s.filter_w + kx) * co + oc;
              if (m == 1) {
                tap_mult1(px + oc, w, n, offset, acc);
              } else {
                tap_multn(px, w, oc, n, m, offset, acc);
              }
            }
          }
          for (int32_t j = 0; j < n; ++j) out[oc + j] = rq(acc[j], oc + j);
        }
      }
    }
  }
}

void portable_depthwise_conv2d_rows(const DepthwiseConvParams& params, const int8_t* input,
                                    RowRing input_ring, const int8_t* filter, const int32_t* bias,
                                    int8_t* output, RowRing output_ring, int32_t y_begin,
                                    int32_t y_end, Scratch scratch) {
  (void)scratch;
  const DepthwiseShape s = params.shape;  // a local copy: output stores (int8) could alias params
  if (s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 || s.dilation_w <= 0 || s.input_c <= 0 ||
      s.output_c < s.input_c ||
      !internal::row_call_ok(s.batches, s.input_h, s.output_h, s.filter_h, s.stride_h, s.pad_h,
                             s.dilation_h, input_ring, output_ring, y_begin, y_end)) {
    return;
  }
  const ptrdiff_t in_row = static_cast<ptrdiff_t>(s.input_w) * s.input_c;
  const internal::OutputRows out_rows{output, static_cast<ptrdiff_t>(s.output_w) * s.output_c,
                                      output_ring.rows};
  internal::RowTable rows(input, in_row, input_ring.rows);
  depthwise_rows(params, rows, filter, bias, out_rows, y_begin, y_end);
}

}  // namespace kernels
}  // namespace mote
