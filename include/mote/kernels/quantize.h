#pragma once
// QUANTIZE (float -> int8 or int16, and int8 -> int8, uint8 -> int8, int8 -> uint8
// requantization) and DEQUANTIZE (int8 or int16 -> float), bit exact with TFLite's reference
// kernels (AffineQuantize, Requantize, Dequantize).
// Embeddable C++17: float math only where the data is float.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

// float -> int8 (or int16): q = clamp(round(x / scale) + zero_point), the division and round in
// float.
struct QuantizeParams {
  float scale;  // the output's scale
  int32_t zero_point;
};
QuantizeParams prepare_quantize(float output_scale, int32_t output_zero_point);
// The output may start at the input's address (in-place narrowing, front to back).
void quantize(const QuantizeParams& params, const float* input, int8_t* output, size_t count);
void quantize(const QuantizeParams& params, const float* input, int16_t* output, size_t count);

// int8 -> int8 with another scale / zero point; uint8 <-> int8 (a camera's uint8 frame into an
// int8 model, an int8 result out as uint8), where each zero point is in its own type's range.
struct RequantizeParams {
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier;  // input_scale / output_scale
  int32_t shift;
};
RequantizeParams prepare_requantize(float input_scale, int32_t input_zero_point,
                                    float output_scale, int32_t output_zero_point);
// The output may be the input buffer.
void requantize(const RequantizeParams& params, const int8_t* input, int8_t* output,
                size_t count);
void requantize(const RequantizeParams& params, const uint8_t* input, int8_t* output,
                size_t count);
void requantize(const RequantizeParams& params, const int8_t* input, uint8_t* output,
                size_t count);
// Between int8 and int16 (16x8 models), and int16 -> int16: TFLite's Requantize, clamped to the
// output type. The output may start at the input's address (a wider output is written back to
// front).
void requantize(const RequantizeParams& params, const int8_t* input, int16_t* output,
                size_t count);
void requantize(const RequantizeParams& params, const int16_t* input, int8_t* output,
                size_t count);
void requantize(const RequantizeParams& params, const int16_t* input, int16_t* output,
                size_t count);
// int32 -> int8 / int16 (TFLite's Requantize of an int32 tensor, as 16x8 models begin): the
// difference from the input zero point saturated to int32 (TFLite's overflows there), then as
// above. Front to back: the output may start at the input's address.
void requantize(const RequantizeParams& params, const int32_t* input, int8_t* output,
                size_t count);
void requantize(const RequantizeParams& params, const int32_t* input, int16_t* output,
                size_t count);
// int8 / int16 -> int32 (TFLite's QUANTIZE into int32, a model's raw result), not clamped but to
// int32's range. Back to front: the output may start at the input's address.
void requantize(const RequantizeParams& params, const int8_t* input, int32_t* output,
                size_t count);
void requantize(const RequantizeParams& params, const int16_t* input, int32_t* output,
                size_t count);

// int8 (or int16) -> float: scale * (q - zero_point). TFLite multiplies in double and rounds to
// float; the exact product of a float and an int of at most 17 bits fits a double, so a
// single-precision multiply gives the same bits without double arithmetic.
struct DequantizeParams {
  float scale;
  int32_t zero_point;
};
DequantizeParams prepare_dequantize(float input_scale, int32_t input_zero_point);
// Runs back to front: the output may start at the input's address (in-place widening).
void dequantize(const DequantizeParams& params, const int8_t* input, float* output, size_t count);
void dequantize(const DequantizeParams& params, const int16_t* input, float* output, size_t count);

}  // namespace kernels
}  // namespace mote
