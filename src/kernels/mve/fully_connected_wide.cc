// mve FULLY_CONNECTED with int16 activations (16x8) or packed int4 weights: one input row against
// four filter rows at a time (mve/wide_dot.h). 16x8: wide_16x8.h's driver (TFLite's
// requantization, with int32 sums and one high multiply where they fit); int4: blocks of four
// outputs requantized as a vector (mve/requantize.h), and
// sum (x + io)(w + fo) = sum x w + io sum w + fo sum x + n io fo, sum w from the dot products'
// loop, sum x once per input row. No scratch.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/kernels.h"
#include "mve/requantize.h"
#include "mve/wide_dot.h"
#include "wide_16x8.h"

namespace mote {
namespace kernels {
namespace mve {

void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int64_t* bias, int16_t* output) {
  wide_16x8::fully_connected<wide::Dot16x8>(params, input, filter, bias, output);
}

void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int32_t* bias, int16_t* output) {
  wide_16x8::fully_connected<wide::Dot16x8>(params, input, filter, bias, output);
}

void fully_connected_int4(const FullyConnectedParams& params, const int8_t* input,
                          const uint8_t* filter, const int32_t* bias, int8_t* output) {
  const FullyConnectedParams p = params;
  const int32_t n = p.input_depth, od = p.output_depth;
  const uint32_t io = static_cast<uint32_t>(p.input_offset);
  const uint32_t fo = static_cast<uint32_t>(p.filter_offset);
  const OutputStage stage = make_output_stage(p.output_offset, p.act_min, p.act_max);
  const int32x4_t tensor_multiplier = vdupq_n_s32(p.output_multiplier[0]);
  const Shifts tensor_shifts = split_shifts(vdupq_n_s32(p.output_shift[0]));
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* x = input + static_cast<ptrdiff_t>(b) * n;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * od;
    // fo sum x + n io fo, one per input row (modulo 2^32, as the sums).
    const uint32_t row_term = fo == 0 ? 0u
                                      : fo * static_cast<uint32_t>(wide::row_sum(x, n)) +
                                            static_cast<uint32_t>(n) * io * fo;
    const auto output_of = [&](int32_t dot, int32_t filter_sum, int32_t o) {
      uint32_t acc = static_cast<uint32_t>(dot) + io * static_cast<uint32_t>(filter_sum) + row_term;
      if (bias != nullptr) acc += static_cast<uint32_t>(bias[o]);
      return wide_16x8::finish_fully_connected<int32_t, int8_t>(p, static_cast<int32_t>(acc), o,
                                                                p.output_offset);
    };
    int32_t o = 0;
    for (; o + 4 <= od; o += 4) {
      int32_t a[4] = {}, ws[4] = {};
      wide::dot_int4<4>(x, n, filter, static_cast<size_t>(o) * static_cast<size_t>(n),
                        static_cast<size_t>(n), a, ws);
      // The four outputs as a vector (mve/requantize.h: portable's results bit for bit).
      int32x4_t acc = vaddq_n_s32(vmlaq_n_s32(vldrwq_s32(a), vldrwq_s32(ws), p.input_offset),
                                  static_cast<int32_t>(row_term));
      if (bias != nullptr) acc = vaddq_s32(acc, vldrwq_s32(bias + o));
      const int32x4_t v = p.per_channel ? stage.apply(acc, vldrwq_s32(p.output_multiplier + o),
                                                      split_shifts(vldrwq_s32(p.output_shift + o)))
                                        : stage.apply(acc, tensor_multiplier, tensor_shifts);
      vstrbq_s32(out + o, v);
    }
    for (; o < od; ++o) {
      int32_t a[1] = {}, ws[1] = {};
      wide::dot_int4<1>(x, n, filter, static_cast<size_t>(o) * static_cast<size_t>(n),
                        static_cast<size_t>(n), a, ws);
      out[o] = output_of(a[0], ws[0], o);
    }
  }
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
