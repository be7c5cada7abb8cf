#pragma once
// int8 RELU and RELU6, bit exact with TFLite's int8 kernel (QuantizedReluX over the reference
// ReluX): the centred input is requantized by input_scale / output_scale, the output zero point
// added, and the result clamped to the output's quantized 0 and (RELU6) 6. Embeddable C++17; small
// enough to live here whole, except the host-side prepare.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {

struct ReluParams {
  int32_t input_offset;   // -input zero point
  int32_t output_offset;  // +output zero point
  int32_t multiplier;     // input_scale / output_scale
  int32_t shift;          // positive = left shift
  int32_t act_min;        // the output's quantized 0, at least -128
  int32_t act_max;        // the output's quantized 6 (RELU6), at most 127
};

// Host-callable: TFLite's ReluPrepare and QuantizedReluX. The interpreter divides the scales in
// float before widening (TensorFlow Lite Micro divides in double; the two multipliers can differ
// in their last bit, and agree whenever input and output share a quantization, as converters
// write them). The clamp is zero_point + round(0 / scale) and zero_point + round(6 / scale).
// `int16`: the clamp in int16 (TFLM's int16 ReluX; its RELU6 only clamps, which is the same for
// the equal input and output quantization converters write).
ReluParams prepare_relu(float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, bool relu6, bool int16 = false);

// Whether the requantization of any centred int8 (or int16) input stays inside int32.
inline bool relu_fits(const ReluParams& p, bool int16 = false) {
  return requant_fits(int16 ? 32768 : 255, p.multiplier, p.shift);
}

// The output may be the input buffer. int8 or int16.
template <typename T>
inline void relu(const ReluParams& p, const T* input, T* output, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    int32_t y = p.output_offset +
                multiply_by_quantized_multiplier(input[i] + p.input_offset, p.multiplier, p.shift);
    y = y < p.act_min ? p.act_min : y;
    y = y > p.act_max ? p.act_max : y;
    output[i] = static_cast<T>(y);
  }
}

}  // namespace kernels
}  // namespace mote
