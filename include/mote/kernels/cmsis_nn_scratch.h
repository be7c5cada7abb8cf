#pragma once
// CMSIS-NN's scratch sizes (its *_get_buffer_size functions, revision 99f736a6, built with gcc;
// shared/design/FACTS.md section 1): what TensorFlow Lite Micro with CMSIS-NN reserves for the
// same layers. For comparison in reports and tests only; Mote plans what its own kernels need
// (scratch.h). Embeddable C++17.

#include <stddef.h>
#include <stdint.h>

#include "mote/kernels/scratch.h"

namespace mote {
namespace kernels {
namespace cmsis_nn {

size_t conv_scratch_bytes(const ConvShape& shape, Extension extension);
size_t depthwise_conv_scratch_bytes(const DepthwiseShape& shape, Extension extension);
// 4 * output_depth on MVE (the kernel sums Mote keeps as constants).
size_t fully_connected_buffer_bytes(int32_t output_depth, Extension extension);
size_t average_pool_scratch_bytes(int32_t channels, Extension extension);
TransposeConvScratch transpose_conv_scratch_bytes(const TransposeConvShape& shape,
                                                  Extension extension);

}  // namespace cmsis_nn
}  // namespace kernels
}  // namespace mote
