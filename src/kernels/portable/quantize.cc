#include "mote/kernels/quantize.h"

#include <limits>

#include <string.h>

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {

QuantizeParams prepare_quantize(float output_scale, int32_t output_zero_point) {
  return QuantizeParams{output_scale, output_zero_point};
}

namespace {

// x / scale rounded half away from zero (roundf, as TFLite's AffineQuantize), plus the zero
// point, clamped to T. An out-of-range float -> int conversion is undefined (TFLite's result is
// then undefined too): here it saturates, and NaN lands on the low end.
#if defined(__ARM_FP) && defined(__ARM_FEATURE_DSP) && \
    (defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__))
// Armv8-M's FPU (FPv5): VCVTA rounds half away from zero and saturates in one instruction (NaN,
// which it turns into 0, is tested apart); QADD and SSAT add the zero point and clamp.
template <typename T>
void quantize_to(const QuantizeParams& params, const float* input, T* output, size_t count) {
  constexpr int kBits = std::numeric_limits<T>::digits + 1;
  // Local copies: the output stores could alias params.
  const float scale = params.scale;
  const int32_t zero_point = params.zero_point;
  for (size_t i = 0; i < count; ++i) {
    const float y = input[i] / scale;
    int32_t r = std::numeric_limits<int32_t>::min();
    if (y == y) {
      float converted;
      __asm__("vcvta.s32.f32 %0, %1" : "=t"(converted) : "t"(y));
      memcpy(&r, &converted, sizeof(r));
    }
    output[i] = static_cast<T>(__ssat(__qadd(r, zero_point), kBits));
  }
}
#else
template <typename T>
void quantize_to(const QuantizeParams& params, const float* input, T* output, size_t count) {
  constexpr int32_t kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
  // Beyond the type's range by more than any zero point moves a value: clamped the same (an
  // integer, so clamping before rounding gives what clamping after would).
  constexpr float kBound = 4.0f * static_cast<float>(kMax - kMin + 1);
  const float scale = params.scale;  // local copies, as above
  const int32_t zero_point = params.zero_point;
  for (size_t i = 0; i < count; ++i) {
    float y = input[i] / scale;
    if (!(y >= -kBound)) y = -kBound;
    if (y > kBound) y = kBound;
    // roundf is a library call where the FPU has no rounding instruction (Cortex-M4's FPv4):
    // the truncation and its remainder y - t, exact in float (Sterbenz: t and y within a factor
    // of two, or t zero), give its integer in a few instructions.
    int32_t t = static_cast<int32_t>(y);
    const float remainder = y - static_cast<float>(t);
    if (remainder >= 0.5f) {
      ++t;
    } else if (remainder <= -0.5f) {
      --t;
    }
    int32_t q = t + zero_point;
    q = q < kMin ? kMin : (q > kMax ? kMax : q);
    output[i] = static_cast<T>(q);
  }
}
#endif

template <typename T>
void dequantize_from(const DequantizeParams& p, const T* input, float* output, size_t count) {
  // Back to front, so the output may start at the input's address (in-place widening).
  for (size_t i = count; i-- > 0;) {
    output[i] = p.scale * static_cast<float>(input[i] - p.zero_point);
  }
}

}  // namespace

