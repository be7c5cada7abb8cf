// dsp FULLY_CONNECTED with int16 activations (16x8) or packed int4 weights: one input row against
// four filter rows at a time (dsp/wide_dot.h), then the portable kernel's requantization (the
// 64-bit one for int64 sums; int4: dsp/requantize.h's where it applies).
// sum (x + io)(w + fo) = sum (x + io) w + fo sum (x + io): the second term is one per input row.
// No scratch.

#include <stddef.h>
#include <stdint.h>

#include "dsp/kernels.h"
#include "dsp/requantize.h"
#include "dsp/wide_dot.h"
#include "portable/direct_window.h"

namespace mote {
namespace kernels {
namespace dsp {
namespace {

template <typename Acc>
Acc sum_of(const int16_t* x, int32_t n) {
  Acc sum = 0;
  for (int32_t i = 0; i < n; ++i) sum = static_cast<Acc>(sum + x[i]);
  return sum;
}

// a + b: int32 sums wrap as the instructions' do.
inline int32_t plus(int32_t a, int32_t b) { return wide::add_wrap(a, b); }
inline int64_t plus(int64_t a, int64_t b) { return a + b; }

template <typename Acc, typename Output>
Output finish(const FullyConnectedParams& p, Acc acc, int32_t o, int32_t output_offset) {
  const int32_t c = p.per_channel ? o : 0;
  const int32_t v =
      direct::requantize(acc, p.output_multiplier[c], p.output_shift[c]) + output_offset;
  return static_cast<Output>(direct::clamp(v, p.act_min, p.act_max));
}

// Acc is the bias type: int64 sums (and the 64-bit requantization) or int32 ones.
template <typename Acc>
void fully_connected_16x8_with(const FullyConnectedParams& params, const int16_t* input,
                               const int8_t* filter, const Acc* bias, int16_t* output) {
  const FullyConnectedParams p = params;
  const int32_t n = p.input_depth, od = p.output_depth;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int16_t* x = input + static_cast<ptrdiff_t>(b) * n;
    int16_t* out = output + static_cast<ptrdiff_t>(b) * od;
    // The weight zero point's term (TFLite's 16x8 weights are symmetric; kept for exactness).
    const Acc row_term =
        p.filter_offset == 0 ? Acc{0} : static_cast<Acc>(sum_of<Acc>(x, n) * p.filter_offset);
    int32_t o = 0;
    for (; o + 4 <= od; o += 4) {
      Acc a[4] = {row_term, row_term, row_term, row_term};
      wide::dot_16x8<4>(x, n, filter + static_cast<ptrdiff_t>(o) * n, n, a);
      for (int32_t k = 0; k < 4; ++k) {
        const Acc acc = bias != nullptr ? plus(a[k], bias[o + k]) : a[k];
        out[o + k] = finish<Acc, int16_t>(p, acc, o + k, 0);
      }
    }
    for (; o < od; ++o) {
      Acc a[1] = {row_term};
      wide::dot_16x8<1>(x, n, filter + static_cast<ptrdiff_t>(o) * n, n, a);
      const Acc acc = bias != nullptr ? plus(a[0], bias[o]) : a[0];
      out[o] = finish<Acc, int16_t>(p, acc, o, 0);
    }
  }
}

}  // namespace

void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int64_t* bias, int16_t* output) {
  fully_connected_16x8_with(params, input, filter, bias, output);
}

void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int32_t* bias, int16_t* output) {
  fully_connected_16x8_with(params, input, filter, bias, output);
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
        out[o + k] = fast ? rq(acc, p.per_channel ? o + k : 0)
                          : finish<int32_t, int8_t>(p, acc, o + k, p.output_offset);
      }
    }
    for (; o < od; ++o) {
      int32_t a[1] = {row_term};
      wide::dot_int4<1>(x, n, filter, static_cast<size_t>(o) * static_cast<size_t>(n),
                        static_cast<size_t>(n), offset2, p.input_offset, a);
      const int32_t acc = bias != nullptr ? wide::add_wrap(a[0], bias[o]) : a[0];
      out[o] = finish<int32_t, int8_t>(p, acc, o, p.output_offset);
    }
  }
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
