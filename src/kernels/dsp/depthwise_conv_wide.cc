// dsp DEPTHWISE_CONV_2D with int16 activations (16x8) or packed int4 weights: one output pixel at
// a time, four output channels per step with SMLAxy (each channel its own sum), the window's taps
// inside the input only (padding skipped, as in portable); the last channels one at a time. No
// scratch.
//  - 16x8: two words of int16 inputs (channels c..c+3) against one word of weights widened by
//    SXTB16 into (w0, w2) and (w1, w3): SMLABB, SMLATB, SMLABT, SMLATT. The int32 sums are exact
//    for up to 511 taps (|x w| <= 2^22); the table gives this variant windows of at most
//    256 taps (depthwise_conv.cc), and the int64 bias is added after (with one rounding high
//    multiply where wide_16x8.h's sums_fit_int32 allows).
//  - int4: the four weights' 16 bits (one more byte at an odd nibble), XOR 0x8888, spread to int16
//    lanes (u0, u2) and (u1, u3) with u = w + 8, less 8 by SSUB16; the inputs plus their offset by
//    SXTAB16.
//    With a depth multiplier of 1 and at most 64 taps the lane pairs are unpacked once per block
//    of channels onto the stack (512 bytes: depthwise_int4_unpacked).
// With a depth multiplier above 1 the inputs of four outputs are picked one by one.

#include <stddef.h>
#include <stdint.h>

#include "dsp/intrinsics.h"
#include "dsp/kernels.h"
#include "portable/direct_window.h"
#include "wide_16x8.h"