void quantize(const QuantizeParams& params, const float* input, int8_t* output, size_t count) {
  quantize_to<int8_t>(params, input, output, count);
}
void quantize(const QuantizeParams& params, const float* input, int16_t* output, size_t count) {
  quantize_to<int16_t>(params, input, output, count);
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

template <typename In, typename Out>
Out requantize_one(const RequantizeParams& p, In x, int32_t lo, int32_t hi) {
  int32_t q = multiply_by_quantized_multiplier(x - p.input_zero_point, p.multiplier, p.shift) +
              p.output_zero_point;
  q = q < lo ? lo : (q > hi ? hi : q);
  return static_cast<Out>(q);
}

// Front to back, or back to front where the output is wider (in-place widening).
template <typename In, typename Out>
void requantize_all(const RequantizeParams& p, const In* input, Out* output, size_t count,
                    int32_t lo, int32_t hi) {
  if (sizeof(Out) > sizeof(In)) {
    for (size_t i = count; i-- > 0;) output[i] = requantize_one<In, Out>(p, input[i], lo, hi);
  } else {
    for (size_t i = 0; i < count; ++i) output[i] = requantize_one<In, Out>(p, input[i], lo, hi);
  }
}

// Into int32 (a model's raw int32 result): TFLite's Requantize adds the output zero point in
// int32; here in 64 bits and clamped, the same wherever TFLite's sum is defined. Back to front.
template <typename In>
void requantize_to_int32(const RequantizeParams& p, const In* input, int32_t* output,
                         size_t count) {
  for (size_t i = count; i-- > 0;) {
    const int64_t q =
        int64_t{multiply_by_quantized_multiplier(input[i] - p.input_zero_point, p.multiplier,
                                                 p.shift)} +
        p.output_zero_point;
    output[i] = static_cast<int32_t>(q < INT32_MIN ? INT32_MIN : (q > INT32_MAX ? INT32_MAX : q));
  }
}

// From int32: the centred value saturated to int32 before the multiply. Front to back.
template <typename Out>
void requantize_from_int32(const RequantizeParams& p, const int32_t* input, Out* output,
                           size_t count, int32_t lo, int32_t hi) {
  for (size_t i = 0; i < count; ++i) {
    const int64_t centred = int64_t{input[i]} - p.input_zero_point;
    const int32_t x = static_cast<int32_t>(
        centred < INT32_MIN ? INT32_MIN : (centred > INT32_MAX ? INT32_MAX : centred));
    int32_t q = multiply_by_quantized_multiplier(x, p.multiplier, p.shift) + p.output_zero_point;
    q = q < lo ? lo : (q > hi ? hi : q);
    output[i] = static_cast<Out>(q);
  }
}

}  // namespace

void requantize(const RequantizeParams& p, const int32_t* input, int8_t* output, size_t count) {
  requantize_from_int32(p, input, output, count, -128, 127);
}
void requantize(const RequantizeParams& p, const int32_t* input, int16_t* output, size_t count) {
  requantize_from_int32(p, input, output, count, -32768, 32767);
}
void requantize(const RequantizeParams& p, const int8_t* input, int32_t* output, size_t count) {
  requantize_to_int32(p, input, output, count);
}
void requantize(const RequantizeParams& p, const int16_t* input, int32_t* output, size_t count) {
  requantize_to_int32(p, input, output, count);
}
void requantize(const RequantizeParams& p, const int8_t* input, int8_t* output, size_t count) {
  requantize_all(p, input, output, count, -128, 127);
}
void requantize(const RequantizeParams& p, const int8_t* input, int16_t* output, size_t count) {
  requantize_all(p, input, output, count, -32768, 32767);
}
void requantize(const RequantizeParams& p, const int16_t* input, int8_t* output, size_t count) {
  requantize_all(p, input, output, count, -128, 127);
}
void requantize(const RequantizeParams& p, const int16_t* input, int16_t* output, size_t count) {
  requantize_all(p, input, output, count, -32768, 32767);
}
void requantize(const RequantizeParams& p, const uint8_t* input, int8_t* output, size_t count) {
  requantize_all(p, input, output, count, -128, 127);
}
void requantize(const RequantizeParams& p, const int8_t* input, uint8_t* output, size_t count) {
  requantize_all(p, input, output, count, 0, 255);
}

DequantizeParams prepare_dequantize(float input_scale, int32_t input_zero_point) {
  return DequantizeParams{input_scale, input_zero_point};
}

void dequantize(const DequantizeParams& p, const int8_t* input, float* output, size_t count) {
  dequantize_from(p, input, output, count);
}
void dequantize(const DequantizeParams& p, const int16_t* input, float* output, size_t count) {
  dequantize_from(p, input, output, count);
}

}  // namespace kernels
}  // namespace mote
