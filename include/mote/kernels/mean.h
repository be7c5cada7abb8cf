#pragma once
// int8 MEAN over any set of axes of a tensor of rank <= kMaxMeanRank, with TensorFlow Lite's
// integer rule (reference_ops::QuantizedMeanOrSum, which TFLite's reference kernel and TensorFlow
// Lite Micro run for every int8 MEAN):
//   multiplier, shift = QuantizeMultiplier(input_scale / output_scale)
//   s = min(floor(log2(count)), 32, 31 + shift)            (count: elements per output)
//   multiplier' = (multiplier << s) / count   (int64, truncated), shift' = shift - s
//   out = clamp(MultiplyByQuantizedMultiplier(sum(x) - input_zp * count, multiplier', shift')
//               + output_zp, -128, 127)
// i.e. 1/count is folded into the requantization multiplier; nothing is divided at run time.
// SUM is the same function of TFLite (compute_sum) without the fold: `mean` run with
// multiplier, shift = QuantizeMultiplier(input_scale / output_scale) computes it, so SUM calls it
// (sum_requant). REDUCE_MAX walks the same groups and keeps the largest raw value (TFLite requires
// the output quantized as the input). The three share MeanParams and prepare_mean.
// Embeddable C++17: no heap, no exceptions, no float math in the kernel.

#include <stdint.h>

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {

inline constexpr int32_t kMaxMeanRank = 6;
// Largest |sum(x) - input_zp * count| (at most 255 * count) the kernel takes, and the largest
// value the requantization's left shift may make of it: int32 with room for the output offset.
inline constexpr int64_t kMaxMeanSum = 2147483647 - 256;

struct MeanParams {
  // The input as `rank` groups of adjacent dimensions (outermost first), alternately kept and
  // reduced: dimensions of size 1 dropped and neighbours of the same kind merged.
  int32_t rank;
  int32_t dims[kMaxMeanRank];
  bool reduced[kMaxMeanRank];
  int32_t count;  // input elements averaged into each output element
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier;  // input_scale / output_scale with 1/count folded in (mean_requant)
  int32_t shift;
};

// The count folded into QuantizeMultiplier(input_scale / output_scale), as TFLite does it.
// Host-callable (the compiler computes it once); count >= 1.
QuantizedMultiplier mean_requant(float input_scale, float output_scale, int64_t count);
// The same fold applied to an already quantized multiplier.
QuantizedMultiplier fold_mean_count(QuantizedMultiplier m, int64_t count);
// SUM's requantization: QuantizeMultiplier(input_scale / output_scale), nothing folded.
QuantizedMultiplier sum_requant(float input_scale, float output_scale);

// `dims` (rank entries, each >= 1) and `axes` (distinct, in [0, rank)); multiplier and shift
// from mean_requant.
MeanParams prepare_mean(int32_t rank, const int32_t* dims, int32_t axis_count,
                        const int32_t* axes, int32_t input_zero_point, int32_t output_zero_point,
                        int32_t multiplier, int32_t shift);

// Output: the kept dimensions in order (keep_dims does not change the bytes). No scratch.
// SUM: `mean` with the multiplier and shift of sum_requant.
void mean(const MeanParams& params, const int8_t* input, int8_t* output);
// int16 (16x8 models): the same rule, clamped to int16 (TFLite's QuantizedMeanOrSum<int16_t>);
// |sum(x) - input_zp * count| is then at most 32768 * count.
void mean(const MeanParams& params, const int16_t* input, int16_t* output);

// REDUCE_MAX: the largest input value of each output's group (zero points and multiplier unused;
// -128 is TFLite's initial value, so a group's maximum is its largest element). No scratch.
void reduce_max(const MeanParams& params, const int8_t* input, int8_t* output);

}  // namespace kernels
}  // namespace mote
