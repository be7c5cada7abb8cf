#pragma once
// int8 RSQRT, bit exact with TFLite's RsqrtEvalQuantized (elementwise.cc; TensorFlow Lite Micro's
// is the same): for the centred input v, 1/sqrt(v) as TFLite's GetInvSqrtQuantizedMultiplierExp
// computes it (Newton-Raphson in fixed point), scaled by 2^20, then requantized by
// 1 / (sqrt(input_scale) * output_scale) with the shift lowered by 20, plus the output zero point.
// v = 0 gives 127, as in TFLite. TFLite refuses to run on a negative v ("Rsqrt is only defined for
// positive values"); a kernel that cannot fail gives 127 there too (the limit from above, as
// TensorFlow's TOSA lowering of TFLite's RSQRT does). Embeddable C++17, no float in the kernel.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

struct RsqrtParams {
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier;  // 1 / (sqrt(input_scale) * output_scale) ...
  int32_t shift;       // ... positive = left shift (the kernel applies shift - 20)
};

// Host-callable: TFLite's SetRsqrtOutputMultiplier (the square root and the product in float,
// the reciprocal in double, then QuantizeMultiplier).
RsqrtParams prepare_rsqrt(float input_scale, int32_t input_zero_point, float output_scale,
                          int32_t output_zero_point);

// Whether the final requantization (of at most 2^20, with shift - 20) stays inside int32 with a
// shift the kernels take. The load check and the compiler's definition ask it.
bool rsqrt_fits(const RsqrtParams& params);

// The output may be the input buffer.
void rsqrt(const RsqrtParams& params, const int8_t* input, int8_t* output, size_t count);

}  // namespace kernels
}  // namespace mote
