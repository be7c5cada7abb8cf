// mve DEPTHWISE_CONV_2D with int16 activations (16x8) or packed int4 weights: one output pixel at
// a time, four output channels per int32 vector (VMUL and VADD, each lane its own channel; the
// last channels predicated), the window's taps inside the input only (padding skipped, as in
// portable). The inputs load widened (VLDRH.S32 / VLDRB.S32; gathered by channel with a depth
// multiplier above 1); int4 weights gather each channel's byte and shift its nibble out by lane.
// The int32 sums are exact for 16x8 up to 511 taps (the table gives at most 256); 16x8 adds its
// int64 bias and requantizes four channels by one VRMULH (mve/requantize.h) where wide_16x8.h's
// sums_fit_int32 allows, else with the 64-bit step per channel; int4 requantizes as a vector
// (mve/requantize.h), and with a depth multiplier of 1 runs eight channels at a time on weights
// unpacked once per block (depthwise_int4_eight). No scratch (a bounded stack buffer).

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/kernels.h"
#include "mve/requantize.h"
#include "portable/direct_window.h"
#include "wide_16x8.h"

namespace mote {
namespace kernels {
namespace mve {
namespace {

// The taps [lo, hi) of a window row or column inside [0, size): position start + k * dilation.
inline void inside(int32_t start, int32_t dilation, int32_t taps, int32_t size, int32_t* lo,
                   int32_t* hi) {
  *lo = start < 0 ? (-start + dilation - 1) / dilation : 0;
  const int32_t room = size - start;
  const int32_t h = room <= 0 ? 0 : (room + dilation - 1) / dilation;
  *hi = h < taps ? h : taps;
}

struct Form16x8 {
  using Input = int16_t;
  using Output = int16_t;
  const int8_t* filter;
  const int64_t* bias;
  bool high_mul;  // wide_16x8::sums_fit_int32: four outputs by one VRMULH
  int32x4_t inputs(const int16_t* x, uint32x4_t channels, mve_pred16_t p) const {
    return vldrhq_gather_shifted_offset_z_s32(x, channels, p);
  }
  int32x4_t contiguous(const int16_t* x, mve_pred16_t p) const { return vldrhq_z_s32(x, p); }
  int32x4_t weights(size_t w, mve_pred16_t p) const { return vldrbq_z_s32(filter + w, p); }
  void finish(const DepthwiseConvParams& q, int32x4_t acc, int32_t c, int32_t count,
              int16_t* out) const {
    if (high_mul) {
      store_high_mul4(acc, bias == nullptr ? nullptr : bias + c, q.output_multiplier + c,
                      q.output_shift + c, q.act_min, q.act_max,
                      vctp32q(static_cast<uint32_t>(count)), out + c);
      return;
    }
    int32_t a[4];
    vstrwq_s32(a, acc);
    for (int32_t k = 0; k < count; ++k) {
      int64_t sum = a[k];
      if (bias != nullptr) sum += bias[c + k];
      const int32_t v = direct::requantize(sum, q.output_multiplier[c + k], q.output_shift[c + k]);
      out[c + k] = static_cast<int16_t>(direct::clamp(v, q.act_min, q.act_max));
    }
  }
};

struct FormInt4 {
  using Input = int8_t;
  using Output = int8_t;
  const uint8_t* filter;
  const int32_t* bias;
  int32_t input_offset;
  OutputStage stage;
  int32x4_t inputs(const int8_t* x, uint32x4_t channels, mve_pred16_t p) const {
    return vaddq_n_s32(vldrbq_gather_offset_z_s32(x, channels, p), input_offset);
  }
  int32x4_t contiguous(const int8_t* x, mve_pred16_t p) const {
    return vaddq_n_s32(vldrbq_z_s32(x, p), input_offset);
  }
  // Elements w..w+3: lane k's byte is ((w & 1) + k) / 2 from filter + w / 2; its nibble is moved
  // to the top (left by 28 for a low nibble, 24 for a high one), then shifted back, signed.
  int32x4_t weights(size_t w, mve_pred16_t p) const {
    const uint32x4_t index = vidupq_n_u32(0, 1);
    const uint32x4_t odd = vandq_u32(index, vdupq_n_u32(1));
    const bool start_odd = (w & 1) != 0;
    const uint32x4_t offsets = vshrq_n_u32(start_odd ? vaddq_n_u32(index, 1) : index, 1);
    // A low nibble where w + k is even.
    const uint32x4_t high = start_odd ? veorq_u32(odd, vdupq_n_u32(1)) : odd;
    const int32x4_t shifts =
        vsubq_s32(vdupq_n_s32(28), vreinterpretq_s32_u32(vshlq_n_u32(high, 2)));
    const int32x4_t bytes =
        vreinterpretq_s32_u32(vldrbq_gather_offset_z_u32(filter + (w >> 1), offsets, p));
    return vshrq_n_s32(vshlq_s32(bytes, shifts), 28);
  }
  void finish(const DepthwiseConvParams& q, int32x4_t acc, int32_t c, int32_t count,
              int8_t* out) const {
    const mve_pred16_t p = vctp32q(static_cast<uint32_t>(count));
    if (bias != nullptr) acc = vaddq_s32(acc, vldrwq_z_s32(bias + c, p));
    const int32x4_t v = stage.apply(acc, vldrwq_z_s32(q.output_multiplier + c, p),
                                    split_shifts(vldrwq_z_s32(q.output_shift + c, p)));
    vstrbq_p_s32(out + c, v, p);
  }
};

template <bool kMultiplierOne, typename Form>
void depthwise_with(const DepthwiseConvParams& params, const typename Form::Input* input,
                    const Form& form, typename Form::Output* output) {
  const DepthwiseConvParams p = params;
  const DepthwiseShape& s = p.shape;
  const int32_t ic = s.input_c, oc = s.output_c, m = oc / ic;
  typename Form::Output* out = output;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t oy = 0; oy < s.output_h; ++oy) {
      const int32_t y0 = oy * s.stride_h - s.pad_h;
      int32_t ky0, ky1;
      inside(y0, s.dilation_h, s.filter_h, s.input_h, &ky0, &ky1);
      for (int32_t ox = 0; ox < s.output_w; ++ox, out += oc) {
        const int32_t x0 = ox * s.stride_w - s.pad_w;
        int32_t kx0, kx1;
        inside(x0, s.dilation_w, s.filter_w, s.input_w, &kx0, &kx1);
        for (int32_t c = 0; c < oc; c += 4) {
          const int32_t count = oc - c < 4 ? oc - c : 4;
          const mve_pred16_t pred = vctp32q(static_cast<uint32_t>(count));
          // The input channel of each output channel (a depth multiplier above 1).
          uint32x4_t channels = vdupq_n_u32(0);
          if (!kMultiplierOne) {
            uint32_t ch[4];
            for (int32_t k = 0; k < 4; ++k)
              ch[k] = static_cast<uint32_t>((c + (k < count ? k : 0)) / m);
            channels = vldrwq_u32(ch);
          }
          int32x4_t acc = vdupq_n_s32(0);
          for (int32_t ky = ky0; ky < ky1; ++ky) {
            const int32_t iy = y0 + ky * s.dilation_h;
            for (int32_t kx = kx0; kx < kx1; ++kx) {
              const int32_t ix = x0 + kx * s.dilation_w;
              const typename Form::Input* x =
                  input + ((static_cast<size_t>(b) * s.input_h + iy) * s.input_w + ix) * ic;
              const size_t w = (static_cast<size_t>(ky) * s.filter_w + kx) * oc + c;
              const int32x4_t xv =
                  kMultiplierOne ? form.contiguous(x + c, pred) : form.inputs(x, channels, pred);
              acc = vaddq_s32(acc, vmulq_s32(xv, form.weights(w, pred)));
            }
          }
          form.finish(p, acc, c, count, out);
        }
      }
    }
  }
}

// int4 with a depth multiplier of 1, at most kMaxInt4Taps taps: eight channels at a time in int16
// lanes. Each block of eight channels first unpacks its weights, every tap's, onto the stack (one
// gather of their bytes, lane k's byte ((w & 1) + k) / 2, and a shift pair that moves its nibble
// to the top and back, signed); then every output pixel runs its taps on them: the inputs plus
// their offset (|x + io| <= 255), VMULLB and VMULLT widening the products into the even and the
// odd channels' int32 sums, requantized as vectors and stored with a stride of 2.
constexpr int32_t kMaxInt4Taps = 64;  // 1 KB of stack

void depthwise_int4_eight(const DepthwiseConvParams& params, const int8_t* input,
                          const uint8_t* filter, const int32_t* bias, const OutputStage& stage,
                          int8_t* output) {
  const DepthwiseConvParams p = params;
  const DepthwiseShape& s = p.shape;
  const int32_t oc = s.output_c, taps = s.filter_h * s.filter_w;
  const uint16x8_t lanes = vidupq_n_u16(0, 1);
  const uint32x4_t stride2 = vidupq_n_u32(0, 2);
  const int16_t io = static_cast<int16_t>(p.input_offset);
  int16_t weights[kMaxInt4Taps * 8];
  for (int32_t c = 0; c < oc; c += 8) {
    const int32_t count = oc - c < 8 ? oc - c : 8;
    const mve_pred16_t pred = vctp16q(static_cast<uint32_t>(count));
    for (int32_t t = 0; t < taps; ++t) {
      const size_t w = static_cast<size_t>(t) * oc + c;
      const uint16x8_t e = vaddq_n_u16(lanes, static_cast<uint16_t>(w & 1));
      const int16x8_t left = vreinterpretq_s16_u16(
          vsubq_u16(vdupq_n_u16(12), vshlq_n_u16(vandq_u16(e, vdupq_n_u16(1)), 2)));
      const int16x8_t bytes = vreinterpretq_s16_u16(
          vldrbq_gather_offset_z_u16(filter + (w >> 1), vshrq_n_u16(e, 1), pred));
      vstrhq_s16(weights + t * 8, vshrq_n_s16(vshlq_s16(bytes, left), 12));
    }
    for (int32_t b = 0; b < s.batches; ++b) {
      for (int32_t oy = 0; oy < s.output_h; ++oy) {
        const int32_t y0 = oy * s.stride_h - s.pad_h;
        int32_t ky0, ky1;
        inside(y0, s.dilation_h, s.filter_h, s.input_h, &ky0, &ky1);
        int8_t* out = output + ((static_cast<size_t>(b) * s.output_h + oy) * s.output_w) * oc + c;
        for (int32_t ox = 0; ox < s.output_w; ++ox, out += oc) {
          const int32_t x0 = ox * s.stride_w - s.pad_w;
          int32_t kx0, kx1;
          inside(x0, s.dilation_w, s.filter_w, s.input_w, &kx0, &kx1);
          int32x4_t even = vdupq_n_s32(0), odd = vdupq_n_s32(0);
          for (int32_t ky = ky0; kx0 < kx1 && ky < ky1; ++ky) {
            const int32_t iy = y0 + ky * s.dilation_h;
            const int8_t* x = input +
                              ((static_cast<size_t>(b) * s.input_h + iy) * s.input_w + x0 +
                               kx0 * s.dilation_w) * oc + c;
            const int16_t* wt = weights + (ky * s.filter_w + kx0) * 8;
            const size_t step = static_cast<size_t>(s.dilation_w) * oc;
            for (int32_t kx = kx0; kx < kx1; ++kx, x += step, wt += 8) {
              // A whole block loads unpredicated (keeping VPST out of the loop).
              const int16x8_t loaded = count == 8 ? vldrbq_s16(x) : vldrbq_z_s16(x, pred);
              const int16x8_t xv = vaddq_n_s16(loaded, io);
              const int16x8_t wv = vldrhq_s16(wt);
              even = vaddq_s32(even, vmullbq_int_s16(xv, wv));
              odd = vaddq_s32(odd, vmulltq_int_s16(xv, wv));
            }
          }
          // Channels c, c + 2, ... in `even`; c + 1, c + 3, ... in `odd`.
          for (int32_t half = 0; half < 2; ++half) {
            const mve_pred16_t q = vctp32q(static_cast<uint32_t>((count - half + 1) / 2));
            int32x4_t acc = half == 0 ? even : odd;
            if (bias != nullptr) {
              acc = vaddq_s32(acc, vldrwq_gather_shifted_offset_z_s32(bias + c + half, stride2, q));
            }
            const int32x4_t multiplier =
                vldrwq_gather_shifted_offset_z_s32(p.output_multiplier + c + half, stride2, q);
            const int32x4_t shift =
                vldrwq_gather_shifted_offset_z_s32(p.output_shift + c + half, stride2, q);
            vstrbq_scatter_offset_p_s32(out + half, stride2,
                                        stage.apply(acc, multiplier, split_shifts(shift)), q);
          }
        }
      }
    }
  }
}

template <typename Form>
void depthwise(const DepthwiseConvParams& params, const typename Form::Input* input,
               const Form& form, typename Form::Output* output) {
  if (params.shape.output_c == params.shape.input_c) {
    depthwise_with<true>(params, input, form, output);
  } else {
    depthwise_with<false>(params, input, form, output);
  }
}

}  // namespace

void depthwise_conv2d_16x8(const DepthwiseConvParams& params, const int16_t* input,
                           const int8_t* filter, const int64_t* bias, int16_t* output) {
  const DepthwiseShape& s = params.shape;
  const bool high_mul =
      wide_16x8::sums_fit_int32(params.output_multiplier, params.output_shift, s.output_c, bias,
                                s.output_c, int64_t{s.filter_h} * s.filter_w);
  depthwise(params, input, Form16x8{filter, bias, high_mul}, output);
}

void depthwise_conv2d_int4(const DepthwiseConvParams& params, const int8_t* input,
                           const uint8_t* filter, const int32_t* bias, int8_t* output) {
  const OutputStage stage = make_output_stage(params.output_offset, params.act_min, params.act_max);
  const DepthwiseShape& s = params.shape;
  if (s.output_c == s.input_c && s.filter_h * s.filter_w <= kMaxInt4Taps) {
    depthwise_int4_eight(params, input, filter, bias, stage, output);
    return;
  }
  depthwise(params, input, FormInt4{filter, bias, params.input_offset, stage}, output);
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
