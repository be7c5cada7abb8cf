#include "mote/kernels/relu.h"

#include <math.h>

namespace mote {
namespace kernels {

ReluParams prepare_relu(float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, bool relu6) {
  ReluParams p{};
  p.input_offset = -input_zero_point;
  p.output_offset = output_zero_point;
  const QuantizedMultiplier m =
      quantize_multiplier(static_cast<double>(input_scale / output_scale));
  p.multiplier = m.multiplier;
  p.shift = m.shift;
  // round(0 / scale) is 0.
  p.act_min = output_zero_point > -128 ? output_zero_point : -128;
  p.act_max = 127;
  if (relu6) {
    const float six = roundf(6.0f / output_scale);
    // Beyond int8 the clamp is 127 anyway; this also keeps the conversion defined.
    if (six < 1000.0f) {
      const int32_t top = output_zero_point + static_cast<int32_t>(six);
      p.act_max = top < 127 ? top : 127;
    }
  }
  return p;
}

}  // namespace kernels
}  // namespace mote
