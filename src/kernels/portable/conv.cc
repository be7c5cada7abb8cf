// int8 CONV_2D. Three ways to compute the same sums, chosen by shape and scratch size:
//  - pointwise (1x1, no padding, not grouped): each input pixel already is the column, no scratch;
//  - im2col: the patch of one or two output pixels is gathered into int16 columns holding
//    (x + input_offset), 0 for padding, then dotted with each filter row;
//  - direct: without room for a column, sum over the valid part of each filter row in place.
// Each path blocks two pixels by two output channels (or one by four) so that every load feeds
// several multiply-accumulates.

#include "mote/kernels/conv.h"

#include <stddef.h>
#include <stdint.h>

#include "conv_internal.h"
#include "row_window.h"
#include "window.h"

namespace mote {
namespace kernels {
namespace {

using internal::Requantizer;

struct Geometry {
  const ConvShape& s;
  int32_t groups;
  int32_t co_per_group;
  int32_t col_len;  // filter_h * filter_w * filter_c
};

// 1x1 kernel, no padding, full depth: output pixel p reads input pixel (y*sh, x*sw).
void conv_pointwise(const ConvShape& shape, const int8_t* input, const int8_t* filter,
                    const int32_t* bias, int8_t* output, int16_t offset, const Requantizer& rq_in) {
  const ConvShape s = shape;       // local copies: output stores (int8) could alias anything
  const Requantizer rq = rq_in;    // reached through a reference

  const int32_t ci = s.input_c;
  const int32_t co = s.output_c;
  const int32_t pixels = s.output_h * s.output_w;
  for (int32_t b = 0; b < s.batches; ++b) {
    const int8_t* in_batch = input + static_cast<ptrdiff_t>(b) * s.input_h * s.input_w * ci;
    int8_t* out_batch = output + static_cast<ptrdiff_t>(b) * pixels * co;
    const auto pixel_ptr = [&](int32_t p) { return internal::pointwise_input(s, in_batch, p); };
    int32_t p = 0;
    for (; p + 2 <= pixels; p += 2) {
      const int8_t* x0 = pixel_ptr(p);
      const int8_t* x1 = pixel_ptr(p + 1);
      int8_t* out0 = out_batch + static_cast<ptrdiff_t>(p) * co;
      int8_t* out1 = out0 + co;
      int32_t o = 0;
      for (; o + 2 <= co; o += 2) {
        const int8_t* w0 = filter + static_cast<ptrdiff_t>(o) * ci;
        const int32_t b0 = internal::bias_or_zero(bias, o);
        const int32_t b1 = internal::bias_or_zero(bias, o + 1);
        int32_t a[4] = {b0, b1, b0, b1};
        internal::dot_2x2<true>(x0, x1, w0, w0 + ci, ci, offset, a);
        out0[o] = rq(a[0], o);
        out0[o + 1] = rq(a[1], o + 1);
        out1[o] = rq(a[2], o);
        out1[o + 1] = rq(a[3], o + 1);
      }
      if (o < co) {
        int32_t a0 = internal::bias_or_zero(bias, o);
        int32_t a1 = a0;
        internal::dot_2x1<true>(x0, x1, filter + static_cast<ptrdiff_t>(o) * ci, ci, offset, &a0, &a1);
        out0[o] = rq(a0, o);
        out1[o] = rq(a1, o);
      }
    }
    if (p < pixels) {
      const int8_t* x0 = pixel_ptr(p);
      int8_t* out0 = out_batch + static_cast<ptrdiff_t>(p) * co;
      int32_t o = 0;
      for (; o + 2 <= co; o += 2) {
        const int8_t* w0 = filter + static_cast<ptrdiff_t>(o) * ci;
        int32_t a0 = internal::bias_or_zero(bias, o);
        int32_t a1 = internal::bias_or_zero(bias, o + 1);
        internal::dot_1x2<true>(x0, w0, w0 + ci, ci, offset, &a0, &a1);
        out0[o] = rq(a0, o);
        out0[o + 1] = rq(a1, o + 1);
      }
      if (o < co) {
        const int32_t a = internal::bias_or_zero(bias, o) +
                          internal::dot_1x1<true>(x0, filter + static_cast<ptrdiff_t>(o) * ci, ci, offset);
        out0[o] = rq(a, o);
      }
    }
  }
}

// Gathers (x + offset) of output pixel (b, y, x), group g into col[col_len]; padding becomes 0.
void im2col(const Geometry& g, const int8_t* input, int32_t b, int32_t y, int32_t x, int32_t group,
            int16_t offset, int16_t* col) {
  const ConvShape s = g.s;  // a local copy: output stores (int8) could alias a referenced shape
  const int32_t cf = s.filter_c;
  const int32_t row_len = s.filter_w * cf;
  const internal::PixelWindow pw = internal::pixel_window(s, y, x);
  const int32_t iy0 = pw.iy0, ix0 = pw.ix0;
  const int32_t kx_begin = pw.kx_begin, kx_end = pw.kx_end;
  const bool contiguous = s.dilation_w == 1 && cf == s.input_c;
  for (int32_t ky = 0; ky < s.filter_h; ++ky, col += row_len) {
    const int32_t iy = iy0 + ky * s.dilation_h;
    if (iy < 0 || iy >= s.input_h || kx_begin >= kx_end) {
      for (int32_t i = 0; i < row_len; ++i) col[i] = 0;
      continue;
    }
    const int8_t* row = input + (static_cast<ptrdiff_t>(b) * s.input_h + iy) * s.input_w * s.input_c +
                        group * cf;
    for (int32_t i = 0; i < kx_begin * cf; ++i) col[i] = 0;
    if (contiguous) {
      const int8_t* src = row + static_cast<ptrdiff_t>(ix0 + kx_begin) * cf;
      int16_t* dst = col + kx_begin * cf;
      const int32_t n = (kx_end - kx_begin) * cf;
      for (int32_t i = 0; i < n; ++i) dst[i] = static_cast<int16_t>(src[i] + offset);
    } else {
      for (int32_t kx = kx_begin; kx < kx_end; ++kx) {
        const int8_t* src = row + static_cast<ptrdiff_t>(ix0 + kx * s.dilation_w) * s.input_c;
        int16_t* dst = col + kx * cf;
        for (int32_t c = 0; c < cf; ++c) dst[c] = static_cast<int16_t>(src[c] + offset);
      }
    }
    for (int32_t i = kx_end * cf; i < row_len; ++i) col[i] = 0;
  }
}

// Output channels [o_begin, o_end) of one or two pixels from their columns. Always inlined: with
// two callers (whole tensor and rows) gcc would otherwise call it, and the whole-tensor im2col
// path would run 7 to 13% more instructions.
inline __attribute__((always_inline)) void columns_to_outputs(
    const Geometry& g, const int16_t* c0, const int16_t* c1, const int8_t* filter,
    const int32_t* bias, int32_t o_begin, int32_t o_end, int8_t* out0, int8_t* out1,
    const Requantizer& rq_in) {
  const Requantizer rq = rq_in;  // a local copy: output stores (int8) could alias anything
  const int32_t n = g.col_len;
  int32_t o = o_begin;
  if (c1 != nullptr) {
    for (; o + 2 <= o_end; o += 2) {
      const int8_t* w0 = filter + static_cast<ptrdiff_t>(o) * n;
      const int32_t b0 = internal::bias_or_zero(bias, o);
      const int32_t b1 = internal::bias_or_zero(bias, o + 1);
      int32_t a[4] = {b0, b1, b0, b1};
      internal::dot_2x2<false>(c0, c1, w0, w0 + n, n, 0, a);
      out0[o] = rq(a[0], o);
      out0[o + 1] = rq(a[1], o + 1);
      out1[o] = rq(a[2], o);
      out1[o + 1] = rq(a[3], o + 1);
    }
    if (o < o_end) {
      int32_t a0 = internal::bias_or_zero(bias, o);
      int32_t a1 = a0;
      internal::dot_2x1<false>(c0, c1, filter + static_cast<ptrdiff_t>(o) * n, n, 0, &a0, &a1);
      out0[o] = rq(a0, o);
      out1[o] = rq(a1, o);
    }
    return;
  }
  for (; o + 4 <= o_end; o += 4) {
    const int8_t* w0 = filter + static_cast<ptrdiff_t>(o) * n;
    int32_t a[4] = {internal::bias_or_zero(bias, o), internal::bias_or_zero(bias, o + 1),
                    internal::bias_or_zero(bias, o + 2), internal::bias_or_zero(bias, o + 3)};
    internal::dot_1x4<false>(c0, w0, w0 + n, w0 + 2 * n, w0 + 3 * n, n, 0, a);
    for (int32_t k = 0; k < 4; ++k) out0[o + k] = rq(a[k], o + k);
  }
  for (; o < o_end; ++o) {
    const int32_t a = internal::bias_or_zero(bias, o) +
                      internal::dot_1x1<false>(c0, filter + static_cast<ptrdiff_t>(o) * n, n, 0);
    out0[o] = rq(a, o);
  }
}

void conv_im2col(const Geometry& g, const int8_t* input, const int8_t* filter, const int32_t* bias,
                 int8_t* output, int16_t offset, int16_t* col0, int16_t* col1,
                 const Requantizer& rq) {
  const ConvShape s = g.s;  // a local copy: output stores (int8) could alias a referenced shape
  const int32_t pixels = s.output_h * s.output_w;
  const int32_t co = s.output_c;
  for (int32_t b = 0; b < s.batches; ++b) {
    int8_t* out_batch = output + static_cast<ptrdiff_t>(b) * pixels * co;
    int32_t p = 0;
    for (; p < pixels; p += col1 != nullptr ? 2 : 1) {
      const bool pair = col1 != nullptr && p + 1 < pixels;
      const int32_t y0 = p / s.output_w;
      const int32_t x0 = p - y0 * s.output_w;
      const int32_t y1 = (p + 1) / s.output_w;
      const int32_t x1 = (p + 1) - y1 * s.output_w;
      int8_t* out0 = out_batch + static_cast<ptrdiff_t>(p) * co;
      for (int32_t group = 0; group < g.groups; ++group) {
        im2col(g, input, b, y0, x0, group, offset, col0);
        if (pair) im2col(g, input, b, y1, x1, group, offset, col1);
        const int32_t o_begin = group * g.co_per_group;
        columns_to_outputs(g, col0, pair ? col1 : nullptr, filter, bias, o_begin,
                           o_begin + g.co_per_group, out0, out0 + co, rq);
      }
    }
  }
}

// No scratch: for each output pixel and block of channels, sum over the in-bounds part of each
// filter row (one run per row when the taps of a row are contiguous in memory, else one per tap).
void conv_direct(const Geometry& g, const int8_t* input, const int8_t* filter, const int32_t* bias,
                 int8_t* output, int16_t offset, const Requantizer& rq_in) {
  const Requantizer rq = rq_in;  // a local copy: output stores (int8) could alias anything
  const ConvShape s = g.s;  // a local copy: output stores (int8) could alias a referenced shape
  const int32_t cf = s.filter_c;
  const int32_t n = g.col_len;
  const bool contiguous = s.dilation_w == 1 && cf == s.input_c;
  internal::PixelWindow pw;
  int8_t* out = output;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t y = 0; y < s.output_h; ++y) {
      internal::window_rows(s, y, pw);
      for (int32_t x = 0; x < s.output_w; ++x, out += s.output_c) {
        internal::window_columns(s, x, pw);
        const int32_t iy0 = pw.iy0, ix0 = pw.ix0;
        const int32_t ky_begin = pw.ky_begin, ky_end = pw.ky_end;
        const int32_t kx_begin = pw.kx_begin, kx_end = pw.kx_end;
        for (int32_t o = 0; o < s.output_c; o += 4) {
          const int32_t count = internal::min_i32(4, s.output_c - o);
          const int32_t group = o / g.co_per_group;
          int32_t a[4] = {0, 0, 0, 0};
          const int8_t* w[4];
          for (int32_t k = 0; k < 4; ++k) {
            // Rows past the block's end repeat the last row (computed, then ignored). A block may
            // straddle two groups; each row then reads its own group's input below.
            const int32_t oc = o + internal::min_i32(k, count - 1);
            w[k] = filter + static_cast<ptrdiff_t>(oc) * n;
          }
          const bool same_group = (o + count - 1) / g.co_per_group == group;
          for (int32_t ky = ky_begin; ky < ky_end; ++ky) {
            const int32_t iy = iy0 + ky * s.dilation_h;
            const int8_t* row = input + (static_cast<ptrdiff_t>(b) * s.input_h + iy) * s.input_w * s.input_c;
            const int32_t wrow = ky * s.filter_w * cf;
            if (contiguous && same_group) {
              const int8_t* src = row + static_cast<ptrdiff_t>(ix0 + kx_begin) * cf;
              const int32_t off = wrow + kx_begin * cf;
              internal::dot_1x4<true>(src, w[0] + off, w[1] + off, w[2] + off, w[3] + off,
                                      (kx_end - kx_begin) * cf, offset, a);
              continue;
            }
            for (int32_t kx = kx_begin; kx < kx_end; ++kx) {
              const int8_t* src = row + static_cast<ptrdiff_t>(ix0 + kx * s.dilation_w) * s.input_c;
              const int32_t off = wrow + kx * cf;
              if (same_group) {
                internal::dot_1x4<true>(src + group * cf, w[0] + off, w[1] + off, w[2] + off,
                                        w[3] + off, cf, offset, a);
              } else {
                for (int32_t k = 0; k < count; ++k) {
                  const int32_t gk = (o + k) / g.co_per_group;
                  a[k] += internal::dot_1x1<true>(src + gk * cf, w[k] + off, cf, offset);
                }
              }
            }
          }
          for (int32_t k = 0; k < count; ++k) {
            out[o + k] = rq(a[k] + internal::bias_or_zero(bias, o + k), o + k);
          }
        }
      }
    }
  }
}

// im2col for row calls: output pixel (y, x) of one image, its window's rows looked up in `rows`.
void im2col_rows(const Geometry& g, internal::RowTable& rows, int32_t y, int32_t x, int32_t group,
                 int16_t offset, int16_t* col) {
  const ConvShape s = g.s;  // a local copy: output stores (int8) could alias a referenced shape
  const int32_t cf = s.filter_c;
  const int32_t row_len = s.filter_w * cf;
  const internal::PixelWindow pw = internal::pixel_window(s, y, x);
  const int32_t iy0 = pw.iy0, ix0 = pw.ix0;
  const int32_t kx_begin = pw.kx_begin, kx_end = pw.kx_end;
  const bool contiguous = s.dilation_w == 1 && cf == s.input_c;
  // Asked for here rather than held by the caller: fewer live values around the dot loops.
  const internal::RowTable::Window window = rows.window(y, iy0, s.dilation_h, pw.ky_begin, pw.ky_end);
  for (int32_t ky = 0; ky < s.filter_h; ++ky, col += row_len) {
    const int32_t iy = iy0 + ky * s.dilation_h;
    if (iy < 0 || iy >= s.input_h || kx_begin >= kx_end) {
      for (int32_t i = 0; i < row_len; ++i) col[i] = 0;
      continue;
    }
    const int8_t* row = window.row(ky) + group * cf;
    for (int32_t i = 0; i < kx_begin * cf; ++i) col[i] = 0;
    if (contiguous) {
      const int8_t* src = row + static_cast<ptrdiff_t>(ix0 + kx_begin) * cf;
      int16_t* dst = col + kx_begin * cf;
      const int32_t n = (kx_end - kx_begin) * cf;
      for (int32_t i = 0; i < n; ++i) dst[i] = static_cast<int16_t>(src[i] + offset);
    } else {
      for (int32_t kx = kx_begin; kx < kx_end; ++kx) {
        const int8_t* src = row + static_cast<ptrdiff_t>(ix0 + kx * s.dilation_w) * s.input_c;
        int16_t* dst = col + kx * cf;
        for (int32_t c = 0; c < cf; ++c) dst[c] = static_cast<int16_t>(src[c] + offset);
      }
    }
    for (int32_t i = kx_end * cf; i < row_len; ++i) col[i] = 0;
  }
}

// conv_im2col for row calls: output rows [y_begin, y_end) of one image, the pixels in pairs (a
// pair may straddle two rows).
// The whole-tensor functions above stay as they were rather than become these row functions on
// the whole map: gcc's inlining and vectorisation of the dot loops in portable_conv2d proved fragile
// (routed through row code, 1 to 13% more instructions under callgrind on the host bench's
// im2col layers), and their speed is what the whole-tensor path must keep.
void conv_im2col_rows(const Geometry& g, internal::RowTable& rows, const int8_t* filter, const int32_t* bias,
                      const internal::OutputRows& out_rows, int32_t y_begin, int32_t y_end,
                      int16_t offset, int16_t* col0, int16_t* col1, const Requantizer& rq) {
  const internal::OutputRows out = out_rows;  // local copies: output stores (int8) could alias
  const ConvShape s = g.s;  // a local copy: output stores (int8) could alias a referenced shape
  const int32_t p_end = y_end * s.output_w;
  const int32_t co = s.output_c;
  for (int32_t p = y_begin * s.output_w; p < p_end; p += col1 != nullptr ? 2 : 1) {
    const bool pair = col1 != nullptr && p + 1 < p_end;
    const int32_t y0 = p / s.output_w;
    const int32_t x0 = p - y0 * s.output_w;
    const int32_t y1 = (p + 1) / s.output_w;
    const int32_t x1 = (p + 1) - y1 * s.output_w;
    int8_t* out0 = out.row(y0) + static_cast<ptrdiff_t>(x0) * co;
    int8_t* out1 = pair ? out.row(y1) + static_cast<ptrdiff_t>(x1) * co : nullptr;
    for (int32_t group = 0; group < g.groups; ++group) {
      im2col_rows(g, rows, y0, x0, group, offset, col0);
      if (pair) im2col_rows(g, rows, y1, x1, group, offset, col1);
      const int32_t o_begin = group * g.co_per_group;
      columns_to_outputs(g, col0, pair ? col1 : nullptr, filter, bias, o_begin,
                         o_begin + g.co_per_group, out0, out1, rq);
    }
  }
}

// conv_direct for row calls: output rows [y_begin, y_end) of one image.
void conv_direct_rows(const Geometry& g, internal::RowTable& rows, const int8_t* filter, const int32_t* bias,
                      const internal::OutputRows& out_rows, int32_t y_begin, int32_t y_end,
                      int16_t offset, const Requantizer& rq_in) {
  const Requantizer rq = rq_in;  // a local copy: output stores (int8) could alias anything
  const ConvShape s = g.s;  // a local copy: output stores (int8) could alias a referenced shape
  const int32_t cf = s.filter_c;
  const int32_t n = g.col_len;
  const bool contiguous = s.dilation_w == 1 && cf == s.input_c;
  internal::PixelWindow pw;
  for (int32_t y = y_begin; y < y_end; ++y) {
    internal::window_rows(s, y, pw);
    const internal::RowTable::Window window = rows.window(y, pw.iy0, s.dilation_h, pw.ky_begin, pw.ky_end);
    int8_t* out = out_rows.row(y);
    for (int32_t x = 0; x < s.output_w; ++x, out += s.output_c) {
      internal::window_columns(s, x, pw);
      const int32_t ix0 = pw.ix0;
      const int32_t ky_begin = pw.ky_begin, ky_end = pw.ky_end;
      const int32_t kx_begin = pw.kx_begin, kx_end = pw.kx_end;
      for (int32_t o = 0; o < s.output_c; o += 4) {
        const int32_t count = internal::min_i32(4, s.output_c - o);
        const int32_t group = o / g.co_per_group;
        int32_t a[4] = {0, 0, 0, 0};
        const int8_t* w[4];
        for (int32_t k = 0; k < 4; ++k) {
          // Rows past the block's end repeat the last row (computed, then ignored). A block may
          // straddle two groups; each row then reads its own group's input below.
          const int32_t oc = o + internal::min_i32(k, count - 1);
          w[k] = filter + static_cast<ptrdiff_t>(oc) * n;
        }
        const bool same_group = (o + count - 1) / g.co_per_group == group;
        for (int32_t ky = ky_begin; ky < ky_end; ++ky) {
          const int8_t* row = window.row(ky);
          const int32_t wrow = ky * s.filter_w * cf;
          if (contiguous && same_group) {
            const int8_t* src = row + static_cast<ptrdiff_t>(ix0 + kx_begin) * cf;
            const int32_t off = wrow + kx_begin * cf;
            internal::dot_1x4<true>(src, w[0] + off, w[1] + off, w[2] + off, w[3] + off,
                                    (kx_end - kx_begin) * cf, offset, a);
            continue;
          }
          for (int32_t kx = kx_begin; kx < kx_end; ++kx) {
            const int8_t* src = row + static_cast<ptrdiff_t>(ix0 + kx * s.dilation_w) * s.input_c;
            const int32_t off = wrow + kx * cf;
            if (same_group) {
              internal::dot_1x4<true>(src + group * cf, w[0] + off, w[1] + off, w[2] + off,
                                      w[3] + off, cf, offset, a);
            } else {
              for (int32_t k = 0; k < count; ++k) {
                const int32_t gk = (o + k) / g.co_per_group;
                a[k] += internal::dot_1x1<true>(src + gk * cf, w[k] + off, cf, offset);
              }
            }
          }
        }
        for (int32_t k = 0; k < count; ++k) {
          out[o + k] = rq(a[k] + internal::bias_or_zero(bias, o + k), o + k);
        }
      }
    }
  }
}

// The scratch's int16 columns for row calls: two, one (col1 null) or none (col0 null: the direct
// path runs), as portable_conv2d picks them.
struct Columns {
  int16_t* col0;
  int16_t* col1;
};
Columns columns_in(const Geometry& g, Scratch scratch) {
  // int16 columns need 2-byte alignment; skip a leading odd byte.
  const size_t skip = reinterpret_cast<uintptr_t>(scratch.data) & 1u;
  const size_t usable = scratch.size > skip ? scratch.size - skip : 0;
  const size_t col_bytes = static_cast<size_t>(g.col_len) * sizeof(int16_t);
  if (col_bytes == 0 || usable < col_bytes) return {nullptr, nullptr};
  int16_t* col0 = reinterpret_cast<int16_t*>(scratch.data + skip);
  return {col0, usable >= 2 * col_bytes ? col0 + g.col_len : nullptr};
}

// Output rows [y_begin, y_end) of one image through the columns or directly.
void conv_window_rows(const Geometry& g, internal::RowTable& rows, const int8_t* filter, const int32_t* bias,
                      const internal::OutputRows& out_rows, int32_t y_begin, int32_t y_end,
                      int16_t offset, const Columns& cols, const Requantizer& rq) {
  if (cols.col0 != nullptr) {
    conv_im2col_rows(g, rows, filter, bias, out_rows, y_begin, y_end, offset, cols.col0,
                     cols.col1, rq);
  } else {
    conv_direct_rows(g, rows, filter, bias, out_rows, y_begin, y_end, offset, rq);
  }
}

// Each input pixel is the column already: 1x1, no padding, full depth.
bool is_pointwise(const ConvShape& s) {
  return s.filter_h == 1 && s.filter_w == 1 && s.pad_h == 0 && s.pad_w == 0 &&
         s.filter_c == s.input_c && (s.output_h - 1) * s.stride_h < s.input_h &&
         (s.output_w - 1) * s.stride_w < s.input_w;
}

}  // namespace

