#include "mote/kernels/hard_swish.h"

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

// gemmlowp's 16-bit SaturatingRoundingDoublingHighMul.
inline int16_t srdhm16(int16_t a, int16_t b) {
  if (a == b && a == INT16_MIN) return INT16_MAX;
  const int32_t ab = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// The same, truncating instead of rounding (Arm's SQDMULH).
inline int16_t sdhm16(int16_t a, int16_t b) {
  if (a == b && a == INT16_MIN) return INT16_MAX;
  const int32_t ab = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  return static_cast<int16_t>(ab / (1 << 15));
}

inline int16_t saturating_left_shift16(int16_t value, int amount) {
  int64_t result = static_cast<int64_t>(value) * (int64_t{1} << amount);
  result = result > INT16_MAX ? INT16_MAX : (result < INT16_MIN ? INT16_MIN : result);
  return static_cast<int16_t>(result);
}

// gemmlowp's RoundingDivideByPOT on int16, exponent in [0, 15].
inline int16_t rounding_divide_by_pot16(int16_t x, int exponent) {
  const int32_t mask = (int32_t{1} << exponent) - 1;
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

// TFLite's DownScaleInt32ToInt16Multiplier.
inline int16_t down_scale_multiplier(int32_t multiplier) {
  constexpr int32_t kRoundingOffset = 1 << 15;
  if (multiplier >= INT32_MAX - kRoundingOffset) return INT16_MAX;
  return static_cast<int16_t>((multiplier + kRoundingOffset) >> 16);
}

}  // namespace

HardSwishParams prepare_hard_swish(float input_scale, int32_t input_zero_point,
                                   float output_scale, int32_t output_zero_point) {
  HardSwishParams p{};
  p.input_zero_point = static_cast<int16_t>(input_zero_point);
  p.output_zero_point = static_cast<int16_t>(output_zero_point);
  // TFLite computes these ratios in float.
  const float hires_input_scale = (1.0f / 128.0f) * input_scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const float output_multiplier = hires_input_scale / output_scale;
  const float reluish_multiplier = hires_input_scale / reluish_scale;
  const QuantizedMultiplier out = quantize_multiplier(static_cast<double>(output_multiplier));
  const QuantizedMultiplier relu = quantize_multiplier(static_cast<double>(reluish_multiplier));
  p.output_multiplier_fixedpoint_int16 = down_scale_multiplier(out.multiplier);
  p.output_multiplier_exponent = out.shift;
  p.reluish_multiplier_fixedpoint_int16 = down_scale_multiplier(relu.multiplier);
  p.reluish_multiplier_exponent = relu.shift;
  return p;
}

void hard_swish(const HardSwishParams& p, const int8_t* input, int8_t* output, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const int16_t x = static_cast<int16_t>(input[i] - p.input_zero_point);
    const int16_t x_hires = static_cast<int16_t>(x * (1 << 7));
    const int16_t x_on_preshift_output_scale = srdhm16(x_hires, p.output_multiplier_fixedpoint_int16);
    // The relu-ish factor: x rescaled so that 3.0 is 32768 (saturating), in [-1, 1] ...
    int16_t reluish = x_hires;
    if (p.reluish_multiplier_exponent > 0) {
      reluish = saturating_left_shift16(reluish, p.reluish_multiplier_exponent - 1);
    }
    reluish = srdhm16(reluish, p.reluish_multiplier_fixedpoint_int16);
    if (p.reluish_multiplier_exponent > 0) reluish = saturating_left_shift16(reluish, 1);
    if (p.reluish_multiplier_exponent < 0) {
      reluish = rounding_divide_by_pot16(reluish, -p.reluish_multiplier_exponent);
    }
    // ... then mapped to [0, 1].
    reluish = static_cast<int16_t>((reluish + (1 << 15)) >> 1);
    const int16_t preshift_output = sdhm16(reluish, x_on_preshift_output_scale);
    // int16 arithmetic as in TFLite (a sum beyond int16 wraps before the clamp).
    int16_t out = rounding_divide_by_pot16(preshift_output, -p.output_multiplier_exponent);
    out = static_cast<int16_t>(out + p.output_zero_point);
    out = out > 127 ? 127 : (out < -128 ? -128 : out);
    output[i] = static_cast<int8_t>(out);
  }
}

}  // namespace kernels
}  // namespace mote
