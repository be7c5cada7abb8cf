// What the dsp CONV_2D kernel handles and needs, beside it (conv.cc). In every build.
#include "dsp/kernels.h"
#include "portable/conv_internal.h"

namespace mote {
namespace kernels {
namespace dsp {

// Grouped convolution too. Filters of more than kMaxRowWindowRows rows stay portable: the im2col
// path looks a window's input rows up in a table of that many (whole maps and rings alike).
bool conv_handles(const ConvShape& shape) {
  return shape.filter_h <= kMaxRowWindowRows &&
         internal::whole_groups(shape.input_c, shape.filter_c, shape.output_c);
}

// The same as portable: nothing on the 1x1 path, else two int16 columns.
size_t conv_scratch_bytes(const ConvShape& shape) { return portable_conv_scratch_bytes(shape); }

OverlapRule conv_overlap(const ConvShape& shape) { return internal::portable_conv_overlap(shape); }

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
