// dsp CONV_2D with int16 activations (16x8) or packed int4 weights: the scratch-free driver of
// wide_conv.h (each pixel's window as runs of contiguous inputs) on the dot products of
// dsp/wide_dot.h, four output channels at a time, then the portable kernel's requantization (the
// 64-bit one for int64 sums; int4: dsp/requantize.h's where it applies).

#include <stddef.h>
#include <stdint.h>

#include "dsp/kernels.h"
#include "dsp/requantize.h"
#include "dsp/wide_dot.h"
#include "portable/direct_window.h"
#include "wide_conv.h"

namespace mote {
namespace kernels {
namespace dsp {
namespace {

inline int32_t plus(int32_t a, int32_t b) { return wide::add_wrap(a, b); }
inline int64_t plus(int64_t a, int64_t b) { return a + b; }

// Bias, requantization, offset and clamp of one output channel.
template <typename Acc, typename OutputType>
struct Finish {
  const ConvParams& p;
  const Acc* bias;
  int32_t output_offset;
  OutputType operator()(Acc acc, int32_t c) const {
    if (bias != nullptr) acc = plus(acc, bias[c]);
    const int32_t v =
        direct::requantize(acc, p.output_multiplier[c], p.output_shift[c]) + output_offset;
    return static_cast<OutputType>(direct::clamp(v, p.act_min, p.act_max));
  }
};

template <typename AccType>
struct Conv16x8 {
  using Acc = AccType;
  using Input = int16_t;
  using Output = int16_t;
  using Filter = const int8_t*;
  Finish<Acc, int16_t> finish;
  Acc pixel_term(const int16_t*, const wide_conv::Run*, int32_t) const { return 0; }
  void finish4(const Acc* a, int32_t c, int16_t* out) const {
    for (int32_t r = 0; r < 4; ++r) out[r] = finish(a[r], c + r);
  }
  template <int R>
  void dot(const int16_t* x, int32_t n, const int8_t* filter, size_t pos, size_t stride,
           Acc* a) const {
    wide::dot_16x8<R>(x, n, filter + pos, static_cast<ptrdiff_t>(stride), a);
  }
};

// The dot products weigh x + io by w + 8; each pixel's term takes 8 sum (x + io) off.
struct ConvInt4 {
  using Acc = int32_t;
  using Input = int8_t;
  using Output = int8_t;
  using Filter = const uint8_t*;
  Finish<int32_t, int8_t> finish;
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
};

template <typename Acc>
void conv2d_16x8_with(const ConvParams& params, const int16_t* input, const int8_t* filter,
                      const Acc* bias, int16_t* output) {
  const ConvParams p = params;
  const Conv16x8<Acc> policy{{p, bias, 0}};
  wide_conv::run(p.shape, policy, input, filter, output);
}

}  // namespace

void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int64_t* bias, int16_t* output) {
  conv2d_16x8_with(params, input, filter, bias, output);
}

void conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int32_t* bias, int16_t* output) {
  conv2d_16x8_with(params, input, filter, bias, output);
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
  wide_conv::run(p.shape, policy, input, filter, output);
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
