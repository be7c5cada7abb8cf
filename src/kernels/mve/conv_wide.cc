// mve CONV_2D with int16 activations (16x8) or packed int4 weights, without scratch.
// In blocks of four output pixels (conv_blocks): each pixel's window as one column (read in
// place where it is one run of the whole depth, as a 1x1 convolution's, else gathered onto the
// stack with a padding value that adds nothing: the zero point for int4's int8 inputs, 0 for
// 16x8), so each block of filter elements is loaded (int4: unpacked, which costs as much as four
// products) once for four pixels; one output channel at a time, its four sums requantized as one
// vector and stored with a scatter. int4 adds io sum w (sum (x + io) w = sum x w + io sum w, sum
// w from the same loop); 16x8 with int32 sums finishes as wide_16x8.h does (one rounding high
// multiply where sums_fit_int32, else requantize_n for an int32 bias).
// Windows too deep to gather for four pixels, and 16x8 layers that need int64 sums, run on
// wide_conv.h's driver (each pixel's window as runs of contiguous inputs) with the dot products
// of mve/wide_dot.h, four output channels at a time.

#include <stddef.h>
#include <stdint.h>

#include "mve/bytes.h"
#include "mve/kernels.h"
#include "mve/requantize.h"
#include "mve/wide_dot.h"
#include "wide_16x8.h"

