#include "mote/kernels/squared_difference.h"

#include <limits>

#include "broadcast_loop.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

// TFLite's headroom: 255^2 << 14 (int8) and 32767^2 (int16) both fit int32.
constexpr int32_t kInt8LeftShift = 7;

template <typename T>
struct SquaredDifferenceOp {
  const SquaredDifferenceParams& p;
  T operator()(T a, T b) const {
    const int32_t shifted_a = (a + p.input1_offset) * (int32_t{1} << p.left_shift);
    const int32_t shifted_b = (b + p.input2_offset) * (int32_t{1} << p.left_shift);
    const int32_t scaled_a =
        multiply_by_quantized_multiplier(shifted_a, p.input1_multiplier, p.input1_shift);
    const int32_t scaled_b =
        multiply_by_quantized_multiplier(shifted_b, p.input2_multiplier, p.input2_shift);
    const int32_t diff = scaled_a - scaled_b;
    int32_t y = multiply_by_quantized_multiplier(diff * diff, p.output_multiplier, p.output_shift) +
                p.output_offset;
    constexpr int32_t kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
    y = y < kMin ? kMin : (y > kMax ? kMax : y);
    return static_cast<T>(y);
  }
};

// max |MultiplyByQuantizedMultiplier(x, m, s)| over |x| <= bound (rounding adds at most 1).
int64_t scaled_bound(int64_t bound, int32_t multiplier, int32_t shift) {
  const int32_t v =
      multiply_by_quantized_multiplier(static_cast<int32_t>(bound), multiplier, shift);
  return (v < 0 ? -int64_t{v} : int64_t{v}) + 1;
}

}  // namespace

SquaredDifferenceParams prepare_squared_difference(float input1_scale, int32_t input1_zero_point,
                                                   float input2_scale, int32_t input2_zero_point,
                                                   float output_scale, int32_t output_zero_point,
                                                   bool int16) {
  SquaredDifferenceParams p{};
  p.input1_offset = -input1_zero_point;
  p.input2_offset = -input2_zero_point;
  p.output_offset = output_zero_point;
  p.left_shift = int16 ? 0 : kInt8LeftShift;
  const double twice_max_input_scale =
      2.0 * static_cast<double>(input1_scale > input2_scale ? input1_scale : input2_scale);
  const QuantizedMultiplier m1 =
      quantize_multiplier(static_cast<double>(input1_scale) / twice_max_input_scale);
  const QuantizedMultiplier m2 =
      quantize_multiplier(static_cast<double>(input2_scale) / twice_max_input_scale);
  // TFLite multiplies 2^(2 * left_shift) by the output scale in float (exact: a power of two).
  const float shifted_output_scale =
      static_cast<float>(int32_t{1} << (2 * p.left_shift)) * output_scale;
  const QuantizedMultiplier mo = quantize_multiplier(
      twice_max_input_scale * twice_max_input_scale / static_cast<double>(shifted_output_scale));
  p.input1_multiplier = m1.multiplier;
  p.input1_shift = m1.shift;
  p.input2_multiplier = m2.multiplier;
  p.input2_shift = m2.shift;
  p.output_multiplier = mo.multiplier;
  p.output_shift = mo.shift;
  return p;
}

bool squared_difference_fits(const SquaredDifferenceParams& p, bool int16) {
  if (p.left_shift < 0 || p.left_shift > 22) return false;
  const int64_t shifted = int64_t{int16 ? 32768 : 255} << p.left_shift;
  if (shifted > INT32_MAX) return false;
  if (!requant_fits(shifted, p.input1_multiplier, p.input1_shift) ||
      !requant_fits(shifted, p.input2_multiplier, p.input2_shift)) {
    return false;
  }
  const int64_t diff = scaled_bound(shifted, p.input1_multiplier, p.input1_shift) +
                       scaled_bound(shifted, p.input2_multiplier, p.input2_shift);
  if (diff * diff > kAccLimit) return false;
  return requant_fits(diff * diff, p.output_multiplier, p.output_shift);
}

void squared_difference(const SquaredDifferenceParams& params, const BroadcastShape& shape,
                        const int8_t* input1, const int8_t* input2, int8_t* output) {
  internal::broadcast_binary(shape, input1, input2, output,
                             SquaredDifferenceOp<int8_t>{params});
}

void squared_difference(const SquaredDifferenceParams& params, const BroadcastShape& shape,
                        const int16_t* input1, const int16_t* input2, int16_t* output) {
  internal::broadcast_binary(shape, input1, input2, output,
                             SquaredDifferenceOp<int16_t>{params});
}

}  // namespace kernels
}  // namespace mote
