#include "mote/kernels/mean.h"

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {

MeanParams prepare_mean(int32_t batches, int32_t height, int32_t width, int32_t channels,
                        float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, MeanFormula formula) {
  MeanParams p{};
  p.batches = batches;
  p.height = height;
  p.width = width;
  p.channels = channels;
  p.input_zero_point = input_zero_point;
  p.output_zero_point = output_zero_point;
  p.formula = formula;
  const QuantizedMultiplier m = quantize_multiplier(static_cast<double>(input_scale) /
                                                    static_cast<double>(output_scale));
  p.multiplier = m.multiplier;
  p.shift = m.shift;
  const int64_t count = static_cast<int64_t>(height) * width;
  if (formula == MeanFormula::kTflm && count > 0) {
    // TFLM folds 1/count into the multiplier: multiply by 2^floor(log2(count)) / count, keeping
    // the shift within what MultiplyByQuantizedMultiplier accepts.
    int log2_count = 63 - __builtin_clzll(static_cast<uint64_t>(count));
    if (log2_count > 32) log2_count = 32;
    if (log2_count > 31 + p.shift) log2_count = 31 + p.shift;
    p.multiplier =
        static_cast<int32_t>((static_cast<int64_t>(p.multiplier) << log2_count) / count);
    p.shift -= log2_count;
  }
  return p;
}

void mean(const MeanParams& p, const int8_t* input, int8_t* output) {
  const int32_t count = p.height * p.width;
  if (count == 0) {  // an empty input: both interpreters leave the output at 0
    for (int32_t i = 0; i < p.batches * p.channels; ++i) output[i] = 0;
    return;
  }
  const int32_t image = count * p.channels;
  for (int32_t b = 0; b < p.batches; ++b, input += image) {
    for (int32_t c = 0; c < p.channels; ++c) {
      int32_t sum = 0;
      const int8_t* src = input + c;
      for (int32_t i = 0; i < count; ++i, src += p.channels) sum += *src;
      sum -= p.input_zero_point * count;
      int32_t out = multiply_by_quantized_multiplier(sum, p.multiplier, p.shift);
      if (p.formula == MeanFormula::kTfLite) {
        out = out > 0 ? (out + count / 2) / count : (out - count / 2) / count;
      }
      out += p.output_zero_point;
      out = out < -128 ? -128 : (out > 127 ? 127 : out);
      output[b * p.channels + c] = static_cast<int8_t>(out);
    }
  }
}

}  // namespace kernels
}  // namespace mote
