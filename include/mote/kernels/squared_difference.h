#pragma once
// int8 (or int16) SQUARED_DIFFERENCE with broadcasting, bit exact with TFLite's kernel
// (squared_difference.cc): both centred inputs are shifted left by 7 (int16: 0) and requantized
// to twice the larger input scale, their difference squared in int32 and requantized to the
// output.
// Embeddable C++17: no heap, no exceptions, no float in the kernel.

#include <stdint.h>

#include "mote/kernels/broadcast.h"

namespace mote {
namespace kernels {

struct SquaredDifferenceParams {
  int32_t input1_offset;  // -input1 zero point
  int32_t input2_offset;  // -input2 zero point
  int32_t output_offset;  // +output zero point
  int32_t left_shift;     // 7 for int8, 0 for int16
  int32_t input1_multiplier;  // input1_scale / (2 * max scale), at most 1/2
  int32_t input1_shift;
  int32_t input2_multiplier;
  int32_t input2_shift;
  int32_t output_multiplier;  // (2 * max scale)^2 / (2^(2 * left_shift) * output_scale)
  int32_t output_shift;
};

// Host-callable: TFLite's PrepareQuantized (in double), for int8 or `int16`.
SquaredDifferenceParams prepare_squared_difference(float input1_scale, int32_t input1_zero_point,
                                                   float input2_scale, int32_t input2_zero_point,
                                                   float output_scale, int32_t output_zero_point,
                                                   bool int16 = false);

// Whether every step's int32 arithmetic is free of overflow for any int8 (`int16`: int16) inputs:
// the shifted inputs' requantizations, the square of their difference and its requantization.
// The load check and the compiler's definition ask it.
bool squared_difference_fits(const SquaredDifferenceParams& params, bool int16 = false);

// output = (input1 - input2)^2 over `shape` (see broadcast.h). The output may be an input buffer
// whose shape equals the output's (in place).
void squared_difference(const SquaredDifferenceParams& params, const BroadcastShape& shape,
                        const int8_t* input1, const int8_t* input2, int8_t* output);
void squared_difference(const SquaredDifferenceParams& params, const BroadcastShape& shape,
                        const int16_t* input1, const int16_t* input2, int16_t* output);

}  // namespace kernels
}  // namespace mote
