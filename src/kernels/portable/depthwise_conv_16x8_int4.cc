// DEPTHWISE_CONV_2D with int16 activations (16x8) or int4 weights: direct loops (direct_window.h).

#include "mote/kernels/depthwise_conv.h"
#include "portable/direct_window.h"

namespace mote {
namespace kernels {

void portable_depthwise_conv2d_16x8(const DepthwiseConvParams& params, const int16_t* input,
                           const int8_t* filter, const int64_t* bias, int16_t* output) {
  const direct::WindowQuantization q{0, 0, params.act_min, params.act_max,
                                     params.output_multiplier, params.output_shift};
  direct::depthwise_conv(params.shape, q, input, direct::Int8Filter{filter}, bias, output);
}

void portable_depthwise_conv2d_int4(const DepthwiseConvParams& params, const int8_t* input,
                           const uint8_t* filter, const int32_t* bias, int8_t* output) {
  const direct::WindowQuantization q{params.input_offset, params.output_offset, params.act_min,
                                     params.act_max, params.output_multiplier,
                                     params.output_shift};
  direct::depthwise_conv(params.shape, q, input, direct::PackedInt4Filter{filter}, bias, output);
}

}  // namespace kernels
}  // namespace mote
