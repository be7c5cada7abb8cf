// FULLY_CONNECTED with int16 activations (16x8) or int4 weights: direct loops (direct_window.h).

#include "mote/kernels/fully_connected.h"
#include "portable/direct_window.h"

namespace mote {
namespace kernels {

namespace {
template <typename Bias>
void fully_connected_16x8_with(const FullyConnectedParams& params, const int16_t* input,
                               const int8_t* filter, const Bias* bias, int16_t* output) {
  FullyConnectedParams p = params;
  p.input_offset = 0;  // int16 activations are symmetric; TFLite's kernel reads no offsets
  p.output_offset = 0;
  direct::fully_connected(p, input, direct::Int8Filter{filter}, bias, output);
}
}  // namespace

void portable_fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int64_t* bias, int16_t* output) {
  fully_connected_16x8_with(params, input, filter, bias, output);
}
void portable_fully_connected_16x8(const FullyConnectedParams& params, const int16_t* input,
                          const int8_t* filter, const int32_t* bias, int16_t* output) {
  fully_connected_16x8_with(params, input, filter, bias, output);
}

void portable_fully_connected_int4(const FullyConnectedParams& params, const int8_t* input,
                          const uint8_t* filter, const int32_t* bias, int8_t* output) {
  direct::fully_connected(params, input, direct::PackedInt4Filter{filter}, bias, output);
}

}  // namespace kernels
}  // namespace mote