namespace mote {
namespace kernels {
namespace mve {
namespace {

struct ConvInt4 {
  using Acc = int32_t;
  using Input = int8_t;
  using Output = int8_t;
  using Filter = const uint8_t*;
  wide_16x8::Finish<int32_t, int8_t> finish;
  uint32_t input_offset;
  OutputStage stage;
  int32_t pixel_term(const int8_t*, const wide_conv::Run*, int32_t) const { return 0; }
  // Four channels requantized as a vector (mve/requantize.h: portable's results bit for bit).
  void finish4(const int32_t* a, int32_t c, int8_t* out) const {
    int32x4_t acc = vldrwq_s32(a);
    if (finish.bias != nullptr) acc = vaddq_s32(acc, vldrwq_s32(finish.bias + c));
    const int32x4_t v = stage.apply(acc, vldrwq_s32(finish.p.output_multiplier + c),
                                    split_shifts(vldrwq_s32(finish.p.output_shift + c)));
    vstrbq_s32(out, v);
  }
  template <int R>
  void dot(const int8_t* x, int32_t n, const uint8_t* filter, size_t pos, size_t stride,
           int32_t* a) const {
    int32_t ws[R] = {};
    wide::dot_int4<R>(x, n, filter, pos, stride, a, ws);
    for (int r = 0; r < R; ++r) {
      a[r] = static_cast<int32_t>(static_cast<uint32_t>(a[r]) +
                                  input_offset * static_cast<uint32_t>(ws[r]));
    }
  }
};

// The bytes of the four gathered columns of a block (on the stack): int4 windows of at most 512
// elements gather, 16x8 ones of at most 256; larger ones that are not one run in the input go
// pixel by pixel.
constexpr size_t kColumnBytes = 2048;

// The sums of one output channel for four columns, and of its weights.
struct Sums4 {
  int32_t a0, a1, a2, a3;
  int32_t ws;
};

// Four columns x0..x3 of n inputs against the n int4 weights from nibble pos (of parity kOdd):
// each block of sixteen weights unpacked once for the four. Modulo 2^32.
template <bool kOdd>
__attribute__((always_inline)) inline Sums4 dot4_int4(const int8_t* x0, const int8_t* x1,
                                                      const int8_t* x2, const int8_t* x3,
                                                      int32_t n, const uint8_t* packed,
                                                      size_t pos) {
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, f = 0;
  const uint8_t* w = packed + (pos >> 1);
  const int32_t full = n & ~15;
  for (int32_t i = 0; i < full; i += 16) {
    const int8x16_t wv = wide::nibbles16_at<kOdd>(w);
    w += 8;
    a0 = vmladavaq_s8(a0, vldrbq_s8(x0), wv);
    a1 = vmladavaq_s8(a1, vldrbq_s8(x1), wv);
    a2 = vmladavaq_s8(a2, vldrbq_s8(x2), wv);
    a3 = vmladavaq_s8(a3, vldrbq_s8(x3), wv);
    f = vaddvaq_s8(f, wv);
    x0 += 16;
    x1 += 16;
    x2 += 16;
    x3 += 16;
  }
  if (full < n) {
    const uint32_t count = static_cast<uint32_t>(n - full);
    const mve_pred16_t p = vctp8q(count);
    const int8x16_t wv = wide::nibbles16<kOdd>(packed, pos + static_cast<size_t>(full),
                                               vctp16q((count + 1) / 2), vctp16q(count / 2));
    a0 = vmladavaq_p_s8(a0, vldrbq_z_s8(x0, p), wv, p);
    a1 = vmladavaq_p_s8(a1, vldrbq_z_s8(x1, p), wv, p);
    a2 = vmladavaq_p_s8(a2, vldrbq_z_s8(x2, p), wv, p);
    a3 = vmladavaq_p_s8(a3, vldrbq_z_s8(x3, p), wv, p);
    f = vaddvaq_p_s8(f, wv, p);
  }
  return Sums4{a0, a1, a2, a3, f};
}

// Four int16 columns x0..x3 of n inputs against one filter row w of n int8 weights (widened as
// they load, once for the four). Modulo 2^32.
__attribute__((always_inline)) inline Sums4 dot4_16x8(const int16_t* x0, const int16_t* x1,
                                                      const int16_t* x2, const int16_t* x3,
                                                      int32_t n, const int8_t* w) {
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  const int32_t full = n & ~7;
  for (int32_t i = 0; i < full; i += 8) {
    const int16x8_t wv = vldrbq_s16(w);
    w += 8;
    a0 = vmladavaq_s16(a0, vldrhq_s16(x0), wv);
    a1 = vmladavaq_s16(a1, vldrhq_s16(x1), wv);
    a2 = vmladavaq_s16(a2, vldrhq_s16(x2), wv);
    a3 = vmladavaq_s16(a3, vldrhq_s16(x3), wv);
    x0 += 8;
    x1 += 8;
    x2 += 8;
    x3 += 8;
  }
  if (full < n) {
    const mve_pred16_t p = vctp16q(static_cast<uint32_t>(n - full));
    const int16x8_t wv = vldrbq_z_s16(w, p);
    a0 = vmladavaq_p_s16(a0, vldrhq_z_s16(x0, p), wv, p);
    a1 = vmladavaq_p_s16(a1, vldrhq_z_s16(x1, p), wv, p);
    a2 = vmladavaq_p_s16(a2, vldrhq_z_s16(x2, p), wv, p);
    a3 = vmladavaq_p_s16(a3, vldrhq_z_s16(x3, p), wv, p);
  }
  return Sums4{a0, a1, a2, a3, 0};
}

// One output channel of four pixels whose windows are the columns x0..x3 of depth elements
// (filter order; a padding tap holds the input zero point, so that x + io = 0 there): int4
// weights, the four sums requantized as one vector (kLeft: whether a shift may be positive,
// requantize_n) and stored with a byte scatter, pixel k's at out + k * output_c where `store`
// holds lane k. By value in channels4: the byte stores may alias anything a pointer reaches.
template <bool kLeft>
struct Int4Channel {
  using Input = int8_t;
  using Output = int8_t;
  using Filter = const uint8_t*;
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* shift;
  uint32_t input_offset;
  OutputStage stage;
  __attribute__((always_inline)) void operator()(int32_t o, const int8_t* x0, const int8_t* x1,
                                                 const int8_t* x2, const int8_t* x3,
                                                 int32_t depth, const uint8_t* filter,
                                                 int8_t* out, uint32x4_t offsets,
                                                 mve_pred16_t store) const {
    const size_t pos = static_cast<size_t>(o) * static_cast<size_t>(depth);
    const Sums4 s = (pos & 1) != 0 ? dot4_int4<true>(x0, x1, x2, x3, depth, filter, pos)
                                   : dot4_int4<false>(x0, x1, x2, x3, depth, filter, pos);
    int32_t base = static_cast<int32_t>(static_cast<uint32_t>(s.ws) * input_offset);
    if (bias != nullptr) base = wide::add_wrap(base, bias[o]);
    int32x4_t acc = vdupq_n_s32(s.a0);
    acc = vsetq_lane_s32(s.a1, acc, 1);
    acc = vsetq_lane_s32(s.a2, acc, 2);
    acc = vsetq_lane_s32(s.a3, acc, 3);
    const int32x4_t v = stage.apply_n<kLeft>(vaddq_n_s32(acc, base), multiplier[o], shift[o]);
    vstrbq_scatter_offset_p_s32(out + o, offsets, v, store);
  }
};

// The same for 16x8 with int32 sums (padding taps 0), the four results stored with a halfword
// scatter (offsets in bytes). kHighMul: an int64 bias whose layer sums_fit_int32, its low word
// added and one rounding high multiply (wide_16x8.h's finish_high_mul); else an int32 bias and
// TFLite's requantization (requantize_n, as wide_16x8.h's Finish).
template <bool kHighMul>
struct Wide16x8Channel {
  using Input = int16_t;
  using Output = int16_t;
  using Filter = const int8_t*;
  const void* bias;  // int64_t (kHighMul) or int32_t
  const int32_t* multiplier;
  const int32_t* shift;
  OutputStage stage;  // output offset 0, int16 bounds
  __attribute__((always_inline)) void operator()(int32_t o, const int16_t* x0, const int16_t* x1,
                                                 const int16_t* x2, const int16_t* x3,
                                                 int32_t depth, const int8_t* filter,
                                                 int16_t* out, uint32x4_t offsets,
                                                 mve_pred16_t store) const {
    const Sums4 s = dot4_16x8(x0, x1, x2, x3, depth,
                              filter + static_cast<size_t>(o) * static_cast<size_t>(depth));
    int32x4_t acc = vdupq_n_s32(s.a0);
    acc = vsetq_lane_s32(s.a1, acc, 1);
    acc = vsetq_lane_s32(s.a2, acc, 2);
    acc = vsetq_lane_s32(s.a3, acc, 3);
    int32x4_t v;
    if (kHighMul) {
      if (bias != nullptr) {
        acc = vaddq_n_s32(acc, static_cast<int32_t>(static_cast<const int64_t*>(bias)[o]));
      }
      v = vrmulhq_s32(acc, vdupq_n_s32(high_mul_multiplier_64(multiplier[o], shift[o])));
      v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(stage.act_min)), vdupq_n_s32(stage.act_max));
    } else {
      if (bias != nullptr) acc = vaddq_n_s32(acc, static_cast<const int32_t*>(bias)[o]);
      v = stage.apply_n(acc, multiplier[o], shift[o]);
    }
    vstrhq_scatter_offset_p_s32(out + o, offsets, v, store);
  }
};

// Every output channel of four pixels (Channel: Int4Channel or Wide16x8Channel).
template <typename Channel>
__attribute__((noinline)) void channels4(const Channel channel, int32_t output_c, int32_t depth,
                                         const typename Channel::Input* const* x,
                                         typename Channel::Filter filter,
                                         typename Channel::Output* out, mve_pred16_t store) {
  // Pixel k's outputs k * output_c elements on, in bytes.
  const uint32x4_t offsets = vmulq_n_u32(
      vidupq_n_u32(0, 1), static_cast<uint32_t>(output_c) * sizeof(typename Channel::Output));
  const typename Channel::Input *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
  for (int32_t o = 0; o < output_c; ++o) {
    channel(o, x0, x1, x2, x3, depth, filter, out, offsets, store);
  }
}

// wide_conv::gather's copies (mve/bytes.h: fewer instructions than the library's).
struct VectorBytes {
  template <typename T>
  static void copy(T* to, const T* from, int32_t n) {
    copy_bytes(reinterpret_cast<const int8_t*>(from), reinterpret_cast<int8_t*>(to),
               n * static_cast<int32_t>(sizeof(T)));
  }
  static void fill(int8_t* to, int8_t value, int32_t n) { fill_bytes(to, n, vdupq_n_s8(value)); }
  static void fill(int16_t* to, int16_t value, int32_t n) {
    fill_bytes(reinterpret_cast<int8_t*>(to), 2 * n,
               vreinterpretq_s8_s16(vdupq_n_s16(value)));
  }
};

// Output pixels in raster order (across rows and images), four at a time: a pixel whose window
// is one run of the whole depth reads it in place, another gathers its column (`pad` at padding
// taps). Windows too deep to gather for four (beyond kColumnBytes) go pixel by pixel through
// wide_conv::pixel with `policy`, their lanes not stored.
template <typename Channel, typename Policy>
void conv_blocks(const Channel& channel, const Policy& policy, const ConvShape& s,
                 const typename Channel::Input* input, typename Channel::Filter filter,
                 typename Channel::Input pad, typename Channel::Output* output) {
  using Input = typename Channel::Input;
  const int32_t depth = s.filter_h * s.filter_w * s.filter_c;
  const bool gathers = 4 * static_cast<size_t>(depth) * sizeof(Input) <= kColumnBytes;
  Input columns[kColumnBytes / sizeof(Input)];
  const int32_t pixels = s.batches * s.output_h * s.output_w;
  int32_t b = 0, oy = 0, ox = 0;
  for (int32_t q = 0; q < pixels; q += 4) {
    const uint32_t valid = pixels - q < 4 ? static_cast<uint32_t>(pixels - q) : 4;
    typename Channel::Output* out =
        output + static_cast<size_t>(q) * static_cast<size_t>(s.output_c);
    const Input* x[4];
    uint32_t stored = 0;  // the pixels channels4 stores: lane k's four predicate bits
    for (uint32_t k = 0; k < valid; ++k) {
      x[k] = wide_conv::window_in_place(s, input, b, oy, ox);
      if (x[k] == nullptr && gathers) {
        Input* column = columns + k * static_cast<size_t>(depth);
        wide_conv::gather<VectorBytes>(s, input, b, oy, ox, pad, column);
        x[k] = column;
      }
      if (x[k] != nullptr) {
        stored |= 0xfu << (4 * k);
      } else {
        wide_conv::Run runs[wide_conv::kMaxRuns];
        wide_conv::pixel(s, policy, input, filter, runs, wide_conv::runs_of(s, b, oy, ox, runs),
                         out + k * s.output_c);
      }
      if (++ox == s.output_w) {
        ox = 0;
        if (++oy == s.output_h) {
          oy = 0;
          ++b;
        }
      }
    }
    if (stored == 0) continue;
    // The lanes not stored (past the last pixel, or computed above) read a stored pixel's window.
    const Input* any = x[__builtin_ctz(stored) / 4];
    for (uint32_t k = 0; k < 4; ++k) {
      if (k >= valid || x[k] == nullptr) x[k] = any;
    }
    channels4(channel, s.output_c, depth, x, filter, out, static_cast<mve_pred16_t>(stored));
  }
}

void conv_int4(const ConvInt4& policy, const ConvShape& s, const int8_t* input,
               const uint8_t* filter, int8_t* output) {
  // x + io = 0 at a padding tap: the zero point, within int8 as every zero point is.
  const int8_t pad = static_cast<int8_t>(-static_cast<int32_t>(policy.input_offset));
  const ConvParams& p = policy.finish.p;
  bool left = false;  // requantize_n<false> needs every shift negative
  for (int32_t o = 0; o < s.output_c; ++o) left = left || p.output_shift[o] >= 0;
  if (left) {
    const Int4Channel<true> channel{policy.finish.bias, p.output_multiplier, p.output_shift,
                                    policy.input_offset, policy.stage};
    conv_blocks(channel, policy, s, input, filter, pad, output);
  } else {
    const Int4Channel<false> channel{policy.finish.bias, p.output_multiplier, p.output_shift,
                                     policy.input_offset, policy.stage};
    conv_blocks(channel, policy, s, input, filter, pad, output);
  }
}

// 16x8 with int32 sums in blocks of four pixels (padding taps 0: the input zero point is 0).
template <bool kHighMul, typename Finish, typename Bias>
void conv_16x8_blocks(const ConvParams& p, const int16_t* input, const int8_t* filter,
                      const Bias* bias, int16_t* output) {
  const wide_16x8::ConvPolicy<wide::Dot16x8, int32_t, Finish> policy{Finish{p, bias}};
  const Wide16x8Channel<kHighMul> channel{bias, p.output_multiplier, p.output_shift,
                                          OutputStage{0, p.act_min, p.act_max}};
  conv_blocks(channel, policy, p.shape, input, filter, int16_t{0}, output);
}

}  // namespace

void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int64_t* bias, int16_t* output) {
  const ConvParams p = params;
  const ConvShape& s = p.shape;
  if (wide_16x8::sums_fit_int32(p.output_multiplier, p.output_shift, s.output_c, bias, s.output_c,
                     int64_t{s.filter_h} * s.filter_w * s.filter_c)) {
    conv_16x8_blocks<true, wide_16x8::FinishHighMul<wide::Dot16x8>>(p, input, filter, bias, output);
  } else {
    wide_16x8::conv<wide::Dot16x8>(p, input, filter, bias, output);
  }
}

void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int32_t* bias, int16_t* output) {
  const ConvParams p = params;
  conv_16x8_blocks<false, wide_16x8::Finish<int32_t, int16_t>>(p, input, filter, bias, output);
}

void conv2d_int4(const ConvParams& params, const int8_t* input, const uint8_t* filter,
                 const int32_t* bias, int8_t* output) {
  const ConvParams p = params;
  const ConvInt4 policy{{p, bias, p.output_offset},
                        static_cast<uint32_t>(p.input_offset),
                        make_output_stage(p.output_offset, p.act_min, p.act_max)};
  conv_int4(policy, p.shape, input, filter, output);
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
