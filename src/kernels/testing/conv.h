#pragma once
// A test-only CONV_2D variant (mote_add_kernels_library(VARIANTS testing), never in a product
// build). It stands in for a variant that needs more scratch than the portable kernel (as a
// Helium kernel's channel block would), so tests can build two variants with different needs.
// Its results are the portable kernel's.

#include "mote/kernels/conv.h"

namespace mote {
namespace kernels {
namespace testing_variant {

// The portable kernel's bytes plus one int32 per output channel.
size_t conv_scratch_bytes(const ConvShape& shape);
void conv2d(const ConvParams& params, const int8_t* input, const int8_t* filter, const int32_t* bias,
            int8_t* output, Scratch scratch);

}  // namespace testing_variant
}  // namespace kernels
}  // namespace mote
