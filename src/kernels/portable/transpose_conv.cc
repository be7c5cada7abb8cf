// int8 TRANSPOSE_CONV computed as a gather: output row y receives filter row ky from input row iy
// exactly when iy * stride_h + ky = y + pad_h, so each output pixel sums over the few (iy, ky) and
// (ix, kx) pairs that satisfy it. This equals TFLite's scatter into an int32 buffer the size of the
// output, without the buffer: each sum is complete before it is requantized.

#include "mote/kernels/transpose_conv.h"

#include <stddef.h>
#include <stdint.h>

#include "conv_internal.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

int32_t floor_div(int32_t a, int32_t b) {  // b > 0
  const int32_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Input indices i in [0, in) with i * stride + k = t for some k in [0, filter): i in [lo, hi].
void input_range(int32_t t, int32_t stride, int32_t filter, int32_t in, int32_t* lo, int32_t* hi) {
  *lo = internal::max_i32(0, floor_div(t - filter, stride) + 1);
  *hi = internal::min_i32(in - 1, floor_div(t, stride));
}

}  // namespace

void transpose_conv2d(const TransposeConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch) {
  const TransposeConvShape s = params.shape;  // a local copy: output stores (int8) could alias params
  // Shapes are verified before a program runs; this only keeps nonsense away from divisions.
  if (s.stride_h <= 0 || s.stride_w <= 0) return;
  const internal::Requantizer rq = internal::make_requantizer(
      params.output_multiplier, params.output_shift, params.output_offset, params.act_min,
      params.act_max);
  const int16_t offset = static_cast<int16_t>(params.input_offset);
  const int32_t ci = s.input_c;
  const int32_t co = s.output_c;
  const ptrdiff_t tap_stride = ci;                                  // next kx within a filter row
  const ptrdiff_t channel_stride = static_cast<ptrdiff_t>(s.filter_h) * s.filter_w * ci;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t y = 0; y < s.output_h; ++y) {
      const int32_t ty = y + s.pad_h;
      int32_t iy_lo, iy_hi;
      input_range(ty, s.stride_h, s.filter_h, s.input_h, &iy_lo, &iy_hi);
      for (int32_t x = 0; x < s.output_w; ++x) {
        const int32_t tx = x + s.pad_w;
        int32_t ix_lo, ix_hi;
        input_range(tx, s.stride_w, s.filter_w, s.input_w, &ix_lo, &ix_hi);
        int8_t* out = output + ((static_cast<ptrdiff_t>(b) * s.output_h + y) * s.output_w + x) * co;
        int32_t oc = 0;
        for (; oc < co; oc += 4) {
          const int32_t count = internal::min_i32(4, co - oc);
          int32_t a[4] = {0, 0, 0, 0};
          for (int32_t iy = iy_lo; iy <= iy_hi; ++iy) {
            const int32_t ky = ty - iy * s.stride_h;
            for (int32_t ix = ix_lo; ix <= ix_hi; ++ix) {
              const int32_t kx = tx - ix * s.stride_w;
              const int8_t* px =
                  input + ((static_cast<ptrdiff_t>(b) * s.input_h + iy) * s.input_w + ix) * ci;
              const int8_t* w0 = filter + oc * channel_stride +
                                 (static_cast<ptrdiff_t>(ky) * s.filter_w + kx) * tap_stride;
              if (count == 4) {
                internal::dot_1x4<true>(px, w0, w0 + channel_stride, w0 + 2 * channel_stride,
                                        w0 + 3 * channel_stride, ci, offset, a);
              } else {
                for (int32_t k = 0; k < count; ++k) {
                  a[k] += internal::dot_1x1<true>(px, w0 + k * channel_stride, ci, offset);
                }
              }
            }
          }
          for (int32_t k = 0; k < count; ++k) {
            out[oc + k] = rq(a[k] + internal::bias_or_zero(bias, oc + k), oc + k);
          }
        }
      }
    }
  }
}

// 16x8: the same gather in int64, as TFLite's reference int16 TransposeConv scatters into an
// int64 buffer and requantizes with the 64-bit multiplier.
void transpose_conv2d_16x8(const TransposeConvParams& params, const int16_t* input,
                           const int8_t* filter, const int64_t* bias, int16_t* output) {
  const TransposeConvShape s = params.shape;
  if (s.stride_h <= 0 || s.stride_w <= 0) return;
  const int32_t ci = s.input_c, co = s.output_c;
  const ptrdiff_t channel_stride = static_cast<ptrdiff_t>(s.filter_h) * s.filter_w * ci;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t y = 0; y < s.output_h; ++y) {
      const int32_t ty = y + s.pad_h;
      int32_t iy_lo, iy_hi;
      input_range(ty, s.stride_h, s.filter_h, s.input_h, &iy_lo, &iy_hi);
      for (int32_t x = 0; x < s.output_w; ++x) {
        const int32_t tx = x + s.pad_w;
        int32_t ix_lo, ix_hi;
        input_range(tx, s.stride_w, s.filter_w, s.input_w, &ix_lo, &ix_hi);
        int16_t* out = output + ((static_cast<ptrdiff_t>(b) * s.output_h + y) * s.output_w + x) * co;
        for (int32_t oc = 0; oc < co; ++oc) {
          int64_t acc = 0;
          for (int32_t iy = iy_lo; iy <= iy_hi; ++iy) {
            const int32_t ky = ty - iy * s.stride_h;
            for (int32_t ix = ix_lo; ix <= ix_hi; ++ix) {
              const int32_t kx = tx - ix * s.stride_w;
              const int16_t* px =
                  input + ((static_cast<ptrdiff_t>(b) * s.input_h + iy) * s.input_w + ix) * ci;
              const int8_t* w = filter + oc * channel_stride +
                                (static_cast<ptrdiff_t>(ky) * s.filter_w + kx) * ci;
              for (int32_t c = 0; c < ci; ++c) acc += int32_t{px[c]} * w[c];
            }
          }
          if (bias != nullptr) acc += bias[oc];
          int32_t v = multiply_by_quantized_multiplier_64(acc, params.output_multiplier[oc],
                                                          params.output_shift[oc]);
          v = v < params.act_min ? params.act_min : (v > params.act_max ? params.act_max : v);
          out[oc] = static_cast<int16_t>(v);
        }
      }
    }
  }
}

}  // namespace kernels
}  // namespace mote
