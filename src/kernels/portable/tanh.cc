#include "mote/kernels/tanh.h"

#include <math.h>

#include "fixed_point.h"
#include "mote/kernels/logistic.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {
constexpr int kInputIntegerBits = 4;
}  // namespace

TanhParams prepare_tanh(float input_scale, int32_t input_zero_point) {
  // TFLM computes TANH's input parameters exactly as LOGISTIC's.
  const LogisticParams l = prepare_logistic(input_scale, input_zero_point);
  return {l.input_zero_point, l.input_range_radius, l.input_multiplier, l.input_left_shift};
}

void tanh(const TanhParams& p, const int8_t* input, int8_t* output, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const int32_t x = static_cast<int32_t>(input[i]) - p.input_zero_point;
    if (x <= -p.input_range_radius) {
      output[i] = -128;
    } else if (x >= p.input_range_radius) {
      output[i] = 127;
    } else {
      const int32_t x_q4 =
          multiply_by_quantized_multiplier(x, p.input_multiplier, p.input_left_shift);
      const int32_t y_q0 = fixed_point::tanh(x_q4, kInputIntegerBits);
      int32_t out = rounding_divide_by_pot(y_q0, 31 - 7);
      out = out < -128 ? -128 : (out > 127 ? 127 : out);
      output[i] = static_cast<int8_t>(out);
    }
  }
}

void prepare_tanh_table(float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, int8_t table[256]) {
  const float inverse_scale = 1 / output_scale;
  for (int32_t q = -128; q <= 127; ++q) {
    const float dequantized = input_scale * static_cast<float>(q - input_zero_point);
    const float rescaled = roundf(tanhf(dequantized) * inverse_scale);
    int32_t quantized = static_cast<int32_t>(rescaled + static_cast<float>(output_zero_point));
    quantized = quantized < -128 ? -128 : (quantized > 127 ? 127 : quantized);
    table[static_cast<uint8_t>(static_cast<int8_t>(q))] = static_cast<int8_t>(quantized);
  }
}

}  // namespace kernels
}  // namespace mote
