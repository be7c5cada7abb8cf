#pragma once
// int8 LEAKY_RELU, bit exact with TFLite's reference QuantizeLeakyRelu: a non-negative centred
// input is requantized by input_scale / output_scale, a negative one by alpha * input_scale /
// output_scale (two multipliers, no float in the kernel). Embeddable C++17; small enough to live
// here whole.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {

struct LeakyReluParams {
  int32_t input_offset;  // -input zero point
  int32_t output_offset;  // +output zero point
  int32_t identity_multiplier;
  int32_t identity_shift;  // positive = left shift
  int32_t alpha_multiplier;
  int32_t alpha_shift;
};

// Host-callable: TFLite's prepare (the scale products in float, then QuantizeMultiplier).
inline LeakyReluParams prepare_leaky_relu(float input_scale, int32_t input_zero_point,
                                          float output_scale, int32_t output_zero_point,
                                          float alpha) {
  // TFLite computes both ratios in float and only then widens them.
  const QuantizedMultiplier identity =
      quantize_multiplier(static_cast<double>(input_scale / output_scale));
  const QuantizedMultiplier scaled_alpha =
      quantize_multiplier(static_cast<double>(input_scale * alpha / output_scale));
  return {-input_zero_point, output_zero_point, identity.multiplier,
          identity.shift,    scaled_alpha.multiplier, scaled_alpha.shift};
}

namespace internal {
template <typename T>
void leaky_relu(const LeakyReluParams& p, const T* input, T* output, size_t count, int32_t lo,
                int32_t hi) {
  for (size_t i = 0; i < count; ++i) {
    const int32_t x = input[i] + p.input_offset;
    int32_t y = x >= 0 ? multiply_by_quantized_multiplier(x, p.identity_multiplier, p.identity_shift)
                       : multiply_by_quantized_multiplier(x, p.alpha_multiplier, p.alpha_shift);
    y += p.output_offset;
    y = y < lo ? lo : y;
    y = y > hi ? hi : y;
    output[i] = static_cast<T>(y);
  }
}
}  // namespace internal

// The output may be the input buffer. Shifts must keep 255 << shift inside int32 (<= 23).
inline void leaky_relu(const LeakyReluParams& p, const int8_t* input, int8_t* output,
                       size_t count) {
  internal::leaky_relu(p, input, output, count, -128, 127);
}
// int16 (16x8 models, TFLite's QuantizeLeakyRelu<int16_t>): the same arithmetic, clamped to
// int16; shifts must keep 32768 << shift inside int32.
inline void leaky_relu(const LeakyReluParams& p, const int16_t* input, int16_t* output,
                       size_t count) {
  internal::leaky_relu(p, input, output, count, -32768, 32767);
}

}  // namespace kernels
}  // namespace mote
