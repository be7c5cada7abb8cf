#pragma once
// int8 TANH. The output quantization is fixed: scale 1/128, zero point 0 (what TensorFlow Lite's
// integer kernel writes; converters quantize TANH's output so). TensorFlow Lite has two int8
// implementations that can differ in the last bit, as for LOGISTIC (logistic.h):
//  - tanh(): fixed point, TFLite's reference_integer_ops::Tanh, which TensorFlow Lite Micro runs
//    (input in Q4.27 with LOGISTIC's parameters, gemmlowp's tanh, output rounded to Q0.7).
//  - a 256-entry table that the TFLite interpreter's int8 kernel builds in float
//    (prepare_tanh_table(), applied with lookup_table() from lookup_table.h).
// Embeddable C++17: no heap, no exceptions, no float math in the kernel.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

struct TanhParams {
  int32_t input_zero_point;
  int32_t input_range_radius;  // |x - zp| at or beyond this saturates to -128 / 127
  int32_t input_multiplier;    // input_scale * 2^27 as a Q31 multiplier ...
  int32_t input_left_shift;    // ... and its shift
};

// Host-callable: TFLM's CalculateArithmeticOpData for int8 TANH (the same rule as LOGISTIC's).
TanhParams prepare_tanh(float input_scale, int32_t input_zero_point);

// The output may be the input buffer.
void tanh(const TanhParams& params, const int8_t* input, int8_t* output, size_t count);

// Host-callable: fills table[(uint8_t)q] with the TFLite interpreter's int8 TANH result for input
// q (dequantize, tanh in float, round, requantize).
void prepare_tanh_table(float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, int8_t table[256]);

}  // namespace kernels
}  // namespace mote
