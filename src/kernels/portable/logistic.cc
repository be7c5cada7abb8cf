#include "mote/kernels/logistic.h"

#include <math.h>

#include "fixed_point.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {
constexpr int kInputIntegerBits = 4;
}  // namespace

LogisticParams prepare_logistic(float input_scale, int32_t input_zero_point) {
  LogisticParams p{};
  p.input_zero_point = input_zero_point;
  const double real_multiplier =
      static_cast<double>(input_scale) * static_cast<double>(1 << (31 - kInputIntegerBits));
  // TFLM uses frexp and rounds without renormalising; a mantissa that rounds up to 2^31 is halved
  // here instead of overflowing.
  int exponent = 0;
  const double q = frexp(real_multiplier, &exponent);
  int64_t q_fixed = static_cast<int64_t>(round(q * static_cast<double>(int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++exponent;
  }
  p.input_multiplier = static_cast<int32_t>(q_fixed);
  p.input_left_shift = exponent;
  // TFLite's CalculateInputRadius(4, left_shift, 31).
  double max_input_rescaled = 1.0 * ((1 << kInputIntegerBits) - 1) *
                              static_cast<double>(int64_t{1} << (31 - kInputIntegerBits)) /
                              ldexp(1.0, p.input_left_shift);
  // Input scales below 2^-28 (negative shifts) give radii beyond int32: every int8 input is
  // inside them then, so saturate rather than overflow the conversion.
  if (max_input_rescaled > 2147483647.0) max_input_rescaled = 2147483647.0;
  p.input_range_radius = static_cast<int32_t>(floor(max_input_rescaled));
  return p;
}

void logistic(const LogisticParams& p, const int8_t* input, int8_t* output, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const int32_t x = static_cast<int32_t>(input[i]) - p.input_zero_point;
    if (x <= -p.input_range_radius) {
      output[i] = -128;
    } else if (x >= p.input_range_radius) {
      output[i] = 127;
    } else {
      const int32_t x_q4 = multiply_by_quantized_multiplier(x, p.input_multiplier, p.input_left_shift);
      const int32_t y_q0 = fixed_point::logistic(x_q4, kInputIntegerBits);
      int32_t out = rounding_divide_by_pot(y_q0, 31 - 8) - 128;
      out = out < -128 ? -128 : (out > 127 ? 127 : out);
      output[i] = static_cast<int8_t>(out);
    }
  }
}

void prepare_logistic_table(float input_scale, int32_t input_zero_point, float output_scale,
                            int32_t output_zero_point, int8_t table[256]) {
  const float inverse_scale = 1 / output_scale;
  for (int32_t q = -128; q <= 127; ++q) {
    const float dequantized = input_scale * static_cast<float>(q - input_zero_point);
    const float transformed = 1.0f / (1.0f + expf(-dequantized));
    const float rescaled = roundf(transformed * inverse_scale);
    int32_t quantized = static_cast<int32_t>(rescaled + static_cast<float>(output_zero_point));
    quantized = quantized < -128 ? -128 : (quantized > 127 ? 127 : quantized);
    table[static_cast<uint8_t>(static_cast<int8_t>(q))] = static_cast<int8_t>(quantized);
  }
}

}  // namespace kernels
}  // namespace mote
