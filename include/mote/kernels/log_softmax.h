#pragma once
// int8 LOG_SOFTMAX over the last dimension, bit exact with TFLite's reference quantized kernel
// (gemmlowp fixed point: the differences from the row's maximum scaled to Q5.26, exp summed with
// 12 integer bits, the log of the sum in Q5.26, the difference rounded to the output). The output
// quantization is fixed as in TFLite: scale 16/256, zero point 127 (log-probabilities in
// [-16, 0) onto [-128, 127]).
// Embeddable C++17: no heap, no exceptions, no float math in the kernel.

#include <stdint.h>

namespace mote {
namespace kernels {

struct LogSoftmaxParams {
  int32_t rows;              // product of all dimensions but the last
  int32_t row_size;          // the last dimension
  int32_t input_multiplier;  // input_scale * 2^26 as a Q31 multiplier ...
  int32_t input_left_shift;  // ... and its (non-negative) left shift
  // The inverse of that scaling, 2^(31 - input_left_shift) / input_multiplier, as a Q31
  // multiplier and a right shift: brings a Q5.26 bound back to input units.
  int32_t reverse_scaling_divisor;
  int32_t reverse_scaling_right_shift;
  int32_t diff_min;  // x - max(row) below this contributes exp() = 0 and writes -128
};

// Rows of this many values or more overflow the sum of exps (12 integer bits).
inline constexpr int32_t kLogSoftmaxMaxRow = 4096;

// Host-callable: TFLite's PreprocessLogSoftmaxScalingExp (beta 1) and CalculateInputRadius.
// Input scales below 2^-26 give a left shift below 1, which TFLite cannot take (its reverse
// scaling would not be below one); the parameters then fail log_softmax_params_ok.
LogSoftmaxParams prepare_log_softmax(int32_t rows, int32_t row_size, float input_scale);

// Whether the kernel can run these parameters without overflowing anything: what the compiler
// requires of prepare_log_softmax's result and the runtime of a program's. Rows are checked
// apart (kLogSoftmaxMaxRow).
bool log_softmax_params_ok(const LogSoftmaxParams& params);

void log_softmax(const LogSoftmaxParams& params, const int8_t* input, int8_t* output);

}  // namespace kernels
}  // namespace mote
