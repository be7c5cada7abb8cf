// mve DEPTHWISE_CONV_2D with int16 activations (16x8) or packed int4 weights: one output pixel at
// a time, four output channels per int32 vector (VMUL and VADD, each lane its own channel; the
// last channels predicated), the window's taps inside the input only (padding skipped, as in
// portable). The inputs load widened (VLDRH.S32 / VLDRB.S32; gathered by channel with a depth
// multiplier above 1); int4 weights gather each channel's byte and shift its nibble out by lane.
// The int32 sums are exact for 16x8 up to 511 taps (the table gives at most 256); 16x8 adds its
// int64 bias and requantizes four channels by one VRMULH (mve/requantize.h) where wide_16x8.h's
// sums_fit_int32 allows, else with the 64-bit step per channel; int4 requantizes as a vector
// (mve/requantize.h), and with a depth multiplier of 1 runs sixteen channels at a time in int16
// sums (at most 16 taps: depthwise_int4_sixteen) or eight in int32 sums (at most 64:
// depthwise_int4_eight), on weights unpacked once per block of channels. No scratch (bounded
// stack buffers).

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

// int4 with a depth multiplier of 1, at most kMaxInt16Taps taps: sixteen channels at a time in
// int8 lanes, VMULLB and VMULLT widening the products x w of the even and the odd channels into
// int16 sums (|x w| <= 128 * 8: 16 taps' sums stay within int16, exact). The input offset's term
// io sum w is a constant of the channel when every tap is counted: a tap in the padding counts
// with the input zero point -io for x (its (x + io) w is 0, as portable's skipped tap). Each
// block of channels first unpacks its weights, every tap's, onto the stack (256 bytes) and its
// per-channel constants: the bias plus io sum w, the multipliers and the shifts split in two.
// The sums go to the stack in channel order (VST2), then into int32 lanes four channels at a
// time, requantized as vectors (mve/requantize.h). The last channels predicated.
constexpr int32_t kMaxInt16Taps = 16;

// The taps [lo, hi) of a window row or column inside [0, size), as inside(), without its
// divisions for a dilation of 1.
inline void inside_fast(int32_t start, int32_t dilation, int32_t taps, int32_t size, int32_t* lo,
                        int32_t* hi) {
  if (dilation != 1) {
    inside(start, dilation, taps, size, lo, hi);
    return;
  }
  *lo = start < 0 ? -start : 0;
  const int32_t room = size - start;
  *hi = room < 0 ? 0 : (room < taps ? room : taps);
}

// Sixteen channels' int16 sums (even channels in `even`, odd ones in `odd`) requantized: widened
// into four groups (VMOVLB/VMOVLT: channels 4l + {0, 2, 1, 3}), each plus its constants and
// requantized as mve/requantize.h's OutputStage::apply, then narrowed back into channel order
// (VQMOVNB/VQMOVNT into int16 and into int8, saturating, so that the clamp there, within int8,
// equals the int32 one) and stored as one vector.
template <bool kPredicated>
__attribute__((always_inline)) inline void finish16(int16x8_t even, int16x8_t odd,
                                                    const int32_t* constants, bool left_shift,
                                                    const OutputStage& st, mve_pred16_t pred,
                                                    int8_t* out) {
  int32x4_t g[4] = {vmovlbq_s16(even), vmovltq_s16(even), vmovlbq_s16(odd), vmovltq_s16(odd)};
  for (int i = 0; i < 4; ++i) {
    const int32_t* k = constants + 16 * i;
    int32x4_t acc = vaddq_s32(g[i], vldrwq_s32(k));
    if (left_shift) acc = vshlq_s32(acc, vldrwq_s32(k + 8));
    const int32x4_t right = vldrwq_s32(k + 12);
    int32x4_t h = vqrdmulhq_s32(acc, vldrwq_s32(k + 4));
    h = vqaddq_s32(h, vshrq_n_s32(vandq_s32(h, right), 31));
    g[i] = vaddq_n_s32(vrshlq_s32(h, right), st.output_offset);
  }
  const int16x8_t e = vqmovntq_s32(vqmovnbq_s32(vuninitializedq_s16(), g[0]), g[1]);
  const int16x8_t o = vqmovntq_s32(vqmovnbq_s32(vuninitializedq_s16(), g[2]), g[3]);
  int8x16_t v = vqmovntq_s16(vqmovnbq_s16(vuninitializedq_s8(), e), o);
  v = vminq_s8(vmaxq_s8(v, vdupq_n_s8(static_cast<int8_t>(st.act_min))),
               vdupq_n_s8(static_cast<int8_t>(st.act_max)));
  if (kPredicated) {
    vstrbq_p_s8(out, v, pred);
  } else {
    vstrbq_s8(out, v);
  }
}

