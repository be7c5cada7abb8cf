// mve FULLY_CONNECTED with int16 activations (16x8) or packed int4 weights: one input row against
// four filter rows at a time (mve/wide_dot.h), then the portable kernel's requantization (the
// 64-bit one for int64 sums; int4's blocks of four outputs as a vector, mve/requantize.h). int4:
// sum (x + io)(w + fo) = sum x w + io sum w + fo sum x + n io fo, sum w from the dot products'
// loop, sum x once per input row. No scratch.

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "mve/kernels.h"
#include "mve/requantize.h"
#include "mve/wide_dot.h"
#include "portable/direct_window.h"

namespace mote {
namespace kernels {
namespace mve {
namespace {

inline int32_t plus(int32_t a, int32_t b) { return wide::add_wrap(a, b); }
inline int64_t plus(int64_t a, int64_t b) { return a + b; }

template <typename Acc, typename Output>
Output finish(const FullyConnectedParams& p, Acc acc, int32_t o, int32_t output_offset) {
  const int32_t c = p.per_channel ? o : 0;
  const int32_t v =
      direct::requantize(acc, p.output_multiplier[c], p.output_shift[c]) + output_offset;
  return static_cast<Output>(direct::clamp(v, p.act_min, p.act_max));
}

// sum x (only for a weight zero point, which TFLite's 16x8 weights never have).
template <typename Acc>
Acc sum_of(const int16_t* x, int32_t n) {
  int64_t sum = 0;
  for (int32_t i = 0; i < n; ++i) sum += x[i];
  return static_cast<Acc>(sum);
}

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
        p.filter_offset == 0
            ? Acc{0}
            : static_cast<Acc>(static_cast<uint64_t>(sum_of<Acc>(x, n)) *
                               static_cast<uint64_t>(static_cast<int64_t>(p.filter_offset)));
    int32_t o = 0;
    for (; o + 4 <= od; o += 4) {
      Acc a[4] = {row_term, row_term, row_term, row_term};
      wide::dot_16x8<4>(x, n, filter + static_cast<ptrdiff_t>(o) * n, n, a);
      for (int32_t k = 0; k < 4; ++k) {
        out[o + k] =
            finish<Acc, int16_t>(p, bias != nullptr ? plus(a[k], bias[o + k]) : a[k], o + k, 0);
      }
    }
    for (; o < od; ++o) {
      Acc a[1] = {row_term};
      wide::dot_16x8<1>(x, n, filter + static_cast<ptrdiff_t>(o) * n, n, a);
      out[o] = finish<Acc, int16_t>(p, bias != nullptr ? plus(a[0], bias[o]) : a[0], o, 0);
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
      return finish<int32_t, int8_t>(p, static_cast<int32_t>(acc), o, p.output_offset);
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