namespace mote {
namespace kernels {
namespace dsp {
namespace {

inline int32_t add_wrap(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// The taps [lo, hi) of a window row or column inside [0, size): position start + k * dilation.
inline void inside(int32_t start, int32_t dilation, int32_t taps, int32_t size, int32_t* lo,
                   int32_t* hi) {
  *lo = start < 0 ? (-start + dilation - 1) / dilation : 0;
  const int32_t room = size - start;  // taps with start + k d < size: k < room / d, rounded up
  int32_t h = room <= 0 ? 0 : (room + dilation - 1) / dilation;
  *hi = h < taps ? h : taps;
}

struct Form16x8 {
  using Input = int16_t;
  using Output = int16_t;
  const int8_t* filter;
  const int64_t* bias;
  bool high_mul;  // wide_16x8::sums_fit_int32: one rounding high multiply per output
  // acc[0..3] += the tap's products for channels c..c+3; x: the four inputs' pointers' base.
  void mac4_contiguous(const int16_t* x, size_t w, int32_t* a) const {
    const uint32_t x01 = load4(x), x23 = load4(x + 2), v = load4(filter + w);
    const uint32_t w02 = sxtb16(v), w13 = sxtb16_ror8(v);
    a[0] = smlabb(x01, w02, a[0]);
    a[1] = smlatb(x01, w13, a[1]);
    a[2] = smlabt(x23, w02, a[2]);
    a[3] = smlatt(x23, w13, a[3]);
  }
  void mac4_picked(int32_t x0, int32_t x1, int32_t x2, int32_t x3, size_t w, int32_t* a) const {
    const uint32_t v = load4(filter + w);
    const uint32_t w02 = sxtb16(v), w13 = sxtb16_ror8(v);
    const uint32_t x02 = pack16(x0, x2), x13 = pack16(x1, x3);
    a[0] = smlabb(x02, w02, a[0]);
    a[1] = smlabb(x13, w13, a[1]);
    a[2] = smlatt(x02, w02, a[2]);
    a[3] = smlatt(x13, w13, a[3]);
  }
  int32_t input(const int16_t* x) const { return *x; }
  int32_t weight(size_t w) const { return filter[w]; }
  int16_t finish(const DepthwiseConvParams& p, int32_t acc, int32_t c) const {
    if (high_mul) {
      return wide_16x8::finish_high_mul(acc, bias, c, p.output_multiplier[c], p.output_shift[c],
                                        p.act_min, p.act_max);
    }
    int64_t sum = acc;
    if (bias != nullptr) sum += bias[c];
    const int32_t v = direct::requantize(sum, p.output_multiplier[c], p.output_shift[c]);
    return static_cast<int16_t>(direct::clamp(v, p.act_min, p.act_max));
  }
};

struct FormInt4 {
  using Input = int8_t;
  using Output = int8_t;
  const uint8_t* filter;
  const int32_t* bias;
  int32_t input_offset;
  uint32_t offset2;
  // The weights w..w+3 as int16 lanes (w0, w2) and (w1, w3).
  void weights4(size_t w, uint32_t* w02, uint32_t* w13) const {
    const uint8_t* p = filter + (w >> 1);
    uint32_t h = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8;
    if ((w & 1) != 0) h = ((h >> 4) | static_cast<uint32_t>(p[2]) << 12) & 0xffffu;
    h ^= 0x8888u;
    const uint32_t spread = h | h << 8;  // nibbles 0 and 2 at bits 0 and 16, 1 and 3 at 4 and 20
    *w02 = ssub16(spread & 0x000f000fu, 0x00080008u);
    *w13 = ssub16((spread >> 4) & 0x000f000fu, 0x00080008u);
  }
  void mac4_contiguous(const int8_t* x, size_t w, int32_t* a) const {
    uint32_t w02, w13;
    weights4(w, &w02, &w13);
    const uint32_t v = load4(x);
    const uint32_t x02 = sxtab16(offset2, v), x13 = sxtab16_ror8(offset2, v);
    a[0] = smlabb(x02, w02, a[0]);
    a[1] = smlabb(x13, w13, a[1]);
    a[2] = smlatt(x02, w02, a[2]);
    a[3] = smlatt(x13, w13, a[3]);
  }
  void mac4_picked(int32_t x0, int32_t x1, int32_t x2, int32_t x3, size_t w, int32_t* a) const {
    uint32_t w02, w13;
    weights4(w, &w02, &w13);
    const uint32_t x02 = pack16(x0 + input_offset, x2 + input_offset);
    const uint32_t x13 = pack16(x1 + input_offset, x3 + input_offset);
    a[0] = smlabb(x02, w02, a[0]);
    a[1] = smlabb(x13, w13, a[1]);
    a[2] = smlatt(x02, w02, a[2]);
    a[3] = smlatt(x13, w13, a[3]);
  }
  int32_t input(const int8_t* x) const { return *x + input_offset; }
  int32_t weight(size_t w) const { return direct::PackedInt4Filter{filter}[w]; }
  int8_t finish(const DepthwiseConvParams& p, int32_t acc, int32_t c) const {
    if (bias != nullptr) acc = add_wrap(acc, bias[c]);
    const int32_t v =
        direct::requantize(acc, p.output_multiplier[c], p.output_shift[c]) + p.output_offset;
    return static_cast<int8_t>(direct::clamp(v, p.act_min, p.act_max));
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
        const auto pixel = [&](int32_t ky, int32_t kx) {
          const int32_t iy = y0 + ky * s.dilation_h, ix = x0 + kx * s.dilation_w;
          return input + ((static_cast<size_t>(b) * s.input_h + iy) * s.input_w + ix) * ic;
        };
        int32_t c = 0;
        for (; c + 4 <= oc; c += 4) {
          int32_t a[4] = {0, 0, 0, 0};
          for (int32_t ky = ky0; ky < ky1; ++ky) {
            for (int32_t kx = kx0; kx < kx1; ++kx) {
              const typename Form::Input* x = pixel(ky, kx);
              const size_t w = (static_cast<size_t>(ky) * s.filter_w + kx) * oc + c;
              if (kMultiplierOne) {
                form.mac4_contiguous(x + c, w, a);
              } else {
                form.mac4_picked(x[c / m], x[(c + 1) / m], x[(c + 2) / m], x[(c + 3) / m], w, a);
              }
            }
          }
          for (int32_t k = 0; k < 4; ++k) out[c + k] = form.finish(p, a[k], c + k);
        }
        for (; c < oc; ++c) {
          int32_t a = 0;
          for (int32_t ky = ky0; ky < ky1; ++ky) {
            for (int32_t kx = kx0; kx < kx1; ++kx) {
              const size_t w = (static_cast<size_t>(ky) * s.filter_w + kx) * oc + c;
              a = add_wrap(a, form.input(pixel(ky, kx) + c / m) * form.weight(w));
            }
          }
          out[c] = form.finish(p, a, c);
        }
      }
    }
  }
}

// int4 with a depth multiplier of 1: the weights unpacked once into their int16 lane pairs
// (w0, w2) and (w1, w3) (FormInt4::weights4), for as many blocks of four channels as
// kUnpackedWords holds with every tap's, then every pixel runs those blocks: per tap one word of
// inputs, two SXTAB16 and four SMLAxy. The window's rows by pointer steps, the last channels
// (below four) one at a time.
constexpr int32_t kUnpackedWords = 128;  // 512 bytes of stack

// Called last (a tail call: the caller's frame is gone before this one's buffer is taken).
__attribute__((noinline)) void depthwise_int4_unpacked(const DepthwiseConvParams& params,
                                                       const int8_t* input, const uint8_t* filter,
                                                       const int32_t* bias, int8_t* output) {
  const FormInt4 form{filter, bias, params.input_offset,
                      pack16(params.input_offset, params.input_offset)};
  const DepthwiseConvParams p = params;
  const DepthwiseShape& s = p.shape;
  const int32_t oc = s.output_c, taps = s.filter_h * s.filter_w, oc4 = oc & ~3;
  const int32_t chunk = kUnpackedWords / 2 / taps * 4;  // channels per pass over the pixels
  const ptrdiff_t step = static_cast<ptrdiff_t>(s.dilation_w) * oc;
  const ptrdiff_t row_step = static_cast<ptrdiff_t>(s.dilation_h) * s.input_w * oc;
  uint32_t words[kUnpackedWords];
  for (int32_t c0 = 0; c0 < oc; c0 += chunk) {
    const int32_t end = oc4 - c0 < chunk ? oc4 : c0 + chunk;
    // Block j's taps at words + 2 j taps: (w0, w2), (w1, w3) per tap.
    for (int32_t c = c0; c < end; c += 4) {
      uint32_t* w = words + 2 * ((c - c0) / 4) * taps;
      for (int32_t t = 0; t < taps; ++t, w += 2) {
        form.weights4(static_cast<size_t>(t) * oc + c, w, w + 1);
      }
    }
    const bool last = c0 + chunk >= oc;
    for (int32_t b = 0; b < s.batches; ++b) {
      for (int32_t oy = 0; oy < s.output_h; ++oy) {
        const int32_t y0 = oy * s.stride_h - s.pad_h;
        int32_t ky0, ky1;
        inside(y0, s.dilation_h, s.filter_h, s.input_h, &ky0, &ky1);
        int8_t* out = output + ((static_cast<size_t>(b) * s.output_h + oy) * s.output_w) * oc;
        for (int32_t ox = 0; ox < s.output_w; ++ox, out += oc) {
          const int32_t x0 = ox * s.stride_w - s.pad_w;
          int32_t kx0, kx1;
          inside(x0, s.dilation_w, s.filter_w, s.input_w, &kx0, &kx1);
          // The first tap inside the input, and its weights' offset in a block.
          const int8_t* first =
              input + ((static_cast<ptrdiff_t>(b) * s.input_h + y0 + ky0 * s.dilation_h) *
                           s.input_w + x0 + kx0 * s.dilation_w) * oc;
          const int32_t t0 = ky0 * s.filter_w + kx0, width = kx1 - kx0;
          for (int32_t c = c0; c < end; c += 4) {
            int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            const int8_t* row = first + c;
            const uint32_t* wrow = words + 2 * (((c - c0) / 4) * taps + t0);
            for (int32_t ky = ky0; width > 0 && ky < ky1;
                 ++ky, row += row_step, wrow += 2 * s.filter_w) {
              const int8_t* x = row;
              const uint32_t* w = wrow;
              for (int32_t k = 0; k < width; ++k, x += step, w += 2) {
                const uint32_t v = load4(x);
                const uint32_t x02 = sxtab16(form.offset2, v),
                               x13 = sxtab16_ror8(form.offset2, v);
                a0 = smlabb(x02, w[0], a0);
                a1 = smlabb(x13, w[1], a1);
                a2 = smlatt(x02, w[0], a2);
                a3 = smlatt(x13, w[1], a3);
              }
            }
            out[c] = form.finish(p, a0, c);
            out[c + 1] = form.finish(p, a1, c + 1);
            out[c + 2] = form.finish(p, a2, c + 2);
            out[c + 3] = form.finish(p, a3, c + 3);
          }
          if (!last) continue;
          for (int32_t c = oc4; c < oc; ++c) {
            int32_t a = 0;
            for (int32_t ky = ky0; ky < ky1; ++ky) {
              for (int32_t kx = kx0; kx < kx1; ++kx) {
                const size_t w = (static_cast<size_t>(ky) * s.filter_w + kx) * oc + c;
                const int8_t* x = first + (ky - ky0) * row_step + (kx - kx0) * step + c;
                a = add_wrap(a, form.input(x) * form.weight(w));
              }
            }
            out[c] = form.finish(p, a, c);
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
  const DepthwiseShape& s = params.shape;
  if (s.output_c == s.input_c && s.filter_h * s.filter_w <= kUnpackedWords / 2) {
    depthwise_int4_unpacked(params, input, filter, bias, output);
    return;
  }
  depthwise(params, input,
            FormInt4{filter, bias, params.input_offset,
                     pack16(params.input_offset, params.input_offset)},
            output);
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
