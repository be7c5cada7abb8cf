// quantize_multiplier and activation_range_int8 with TensorFlow Lite's exact rounding, so multipliers
// computed by Mote's compiler equal those TFLite's Prepare step would compute.

#include "mote/kernels/quantization.h"

#include <math.h>
#include <stdint.h>

namespace mote {
namespace kernels {

QuantizedMultiplier quantize_multiplier(double real_multiplier) {
  if (real_multiplier == 0.0) return {0, 0};
  // frexp of infinity or NaN has no exponent, and converting it to an integer is undefined.
  if (!isfinite(real_multiplier)) {
    return {real_multiplier < 0 ? -(int32_t{1} << 30) : (int32_t{1} << 30), kNonFiniteShift};
  }
  int exponent = 0;
  // real = fraction * 2^exponent with |fraction| in [0.5, 1).
  const double fraction = frexp(real_multiplier, &exponent);
  int64_t q = static_cast<int64_t>(round(fraction * static_cast<double>(int64_t{1} << 31)));
  // Rounding can reach 2^31 exactly (fraction just below 1): renormalise to 2^30 with one more bit.
  if (q == (int64_t{1} << 31)) {
    q /= 2;
    ++exponent;
  }
  // Below 2^-31 every product would shift out to zero; TFLite flushes such multipliers to 0.
  if (exponent < -31) return {0, 0};
  return {static_cast<int32_t>(q), exponent};
}

namespace {

// The clamp inside [kMin, kMax], the output type's range.
ActivationRange activation_range(FusedActivation activation, float output_scale,
                                 int32_t output_zero_point, int32_t kMin, int32_t kMax) {
  // TFLite quantizes the bound in float: zero_point + round(f / scale).
  auto quantize = [&](float f) -> int32_t {
    const float q = roundf(f / output_scale);
    if (!(q > -2147483648.0f)) return INT32_MIN;  // also catches NaN
    if (q >= 2147483648.0f) return INT32_MAX;
    const int64_t v = int64_t{output_zero_point} + static_cast<int32_t>(q);
    if (v < INT32_MIN) return INT32_MIN;
    if (v > INT32_MAX) return INT32_MAX;
    return static_cast<int32_t>(v);
  };
  auto max = [](int32_t a, int32_t b) { return a > b ? a : b; };
  auto min = [](int32_t a, int32_t b) { return a < b ? a : b; };
  switch (activation) {
    case FusedActivation::kRelu:
      return {max(kMin, quantize(0.0f)), kMax};
    case FusedActivation::kRelu6:
      return {max(kMin, quantize(0.0f)), min(kMax, quantize(6.0f))};
    case FusedActivation::kReluN1To1:
      return {max(kMin, quantize(-1.0f)), min(kMax, quantize(1.0f))};
    case FusedActivation::kNone:
      break;
  }
  return {kMin, kMax};
}

}  // namespace

ActivationRange activation_range_int8(FusedActivation activation, float output_scale,
                                      int32_t output_zero_point) {
  return activation_range(activation, output_scale, output_zero_point, -128, 127);
}

ActivationRange activation_range_int16(FusedActivation activation, float output_scale,
                                       int32_t output_zero_point) {
  return activation_range(activation, output_scale, output_zero_point, -32768, 32767);
}

}  // namespace kernels
}  // namespace mote