template <bool kPredicated>
__attribute__((noinline)) void depthwise_int4_sixteen(const DepthwiseConvParams& params,
                                                      const int8_t* input, const uint8_t* filter,
                                                      const int32_t* bias,
                                                      const OutputStage& stage, int32_t c,
                                                      int32_t count, int8_t* output) {
  const DepthwiseConvParams& p = params;
  const DepthwiseShape& s = p.shape;
  const int32_t oc = s.output_c, taps = s.filter_h * s.filter_w;
  const mve_pred16_t pred = vctp8q(static_cast<uint32_t>(count));
  int8_t weights[kMaxInt16Taps * 16];
  // Four lanes of int32 constants per requantization group i (channels 4l + kGroup[i], lanes
  // l): the bias plus io sum w, the multipliers, the left and the right shifts.
  constexpr int32_t kGroup[4] = {0, 2, 1, 3};
  int32_t constants[4 * 16];
  bool left_shift = false;
  {
    const uint8x16_t lanes = vidupq_n_u8(0, 1);
    for (int32_t t = 0; t < taps; ++t) {
      // Lane k's byte is ((w & 1) + k) / 2 from filter + w / 2; a low nibble moved to the top
      // of the lane, then every lane shifted back by 4, signed.
      const size_t w = static_cast<size_t>(t) * oc + c;
      const uint8x16_t e = vaddq_n_u8(lanes, static_cast<uint8_t>(w & 1));
      const int8x16_t up = vreinterpretq_s8_u8(
          vsubq_u8(vdupq_n_u8(4), vshlq_n_u8(vandq_u8(e, vdupq_n_u8(1)), 2)));
      const uint8x16_t offsets = vshrq_n_u8(e, 1);
      const int8x16_t bytes = vreinterpretq_s8_u8(
          kPredicated ? vldrbq_gather_offset_z_u8(filter + (w >> 1), offsets, pred)
                      : vldrbq_gather_offset_u8(filter + (w >> 1), offsets));
      vstrbq_s8(weights + t * 16, vshrq_n_s8(vshlq_s8(bytes, up), 4));
    }
    for (int32_t i = 0; i < 4; ++i) {
      for (int32_t l = 0; l < 4; ++l) {
        const int32_t k = 4 * l + kGroup[i];
        int32_t* q = constants + 16 * i + l;
        if (k >= count) {
          q[0] = q[4] = q[8] = q[12] = 0;
          continue;
        }
        int32_t weight_sum = 0;
        for (int32_t t = 0; t < taps; ++t) weight_sum += weights[t * 16 + k];
        const uint32_t b = bias == nullptr ? 0u : static_cast<uint32_t>(bias[c + k]);
        q[0] = static_cast<int32_t>(b + static_cast<uint32_t>(p.input_offset) *
                                            static_cast<uint32_t>(weight_sum));
        q[4] = p.output_multiplier[c + k];
        const int32_t shift = p.output_shift[c + k];
        q[8] = shift > 0 ? shift : 0;
        q[12] = shift > 0 ? 0 : shift;
        left_shift = left_shift || shift > 0;
      }
    }
  }
  const int8x16_t zero_point = vdupq_n_s8(static_cast<int8_t>(-p.input_offset));
  const OutputStage st = stage;
  // The shape in locals (the stores to the stack would make gcc reload it from params).
  const int32_t batches = s.batches, input_h = s.input_h, input_w = s.input_w;
  const int32_t output_h = s.output_h, output_w = s.output_w;
  const int32_t filter_h = s.filter_h, filter_w = s.filter_w;
  const int32_t stride_h = s.stride_h, stride_w = s.stride_w, pad_h = s.pad_h, pad_w = s.pad_w;
  const int32_t dilation_h = s.dilation_h, dilation_w = s.dilation_w;
  const ptrdiff_t step = static_cast<ptrdiff_t>(dilation_w) * oc;
  const ptrdiff_t row_step = static_cast<ptrdiff_t>(dilation_h) * input_w * oc;
  const bool is3x3 = filter_h == 3 && filter_w == 3;
  const auto load = [&](const int8_t* x) { return kPredicated ? vldrbq_z_s8(x, pred) : vldrbq_s8(x); };
  for (int32_t b = 0; b < batches; ++b) {
    for (int32_t oy = 0; oy < output_h; ++oy) {
      const int32_t y0 = oy * stride_h - pad_h;
      int32_t ky0, ky1;
      inside_fast(y0, dilation_h, filter_h, input_h, &ky0, &ky1);
      const bool rows_whole = ky0 == 0 && ky1 == filter_h;
      int8_t* out = output + ((static_cast<size_t>(b) * output_h + oy) * output_w) * oc + c;
      // The window's first tap, (y0, x0): not read where it lies in the padding.
      const int8_t* corner =
          input + ((static_cast<ptrdiff_t>(b) * input_h + y0) * input_w - pad_w) * oc + c;
      const ptrdiff_t corner_step = static_cast<ptrdiff_t>(stride_w) * oc;
      for (int32_t ox = 0; ox < output_w; ++ox, out += oc, corner += corner_step) {
        const int32_t x0 = ox * stride_w - pad_w;
        int32_t kx0, kx1;
        inside_fast(x0, dilation_w, filter_w, input_w, &kx0, &kx1);
        int16x8_t even = vdupq_n_s16(0), odd = vdupq_n_s16(0);
        const auto tap = [&](int8x16_t xv, const int8_t* wt) {
          const int8x16_t wv = vldrbq_s8(wt);
          even = vaddq_s16(even, vmullbq_int_s8(xv, wv));
          odd = vaddq_s16(odd, vmulltq_int_s8(xv, wv));
        };
        if (rows_whole && kx0 == 0 && kx1 == filter_w) {
          if (is3x3) {
            // A row of three taps a step (unrolled whole, gcc loads every tap first and spills).
            const int8_t* x = corner;
            const int8_t* wt = weights;
#pragma GCC unroll 1
            for (int32_t ky = 0; ky < 3; ++ky, x += row_step, wt += 48) {
              tap(load(x), wt);
              tap(load(x + step), wt + 16);
              tap(load(x + 2 * step), wt + 32);
            }
          } else {
            const int8_t* wt = weights;
            const int8_t* row = corner;
            for (int32_t ky = 0; ky < filter_h; ++ky, row += row_step) {
              const int8_t* x = row;
              for (int32_t kx = 0; kx < filter_w; ++kx, x += step, wt += 16) tap(load(x), wt);
            }
          }
        } else {
          const int8_t* wt = weights;
          const int8_t* row = corner;
          for (int32_t ky = 0; ky < filter_h; ++ky, row += row_step) {
            const bool row_in = ky >= ky0 && ky < ky1;
            const int8_t* x = row;
            for (int32_t kx = 0; kx < filter_w; ++kx, x += step, wt += 16) {
              tap(row_in && kx >= kx0 && kx < kx1 ? load(x) : zero_point, wt);
            }
          }
        }
        // The constants through a pointer gcc cannot fold into sp (their offsets from sp are past
        // VLDRW's immediates: an ADD a load otherwise).
        const int32_t* k = constants;
        asm("" : "+r"(k));
        finish16<kPredicated>(even, odd, k, left_shift, st, pred, out);
      }
    }
  }
}

void depthwise_int4_sums16(const DepthwiseConvParams& params, const int8_t* input,
                           const uint8_t* filter, const int32_t* bias, const OutputStage& stage,
                           int8_t* output) {
  const int32_t oc = params.shape.output_c;
  int32_t c = 0;
  for (; oc - c >= 16; c += 16) {
    depthwise_int4_sixteen<false>(params, input, filter, bias, stage, c, 16, output);
  }
  if (c < oc) depthwise_int4_sixteen<true>(params, input, filter, bias, stage, c, oc - c, output);
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
  if (s.output_c == s.input_c && s.filter_h * s.filter_w <= kMaxInt16Taps) {
    depthwise_int4_sums16(params, input, filter, bias, stage, output);
    return;
  }
  if (s.output_c == s.input_c && s.filter_h * s.filter_w <= kMaxInt4Taps) {
    depthwise_int4_eight(params, input, filter, bias, stage, output);
    return;
  }
  depthwise(params, input, FormInt4{filter, bias, params.input_offset, stage}, output);
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
