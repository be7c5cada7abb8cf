#include "mote/kernels/prelu.h"

#include <limits>

#include "broadcast_loop.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

template <typename T>
struct PreluOp {
  const PreluParams& p;
  T operator()(T x, int8_t a) const {
    const int32_t v = x + p.input_offset;
    int32_t y =
        v >= 0 ? multiply_by_quantized_multiplier(v, p.identity_multiplier, p.identity_shift)
               : multiply_by_quantized_multiplier(v * (a + p.alpha_offset), p.alpha_multiplier,
                                                  p.alpha_shift);
    y += p.output_offset;
    constexpr int32_t kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
    y = y < kMin ? kMin : (y > kMax ? kMax : y);
    return static_cast<T>(y);
  }
};

}  // namespace

PreluParams prepare_prelu(float input_scale, int32_t input_zero_point, float alpha_scale,
                          int32_t alpha_zero_point, float output_scale, int32_t output_zero_point) {
  const QuantizedMultiplier identity =
      quantize_multiplier(static_cast<double>(input_scale / output_scale));
  const QuantizedMultiplier alpha =
      quantize_multiplier(static_cast<double>(input_scale * alpha_scale / output_scale));
  PreluParams p{};
  p.input_offset = -input_zero_point;
  p.alpha_offset = -alpha_zero_point;
  p.output_offset = output_zero_point;
  p.identity_multiplier = identity.multiplier;
  p.identity_shift = identity.shift;
  p.alpha_multiplier = alpha.multiplier;
  p.alpha_shift = alpha.shift;
  return p;
}

bool prelu_fits(const PreluParams& p, bool int16) {
  const int64_t input = int16 ? 32768 : 255;
  return requant_fits(input, p.identity_multiplier, p.identity_shift) &&
         requant_fits(input * 255, p.alpha_multiplier, p.alpha_shift);
}

void prelu(const PreluParams& params, const BroadcastShape& shape, const int8_t* input,
           const int8_t* alpha, int8_t* output) {
  internal::broadcast_binary(shape, input, alpha, output, PreluOp<int8_t>{params});
}

void prelu(const PreluParams& params, const BroadcastShape& shape, const int16_t* input,
           const int8_t* alpha, int16_t* output) {
  internal::broadcast_binary(shape, input, alpha, output,
                             PreluOp<int16_t>{params});
}

}  // namespace kernels
}  // namespace mote
