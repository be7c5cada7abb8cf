// mve CONV_2D with int16 activations (16x8) or packed int4 weights, without scratch: the driver
// of wide_conv.h (each pixel's window as runs of contiguous inputs) on the dot products of
// mve/wide_dot.h, four output channels at a time. 16x8: wide_16x8.h's policy (TFLite's
// requantization, with int32 sums and one high multiply where they fit); int4: four channels as
// a vector (mve/requantize.h), with sum (x + io) w = sum x w + io sum w, sum w from the same
// loop.

#include <stddef.h>
#include <stdint.h>

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
  const ConvInt4 policy{{p, bias, p.output_offset},
                        static_cast<uint32_t>(p.input_offset),
                        make_output_stage(p.output_offset, p.act_min, p.act_max)};
  wide_conv::run(p.shape, policy, input, filter, output);
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
