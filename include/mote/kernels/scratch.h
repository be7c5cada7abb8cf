#pragma once
// Kernel shapes, the CPU extension, and the scratch each operator's kernel needs on it. The
// compiler plans these bytes into the arena; the runtime checks them at load and hands them to
// the kernel; kernels never need more.
// Embeddable C++17: no heap, no exceptions.

#include <stddef.h>
#include <stdint.h>

namespace mote {
namespace kernels {

// The CPU's vector extension, which decides the kernel variant and its scratch size.
enum class Extension : uint8_t {
  kScalar = 0,  // Cortex-M0, M0+, M3, M23
  kDsp = 1,     // Cortex-M4, M7, M33, M35P
  kMve = 2,     // Cortex-M55, M85 (Helium)
};

const char* to_string(Extension extension);

// Shapes are NHWC. Padding is the left/top amount TFLite computes.
struct ConvShape {
  int32_t batches, input_h, input_w, input_c;
  int32_t filter_h, filter_w, filter_c;  // filter [output_c, filter_h, filter_w, filter_c]
  int32_t output_h, output_w, output_c;
  int32_t stride_h, stride_w;
  int32_t pad_h, pad_w;
  int32_t dilation_h, dilation_w;
};

// Depthwise filter is [1, filter_h, filter_w, output_c]; output_c = input_c * depth multiplier.
struct DepthwiseShape {
  int32_t batches, input_h, input_w, input_c;
  int32_t filter_h, filter_w;
  int32_t output_h, output_w, output_c;
  int32_t stride_h, stride_w;
  int32_t pad_h, pad_w;
  int32_t dilation_h, dilation_w;
};

// Transpose conv filter is [output_c, filter_h, filter_w, input_c].
struct TransposeConvShape {
  int32_t batches, input_h, input_w, input_c;
  int32_t filter_h, filter_w;
  int32_t output_h, output_w, output_c;
  int32_t stride_h, stride_w;
  int32_t pad_h, pad_w;
};

// The kernel variants. src/kernels/portable/ is the reference and runs on every CPU; a variant
// folder (src/kernels/dsp/, src/kernels/mve/, named like the extension) replaces the kernel of an
// operator for the shapes it handles. A library is built for one set of variants (host: portable
// alone; firmware: portable and its extension's folder, see src/kernels/README.md). Every
// variant's scratch-size function is in every build, so the compiler on the host knows what will
// run on any extension; only the kernels themselves are in the builds that select them.
enum class Variant : uint8_t {
  kPortable = 0,
  kDsp = 1,
  kMve = 2,
  kTesting = 3,  // src/kernels/testing/: tests only, never chosen for an extension
};
const char* to_string(Variant variant);
// The variant folder a library built for `extension` adds to portable/ (kPortable: none).
Variant extension_variant(Extension extension);
// Whether this library was built with the variant's kernels (portable: always).
bool variant_built(Variant variant);

// The scratch bytes the kernel that runs on `extension` needs for a shape: the kernel a library
// built for `extension` picks (the first of its variants that handles the shape). The compiler
// plans these. (CMSIS-NN's sizes, for comparison: cmsis_nn_scratch.h.)
size_t conv_scratch_bytes(const ConvShape& shape, Extension extension);
size_t depthwise_conv_scratch_bytes(const DepthwiseShape& shape, Extension extension);
size_t fully_connected_scratch_bytes(int32_t output_depth, Extension extension);
size_t average_pool_scratch_bytes(int32_t channels, Extension extension);
// Transpose conv may need two buffers; the total is what the planner reserves.
struct TransposeConvScratch {
  size_t first;
  size_t second;
  size_t total() const { return first + second; }
};
TransposeConvScratch transpose_conv_scratch_bytes(const TransposeConvShape& shape,
                                                  Extension extension);

// The variant that runs an operator of these shapes on `extension` ("portable", "dsp", "mve"),
// for plan reports. Operators without a variant table run the portable kernel everywhere.
const char* conv_kernel_variant(const ConvShape& shape, Extension extension);
const char* depthwise_conv_kernel_variant(const DepthwiseShape& shape, Extension extension);
const char* fully_connected_kernel_variant(int32_t output_depth, Extension extension);
// The variant a build for `extension` names itself by in reports: "dsp" on the DSP extension
// (its folder holds kernels), else "portable" until its folder does.
const char* kernel_variant(Extension extension);

// What this library's own kernels run and need for a shape (whatever program they are given):
// the runtime refuses a program whose planned scratch is smaller.
size_t built_conv_scratch_bytes(const ConvShape& shape);
const char* built_conv_kernel_variant(const ConvShape& shape);
size_t built_depthwise_conv_scratch_bytes(const DepthwiseShape& shape);
const char* built_depthwise_conv_kernel_variant(const DepthwiseShape& shape);
size_t built_fully_connected_scratch_bytes(int32_t output_depth);
const char* built_fully_connected_kernel_variant(int32_t output_depth);

}  // namespace kernels
}  // namespace mote
