#pragma once
// int8 transpose convolution (TFLite TRANSPOSE_CONV, per-channel quantization), NHWC.
// Embeddable C++17.

#include <stdint.h>

#include "mote/kernels/common.h"
#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {

struct TransposeConvParams {
  TransposeConvShape shape;  // pad_h/pad_w: TFLite's transpose-conv padding (top/left)
  int32_t input_offset;      // -input zero point
  int32_t output_offset;     // +output zero point
  int32_t act_min;           // fused activation clamp in the output's quantized domain
  int32_t act_max;
  const int32_t* output_multiplier;  // [output_c], Q31 mantissas
  const int32_t* output_shift;       // [output_c], positive = left shift
};

// Every input pixel (iy, ix) scatters (input + input_offset) * filter[oc, ky, kx, :] into output
// (iy * stride_h - pad_h + ky, ix * stride_w - pad_w + kx) when that lies inside the output; the
// int32 sums plus bias[oc] are then requantized per output channel.
// input [batches, input_h, input_w, input_c]; filter [output_c, filter_h, filter_w, input_c];
// bias [output_c] or nullptr; output [batches, output_h, output_w, output_c].
// Computes output pixel by output pixel (gathering the taps that reach it), so it needs no int32
// sum buffer and no scratch: any scratch size works, including 0, and scratch is never touched.
// Shapes must be consistent (the runtime verifies them); a non-positive stride makes it return
// without writing.
void transpose_conv2d(const TransposeConvParams& params, const int8_t* input, const int8_t* filter,
                      const int32_t* bias, int8_t* output, Scratch scratch);

// 16x8 (int16 input and output, zero points 0, int8 filter, int64 bias or nullptr): TFLite's
// reference int16 TransposeConv (int64 sums, the 64-bit requantization). Portable in every
// build, no scratch; returns without writing on a non-positive stride.
void transpose_conv2d_16x8(const TransposeConvParams& params, const int16_t* input,
                           const int8_t* filter, const int64_t* bias, int16_t* output);

}  // namespace kernels
}  // namespace mote
