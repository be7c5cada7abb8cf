#pragma once
// int8 MEAN over the H and W axes of an NHWC tensor (axis [1, 2]; output [N, 1, 1, C] or [N, C]).
// TensorFlow Lite has two integer formulas for this case, and they can differ by one in the last
// bit, so the compiler picks the one matching the interpreter it wants to agree with:
//  - kTfLite: TFLite's reference kernel for keep_dims = true (reference_integer_ops::Mean):
//    sum (x - input_zp), requantize by input_scale/output_scale, then divide by the element
//    count rounding half away from zero.
//  - kTflm: TensorFlow Lite Micro (every int8 MEAN) and TFLite's keep_dims = false path with
//    differing quantization (QuantizedMeanOrSum): 1/count is folded into the multiplier.
// Embeddable C++17: no heap, no exceptions, no float math in the kernel.

#include <stdint.h>

namespace mote {
namespace kernels {

enum class MeanFormula : uint8_t { kTfLite = 0, kTflm = 1 };

struct MeanParams {
  int32_t batches, height, width, channels;  // input [batches, height, width, channels]
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier;  // kTfLite: input_scale / output_scale; kTflm: also divided by the count
  int32_t shift;
  MeanFormula formula;
};

// Host-callable: what the chosen interpreter's Prepare (and, for kTflm, its Eval's multiplier
// adjustment) computes.
MeanParams prepare_mean(int32_t batches, int32_t height, int32_t width, int32_t channels,
                        float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, MeanFormula formula);

// Output has batches * channels elements. No scratch.
void mean(const MeanParams& params, const int8_t* input, int8_t* output);

}  // namespace kernels
}  // namespace mote
