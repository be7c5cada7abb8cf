// CONV_2D with int16 activations (16x8) or int4 weights: direct loops (direct_window.h).

#include "mote/kernels/conv.h"
#include "portable/direct_window.h"

namespace mote {
namespace kernels {
namespace {

direct::WindowQuantization quantization(const ConvParams& p, bool with_offsets) {
  return {with_offsets ? p.input_offset : 0, with_offsets ? p.output_offset : 0, p.act_min,
          p.act_max, p.output_multiplier, p.output_shift};
}

}  // namespace

void portable_conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int64_t* bias, int16_t* output) {
  direct::conv(params.shape, quantization(params, false), input, direct::Int8Filter{filter}, bias,
               output);
}

void portable_conv2d_16x8(const ConvParams& params, const int16_t* input, const int8_t* filter,
                 const int32_t* bias, int16_t* output) {
  direct::conv(params.shape, quantization(params, false), input, direct::Int8Filter{filter}, bias,
               output);
}

void portable_conv2d_int4(const ConvParams& params, const int8_t* input, const uint8_t* filter,
                 const int32_t* bias, int8_t* output) {
  direct::conv(params.shape, quantization(params, true), input, direct::PackedInt4Filter{filter},
               bias, output);
}

}  // namespace kernels
}  // namespace mote
