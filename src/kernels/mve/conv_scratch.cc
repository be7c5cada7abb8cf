// What the mve CONV_2D kernel handles and needs, beside it (conv.cc). In every build.
#include "mve/kernels.h"

namespace mote {
namespace kernels {
namespace mve {

// Grouped convolution too: input_c a multiple of filter_c (the groups), output_c a multiple of
// the groups.
bool conv_handles(const ConvShape& shape) {
  if (shape.filter_c == shape.input_c) return true;  // not grouped (the cheap test first)
  if (shape.filter_c <= 0 || shape.input_c < shape.filter_c || shape.input_c % shape.filter_c != 0) {
    return false;
  }
  return shape.output_c % (shape.input_c / shape.filter_c) == 0;
}

// Nothing on the 1x1 path (portable's test decides it), else four int8 columns (of one group
// when grouped): the same bytes as portable's two int16 columns.
size_t conv_scratch_bytes(const ConvShape& shape) {
  if (portable_conv_scratch_bytes(shape) == 0) return 0;
  return 4 * static_cast<size_t>(shape.filter_h) * shape.filter_w * shape.filter_c;
}

}  // namespace mve
}  // namespace kernels
}  // namespace mote
