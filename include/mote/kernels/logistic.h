#pragma once
// int8 LOGISTIC (sigmoid). The output quantization is fixed as in TFLite: scale 1/256, zero point
// -128. TensorFlow Lite has two int8 implementations that can differ in the last bit:
//  - logistic(): fixed point, TFLite's reference_integer_ops::Logistic, which TensorFlow Lite Micro
//    runs (input in Q4.27, gemmlowp exp and reciprocal).
//  - a 256-entry table that the TFLite interpreter's int8 kernel builds in float
//    (prepare_logistic_table(), applied with lookup_table() from lookup_table.h).
// Embeddable C++17: no heap, no exceptions, no float math in the kernel.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

struct LogisticParams {
  int32_t input_zero_point;
  int32_t input_range_radius;  // |x - zp| at or beyond this saturates to -128 / 127
  int32_t input_multiplier;    // input_scale * 2^27 as a Q31 multiplier ...
  int32_t input_left_shift;    // ... and its shift
};

// Host-callable: TFLM's CalculateArithmeticOpDataLogistic for int8.
LogisticParams prepare_logistic(float input_scale, int32_t input_zero_point);

// The output may be the input buffer.
void logistic(const LogisticParams& params, const int8_t* input, int8_t* output, size_t count);

// Host-callable: fills table[(uint8_t)q] with the TFLite interpreter's int8 LOGISTIC result for
// input q (dequantize, 1 / (1 + exp(-x)) in float, round, requantize).
void prepare_logistic_table(float input_scale, int32_t input_zero_point, float output_scale,
                            int32_t output_zero_point, int8_t table[256]);

}  // namespace kernels
}  // namespace mote