size_t portable_conv_scratch_bytes(const ConvShape& shape) {
  if (is_pointwise(shape)) return 0;
  return 2 * static_cast<size_t>(shape.filter_h) * shape.filter_w * shape.filter_c * sizeof(int16_t);
}

void portable_conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output, Scratch scratch) {
  const ConvShape s = params.shape;  // a local copy: output stores (int8) could alias params
  // Shapes are verified before a program runs; these only keep nonsense away from divisions.
  if (s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 || s.dilation_w <= 0 || s.filter_c <= 0 ||
      s.input_c < s.filter_c) {
    return;
  }
  const Requantizer rq = internal::make_requantizer(params.output_multiplier, params.output_shift,
                                                    params.output_offset, params.act_min,
                                                    params.act_max);
  const int16_t offset = static_cast<int16_t>(params.input_offset);
  const int32_t groups = s.input_c / s.filter_c;
  const int32_t co_per_group = s.output_c / groups;
  if (co_per_group <= 0) return;
  const Geometry g{s, groups, co_per_group, s.filter_h * s.filter_w * s.filter_c};

  if (is_pointwise(s)) {
    if (params.backward_chunk > 0 && s.batches == 1 && s.output_h == 1 && s.stride_w == 1) {
      // Backward (conv2d_backward: one row of pixels): the same loop on each chunk, from the
      // last to the first.
      const internal::PixelChunks chunks{s.output_w, params.backward_chunk,
                                          params.backward_split};
      for (int32_t c = chunks.first(); c >= 0; c = chunks.before(c)) {
        ConvShape part = s;
        part.input_w = part.output_w = chunks.end(c) - c;
        conv_pointwise(part, input + static_cast<ptrdiff_t>(c) * s.input_c, filter, bias,
                       output + static_cast<ptrdiff_t>(c) * s.output_c, offset, rq);
      }
      return;
    }
    conv_pointwise(s, input, filter, bias, output, offset, rq);
    return;
  }

  // int16 columns need 2-byte alignment; skip a leading odd byte.
  const size_t skip = reinterpret_cast<uintptr_t>(scratch.data) & 1u;
  const size_t usable = scratch.size > skip ? scratch.size - skip : 0;
  const size_t col_bytes = static_cast<size_t>(g.col_len) * sizeof(int16_t);
  if (col_bytes > 0 && usable >= col_bytes) {
    int16_t* col0 = reinterpret_cast<int16_t*>(scratch.data + skip);
    int16_t* col1 = usable >= 2 * col_bytes ? col0 + g.col_len : nullptr;
    conv_im2col(g, input, filter, bias, output, offset, col0, col1, rq);
    return;
  }
  conv_direct(g, input, filter, bias, output, offset, rq);
}

