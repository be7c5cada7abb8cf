#include "mote/kernels/leaky_relu.h"

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {

LeakyReluParams prepare_leaky_relu(float input_scale, int32_t input_zero_point,
                                   float output_scale, int32_t output_zero_point, float alpha) {
  LeakyReluParams p{};
  p.input_offset = -input_zero_point;
  p.output_offset = output_zero_point;
  // TFLite computes both ratios in float and only then widens them.
  const QuantizedMultiplier identity =
      quantize_multiplier(static_cast<double>(input_scale / output_scale));
  const QuantizedMultiplier scaled_alpha =
      quantize_multiplier(static_cast<double>(input_scale * alpha / output_scale));
  p.identity_multiplier = identity.multiplier;
  p.identity_shift = identity.shift;
  p.alpha_multiplier = scaled_alpha.multiplier;
  p.alpha_shift = scaled_alpha.shift;
  return p;
}

void leaky_relu(const LeakyReluParams& p, const int8_t* input, int8_t* output, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const int32_t x = input[i] + p.input_offset;
    int32_t y = x >= 0 ? multiply_by_quantized_multiplier(x, p.identity_multiplier, p.identity_shift)
                       : multiply_by_quantized_multiplier(x, p.alpha_multiplier, p.alpha_shift);
    y += p.output_offset;
    y = y < -128 ? -128 : y;
    y = y > 127 ? 127 : y;
    output[i] = static_cast<int8_t>(y);
  }
}

}  // namespace kernels
}  // namespace mote
