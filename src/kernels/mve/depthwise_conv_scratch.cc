// What the mve DEPTHWISE_CONV_2D kernel handles and needs, beside it (depthwise_conv.cc). In
// every build.
#include "mve/kernels.h"

namespace mote {
namespace kernels {
namespace mve {

// Any depth multiplier (output_c a multiple of input_c).
bool depthwise_conv_handles(const DepthwiseShape& shape) {
  return shape.input_c > 0 && shape.output_c >= shape.input_c && shape.output_c % shape.input_c == 0;
}

size_t depthwise_conv_scratch_bytes(const DepthwiseShape&) { return 0; }

}  // namespace mve
}  // namespace kernels
}  // namespace mote
