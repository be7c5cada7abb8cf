// dsp CONV_2D with int16 activations (16x8) or packed int4 weights, without scratch: the driver
// of wide_conv.h (each pixel's window as runs of contiguous inputs) on the dot products of
// dsp/wide_dot.h, four output channels at a time. 16x8: wide_16x8.h's policy (TFLite's
// requantization, with int32 sums and one high multiply where they fit); int4:
// dsp/requantize.h's where it applies.
// int4 in pairs of output pixels where the window is at most kPairDepth deep: each pixel's window
// as one column (wide_conv::window_in_place or gather), its inputs plus offset paired once into
// the words the SMLADs take, so each filter word is unpacked once for two pixels.

#include <stddef.h>
#include <stdint.h>

#include "dsp/kernels.h"
#include "dsp/requantize.h"
#include "dsp/wide_dot.h"
#include "wide_16x8.h"

namespace mote {
namespace kernels {
namespace dsp {
namespace {

// The dot products weigh x + io by w + 8; each pixel's term takes 8 sum (x + io) off.
struct ConvInt4 {
  using Acc = int32_t;
  using Input = int8_t;
  using Output = int8_t;
  using Filter = const uint8_t*;
  wide_16x8::Finish<int32_t, int8_t> finish;
  int32_t input_offset;
  uint32_t offset2;
  // dsp/requantize.h's step where every multiplier is >= 0 (its condition), else portable's.
  bool fast;
  Requantizer rq;
  void finish4(const int32_t* a, int32_t c, int8_t* out) const {
    for (int32_t r = 0; r < 4; ++r) {
      if (fast) {
        const int32_t acc =
            finish.bias != nullptr ? wide::add_wrap(a[r], finish.bias[c + r]) : a[r];
        out[r] = rq(acc, c + r);
      } else {
        out[r] = finish(a[r], c + r);
      }
    }
  }
  int32_t pixel_term(const int8_t* input, const wide_conv::Run* runs, int32_t count) const {
    uint32_t sum = 0;
    for (int32_t k = 0; k < count; ++k) {
      sum += static_cast<uint32_t>(
          wide::sum_with_offset(input + runs[k].input, runs[k].n, input_offset));
    }
    return static_cast<int32_t>(0u - 8u * sum);
  }
  template <int R>
  void dot(const int8_t* x, int32_t n, const uint8_t* filter, size_t pos, size_t stride,
           int32_t* a) const {
    wide::dot_int4<R>(x, n, filter, pos, stride, offset2, input_offset, a);
  }
  int8_t finish1(int32_t a, int32_t c) const {
    if (!fast) return finish(a, c);
    return rq(finish.bias != nullptr ? wide::add_wrap(a, finish.bias[c]) : a, c);
  }
};

// Windows of at most this many elements go in pairs of pixels: their columns (one at a time,
// bytes) and two prepared columns (words) stay on the stack, 2 KB.
constexpr int32_t kPairDepth = 400;

// One pixel's window of `depth` inputs prepared for dot_pair: per eight inputs, the words
// (x0, x4), (x1, x5), (x2, x6), (x3, x7) of x + offset, then the last depth % 8 as int32. Returns
// the pixel's term, -8 sum (x + offset).
int32_t prepare(const int8_t* x, int32_t depth, uint32_t offset2, int32_t offset, uint32_t* words) {
  uint32_t sum = 0;
  int32_t i = 0;
  for (; i + 8 <= depth; i += 8, words += 4) {
    const uint32_t lo = load4(x + i), hi = load4(x + i + 4);
    const uint32_t x02 = sxtab16(offset2, lo), x13 = sxtab16_ror8(offset2, lo);
    const uint32_t x46 = sxtab16(offset2, hi), x57 = sxtab16_ror8(offset2, hi);
    words[0] = pkhbt_in_c(x02, x46);
    words[1] = pkhbt_in_c(x13, x57);
    words[2] = pkhtb_in_c(x46, x02);
    words[3] = pkhtb_in_c(x57, x13);
    sum = static_cast<uint32_t>(smlad(x02, 0x00010001u, static_cast<int32_t>(sum)));
    sum = static_cast<uint32_t>(smlad(x13, 0x00010001u, static_cast<int32_t>(sum)));
    sum = static_cast<uint32_t>(smlad(x46, 0x00010001u, static_cast<int32_t>(sum)));
    sum = static_cast<uint32_t>(smlad(x57, 0x00010001u, static_cast<int32_t>(sum)));
  }
  for (; i < depth; ++i) {
    const int32_t xi = x[i] + offset;
    *words++ = static_cast<uint32_t>(xi);
    sum += static_cast<uint32_t>(xi);
  }
  return static_cast<int32_t>(0u - 8u * sum);
}

// a0 += column c0 against the `depth` int4 weights from nibble pos (parity kOdd), each plus 8;
// a1 the same of c1: each filter word unpacked once for the two. Modulo 2^32.
template <bool kOdd>
inline void dot_pair(const uint32_t* c0, const uint32_t* c1, int32_t depth, const uint8_t* packed,
                     size_t pos, int32_t& a0, int32_t& a1) {
  constexpr uint32_t kLanes = 0x000f000fu;
  int32_t s0 = a0, s1 = a1;
  int32_t i = 0;
  for (; i + 8 <= depth; i += 8, c0 += 4, c1 += 4) {
    const uint32_t v = wide::nibbles8<kOdd>(packed, pos + static_cast<size_t>(i)) ^ 0x88888888u;
    const uint32_t w0 = v & kLanes, w1 = (v >> 4) & kLanes;
    const uint32_t w2 = (v >> 8) & kLanes, w3 = (v >> 12) & kLanes;
    s0 = smlad(c0[0], w0, s0);
    s1 = smlad(c1[0], w0, s1);
    s0 = smlad(c0[1], w1, s0);
    s1 = smlad(c1[1], w1, s1);
    s0 = smlad(c0[2], w2, s0);
    s1 = smlad(c1[2], w2, s1);
    s0 = smlad(c0[3], w3, s0);
    s1 = smlad(c1[3], w3, s1);
  }
  for (; i < depth; ++i) {
    const int32_t u = wide::nibble_u(packed, pos + static_cast<size_t>(i));
    s0 = wide::add_wrap(s0, static_cast<int32_t>(*c0++) * u);
    s1 = wide::add_wrap(s1, static_cast<int32_t>(*c1++) * u);
  }
  a0 = s0;
  a1 = s1;
}

// Every output channel of two pixels from their prepared columns and terms.
void channels_pair(const ConvInt4& policy, int32_t output_c, int32_t depth, const uint32_t* c0,
                   const uint32_t* c1, int32_t term0, int32_t term1, const uint8_t* filter,
                   int8_t* out0, int8_t* out1) {
  for (int32_t o = 0; o < output_c; ++o) {
    const size_t pos = static_cast<size_t>(o) * static_cast<size_t>(depth);
    int32_t a0 = term0, a1 = term1;
    if ((pos & 1) != 0) {
      dot_pair<true>(c0, c1, depth, filter, pos, a0, a1);
    } else {
      dot_pair<false>(c0, c1, depth, filter, pos, a0, a1);
    }
    out0[o] = policy.finish1(a0, o);
    out1[o] = policy.finish1(a1, o);
  }
}

// Output pixels in raster order (across rows and images), two at a time; a last odd one, and
// every pixel of a window deeper than kPairDepth, by wide_conv::pixel.
void conv_int4(const ConvInt4& policy, const ConvShape& s, const int8_t* input,
               const uint8_t* filter, int8_t* output) {
  const int32_t depth = s.filter_h * s.filter_w * s.filter_c;
  if (depth > kPairDepth) {
    wide_conv::run(s, policy, input, filter, output);
    return;
  }
  // x + io = 0 at a padding tap: the zero point, within int8 as every zero point is.
  const int8_t pad = static_cast<int8_t>(-policy.input_offset);
  constexpr int32_t kWords = kPairDepth / 2 + 7;
  uint32_t words[2][kWords];
  int8_t column[kPairDepth];
  const int32_t pixels = s.batches * s.output_h * s.output_w;
  int32_t b = 0, oy = 0, ox = 0;
  for (int32_t q = 0; q < pixels; q += 2) {
    int8_t* out = output + static_cast<size_t>(q) * static_cast<size_t>(s.output_c);
    if (q + 1 == pixels) {
      wide_conv::Run runs[wide_conv::kMaxRuns];
      wide_conv::pixel(s, policy, input, filter, runs, wide_conv::runs_of(s, b, oy, ox, runs),
                       out);
      break;
    }
    int32_t terms[2];
    for (int32_t k = 0; k < 2; ++k) {
      const int8_t* x = wide_conv::window_in_place(s, input, b, oy, ox);
      if (x == nullptr) {
        wide_conv::gather(s, input, b, oy, ox, pad, column);
        x = column;
      }
      terms[k] = prepare(x, depth, policy.offset2, policy.input_offset, words[k]);
      if (++ox == s.output_w) {
        ox = 0;
        if (++oy == s.output_h) {
          oy = 0;
          ++b;
        }
      }
    }
    channels_pair(policy, s.output_c, depth, words[0], words[1], terms[0], terms[1], filter, out,
                  out + s.output_c);
  }
}

}  // namespace

void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int64_t* bias, int16_t* output) {
  wide_16x8::conv<wide::Dot16x8>(params, input, filter, bias, output);
}

void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int32_t* bias, int16_t* output) {
  wide_16x8::conv<wide::Dot16x8>(params, input, filter, bias, output);
}

void conv2d_int4(const ConvParams& params, const int8_t* input, const uint8_t* filter,
                 const int32_t* bias, int8_t* output) {
  const ConvParams p = params;
  const ConvInt4 policy{
      {p, bias, p.output_offset},
      p.input_offset,
      pack16(p.input_offset, p.input_offset),
      multipliers_non_negative(p.output_multiplier, p.shape.output_c),
      make_requantizer(p.output_multiplier, p.output_shift, p.output_offset, p.act_min, p.act_max)};
  conv_int4(policy, p.shape, input, filter, output);
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
