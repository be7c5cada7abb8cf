#pragma once
// The 16x8 CONV_2D and FULLY_CONNECTED of the dsp and mve variants: one driver each around the
// variant's dot products, then TFLite's requantization: for an int64 bias the 64-bit step, or,
// where the layer allows (sums_fit_int32), int32 sums and one rounding high multiply; for an
// int32 bias int32 sums that wrap as the instructions' do.
// Dot gives the variant's dot products of R filter rows (dsp/wide_dot.h's or mve/wide_dot.h's):
//   template <int R, typename Acc>
//   static void rows(const int16_t* x, int32_t n, const int8_t* w, ptrdiff_t stride, Acc* a):
//     a[r] += x[0..n) . w[r * stride ..);
//   static void high_mul4(const int32_t* a, const int64_t* bias, const int32_t* multiplier,
//                         const int32_t* shift, int32_t act_min, int32_t act_max, int16_t* out):
//     finish_high_mul of four channels (bias, multiplier, shift at the first of them).
// Also the finishes (bias, requantization, offset, clamp) the int4 kernels share. Internal to
// src/kernels/; embeddable C++17.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/conv.h"
#include "mote/kernels/fully_connected.h"
#include "mote/kernels/quantization.h"
#include "portable/direct_window.h"
#include "wide_conv.h"

