// dsp FULLY_CONNECTED with int16 activations (16x8) or packed int4 weights: one input row against
// four filter rows at a time (dsp/wide_dot.h). 16x8: wide_16x8.h's driver (TFLite's
// requantization, with int32 sums and one high multiply where they fit); int4:
// dsp/requantize.h's where it applies, and sum (x + io)(w + fo) = sum (x + io) w
// + fo sum (x + io): the second term is one per input row. No scratch.

#include <stddef.h>
#include <stdint.h>

#include "dsp/kernels.h"
#include "dsp/requantize.h"
#include "dsp/wide_dot.h"
#include "wide_16x8.h"

namespace mote {
namespace kernels {
namespace dsp {

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
  const uint32_t offset2 = pack16(p.input_offset, p.input_offset);
  // dsp/requantize.h's step where every multiplier is >= 0 (its condition), else portable's.
  const bool fast = multipliers_non_negative(p.output_multiplier, p.per_channel ? od : 1);
  const Requantizer rq =
      make_requantizer(p.output_multiplier, p.output_shift, p.output_offset, p.act_min, p.act_max);
  const auto finish = [&](int32_t acc, int32_t o) {
    return wide_16x8::finish_fully_connected<int32_t, int8_t>(p, acc, o, p.output_offset);
  };
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* x = input + static_cast<ptrdiff_t>(b) * n;
    int8_t* out = output + static_cast<ptrdiff_t>(b) * od;
    // The dot products weigh x + io by w + 8: (fo - 8) sum (x + io) makes them (w + fo).
    const int32_t row_term =
        static_cast<int32_t>(static_cast<uint32_t>(wide::sum_with_offset(x, n, p.input_offset)) *
                             static_cast<uint32_t>(p.filter_offset - 8));
    int32_t o = 0;
    for (; o + 4 <= od; o += 4) {
      int32_t a[4] = {row_term, row_term, row_term, row_term};
      wide::dot_int4<4>(x, n, filter, static_cast<size_t>(o) * static_cast<size_t>(n),
                        static_cast<size_t>(n), offset2, p.input_offset, a);
      for (int32_t k = 0; k < 4; ++k) {
        const int32_t acc = bias != nullptr ? wide::add_wrap(a[k], bias[o + k]) : a[k];
        out[o + k] = fast ? rq(acc, p.per_channel ? o + k : 0) : finish(acc, o + k);
      }
    }
    for (; o < od; ++o) {
      int32_t a[1] = {row_term};
      wide::dot_int4<1>(x, n, filter, static_cast<size_t>(o) * static_cast<size_t>(n),
                        static_cast<size_t>(n), offset2, p.input_offset, a);
      const int32_t acc = bias != nullptr ? wide::add_wrap(a[0], bias[o]) : a[0];
      out[o] = finish(acc, o);
    }
  }
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
