// The test variant's scratch size, beside its kernel (conv.cc), as a DSP or MVE variant keeps it.
#include "testing/conv.h"

namespace mote {
namespace kernels {
namespace testing_variant {

size_t conv_scratch_bytes(const ConvShape& shape) {
  return portable_conv_scratch_bytes(shape) + static_cast<size_t>(shape.output_c) * sizeof(int32_t);
}

}  // namespace testing_variant
}  // namespace kernels
}  // namespace mote
