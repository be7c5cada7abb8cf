#pragma once
// int8 LEAKY_RELU, bit exact with TFLite's reference QuantizeLeakyRelu: a non-negative centred
// input is requantized by input_scale / output_scale, a negative one by alpha * input_scale /
// output_scale (two multipliers, no float in the kernel). Embeddable C++17.

#include <stddef.h>
#include <stdint.h>

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
LeakyReluParams prepare_leaky_relu(float input_scale, int32_t input_zero_point,
                                   float output_scale, int32_t output_zero_point, float alpha);

// The output may be the input buffer. Shifts must keep 255 << shift inside int32 (<= 23).
void leaky_relu(const LeakyReluParams& params, const int8_t* input, int8_t* output, size_t count);

}  // namespace kernels
}  // namespace mote
