#include "mote/kernels/prelu.h"

#include "broadcast_loop.h"
#include "mote/kernels/quantization.h"

namespace mote {
namespace kernels {
namespace {

struct PreluOp {
  const PreluParams& p;
  int8_t operator()(int8_t x, int8_t a) const {
    const int32_t v = x + p.input_offset;
    int32_t y =
        v >= 0 ? multiply_by_quantized_multiplier(v, p.identity_multiplier, p.identity_shift)
               : multiply_by_quantized_multiplier(v * (a + p.alpha_offset), p.alpha_multiplier,
                                                  p.alpha_shift);
    y += p.output_offset;
    y = y < -128 ? -128 : (y > 127 ? 127 : y);
    return static_cast<int8_t>(y);
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

bool prelu_fits(const PreluParams& p) {
  return requant_fits(255, p.identity_multiplier, p.identity_shift) &&
         requant_fits(int64_t{255} * 255, p.alpha_multiplier, p.alpha_shift);
}

void prelu(const PreluParams& params, const BroadcastShape& shape, const int8_t* input,
           const int8_t* alpha, int8_t* output) {
  internal::broadcast_binary(shape, input, alpha, output, PreluOp{params});
}

}  // namespace kernels
}  // namespace mote