namespace mote {
namespace kernels {
namespace wide_16x8 {

inline int32_t plus(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int64_t plus(int64_t a, int64_t b) { return a + b; }

// Whether a layer with an int64 bias may sum in int32 and requantize with one rounding high
// multiply (quantization.h): at most 256 products per sum (each |x w| <= 2^22, so |sum| <= 2^30),
// every |bias| < 2^30 (so |sum + bias| < 2^31), every multiplier and shift in
// high_mul_takes_64's range. Checked once per call; the results are TFLite's either way.
inline bool sums_fit_int32(const int32_t* multiplier, const int32_t* shift, int32_t quant_channels,
                           const int64_t* bias, int32_t channels, int64_t products) {
  if (products > 256) return false;
  for (int32_t c = 0; c < quant_channels; ++c) {
    if (!high_mul_takes_64(multiplier[c], shift[c])) return false;
  }
  const int64_t limit = int64_t{1} << 30;
  for (int32_t c = 0; bias != nullptr && c < channels; ++c) {
    if (bias[c] >= limit || bias[c] <= -limit) return false;
  }
  return true;
}

// The int16 output of an int32 sum of a layer that sums_fit_int32: the bias's low word added,
// one rounding high multiply, clamped (Dot::high_mul4 does four).
inline int16_t finish_high_mul(int32_t acc, const int64_t* bias, int32_t c, int32_t multiplier,
                               int32_t shift, int32_t act_min, int32_t act_max) {
  if (bias != nullptr) acc += static_cast<int32_t>(bias[c]);
  const int32_t v = rounding_high_mul(acc, high_mul_multiplier_64(multiplier, shift));
  return static_cast<int16_t>(direct::clamp(v, act_min, act_max));
}

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
  void four(const Acc* a, int32_t c, OutputType* out) const {
    for (int32_t r = 0; r < 4; ++r) out[r] = (*this)(a[r], c + r);
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

// An int64-bias layer summed in int32 (sums_fit_int32); four channels by the variant's
// Dot::high_mul4.
template <typename Dot>
struct FinishHighMul {
  const ConvParams& p;
  const int64_t* bias;
  int16_t operator()(int32_t acc, int32_t c) const {
    return finish_high_mul(acc, bias, c, p.output_multiplier[c], p.output_shift[c], p.act_min,
                           p.act_max);
  }
  void four(const int32_t* a, int32_t c, int16_t* out) const {
    Dot::high_mul4(a, bias == nullptr ? nullptr : bias + c, p.output_multiplier + c,
                   p.output_shift + c, p.act_min, p.act_max, out);
  }
};

// wide_conv.h's policy for 16x8: no pixel term, channels finished one by one.
template <typename Dot, typename AccType, typename FinishType = Finish<AccType, int16_t>>
struct ConvPolicy {
  using Acc = AccType;
  using Input = int16_t;
  using Output = int16_t;
  using Filter = const int8_t*;
  FinishType finish;
  Acc pixel_term(const int16_t*, const wide_conv::Run*, int32_t) const { return 0; }
  void finish4(const Acc* a, int32_t c, int16_t* out) const { finish.four(a, c, out); }
  template <int R>
  void dot(const int16_t* x, int32_t n, const int8_t* filter, size_t pos, size_t stride,
           Acc* a) const {
    Dot::template rows<R>(x, n, filter + pos, static_cast<ptrdiff_t>(stride), a);
  }
};

template <typename Dot>
void conv(const ConvParams& params, const int16_t* input, const int8_t* filter,
          const int32_t* bias, int16_t* output) {
  const ConvParams p = params;
  const ConvPolicy<Dot, int32_t> policy{{p, bias, 0}};
  wide_conv::run(p.shape, policy, input, filter, output);
}

template <typename Dot>
void conv(const ConvParams& params, const int16_t* input, const int8_t* filter,
          const int64_t* bias, int16_t* output) {
  const ConvParams p = params;
  const ConvShape& s = p.shape;
  if (sums_fit_int32(p.output_multiplier, p.output_shift, s.output_c, bias, s.output_c,
                     int64_t{s.filter_h} * s.filter_w * s.filter_c)) {
    const ConvPolicy<Dot, int32_t, FinishHighMul<Dot>> policy{{p, bias}};
    wide_conv::run(s, policy, input, filter, output);
  } else {
    const ConvPolicy<Dot, int64_t> policy{{p, bias, 0}};
    wide_conv::run(s, policy, input, filter, output);
  }
}

// One input row against four filter rows at a time, then the last rows one by one.
template <typename Dot, typename Acc, typename FinishOutput>
void fully_connected_with(const FullyConnectedParams& p, const int16_t* input,
                          const int8_t* filter, const FinishOutput& finish, int16_t* output) {
  const int32_t n = p.input_depth, od = p.output_depth;
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

template <typename Dot>
void fully_connected(const FullyConnectedParams& params, const int16_t* input,
                     const int8_t* filter, const int32_t* bias, int16_t* output) {
  const FullyConnectedParams p = params;
  const auto finish = [&](int32_t acc, int32_t o) {
    return finish_fully_connected<int32_t, int16_t>(p, bias != nullptr ? plus(acc, bias[o]) : acc,
                                                    o, 0);
  };
  fully_connected_with<Dot, int32_t>(p, input, filter, finish, output);
}

template <typename Dot>
void fully_connected(const FullyConnectedParams& params, const int16_t* input,
                     const int8_t* filter, const int64_t* bias, int16_t* output) {
  const FullyConnectedParams p = params;
  if (p.filter_offset == 0 &&
      sums_fit_int32(p.output_multiplier, p.output_shift, p.per_channel ? p.output_depth : 1,
                     bias, p.output_depth, p.input_depth)) {
    const auto finish = [&](int32_t acc, int32_t o) {
      const int32_t c = p.per_channel ? o : 0;
      return finish_high_mul(acc, bias, o, p.output_multiplier[c], p.output_shift[c], p.act_min,
                             p.act_max);
    };
    fully_connected_with<Dot, int32_t>(p, input, filter, finish, output);
  } else {
    const auto finish = [&](int64_t acc, int32_t o) {
      return finish_fully_connected<int64_t, int16_t>(p, bias != nullptr ? acc + bias[o] : acc, o,
                                                      0);
    };
    fully_connected_with<Dot, int64_t>(p, input, filter, finish, output);
  }
}

}  // namespace wide_16x8
}  // namespace kernels
}  // namespace mote
