#include "mote/kernels/rsqrt.h"

#include <math.h>

#include "fixed_point.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

constexpr int32_t kShift = 20;  // TFLite's: keeps 1/sqrt(v) an integer before requantizing

// TFLite's GetInvSqrtQuantizedMultiplierExp for v >= 1 (int8 inputs give v <= 255): 1/sqrt(v) as
// a Q31 multiplier and a left shift.
void inv_sqrt(int32_t v, int32_t* multiplier, int32_t* shift) {
  if (v <= 1) {
    *multiplier = INT32_MAX;
    *shift = 0;
    return;
  }
  int32_t right_shift = 11;
  while (v >= (int32_t{1} << 29)) {
    v /= 4;
    ++right_shift;
  }
  const int max_left_shift_bits = __builtin_clz(static_cast<uint32_t>(v)) - 1;
  const int left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
  right_shift -= left_shift_bit_pairs;
  v <<= 2 * left_shift_bit_pairs;  // now in [2^27, 2^29)
  // Newton-Raphson on x = 1/sqrt(v) with 3 integer bits, from x = 1, five steps.
  const int32_t input = v >> 1;                                                // 3 integer bits
  const int32_t half_input = fixed_point::saturating_rounding_multiply_by_pot(input, -1);
  constexpr int32_t kHalfThree = (int32_t{1} << 28) + (int32_t{1} << 27);     // 1.5, 3 bits
  int32_t x = int32_t{1} << 28;                                               // 1.0, 3 bits
  for (int i = 0; i < 5; ++i) {
    const int32_t x3 = fixed_point::rescale(fixed_point::mul(fixed_point::mul(x, x), x), 9, 3);
    const int32_t step = fixed_point::mul(kHalfThree, x) - fixed_point::mul(half_input, x3);
    x = fixed_point::rescale(step, 6, 3);
  }
  constexpr int32_t kHalfSqrt2 = 1518500250;  // sqrt(2) / 2, 0 integer bits
  x = fixed_point::mul(x, kHalfSqrt2);
  if (right_shift < 0) {
    x = static_cast<int32_t>(static_cast<uint32_t>(x) << -right_shift);
    right_shift = 0;
  }
  *multiplier = x;
  *shift = -right_shift;
}

int8_t rsqrt_one(const RsqrtParams& p, int8_t q) {
  const int32_t v = static_cast<int32_t>(q) - p.input_zero_point;
  if (v <= 0) return 127;
  int32_t m = 0, s = 0;
  inv_sqrt(v, &m, &s);
  const int32_t data = multiply_by_quantized_multiplier(1, m, s + kShift);
  int32_t out = multiply_by_quantized_multiplier(data, p.multiplier, p.shift - kShift) +
                p.output_zero_point;
  out = out < -128 ? -128 : (out > 127 ? 127 : out);
  return static_cast<int8_t>(out);
}

}  // namespace

RsqrtParams prepare_rsqrt(float input_scale, int32_t input_zero_point, float output_scale,
                          int32_t output_zero_point) {
  const float denominator = sqrtf(input_scale) * output_scale;
  const QuantizedMultiplier m = quantize_multiplier(1.0 / static_cast<double>(denominator));
  return {input_zero_point, output_zero_point, m.multiplier, m.shift};
}

bool rsqrt_fits(const RsqrtParams& p) {
  return requant_fits(int64_t{1} << kShift, p.multiplier, p.shift - kShift);
}

void rsqrt(const RsqrtParams& p, const int8_t* input, int8_t* output, size_t count) {
  for (size_t i = 0; i < count; ++i) output[i] = rsqrt_one(p, input[i]);
}

}  // namespace kernels
}  // namespace mote
