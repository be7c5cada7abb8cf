#include "mote/kernels/quantize.h"

#include <math.h>

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {

QuantizeParams prepare_quantize(float output_scale, int32_t output_zero_point) {
  return QuantizeParams{output_scale, output_zero_point};
}

void quantize(const QuantizeParams& params, const float* input, int8_t* output, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    float rounded = roundf(input[i] / params.scale);
    // Clamp before converting: an out-of-range float -> int conversion is undefined (TFLite's
    // result is then undefined too). NaN lands on the low end.
    if (!(rounded >= -512.0f)) rounded = -512.0f;
    if (rounded > 512.0f) rounded = 512.0f;
    int32_t q = static_cast<int32_t>(rounded) + params.zero_point;
    q = q < -128 ? -128 : (q > 127 ? 127 : q);
    output[i] = static_cast<int8_t>(q);
  }
}

RequantizeParams prepare_requantize(float input_scale, int32_t input_zero_point,
                                    float output_scale, int32_t output_zero_point) {
  RequantizeParams p{};
  p.input_zero_point = input_zero_point;
  p.output_zero_point = output_zero_point;
  const QuantizedMultiplier m =
      quantize_multiplier(static_cast<double>(input_scale) / static_cast<double>(output_scale));
  p.multiplier = m.multiplier;
  p.shift = m.shift;
  return p;
}

namespace {

// Element by element, front to back: the output may be the input buffer (both one byte wide).
template <typename In, typename Out, int32_t kMin, int32_t kMax>
void requantize_elements(const RequantizeParams& p, const In* input, Out* output, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    int32_t q = multiply_by_quantized_multiplier(static_cast<int32_t>(input[i]) - p.input_zero_point,
                                                 p.multiplier, p.shift) +
                p.output_zero_point;
    q = q < kMin ? kMin : (q > kMax ? kMax : q);
    output[i] = static_cast<Out>(q);
  }
}

}  // namespace

void requantize(const RequantizeParams& p, const int8_t* input, int8_t* output, size_t count) {
  requantize_elements<int8_t, int8_t, -128, 127>(p, input, output, count);
}

void requantize(const RequantizeParams& p, const uint8_t* input, int8_t* output, size_t count) {
  requantize_elements<uint8_t, int8_t, -128, 127>(p, input, output, count);
}

void requantize(const RequantizeParams& p, const int8_t* input, uint8_t* output, size_t count) {
  requantize_elements<int8_t, uint8_t, 0, 255>(p, input, output, count);
}

DequantizeParams prepare_dequantize(float input_scale, int32_t input_zero_point) {
  return DequantizeParams{input_scale, input_zero_point};
}

void dequantize(const DequantizeParams& p, const int8_t* input, float* output, size_t count) {
  // Back to front, so the output may start at the input's address (in-place widening).
  for (size_t i = count; i-- > 0;) {
    output[i] = p.scale * static_cast<float>(input[i] - p.zero_point);
  }
}

}  // namespace kernels
}  // namespace mote
