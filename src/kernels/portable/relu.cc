#include "mote/kernels/relu.h"

#include <math.h>

namespace mote {
namespace kernels {

ReluParams prepare_relu(float input_scale, int32_t input_zero_point, float output_scale,
                        int32_t output_zero_point, bool relu6, bool int16) {
  const int32_t lowest = int16 ? -32768 : -128, highest = int16 ? 32767 : 127;
  ReluParams p{};
  p.input_offset = -input_zero_point;
  p.output_offset = output_zero_point;
  const QuantizedMultiplier m =
      quantize_multiplier(static_cast<double>(input_scale / output_scale));
  p.multiplier = m.multiplier;
  p.shift = m.shift;
  // round(0 / scale) is 0.
  p.act_min = output_zero_point > lowest ? output_zero_point : lowest;
  p.act_max = highest;
  if (relu6) {
    const float six = roundf(6.0f / output_scale);
    // Beyond int16 the clamp is the highest value anyway; this also keeps the conversion defined.
    if (six < 100000.0f) {
      const int32_t top = output_zero_point + static_cast<int32_t>(six);
      p.act_max = top < highest ? top : highest;
    }
  }
  return p;
}

}  // namespace kernels
}  // namespace mote
