// mve DEPTHWISE_CONV_2D, depth multiplier 1: channels in four int32 lanes (VLDRB widening loads,
// VMUL and VADD), four output pixels of a row at a time where all four windows are whole in x, so
// that each filter load feeds four multiply-accumulates; one pixel at a time at the borders (only its
// in-bounds taps). The input offset leaves the inner loop: sum (x + io) w = sum x w + io sum w,
// with sum w over the taps used, accumulated beside. Channel tails are predicated (VCTP32).
// 3x3 filters get the taps of a filter row unrolled.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/kernels.h"
#include "mve/requantize.h"
#include "portable/window.h"

namespace mote {
namespace kernels {
namespace mve {
namespace {

struct Layer {
  DepthwiseShape s;
  const int8_t* input;
  const int8_t* filter;
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* shift;
  int32_t io;
  OutputStage stage;
};

// a + x * w: MVE has no vector-by-vector integer multiply-accumulate (VMLA takes a scalar).
inline int32x4_t mla(int32x4_t a, int32x4_t x, int32x4_t w) { return vaddq_s32(a, vmulq_s32(x, w)); }

inline int32x4_t bias_lanes(const int32_t* bias, int32_t c, mve_pred16_t p) {
  return bias != nullptr ? vldrwq_z_s32(bias + c, p) : vdupq_n_s32(0);
}

// Four output pixels (x, x + 1, x + 2, x + 3) of row y, batch b, all of whose windows are whole
// in x; filter rows [ky_begin, ky_end). kFilterW: the filter width when fixed (3), else 0.
template <int kFilterW>
void four_pixels(const Layer& l, int32_t b, int32_t iy0, int32_t ky_begin, int32_t ky_end,
                 int32_t x, int8_t* out) {
  const DepthwiseShape& s = l.s;
  const int32_t c_count = s.input_c;
  const int32_t fw = kFilterW != 0 ? kFilterW : s.filter_w;
  const ptrdiff_t step = static_cast<ptrdiff_t>(s.stride_w) * c_count;  // pixel to pixel
  const ptrdiff_t tap = static_cast<ptrdiff_t>(s.dilation_w) * c_count;
  const ptrdiff_t wtap = c_count;
  const int32_t ix0 = x * s.stride_w - s.pad_w;
  const int8_t* batch = l.input + static_cast<ptrdiff_t>(b) * s.input_h * s.input_w * c_count;
  for (int32_t c = 0; c < c_count; c += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(c_count - c));
    const int32x4_t start = bias_lanes(l.bias, c, p);
    int32x4_t a0 = start, a1 = start, a2 = start, a3 = start;
    int32x4_t ws = vdupq_n_s32(0);
    for (int32_t ky = ky_begin; ky < ky_end; ++ky) {
      const int32_t iy = iy0 + ky * s.dilation_h;
      const int8_t* px = batch + (static_cast<ptrdiff_t>(iy) * s.input_w + ix0) * c_count + c;
      const int8_t* pw = l.filter + static_cast<ptrdiff_t>(ky) * fw * c_count + c;
#pragma GCC unroll 3
      for (int32_t kx = 0; kx < fw; ++kx, px += tap, pw += wtap) {
        const int32x4_t w = vldrbq_z_s32(pw, p);
        ws = vaddq_s32(ws, w);
        a0 = mla(a0, vldrbq_z_s32(px, p), w);
        a1 = mla(a1, vldrbq_z_s32(px + step, p), w);
        a2 = mla(a2, vldrbq_z_s32(px + 2 * step, p), w);
        a3 = mla(a3, vldrbq_z_s32(px + 3 * step, p), w);
      }
    }
    a0 = vmlaq_n_s32(a0, ws, l.io);
    a1 = vmlaq_n_s32(a1, ws, l.io);
    a2 = vmlaq_n_s32(a2, ws, l.io);
    a3 = vmlaq_n_s32(a3, ws, l.io);
    const int32x4_t m = vldrwq_z_s32(l.multiplier + c, p);
    const Shifts sh = split_shifts(vldrwq_z_s32(l.shift + c, p));
    vstrbq_p_s32(out + c, l.stage.apply(a0, m, sh), p);
    vstrbq_p_s32(out + c_count + c, l.stage.apply(a1, m, sh), p);
    vstrbq_p_s32(out + 2 * c_count + c, l.stage.apply(a2, m, sh), p);
    vstrbq_p_s32(out + 3 * c_count + c, l.stage.apply(a3, m, sh), p);
  }
}

// One output pixel with its in-bounds taps only.
void one_pixel(const Layer& l, int32_t b, const internal::PixelWindow& pw_in, int8_t* out) {
  const DepthwiseShape& s = l.s;
  const internal::PixelWindow w = pw_in;
  const int32_t c_count = s.input_c;
  const int8_t* batch = l.input + static_cast<ptrdiff_t>(b) * s.input_h * s.input_w * c_count;
  for (int32_t c = 0; c < c_count; c += 4) {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(c_count - c));
    int32x4_t a = bias_lanes(l.bias, c, p);
    int32x4_t ws = vdupq_n_s32(0);
    for (int32_t ky = w.ky_begin; ky < w.ky_end; ++ky) {
      const int32_t iy = w.iy0 + ky * s.dilation_h;
      for (int32_t kx = w.kx_begin; kx < w.kx_end; ++kx) {
        const int32_t ix = w.ix0 + kx * s.dilation_w;
        const int32x4_t f = vldrbq_z_s32(
            l.filter + static_cast<ptrdiff_t>(ky * s.filter_w + kx) * c_count + c, p);
        ws = vaddq_s32(ws, f);
        a = mla(
            a, vldrbq_z_s32(batch + (static_cast<ptrdiff_t>(iy) * s.input_w + ix) * c_count + c, p),
            f);
      }
    }
    a = vmlaq_n_s32(a, ws, l.io);
    const int32x4_t m = vldrwq_z_s32(l.multiplier + c, p);
    vstrbq_p_s32(out + c, l.stage.apply(a, m, split_shifts(vldrwq_z_s32(l.shift + c, p))), p);
  }
}

}  // namespace

void depthwise_conv2d(const DepthwiseConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch) {
  const DepthwiseShape s = params.shape;  // a local copy: output stores (int8) could alias params
  if (s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 || s.dilation_w <= 0 ||
      s.input_c <= 0 || s.output_c != s.input_c) {
    portable_depthwise_conv2d(params, input, filter, bias, output, scratch);
    return;
  }
  const Layer l{s,
                input,
                filter,
                bias,
                params.output_multiplier,
                params.output_shift,
                params.input_offset,
                make_output_stage(params.output_offset, params.act_min, params.act_max)};
  const int32_t c_count = s.input_c;
  internal::PixelWindow pw;
  int8_t* out = output;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t y = 0; y < s.output_h; ++y) {
      internal::window_rows(s, y, pw);
      int32_t x = 0;
      while (x < s.output_w) {
        internal::window_columns(s, x, pw);
        // Four pixels whose windows are all whole in x (the first and the last decide it).
        if (x + 4 <= s.output_w && pw.kx_begin == 0 && pw.kx_end == s.filter_w &&
            (x + 3) * s.stride_w - s.pad_w + (s.filter_w - 1) * s.dilation_w < s.input_w) {
          if (s.filter_w == 3) {
            four_pixels<3>(l, b, pw.iy0, pw.ky_begin, pw.ky_end, x, out);
          } else {
            four_pixels<0>(l, b, pw.iy0, pw.ky_begin, pw.ky_end, x, out);
          }
          x += 4;
          out += 4 * c_count;
        } else {
          one_pixel(l, b, pw, out);
          ++x;
          out += c_count;
        }
      }
    }
  }
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
