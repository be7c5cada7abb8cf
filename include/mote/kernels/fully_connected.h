#pragma once
// int8 fully connected (TFLite FULLY_CONNECTED), per-tensor or per-channel quantization, with an
// optional weight zero point. Embeddable C++17.

#include <stdint.h>

#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {

struct FullyConnectedParams {
  int32_t batches;        // input rows
  int32_t input_depth;    // accumulation depth (elements per input row)
  int32_t output_depth;   // outputs per row
  int32_t input_offset;   // -input zero point
  int32_t filter_offset;  // -filter zero point (0 for symmetric weights)
  int32_t output_offset;  // +output zero point
  int32_t act_min;        // fused activation clamp in the output's quantized domain
  int32_t act_max;
  // Per-channel: [output_depth] each; per-tensor: one value each.
  const int32_t* output_multiplier;
  const int32_t* output_shift;
  bool per_channel;
  // Optional [output_depth] from fully_connected_kernel_sums(): the bias and every term that does
  // not depend on the input, precomputed at compile time. When set, `bias` is not read.
  const int32_t* kernel_sums;
};

// output[b,o] = requantize(bias[o] + sum_i (input[b,i] + input_offset) * (filter[o,i] + filter_offset)).
// input [batches, input_depth]; filter [output_depth, input_depth]; bias [output_depth] or nullptr;
// output [batches, output_depth]. Needs no scratch on any extension.
// Runs the kernel variant built into the library (src/kernels/fully_connected.cc picks).
void fully_connected(const FullyConnectedParams& params, const int8_t* input, const int8_t* filter,
                     const int32_t* bias, int8_t* output);
// The build's extension kernel alone, without the portable fallback (as conv2d_extension):
// every extension takes every shape.
void fully_connected_extension(const FullyConnectedParams& params, const int8_t* input,
                               const int8_t* filter, const int32_t* bias, int8_t* output);

// The portable kernel (src/kernels/portable/), which runs where no built variant handles the shape.
void portable_fully_connected(const FullyConnectedParams& params, const int8_t* input,
                              const int8_t* filter, const int32_t* bias, int8_t* output);

// sums[o] = bias[o] + input_offset * sum_i filter[o,i] + input_depth * input_offset * filter_offset,
// the input-independent part of each output's sum (bias may be nullptr), saturated to int32.
// Reads input_depth, output_depth, input_offset and filter_offset from params.
void fully_connected_kernel_sums(const FullyConnectedParams& params, const int8_t* filter,
                                 const int32_t* bias, int32_t* sums);

// 16x8: TFLite's reference int16 FullyConnected: with an int64 bias (or none) int64 sums and the
// 64-bit requantization, with an int32 bias int32 sums and the 32-bit one, as TFLM picks by the
// bias type (input and output offsets not read, filter_offset is). int4: int8 activations,
// the [output_depth, input_depth] weights packed two per byte, low nibble first, over the whole
// tensor (they stay packed). kernel_sums is not read (the bias is); no scratch on any extension.
// Each runs the variant built into the library (fully_connected.cc's 16x8 and int4 tables: dsp,
// mve, portable), with the portable kernel's results bit for bit.
void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int64_t* bias, int16_t* output);
void fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int32_t* bias, int16_t* output);
void fully_connected_int4(const FullyConnectedParams& params, const int8_t* input,
                          const uint8_t* filter, const int32_t* bias, int8_t* output);
// The portable kernels (direct loops, src/kernels/portable/).
void portable_fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                                   const int8_t* filter, const int64_t* bias, int16_t* output);
void portable_fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                                   const int8_t* filter, const int32_t* bias, int16_t* output);
void portable_fully_connected_int4(const FullyConnectedParams& params, const int8_t* input,
                                   const uint8_t* filter, const int32_t* bias, int8_t* output);
// The variant each runs for `output_depth` in a build for `extension`, or in this build.
const char* fully_connected_16x8_kernel_variant(int32_t output_depth, Extension extension);
const char* built_fully_connected_16x8_kernel_variant(int32_t output_depth);
const char* fully_connected_int4_kernel_variant(int32_t output_depth, Extension extension);
const char* built_fully_connected_int4_kernel_variant(int32_t output_depth);

}  // namespace kernels
}  // namespace mote
