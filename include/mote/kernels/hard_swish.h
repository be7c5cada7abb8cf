#pragma once
// int8 HARD_SWISH, x * relu6(x + 3) / 6, bit exact with TFLite's reference HardSwish (16-bit
// fixed point: the input on a "high-resolution" scale input_scale/128, a relu-ish factor in
// [0, 1]). Embeddable C++17: no heap, no exceptions, no float math in the kernel.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

struct HardSwishParams {
  int16_t input_zero_point;
  int16_t output_zero_point;
  // high-res input scale -> the "relu-ish" scale 3/32768: Q15 multiplier and exponent
  int16_t reluish_multiplier_fixedpoint_int16;
  int32_t reluish_multiplier_exponent;
  // high-res input scale -> output scale
  int16_t output_multiplier_fixedpoint_int16;
  int32_t output_multiplier_exponent;  // TFLite requires <= 0; the compiler must reject others
};

// Host-callable: TFLite's HardSwishPrepare (float scale arithmetic, QuantizeMultiplier, then the
// Q31 multipliers rounded to Q15).
HardSwishParams prepare_hard_swish(float input_scale, int32_t input_zero_point,
                                   float output_scale, int32_t output_zero_point);

// The output may be the input buffer.
void hard_swish(const HardSwishParams& params, const int8_t* input, int8_t* output,
                size_t count);

}  // namespace kernels
}  // namespace mote
