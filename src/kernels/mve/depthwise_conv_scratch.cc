// What the mve DEPTHWISE_CONV_2D kernel handles and needs, beside it (depthwise_conv.cc). In
// every build.
#include "mve/kernels.h"

namespace mote {
namespace kernels {
namespace mve {

bool depthwise_conv_handles(const DepthwiseShape& shape) { return shape.output_c == shape.input_c; }

size_t depthwise_conv_scratch_bytes(const DepthwiseShape&) { return 0; }

}  // namespace mve
}  // namespace kernels
}  // namespace mote
