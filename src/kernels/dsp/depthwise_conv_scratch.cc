// What the dsp DEPTHWISE_CONV_2D kernel handles and needs, beside it (depthwise_conv.cc). In
// every build.
#include "dsp/kernels.h"

namespace mote {
namespace kernels {
namespace dsp {

// Any depth multiplier (output_c a multiple of input_c, as the runtime checks).
bool depthwise_conv_handles(const DepthwiseShape& shape) {
  return shape.input_c > 0 && shape.output_c >= shape.input_c && shape.output_c % shape.input_c == 0;
}

size_t depthwise_conv_scratch_bytes(const DepthwiseShape&) { return 0; }

OverlapRule depthwise_conv_overlap(const DepthwiseShape& shape) {
  return internal::portable_depthwise_conv_overlap(shape);
}

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
