// What the dsp CONV_2D kernel handles and needs, beside it (conv.cc). In every build.
#include "dsp/kernels.h"

namespace mote {
namespace kernels {
namespace dsp {

// Grouped convolution stays portable.
bool conv_handles(const ConvShape& shape) { return shape.filter_c == shape.input_c; }

// The same as portable: nothing on the 1x1 path, else two int16 columns.
size_t conv_scratch_bytes(const ConvShape& shape) { return portable_conv_scratch_bytes(shape); }

OverlapRule conv_overlap(const ConvShape& shape) { return internal::portable_conv_overlap(shape); }

}  // namespace dsp
}  // namespace kernels
}  // namespace mote
