#pragma once
// int8 SVDF with an int16 (or int8) state, bit exact with TensorFlow Lite Micro's integer
// reference (EvalIntegerSvdfReference, which TFLite's EvalIntegerSVDF matches for int16 state
// with zero point 0). One invocation is one time step:
//   1. the state [B, F, T] (F filters, T the memory length) moves one element towards the
//      front, as one flat array (each filter's oldest value falls out);
//   2. state[b][f][T-1] = clamp(MBQM(sum_i wf[f][i] * (x[b][i] - input_zp), feature requant)
//                               + state_zp, state type's range);
//   3. s[b][f] = sum_t wt[f][t] * (state[b][f][t] - state_zp)        (int32, scratch);
//   4. out[b][u] = clamp(MBQM(bias[u] + sum_{r < rank} s[b][u * rank + r], time requant)
//                        + output_zp, -128, 127)                      (int32 sums in scratch).
// The fused activation is not applied: both references clamp to the int8 range only (the
// output's quantization range carries the activation).
// The int32 sums of steps 3 and 4 wrap as the references' int32 arithmetic does on the CPU
// (computed modulo 2^32, so never undefined). Embeddable C++17: no heap, no exceptions, no float.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

struct SvdfParams {
  int32_t batches;     // B
  int32_t input_size;  // I
  int32_t filters;     // F = units * rank
  int32_t memory;      // T, the time steps the state keeps
  int32_t rank;        // units = filters / rank
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t state_zero_point;
  int32_t feature_multiplier;  // input_scale * weights_feature_scale / state_scale
  int32_t feature_shift;
  int32_t time_multiplier;  // state_scale * weights_time_scale / output_scale
  int32_t time_shift;
};

// The int32 scratch both references use: B * F dot products, then B * units sums.
inline size_t svdf_scratch_bytes(int32_t batches, int32_t filters, int32_t rank) {
  const size_t b = static_cast<size_t>(batches);
  const size_t f = static_cast<size_t>(filters);
  return 4 * (b * f + b * (f / static_cast<size_t>(rank)));
}

// Largest |sum_i wf * (x - input_zp)| of step 2 (int8 weights, |x - zp| <= 255), which the
// feature requantization must take (requant_fits).
inline int64_t svdf_feature_bound(int32_t input_size) {
  return int64_t{128} * 255 * input_size;
}

// weights_feature [F, I], weights_time [F, T], bias [units] or null, state [B, F * T] (updated),
// output [B, units]; scratch holds svdf_scratch_bytes (4-byte aligned). The feature
// requantization must take svdf_feature_bound(I), the time one a shift <= 0.
void svdf(const SvdfParams& params, const int8_t* input, const int8_t* weights_feature,
          const int16_t* weights_time, const int32_t* bias, int16_t* state, int8_t* output,
          int32_t* scratch);
// TFLM's int8 form: int8 weights_time and state (state values clamp to the int8 range).
void svdf(const SvdfParams& params, const int8_t* input, const int8_t* weights_feature,
          const int8_t* weights_time, const int32_t* bias, int8_t* state, int8_t* output,
          int32_t* scratch);

}  // namespace kernels
}  // namespace mote
