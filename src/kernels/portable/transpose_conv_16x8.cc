// TRANSPOSE_CONV with int16 activations (16x8): the int8 kernel's gather (each output pixel sums
// the (iy, ky), (ix, kx) pairs that reach it) in int64, as TFLite's reference int16 TransposeConv
// scatters into an int64 buffer and requantizes with the 64-bit multiplier.

#include "mote/kernels/quantization.h"
#include "mote/kernels/transpose_conv.h"

#include <stddef.h>

namespace mote {
namespace kernels {
namespace {

int32_t floor_div(int32_t a, int32_t b) {  // b > 0
  const int32_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Input indices i in [0, in) with i * stride + k = t for some k in [0, filter): i in [lo, hi].
void input_range(int32_t t, int32_t stride, int32_t filter, int32_t in, int32_t* lo, int32_t* hi) {
  const int32_t first = floor_div(t - filter, stride) + 1;
  const int32_t last = floor_div(t, stride);
  *lo = first > 0 ? first : 0;
  *hi = last < in - 1 ? last : in - 1;
}

}  // namespace

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
