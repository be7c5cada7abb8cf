#pragma once
// int8 (or 16x8: int16 input and output, int8 alpha) PRELU with alpha broadcast over the input,
// bit exact with TFLite's reference Prelu and BroadcastPrelu4DSlow: a non-negative centred input
// is requantized by input_scale / output_scale; a negative one is multiplied by the centred
// alpha and requantized by input_scale * alpha_scale / output_scale. Embeddable C++17: no heap,
// no exceptions, no float in the kernel.

#include <stdint.h>

#include "mote/kernels/broadcast.h"

namespace mote {
namespace kernels {

struct PreluParams {
  int32_t input_offset;  // -input zero point
  int32_t alpha_offset;  // -alpha zero point
  int32_t output_offset;  // +output zero point
  int32_t identity_multiplier;
  int32_t identity_shift;  // positive = left shift
  int32_t alpha_multiplier;
  int32_t alpha_shift;
};

// Host-callable: TFLite's PreluPrepare. The interpreter forms both ratios in float, then
// QuantizeMultiplier (TensorFlow Lite Micro forms them in double; they can differ in the last
// bit of a multiplier).
PreluParams prepare_prelu(float input_scale, int32_t input_zero_point, float alpha_scale,
                          int32_t alpha_zero_point, float output_scale, int32_t output_zero_point);

// Whether both requantizations stay inside int32 for any int8 input and alpha (|x| <= 255, |x *
// alpha| <= 255 * 255; `int16` input: |x| <= 32768, |x * alpha| <= 32768 * 255). The load check
// and the compiler's PRELU definition ask it.
bool prelu_fits(const PreluParams& params, bool int16 = false);

// output = prelu(input, alpha) over `shape` (input 1 is the input, input 2 alpha, broadcast to
// the output, whose shape is the input's). The output may be the input buffer.
void prelu(const PreluParams& params, const BroadcastShape& shape, const int8_t* input,
           const int8_t* alpha, int8_t* output);
void prelu(const PreluParams& params, const BroadcastShape& shape, const int16_t* input,
           const int8_t* alpha, int16_t* output);

}  // namespace kernels
}  // namespace mote
