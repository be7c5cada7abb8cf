#pragma once
// SOFTMAX over the last dimension, int8 input to int8 or int16 output, bit exact with TFLite's
// reference quantized kernel (gemmlowp fixed point: exp with 5 integer bits, sums with 12 integer
// bits, a Newton-Raphson reciprocal). The output quantization is fixed as in TFLite: int8 output
// has scale 1/256 and zero point -128, int16 output scale 1/65536 and zero point -32768.
// Embeddable C++17: no heap, no exceptions, no float math in the kernel.

#include <stdint.h>

namespace mote {
namespace kernels {

struct SoftmaxParams {
  int32_t rows;      // product of all dimensions but the last
  int32_t row_size;  // the last dimension
  int32_t input_multiplier;  // beta * input_scale * 2^26 as a Q31 multiplier ...
  int32_t input_left_shift;  // ... and its (non-negative) left shift
  int32_t diff_min;  // x - max(row) below this contributes exp() = 0
};

// Host-callable: TFLite's PreprocessSoftmaxScaling and CalculateInputRadius.
SoftmaxParams prepare_softmax(int32_t rows, int32_t row_size, float input_scale, float beta);

void softmax(const SoftmaxParams& params, const int8_t* input, int8_t* output);
void softmax(const SoftmaxParams& params, const int8_t* input, int16_t* output);

// int16 SOFTMAX (TFLite's reference SoftmaxInt16): x - max(row) scaled onto [-10, 0] by
// input_multiplier/input_left_shift, exp and 1/(1+x) by interpolation in two 513-entry tables
// (TFLite's gen_lut on [-10, 0] and [0, 1]), output scale 1/32768, zero point 0.
struct Softmax16Params {
  int32_t rows;
  int32_t row_size;
  int32_t input_multiplier;
  int32_t input_left_shift;
  const int16_t* exp_lut;         // [513]
  const int16_t* one_over_one_plus_x_lut;  // [513]
};
inline constexpr int32_t kSoftmax16LutSize = 513;
void softmax(const Softmax16Params& params, const int16_t* input, int16_t* output);

// Host-callable: TFLite Micro's two int16 tables, as its Prepare computes them in float
// (LUTPopulate<int16_t>: exp on [-10, 0], 1 / (1 + x) on [0, 1], each sample biased by half the
// interpolation error at its midpoint); kSoftmax16LutSize entries each.
void populate_softmax16_tables(int16_t* exp_lut, int16_t* one_over_one_plus_x_lut);

}  // namespace kernels
}  // namespace mote