void portable_conv2d_rows(const ConvParams& params, const int8_t* input, RowRing input_ring,
                          const int8_t* filter, const int32_t* bias, int8_t* output,
                          RowRing output_ring, int32_t y_begin, int32_t y_end, Scratch scratch) {
  const ConvShape s = params.shape;  // a local copy: output stores (int8) could alias params
  if (s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 || s.dilation_w <= 0 || s.filter_c <= 0 ||
      s.input_c < s.filter_c ||
      !internal::row_call_ok(s.batches, s.input_h, s.output_h, s.filter_h, s.stride_h, s.pad_h,
                             s.dilation_h, input_ring, output_ring, y_begin, y_end)) {
    return;
  }
  const Requantizer rq = internal::make_requantizer(params.output_multiplier, params.output_shift,
                                                    params.output_offset, params.act_min,
                                                    params.act_max);
  const int16_t offset = static_cast<int16_t>(params.input_offset);
  const int32_t groups = s.input_c / s.filter_c;
  const int32_t co_per_group = s.output_c / groups;
  if (co_per_group <= 0) return;
  const Geometry g{s, groups, co_per_group, s.filter_h * s.filter_w * s.filter_c};
  const ptrdiff_t in_row = static_cast<ptrdiff_t>(s.input_w) * s.input_c;
  const internal::OutputRows out_rows{output, static_cast<ptrdiff_t>(s.output_w) * s.output_c,
                                      output_ring.rows};
  const auto in_row_at = [&](int32_t iy) {
    return input + input_ring.slot(iy) * in_row;
  };

  if (is_pointwise(s)) {
    // Output row y reads input row y * stride_h alone: the pointwise loop on that row.
    ConvShape row = s;
    row.input_h = row.output_h = 1;
    for (int32_t y = y_begin; y < y_end; ++y) {
      conv_pointwise(row, in_row_at(y * s.stride_h), filter, bias, out_rows.row(y), offset, rq);
    }
    return;
  }
  const Columns cols = columns_in(g, scratch);
  internal::RowTable rows(input, in_row, input_ring.rows);
  conv_window_rows(g, rows, filter, bias, out_rows, y_begin, y_end, offset, cols, rq);
}

}  // namespace kernels
}  // namespace mote
