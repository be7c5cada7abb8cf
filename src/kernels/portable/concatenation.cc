#include "mote/kernels/concatenation.h"

#include <stddef.h>
#include <string.h>

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {

ConcatenationParams prepare_concatenation(int32_t num_inputs, int32_t rank,
                                          const int32_t* output_dims, int32_t axis) {
  ConcatenationParams p{};
  p.num_inputs = num_inputs;
  p.outer_size = 1;
  for (int32_t i = 0; i < axis && i < rank; ++i) p.outer_size *= output_dims[i];
  return p;
}

ConcatenationInput prepare_concatenation_input(int32_t rank, const int32_t* input_dims,
                                               int32_t axis, float input_scale,
                                               int32_t input_zero_point, float output_scale,
                                               int32_t output_zero_point) {
  ConcatenationInput in{};
  in.copy_size = 1;
  for (int32_t i = axis; i < rank; ++i) in.copy_size *= input_dims[i];
  in.input_zero_point = input_zero_point;
  in.output_zero_point = output_zero_point;
  in.requantize = !(input_scale == output_scale && input_zero_point == output_zero_point);
  if (in.requantize) {
    const QuantizedMultiplier m = quantize_multiplier(static_cast<double>(input_scale) /
                                                      static_cast<double>(output_scale));
    in.multiplier = m.multiplier;
    in.shift = m.shift;
  }
  return in;
}

void concatenation(const ConcatenationParams& params, const ConcatenationInput* input_params,
                   const int8_t* const* inputs, int8_t* output) {
  for (int32_t outer = 0; outer < params.outer_size; ++outer) {
    for (int32_t i = 0; i < params.num_inputs; ++i) {
      const ConcatenationInput& in = input_params[i];
      const int8_t* src = inputs[i] + static_cast<ptrdiff_t>(outer) * in.copy_size;
      if (!in.requantize) {
        memcpy(output, src, static_cast<size_t>(in.copy_size));
      } else {
        for (int32_t j = 0; j < in.copy_size; ++j) {
          int32_t v = multiply_by_quantized_multiplier(src[j] - in.input_zero_point, in.multiplier,
                                                       in.shift) +
                      in.output_zero_point;
          v = v < -128 ? -128 : (v > 127 ? 127 : v);
          output[j] = static_cast<int8_t>(v);
        }
      }
      output += in.copy_size;
    }
  }
}

}  // namespace kernels
}  // namespace mote
