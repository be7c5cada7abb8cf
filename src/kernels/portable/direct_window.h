#pragma once
// Direct loops (no im2col, no blocking) for the operator forms that have no fast path yet: int16
// activations with int8 weights (TFLite's 16x8) and packed int4 weights. One loop per operator,
// generic over the element types, the filter's storage and the accumulator, so each form is
// TFLite's reference arithmetic exactly: the accumulator type (int32 or int64) selects the
// requantization (multiply_by_quantized_multiplier or its 64-bit form). Embeddable C++17.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/quantization.h"
#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {
namespace direct {

// An int8 filter read as stored.
struct Int8Filter {
  const int8_t* data;
  int32_t operator[](size_t i) const { return data[i]; }
};

// A filter of int4 values packed two per byte over the whole flattened tensor, element 2k in the
// low nibble of byte k, 2k+1 in the high nibble (as TFLite and CMSIS-NN store INT4 tensors).
struct PackedInt4Filter {
  const uint8_t* data;
  int32_t operator[](size_t i) const {
    const uint32_t byte = data[i >> 1];
    const uint32_t nibble = (i & 1) != 0 ? byte >> 4 : byte & 15u;
    return static_cast<int32_t>(nibble ^ 8u) - 8;
  }
};

inline int32_t requantize(int32_t acc, int32_t multiplier, int32_t shift) {
  return multiply_by_quantized_multiplier(acc, multiplier, shift);
}
inline int32_t requantize(int64_t acc, int32_t multiplier, int32_t shift) {
  return multiply_by_quantized_multiplier_64(acc, multiplier, shift);
}

inline int32_t clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

// The window arithmetic both convolutions share: each output element is
// clamp(requantize(bias + sum (input + input_offset) * filter) + output_offset).
struct WindowQuantization {
  int32_t input_offset, output_offset, act_min, act_max;
  const int32_t* multiplier;  // [output_c]
  const int32_t* shift;
};

// Calls tap(ky, kx, iy, ix) for each tap of output pixel (oy, ox)'s window inside the input
// (padding contributes nothing).
template <typename Shape, typename Tap>
void for_each_tap(const Shape& s, int32_t oy, int32_t ox, Tap&& tap) {
  for (int32_t ky = 0; ky < s.filter_h; ++ky) {
    const int32_t iy = oy * s.stride_h - s.pad_h + ky * s.dilation_h;
    if (iy < 0 || iy >= s.input_h) continue;
    for (int32_t kx = 0; kx < s.filter_w; ++kx) {
      const int32_t ix = ox * s.stride_w - s.pad_w + kx * s.dilation_w;
      if (ix < 0 || ix >= s.input_w) continue;
      tap(ky, kx, iy, ix);
    }
  }
}

// clamp(requantize(acc + bias) + output_offset) for output channel oc.
template <typename Acc>
int32_t finish(Acc acc, const Acc* bias, int32_t oc, const WindowQuantization& q) {
  if (bias != nullptr) acc += bias[oc];
  const int32_t v = requantize(acc, q.multiplier[oc], q.shift[oc]) + q.output_offset;
  return clamp(v, q.act_min, q.act_max);
}

// CONV_2D; grouped when filter_c < input_c. Returns without writing on a non-positive stride,
// dilation or filter_c, or input_c not a multiple of filter_c.
template <typename Acc, typename Input, typename Filter, typename Output>
void conv(const ConvShape& s, const WindowQuantization& q, const Input* input, Filter filter,
          const Acc* bias, Output* output) {
  if (s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 || s.dilation_w <= 0 ||
      s.filter_c <= 0 || s.input_c % s.filter_c != 0) {
    return;
  }
  const int32_t groups = s.input_c / s.filter_c;
  const int32_t per_group = s.output_c / groups;
  if (per_group <= 0) return;
  size_t out = 0;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t oy = 0; oy < s.output_h; ++oy) {
      for (int32_t ox = 0; ox < s.output_w; ++ox) {
        for (int32_t oc = 0; oc < s.output_c; ++oc) {
          const int32_t first_c = (oc / per_group) * s.filter_c;
          Acc acc = 0;
          for_each_tap(s, oy, ox, [&](int32_t ky, int32_t kx, int32_t iy, int32_t ix) {
            const Input* x =
                input + ((static_cast<size_t>(b) * s.input_h + iy) * s.input_w + ix) * s.input_c +
                first_c;
            const size_t w =
                ((static_cast<size_t>(oc) * s.filter_h + ky) * s.filter_w + kx) * s.filter_c;
            for (int32_t c = 0; c < s.filter_c; ++c) {
              acc += static_cast<Acc>(static_cast<int32_t>(x[c]) + q.input_offset) * filter[w + c];
            }
          });
          output[out++] = static_cast<Output>(finish(acc, bias, oc, q));
        }
      }
    }
  }
}

// DEPTHWISE_CONV_2D, filter [1, filter_h, filter_w, output_c]. Returns without writing on a
// non-positive stride or dilation, or output_c not a multiple of input_c.
template <typename Acc, typename Input, typename Filter, typename Output>
void depthwise_conv(const DepthwiseShape& s, const WindowQuantization& q, const Input* input,
                    Filter filter, const Acc* bias, Output* output) {
  if (s.stride_h <= 0 || s.stride_w <= 0 || s.dilation_h <= 0 || s.dilation_w <= 0 ||
      s.input_c <= 0 || s.output_c % s.input_c != 0) {
    return;
  }
  const int32_t multiplier = s.output_c / s.input_c;
  size_t out = 0;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t oy = 0; oy < s.output_h; ++oy) {
      for (int32_t ox = 0; ox < s.output_w; ++ox) {
        for (int32_t oc = 0; oc < s.output_c; ++oc) {
          const int32_t ic = oc / multiplier;
          Acc acc = 0;
          for_each_tap(s, oy, ox, [&](int32_t ky, int32_t kx, int32_t iy, int32_t ix) {
            const int32_t x =
                input[((static_cast<size_t>(b) * s.input_h + iy) * s.input_w + ix) * s.input_c + ic];
            const size_t w = (static_cast<size_t>(ky) * s.filter_w + kx) * s.output_c + oc;
            acc += static_cast<Acc>(x + q.input_offset) * filter[w];
          });
          output[out++] = static_cast<Output>(finish(acc, bias, oc, q));
        }
      }
    }
  }
}

// FULLY_CONNECTED: acc = bias + sum (input + input_offset) * (filter + filter_offset), per-tensor
// or per-channel requantization.
template <typename Acc, typename Input, typename Filter, typename Output, typename Params>
void fully_connected(const Params& p, const Input* input, Filter filter, const Acc* bias,
                     Output* output) {
  for (int32_t b = 0; b < p.batches; ++b) {
    const Input* x = input + static_cast<size_t>(b) * p.input_depth;
    for (int32_t o = 0; o < p.output_depth; ++o) {
      const size_t row = static_cast<size_t>(o) * p.input_depth;
      Acc acc = 0;
      for (int32_t i = 0; i < p.input_depth; ++i) {
        acc += static_cast<Acc>(static_cast<int32_t>(x[i]) + p.input_offset) *
               (filter[row + i] + p.filter_offset);
      }
      if (bias != nullptr) acc += bias[o];
      const int32_t c = p.per_channel ? o : 0;
      const int32_t v = requantize(acc, p.output_multiplier[c], p.output_shift[c]) + p.output_offset;
      output[static_cast<size_t>(b) * p.output_depth + o] =
          static_cast<Output>(clamp(v, p.act_min, p.act_max));
    }
  }
}

}  // namespace direct
}  // namespace kernels
}  // namespace mote
