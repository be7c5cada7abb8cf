#pragma once
// int8 CONCATENATION along any axis. TFLite's int8 kernel requires every input to share the
// output's scale and zero point and then just copies; Mote also accepts inputs with other
// quantization and requantizes them exactly as a TFLite int8->int8 QUANTIZE op would (Requantize:
// multiplier/shift, no float math). Embeddable C++17.

#include <stdint.h>

namespace mote {
namespace kernels {

struct ConcatenationParams {
  int32_t num_inputs;
  int32_t outer_size;  // product of the output dimensions before the axis
};

// One per input.
struct ConcatenationInput {
  int32_t copy_size;  // input dims from the axis on, multiplied: elements per outer index
  bool requantize;    // false: plain copy
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier;  // input_scale / output_scale
  int32_t shift;
};

// Host-callable: outer size from the output dims and the axis (normalised to 0 .. rank-1).
ConcatenationParams prepare_concatenation(int32_t num_inputs, int32_t rank,
                                          const int32_t* output_dims, int32_t axis);
// Host-callable: one input's copy size and requantization.
ConcatenationInput prepare_concatenation_input(int32_t rank, const int32_t* input_dims,
                                               int32_t axis, float input_scale,
                                               int32_t input_zero_point, float output_scale,
                                               int32_t output_zero_point);

// inputs[i] and input_params[i] for i < num_inputs. No scratch.
void concatenation(const ConcatenationParams& params, const ConcatenationInput* input_params,
                   const int8_t* const* inputs, int8_t* output);

}  // namespace kernels
}  // namespace mote
