// Which kernel variant runs an operator on each extension, and so the scratch to plan for it.
// Every extension runs the portable kernels today; a DSP or MVE variant that handles a shape
// returns its own size (beside its kernel) here.
#include "mote/kernels/scratch.h"

#include "mote/kernels/conv.h"

namespace mote {
namespace kernels {

const char* to_string(Extension extension) {
  switch (extension) {
    case Extension::kScalar: return "scalar";
    case Extension::kDsp: return "dsp";
    case Extension::kMve: return "mve";
  }
  return "unknown";
}

size_t conv_scratch_bytes(const ConvShape& shape, Extension extension) {
  return portable_conv_scratch_bytes(shape);
}

// The portable depthwise, fully connected, average pool and transpose-conv kernels need none.
size_t depthwise_conv_scratch_bytes(const DepthwiseShape& shape, Extension extension) { return 0; }
size_t fully_connected_scratch_bytes(int32_t output_depth, Extension extension) { return 0; }
size_t average_pool_scratch_bytes(int32_t channels, Extension extension) { return 0; }
TransposeConvScratch transpose_conv_scratch_bytes(const TransposeConvShape& shape,
                                                  Extension extension) {
  return {0, 0};
}

const char* conv_kernel_variant(const ConvShape& shape, Extension extension) { return "portable"; }
const char* kernel_variant(Extension extension) { return "portable"; }

}  // namespace kernels
}  // namespace mote
