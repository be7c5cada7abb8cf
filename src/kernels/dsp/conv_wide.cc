// dsp CONV_2D with int16 activations (16x8) or packed int4 weights, without scratch: the driver
// of wide_conv.h (each pixel's window as runs of contiguous inputs) on the dot products of
// dsp/wide_dot.h, four output channels at a time. 16x8: wide_16x8.h's policy (TFLite's
// requantization, with int32 sums and one high multiply where they fit); int4:
// dsp/requantize.h's where it applies.

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
};

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
  wide_conv::run(p.shape, policy, input, filter, output);
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
