#pragma once
// The 16x8 CONV_2D and FULLY_CONNECTED of the dsp and mve variants: one driver each around the
// variant's dot products, then the portable kernel's requantization (the 64-bit one for int64
// sums). Acc is the bias type: int64 sums, or int32 ones that wrap as the instructions' do.
// Dot gives the variant's dot products of R filter rows (dsp/wide_dot.h's or mve/wide_dot.h's):
//   template <int R, typename Acc>
//   static void rows(const int16_t* x, int32_t n, const int8_t* w, ptrdiff_t stride, Acc* a):
//     a[r] += x[0..n) . w[r * stride ..).
// Also the finishes (bias, requantization, offset, clamp) the int4 kernels share. Internal to
// src/kernels/; embeddable C++17.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/conv.h"
#include "mote/kernels/fully_connected.h"
#include "portable/direct_window.h"
#include "wide_conv.h"

namespace mote {
namespace kernels {
namespace wide_16x8 {

inline int32_t plus(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int64_t plus(int64_t a, int64_t b) { return a + b; }

// Bias, requantization, offset and clamp of one output channel of a convolution.
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

// Requantization, offset and clamp of output o of a fully connected layer (bias added).
template <typename Acc, typename Output>
Output finish_fully_connected(const FullyConnectedParams& p, Acc acc, int32_t o,
                              int32_t output_offset) {
  const int32_t c = p.per_channel ? o : 0;
  const int32_t v =
      direct::requantize(acc, p.output_multiplier[c], p.output_shift[c]) + output_offset;
  return static_cast<Output>(direct::clamp(v, p.act_min, p.act_max));
}

// wide_conv.h's policy for 16x8: no pixel term, channels finished one by one.
template <typename Dot, typename AccType>
struct ConvPolicy {
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
    Dot::template rows<R>(x, n, filter + pos, static_cast<ptrdiff_t>(stride), a);
  }
};

template <typename Dot, typename Acc>
void conv(const ConvParams& params, const int16_t* input, const int8_t* filter, const Acc* bias,
          int16_t* output) {
  const ConvParams p = params;
  const ConvPolicy<Dot, Acc> policy{{p, bias, 0}};
  wide_conv::run(p.shape, policy, input, filter, output);
}

// One input row against four filter rows at a time, then the last rows one by one.
template <typename Dot, typename Acc>
void fully_connected(const FullyConnectedParams& params, const int16_t* input,
                     const int8_t* filter, const Acc* bias, int16_t* output) {
  const FullyConnectedParams p = params;
  const int32_t n = p.input_depth, od = p.output_depth;
  const auto finish = [&](Acc acc, int32_t o) {
    return finish_fully_connected<Acc, int16_t>(p, bias != nullptr ? plus(acc, bias[o]) : acc, o,
                                                0);
  };
  for (int32_t b = 0; b < p.batches; ++b) {
    const int16_t* x = input + static_cast<ptrdiff_t>(b) * n;
    int16_t* out = output + static_cast<ptrdiff_t>(b) * od;
    // The weight zero point's term, fo sum x (TFLite's 16x8 weights are symmetric; kept for
    // exactness), modulo 2^32 for int32 sums as theirs.
    Acc row_term = 0;
    if (p.filter_offset != 0) {
      int64_t sum = 0;
      for (int32_t i = 0; i < n; ++i) sum += x[i];
      row_term = static_cast<Acc>(static_cast<uint64_t>(sum) *
                                  static_cast<uint64_t>(static_cast<int64_t>(p.filter_offset)));
    }
    int32_t o = 0;
    for (; o + 4 <= od; o += 4) {
      Acc a[4] = {row_term, row_term, row_term, row_term};
      Dot::template rows<4>(x, n, filter + static_cast<ptrdiff_t>(o) * n, n, a);
      for (int32_t k = 0; k < 4; ++k) out[o + k] = finish(a[k], o + k);
    }
    for (; o < od; ++o) {
      Acc a[1] = {row_term};
      Dot::template rows<1>(x, n, filter + static_cast<ptrdiff_t>(o) * n, n, a);
      out[o] = finish(a[0], o);
    }
  }
}

}  // namespace wide_16x8
}  // namespace kernels
}  // namespace mote
